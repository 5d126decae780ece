package vllm

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// Version is a vLLM release number, such as 0.19.0.
type Version struct{ Major, Minor, Patch int }

// String returns the release as vLLM numbers it: 0.19.0.
func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Less reports whether v is an earlier release than w.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

// AtLeast reports whether v is w or a later release.
func (v Version) AtLeast(w Version) bool { return !v.Less(w) }

// versionPattern reads a release as vLLM prints it: 0.19, 0.19.0, v0.11.0,
// 0.10.2+cu130, 0.13.0rc2.dev98, 0.8.5.post1. Development and pre-release
// suffixes count as the release they lead to.
var versionPattern = regexp.MustCompile(`^v?(0)\.([0-9]{1,3})(?:\.([0-9]{1,3}))?(?:(?:rc|\.dev|\.post|\+)[0-9A-Za-z.+_-]*)?$`)

// ParseVersion reads a vLLM release number.
func ParseVersion(s string) (Version, error) {
	m := versionPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Version{}, fmt.Errorf("%q is not a vLLM release such as 0.19.0", s)
	}
	var v Version
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	if m[3] != "" {
		v.Patch, _ = strconv.Atoi(m[3])
	}
	return v, nil
}

// Era is a vLLM engine generation: how the budget is measured and the KV
// cache laid out.
type Era int

// The engines vLLM has shipped.
const (
	V0 Era = iota // the V0 engine: vllm/worker/worker.py, one block table for every layer
	V1            // the V1 engine: vllm/v1/worker/gpu_worker.py, KV cache groups
)

// GraphRule says what a vLLM version does with its CUDA graphs' memory
// when it sizes the KV cache.
type GraphRule int

// The rules vLLM has had for CUDA-graph memory.
const (
	// GraphsBeside: the graphs are captured after the KV cache is sized,
	// beside the budget (vLLM up to 0.19; the V2 model runner on main).
	GraphsBeside GraphRule = iota
	// GraphsCharged: the estimate (profile_cudagraph_memory) comes off the
	// KV budget (vLLM 0.20 and later, on the V1 model runner).
	GraphsCharged
)

// CheckRule is how a version computes the KV memory one request of
// max_model_len needs, for its startup check and its estimate of the
// longest length that fits.
type CheckRule int

// The formulas of vLLM's startup check, oldest first.
const (
	CheckLayers     CheckRule = iota // the sum over layers of max_memory_usage_bytes (V1 up to 0.13)
	CheckFirstGroup                  // group size x the first group's blocks (0.14 to 0.18, PR #29431)
	CheckGroups                      // group size x every group's blocks (0.19 and later, PR #36030)
)

// Profile is the rules one vLLM version sizes memory by: its defaults, how
// it rounds the requested memory, what it charges to the KV budget, how it
// lays out and reports the KV cache. Every rule that differs between
// versions is a field, set from the release that changed it (see
// [ProfileFor]).
type Profile struct {
	// Name is how --vllm-version names the profile: main-2026-08-14, or the
	// release (0.19.0), with :v0 for the V0 engine.
	Name string
	// Describes says exactly which vLLM the profile models.
	Describes string
	// Release is the release the profile models (main: the release it
	// leads to).
	Release Version
	// Main says the profile is vLLM's main branch at commit d18bb7b.
	Main bool
	// Note says how the rules of a release whose own source membudget has
	// not read were set (see [ReleaseNote]).
	Note string
	Era  Era

	// DefaultUtil is --gpu-memory-utilization's default: 0.9, and 0.92
	// from 0.20.0 (vllm/config/cache.py:69, PR #38284).
	DefaultUtil float64
	// Rounding is how total x util becomes the requested memory: a float
	// product, and math.ceil from 0.14.0 (vllm/v1/worker/utils.py
	// request_memory, PR #29493).
	Rounding budget.Rounding
	// Graphs is what the version does with CUDA-graph memory for a model
	// on the V1 model runner; the V2 runner never charges it (see
	// [Profile.GraphsFor]).
	Graphs GraphRule
	// GraphEstimateLogged says the version prints "Estimated CUDA graph
	// memory" (0.18.0 and later, PR #30515).
	GraphEstimateLogged bool
	// AsyncByDefault says async scheduling is on unless
	// --no-async-scheduling (0.14.0 and later, PR #27614); AsyncWithPP says
	// it stays on under pipeline parallelism (0.15.0, PR #32359).
	AsyncByDefault, AsyncWithPP bool
	// InFlightWindow says sliding-window layers keep every batch in flight
	// (max_concurrent_batches x max_num_batched_tokens tokens beyond the
	// window) rather than one (0.25.0 and later, PR #47728;
	// vllm/v1/kv_cache_interface.py:618-654).
	InFlightWindow bool
	// LoggedTokensFromConcurrency says "GPU KV cache size" is logged as
	// int(max_concurrency x max_model_len) rather than blocks // groups x
	// block size (0.20.2 and later, PR #41069: see v0_20_2;
	// vllm/v1/core/kv_cache_utils.py:1848-1875).
	LoggedTokensFromConcurrency bool
	// TowersSkipped says every multimodal model leaves out a tower whose
	// every modality --limit-mm-per-prompt limits to 0 items
	// (_mark_tower_model, 0.15.0 and later; see towersSkippedSince).
	TowersSkipped bool
	// Check is the formula of the startup check.
	Check CheckRule
	// LargeBatchTier says devices of 160 GiB or more get 16384 batched
	// tokens (engine/arg_utils.py:2587, PR #51726, on main).
	LargeBatchTier bool
	// MLABlockByBackend says MLA's default block size follows the attention
	// backend's priority (FlashAttention-MLA, 16, first on Hopper; PR
	// #35122, 0.18.0); before, FlashMLA forced 64 on Hopper and CUTLASS-MLA
	// 128 on Blackwell (vllm/platforms/cuda.py, PR #14451).
	MLABlockByBackend bool
	// Float32AsBF16 says a float32 checkpoint is served in bfloat16 where
	// the device supports it (vllm/config/model.py _resolve_auto_dtype, PR
	// #18751, 0.10.0); before, in float16.
	Float32AsBF16 bool
	// SwapSpaceFlag says --swap-space exists (removed in 0.18.0, PR #36216);
	// SwapAllocated says the engine allocates it (V0 only).
	SwapSpaceFlag, SwapAllocated bool
	// KVCacheMemoryFlag says --kv-cache-memory-bytes exists (0.10.2 and
	// later, PR #21489).
	KVCacheMemoryFlag bool
	// AutoMaxModelLen says --max-model-len auto exists (0.14.0 and later,
	// PR #29431).
	AutoMaxModelLen bool
	// BlockSizeChoices is the --block-size values the release's CLI takes,
	// nil for any size above 0 (see [blockSizeChoices]).
	BlockSizeChoices []uint64
	// BlackwellCapture1024 says the default largest CUDA-graph capture size
	// is 1024 on data-centre Blackwell (compute capability 10.x) rather
	// than 512 (PR #49390, "Raise Blackwell CUDA graph capture default to
	// 1024", opened 2026-07-22; vllm/config/vllm.py:1936-1943 at d18bb7b).
	// Set for main and 0.28.0 on, whose branch was cut after 2026-08-14;
	// whether 0.27.x has it was not read, and it keeps 512.
	BlackwellCapture1024 bool
	// BnBPlugin says bitsandbytes is out of vLLM's tree: vLLM 0.28.0 moved it
	// to the vllm-bnb-plugin package (PR #43529; main d18bb7b has no
	// vllm/model_executor/layers/quantization/bitsandbytes.py, its tests
	// live in tests/plugins_tests/bitsandbytes), which loads the weights as
	// the in-tree method did. A bitsandbytes serve then starts only with the
	// plugin installed.
	BnBPlugin bool
	// V2EveryModel says the V2 model runner is the default for every
	// generative model, mixture-of-experts and hybrid included (PR #53183;
	// "MRV2 is now the default runner for all models" in the v0.29.0
	// release notes).
	V2EveryModel bool
	// V2GraphsCharged says the V2 model runner profiles its CUDA graphs and
	// their estimate comes off the KV budget, as V1's does (PR #53306,
	// merged 2026-08-24, "[Model Runner V2] Reserve CUDA graph memory",
	// vllm/v1/worker/gpu/model_runner.py profile_cudagraph_memory; listed
	// as new in the v0.29.0 release notes, so not in 0.28.0, released
	// 2026-08-26 from a branch cut before it). The charge is V1's estimate
	// (graphBytes): no 0.29 log has yet measured the V2 runner's own.
	V2GraphsCharged bool
	// v1Runner says a resolved serve runs on the V1 model runner whatever
	// the architecture: a speculative method the V2 runner does not
	// support (see [Resolved.resolveSpec]).
	v1Runner bool
	// v2Forced says VLLM_USE_V2_MODEL_RUNNER=1 runs a resolved serve on
	// the V2 model runner whatever the oracle would pick (see
	// [Resolved.resolveRunnerEnv]).
	v2Forced bool
	// ShardedSampling says the V2 runner samples batch-sharded under tensor
	// parallelism: each rank computes its vocabulary slice of every row's
	// logits and an all-to-all hands it the full vocabulary of 1/TP of the
	// rows, so the logits per rank fall by the TP size (PR #50465, merged
	// for 0.29.0, "Batch-Sharded Sampling" in its release notes).
	ShardedSampling bool
	// ConsumedSinceSnapshot says the worker takes off the KV budget the
	// device's free memory consumed since its startup snapshot plus the
	// profile run's transient peak, where it took the weights, the torch
	// peak increase and the non-torch growth (vLLM PR #49208, merged
	// 2026-07-20, vllm/utils/mem_utils.py memory_profiling; row 114 logs
	// its form on 0.26.1rc0, row 112 the earlier one on 0.26.0): every
	// persistent tensor made after the snapshot then comes off the KV
	// cache, the V2 runner's request state (v2state.go) and its
	// speculator's buffers (specv2.go) among them.
	ConsumedSinceSnapshot bool
	// DraftModelGraphs says a draft_model drafter captures PIECEWISE CUDA
	// graphs as an EAGLE drafter does (see specgraphs.go): PR #47460
	// (merged 2026-07-15) initialized its dispatcher's keys, without which
	// the dispatcher sends every batch eager. 0.27.0 is the first release
	// surely after it.
	DraftModelGraphs bool
	// KVGroupRatio is the ratio of a hybrid model's most to fewest layers
	// of one KV spec below which vLLM sizes its KV cache groups by the most
	// layers rather than the fewest, padding the smaller specs' groups
	// (_get_kv_cache_groups_uniform_page_size, vllm/v1/core/
	// kv_cache_utils.py:1214 at d18bb7b): 1.5 from 0.18.0 (PR #36684,
	// merged 2026-03-12, after 0.17.0's branch, which holds #36047 of
	// 03-05 and not #36216 of 03-07 (flagtable.go), and before 0.18.0's
	// cut of 03-16 (state.go); whether a 0.17 patch release picked it up
	// was not read); 1.25 from 0.12.0 (PR #29303, merged 2025-11-24;
	// 0.12.0 is the first minor release membudget places after it, neither
	// its branch cut nor the 0.11 patch releases read); 1 before, where the
	// group size was always the fewest (the hybrid allocator, PR #17996):
	// no count is below 1 x the fewest.
	KVGroupRatio float64
	peaks        peakModel
}

// The releases at which the rules changed, with the vLLM change that did.
var (
	v0_10_0 = Version{0, 10, 0} // float32 checkpoints served in bf16 (#18751)
	v0_10_2 = Version{0, 10, 2} // --kv-cache-memory-bytes (#21489)
	v0_12_0 = Version{0, 12, 0} // hybrid KV groups sized by the most layers below 1.25 x the fewest (#29303)
	v0_14_0 = Version{0, 14, 0} // async scheduling on (#27614); ceil(total x util) (#29493); auto max_model_len (#29431)
	v0_15_0 = Version{0, 15, 0} // async scheduling under pipeline parallelism (#32359)
	v0_16_0 = Version{0, 16, 0} // Qwen3's output-embedding LoRA (#29816)
	v0_17_0 = Version{0, 17, 0} // Triton top-k/top-p sampler: the profile's dummy sampler no longer sorts the vocabulary (#33538)
	v0_18_0 = Version{0, 18, 0} // CUDA-graph estimate printed (#30515); --swap-space removed (#36216); MLA block by backend (#35122); KV group ratio 1.5 (#36684)
	v0_19_0 = Version{0, 19, 0} // the startup check sums every group (#36030)
	v0_20_0 = Version{0, 20, 0} // graph estimate charged, util default 0.92 (#38284)
	// GPU KV cache size = concurrency x max_model_len (#41069, merged to
	// main as e68fa1b90 on 2026-04-28). vLLM tags its release candidates
	// on main: a build of main's 01d4d1ad3 reports 0.20.2rc1.dev9, so
	// v0.20.2rc1 is e6ff3e9c8 of 2026-05-02, which holds #41069, where
	// 0.20.1rc1.dev23 (de3da0b97, 2026-04-28) does not; corpus/observed/
	// vllm.csv row 209 (0.20.2) logs the concurrency form exactly, row 201
	// (0.20.1rc1.dev23) the earlier one. Whether the 0.20.1 release holds
	// it is not read: it keeps the earlier form.
	v0_20_2 = Version{0, 20, 2}
	v0_22_0 = Version{0, 22, 0} // V2 model runner default for dense Qwen3 (#39337)
	v0_23_0 = Version{0, 23, 0} // V2 runner default for dense Llama and Mistral (#43458)
	v0_24_0 = Version{0, 24, 0} // V2 runner default for quantized checkpoints (#44446)
	v0_25_0 = Version{0, 25, 0} // V2 runner default for every dense model (#44443); in-flight sliding window (#47728)
	v0_26_0 = Version{0, 26, 0} // Inkling on the V2 list (#48799); a generative model's head_dtype honoured (#48390)
	v0_26_1 = Version{0, 26, 1} // the free memory consumed since the startup snapshot charged (#49208)
	v0_27_0 = Version{0, 27, 0} // Kimi-K3 on the V2 list, a listed hybrid on V2 (#50000)
	v0_27_1 = Version{0, 27, 1} // the V2 speculator's decode graphs charged fused, the upper reading (specV2FusedDecode)
	v0_28_0 = Version{0, 28, 0} // the 160 GiB batch tier (#51726); DeepSeek-V4 on the V2 list (#51768)
	v0_29_0 = Version{0, 29, 0} // V2 runner for every model (#53183), its graphs charged (#53306), batch-sharded sampling (#50465)
	v0_30_0 = Version{0, 30, 0} // the first release whose rules membudget has not read (see unreadReleases)
	v0_8_0  = Version{0, 8, 0}  // V1 the default engine (#13726)
	v0_6_0  = Version{0, 6, 0}  // the oldest release profiled
	v0_6_5  = Version{0, 6, 5}  // V0: chunked prefill batches 2048 tokens (#10544)
)

// blockSizeChoices is the --block-size values release v's CLI takes (the
// choices of its parser, then the BlockSize literal of vllm/config/
// cache.py), nil for any size above 0:
//   - 8, 16, 32 before 0.7.0: the parser's choices, and 0.6.6, which let
//     64 and 128 through it (PR #11259), refused above 32 on CUDA until
//     PR #11723 (2025-01-05);
//   - 8 to 128 from 0.7.0 (1 too from PR #15893, for ROCm's AITER MLA);
//   - 256 too from 0.11.1 (PR #26883, merged 2025-10-16, after 0.11.0);
//   - any size from 0.18.0, where the literal became an int > 0 (PR
//     #35122, vllm/config/cache.py:50).
func blockSizeChoices(v Version) []uint64 {
	switch {
	case v.AtLeast(v0_18_0):
		return nil
	case v.AtLeast(Version{0, 11, 1}):
		return []uint64{1, 8, 16, 32, 64, 128, 256}
	case v.AtLeast(Version{0, 9, 0}):
		return []uint64{1, 8, 16, 32, 64, 128}
	case v.AtLeast(Version{0, 7, 0}):
		return []uint64{8, 16, 32, 64, 128}
	}
	return []uint64{8, 16, 32}
}

// kvGroupRatio is [Profile.KVGroupRatio] at release v.
func kvGroupRatio(v Version) float64 {
	switch {
	case v.AtLeast(v0_18_0):
		return 1.5 // PR #36684, kv_cache_utils.py:1214 at d18bb7b
	case v.AtLeast(v0_12_0):
		return 1.25 // PR #29303, kv_cache_utils.py:977 at 71df2a57e
	}
	return 1 // group_size = the fewest layers (PR #17996)
}

// mainRelease is the release main of 2026-08-14 leads to: 0.27.1 was out by
// 2026-08-13 and 0.28.0's branch was cut after it.
var mainRelease = v0_28_0

// CurrentName is the name of the default profile.
const CurrentName = "main-2026-08-14"

// mainDescribes names the vLLM the default profile was read from.
const mainDescribes = "vLLM main at commit d18bb7b (2026-08-14)"

// ProfileFor returns the profile of vLLM version spec: "main" (or "",
// "current", "latest" or the main profile's name) for vLLM's main branch at
// commit d18bb7b (2026-08-14), the newest source membudget has read; a
// release such as 0.19.0, from 0.6.0 (before 0.8.0 the V0 engine) to 0.29
// (see [ReleaseNote] for how 0.28 and 0.29 were read); a release with ":v0"
// for the V0 engine, which 0.8 to 0.10 still ran when asked
// (VLLM_USE_V1=0); or "v0" for the last release whose default was V0,
// 0.7.3. A release from 0.30.0 on is a *[engine.SettingError] naming what
// of its rules could not be read and the newest modelled release: its rules
// are not guessed.
func ProfileFor(spec string) (Profile, error) {
	s := strings.ToLower(strings.TrimSpace(spec))
	switch s {
	case "", "main", "current", "latest", CurrentName:
		p := profileAt(mainRelease, V1)
		p.Name, p.Describes, p.Main = CurrentName, mainDescribes, true
		return p, nil
	case "v0":
		s = "0.7.3:v0"
	}
	era := V1
	if rest, ok := strings.CutSuffix(s, ":v0"); ok {
		s, era = rest, V0
	}
	v, err := ParseVersion(s)
	if err != nil || v.Less(v0_6_0) {
		return Profile{}, &engine.SettingError{Flag: "vllm-version", Value: spec,
			Reason: "want main, a release from 0.6.0 to " + newestModelled.String() + " such as 0.19.0, a release with :v0 for the V0 engine (0.8.5:v0), or v0"}
	}
	if v.AtLeast(v0_30_0) {
		return Profile{}, &engine.SettingError{Flag: "vllm-version", Value: spec, Reason: unreadRelease(v)}
	}
	if v.Less(v0_8_0) {
		era = V0
	}
	if era == V0 && v.AtLeast(Version{0, 11, 0}) {
		return Profile{}, &engine.SettingError{Flag: "vllm-version", Value: spec, Reason: "vLLM 0.11.0 removed the V0 engine (PR #25321)"}
	}
	p := profileAt(v, era)
	p.Name = v.String()
	p.Describes = "vLLM " + v.String()
	if era == V0 {
		p.Name += ":v0"
		p.Describes += " (V0 engine)"
	}
	p.Note = ReleaseNote(v)
	return p, nil
}

// newestModelled is the newest vLLM release [ProfileFor] sizes.
var newestModelled = Version{0, 29, 0}

// ReleaseNote says how the rules of release v were read when they were not
// read from its own source, and "" when they were: 0.28 is main of
// 2026-08-14 (d18bb7b), whose commits its branch carries; 0.29 is that
// main with the memory changes its release notes name, each read from its
// pull request.
func ReleaseNote(v Version) string {
	switch {
	case v.AtLeast(v0_29_0):
		return fmt.Sprintf("vLLM %s is sized with the rules of %s and the memory changes the v0.29.0 release notes name, read from their pull requests: the V2 model runner for every model (#53183), its CUDA graphs charged to the KV budget (#53306), batch-sharded sampling (#50465); its own source was not read", v, mainDescribes)
	case v.AtLeast(v0_28_0):
		return fmt.Sprintf("vLLM %s is sized with the rules of %s, from which 0.28.0's branch was cut (released 2026-08-26 at commit 2cf0a69); the V2 runner's graph reservation (#53306) came in 0.29.0", v, mainDescribes)
	}
	return ""
}

// unreadRelease is why release v, from 0.30.0 on, is refused: what of its
// memory rules could not be read (see [unreadReleases]), then the newest
// release membudget models.
func unreadRelease(v Version) string {
	why := unreadLater
	for _, u := range unreadReleases {
		if v.Minor == u.minor {
			why = u.why
		}
	}
	return fmt.Sprintf("vLLM %s's memory rules are not read: %s; the newest release membudget models is %s (--vllm-version %s)", v, why, newestModelled, newestModelled)
}

// unreadReleases says, for each vLLM minor release after the newest
// modelled, what could not be read of the memory rules it changed. None of
// their sources could be read: the files of vllm-project/vllm stored after
// August 2026 are versions of unknown date, no one of them tied to a
// release tag, the mirror of main (jsboige/vllm) holds no upstream commit
// after 6adad08 (2026-08-14), five commits past d18bb7b that touch no rule
// membudget reads, and no vLLM fork whose whole tree could be fetched goes
// past 2026-08-22, before 0.28.0 was released (searched again 2026-12-05;
// docs/vllm.md, "Releases after 0.29"). Their release notes were read
// where found: 0.30.0's as a third-party digest of its highlights (vllm
// "releases" summary, last updated 2026-10-01), the later ones not at all.
// docs/vllm.md lists each release's memory-relevant changes.
var unreadReleases = []struct {
	minor int
	why   string
}{
	{30, "no 0.30 source could be read, and 0.30.0's release notes (2026-09-22) only as a digest of their highlights, whose memory changes membudget has not read: " +
		"YaRN's derived max_model_len no longer multiplied by the factor (#56446, read from its description only), " +
		"NVFP4 W4A16 weights on Marlin by default on SM100/103, W4A16 DSA with an nvfp4_fp8_ds_mla KV cache, " +
		"the HiSparse host-resident KV tier (#53781), the Fast Start weight daemon (--load-format ipc_cache, #54921), " +
		"GPTQ's g_idx activation ordering removed; nor is it known whether fp8 KV by default for quantized GLM-5 (#53138, opened 2026-08-20) shipped in 0.29, 0.30 or later"},
	{31, "neither a 0.31 source nor 0.31.0's release notes (2026-10-05) could be read, beyond a summary naming a weight-cache daemon CLI and changes to prefix caching; " +
		"0.30.0's unread changes carry into it, and the releases that carry #60023 (a change to --kv-cache-dtype-skip-layers, a flag vLLM has had since 0.19, #33695), fp8 KV for quantized GLM (#60140) and sleep mode releasing the graph pool (#59160) is not known"},
	{32, "neither a 0.32 source nor 0.32.0's release notes could be read; the v0.29.0 notes target for 0.32 the removal of the V1 model runner, on whose graph estimate and sampler membudget sizes the serves the V2 runner does not run; " +
		"0.30 and 0.31's unread changes carry into it"},
	{33, "neither a 0.33 source nor 0.33.0's release notes (2026-11) could be read; vllm-torchtpu's v0.33.0 notes (2026-11-17) say 0.33.0 moved KV cache planning to vllm.v1.core.kv_cache_planning and tags draft KV specs is_draft; " +
		"0.30 to 0.32's unread changes carry into it"},
}

// unreadLater is why a release after 0.33 is refused.
const unreadLater = "no vLLM release after 0.33.0 (2026-11, the newest on the package index when membudget's profiles were written) is known to membudget"

// profileAt builds the rules of release v's engine era.
func profileAt(v Version, era Era) Profile {
	p := Profile{Release: v, Era: era,
		DefaultUtil:                 0.9,
		Rounding:                    budget.Truncate,
		Graphs:                      GraphsBeside,
		GraphEstimateLogged:         v.AtLeast(v0_18_0),
		AsyncByDefault:              era == V1 && v.AtLeast(v0_14_0),
		AsyncWithPP:                 era == V1 && v.AtLeast(v0_15_0),
		InFlightWindow:              era == V1 && v.AtLeast(v0_25_0),
		LoggedTokensFromConcurrency: era == V1 && v.AtLeast(v0_20_2),
		TowersSkipped:               v.AtLeast(towersSkippedSince),
		Check:                       CheckLayers,
		LargeBatchTier:              v.AtLeast(v0_28_0),
		MLABlockByBackend:           v.AtLeast(v0_18_0),
		Float32AsBF16:               v.AtLeast(v0_10_0),
		SwapSpaceFlag:               v.Less(v0_18_0),
		SwapAllocated:               era == V0,
		KVCacheMemoryFlag:           era == V1 && v.AtLeast(v0_10_2),
		AutoMaxModelLen:             era == V1 && v.AtLeast(v0_14_0),
		BlockSizeChoices:            blockSizeChoices(v),
		BnBPlugin:                   v.AtLeast(v0_28_0),
		BlackwellCapture1024:        era == V1 && v.AtLeast(v0_28_0),
		V2EveryModel:                era == V1 && v.AtLeast(v0_29_0),
		V2GraphsCharged:             era == V1 && v.AtLeast(v0_29_0),
		ShardedSampling:             era == V1 && v.AtLeast(v0_29_0),
		ConsumedSinceSnapshot:       era == V1 && v.AtLeast(v0_26_1),
		DraftModelGraphs:            era == V1 && v.AtLeast(draftModelGraphsSince),
		KVGroupRatio:                kvGroupRatio(v),
		peaks:                       peaksFor(v, era),
	}
	if era == V1 && v.AtLeast(v0_20_0) {
		p.DefaultUtil = 0.92
		p.Graphs = GraphsCharged
	}
	if era == V1 && v.AtLeast(v0_14_0) {
		p.Rounding = budget.Ceil
		p.Check = CheckFirstGroup
	}
	if era == V1 && v.AtLeast(v0_19_0) {
		p.Check = CheckGroups
	}
	return p
}

// V2Runner says the profile's vLLM runs the generative model a on its V2
// model runner by default: as release by release the oracle decides it
// (see [V2Architectures] and v2oracle.go), dense Qwen3 from 0.22.0, dense
// Llama and Mistral from 0.23.0, the MoE architectures vLLM lists and
// quantized checkpoints from 0.24.0, every dense model from 0.25.0, every
// model from 0.29.0 (PR #53183).
func (p Profile) V2Runner(a *model.Arch) bool {
	return p.v2Runner(a, func() uint64 { s, _ := stateLayers(a); return s })
}

// v2Runner is [Profile.V2Runner] with a's state layers counted by states,
// called only where the decision needs them.
func (p *Profile) v2Runner(a *model.Arch, states func() uint64) bool {
	return p.v2RunnerBy(func() bool { return v2DefaultModel(p.Release, a, states) })
}

// v2RunnerBy is [Profile.v2Runner] with the oracle's answer for the model
// given by defaultModel, asked only where the profile leaves it to decide.
func (p *Profile) v2RunnerBy(defaultModel func() bool) bool {
	if p.Era != V1 || p.Release.Less(v0_22_0) || p.v1Runner {
		return false
	}
	if p.V2EveryModel || p.v2Forced {
		return true
	}
	return defaultModel()
}

// GraphsFor is what the profile's vLLM does with a's CUDA-graph memory:
// up to 0.28 the V2 model runner's profile_cudagraph_memory returns 0
// (vllm/v1/worker/gpu/model_runner.py:835-837 at d18bb7b), so its graphs
// stay beside the budget; from 0.29.0 it profiles them and they are charged
// (PR #53306).
func (p Profile) GraphsFor(a *model.Arch) GraphRule { return p.graphsOn(p.V2Runner(a)) }

// graphsOn is [Profile.GraphsFor] for a serve that runs on the V2 model
// runner or not, for a caller that has decided the runner itself (the
// pooling runner stays on V1, [Resolved.onV2Runner]).
func (p Profile) graphsOn(v2 bool) GraphRule {
	if v2 && !p.V2GraphsCharged {
		return GraphsBeside
	}
	return p.Graphs
}

// Profiles lists a profile of each era --vllm-version can name, newest
// first: what the README's version table describes.
func Profiles() []Profile {
	var out []Profile
	for _, spec := range []string{"main", "0.29.0", "0.28.0", "0.21.0", "0.20.0", "0.19.0", "0.17.0", "0.14.0", "0.10.2", "0.8.5:v0"} {
		p, _ := ProfileFor(spec)
		out = append(out, p)
	}
	return out
}
