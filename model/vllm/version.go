package vllm

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"membudget/budget"
)

// Version is a vLLM release number, such as 0.19.0.
type Version struct{ Major, Minor, Patch int }

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
var versionPattern = regexp.MustCompile(`^v?(0)\.([0-9]{1,3})(?:\.([0-9]{1,3}))?(?:(?:rc|\.dev|\.post|\+|-)[0-9A-Za-z.+_-]*)?$`)

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
	V0 Era = iota // the V0 engine: vllm/worker/worker.py, one block table per layer
	V1            // the V1 engine: vllm/v1/worker/gpu_worker.py, KV cache groups
)

// Profile is the rules one vLLM version sizes memory by: its defaults, how it
// rounds the requested memory, what it charges to the KV budget, how it lays
// out and reports the KV cache. Every rule that differs between versions is
// a field, with the vLLM file it comes from.
type Profile struct {
	// Name is how --vllm-version names the profile.
	Name string
	// Describes says exactly which vLLM the profile models.
	Describes string
	// Release is the release the user asked for; zero for main.
	Release Version
	// Note says how the release was mapped when it is not one the profile
	// was read from (a release newer than the newest read).
	Note string
	Era  Era

	// DefaultUtil is --gpu-memory-utilization's default (vllm/config/cache.py).
	DefaultUtil float64
	// Rounding is how total x util becomes the requested memory
	// (vllm/v1/worker/utils.py request_memory: math.ceil on main).
	Rounding budget.Rounding
	// GraphsCharged says the CUDA-graph memory estimate comes off the KV
	// budget (gpu_worker.py determine_available_memory,
	// VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on by default); otherwise the
	// graphs are captured after the KV cache is sized, beside the budget.
	GraphsCharged bool
	// AsyncByDefault says async scheduling is on unless --no-async-scheduling:
	// sliding-window layers then keep two batches of tokens in flight.
	AsyncByDefault bool
	// LoggedTokensFromConcurrency says "GPU KV cache size" is logged as
	// int(max_concurrency x max_model_len) rather than blocks // groups x
	// block size (vllm/v1/core/kv_cache_utils.py _report_kv_cache_config).
	LoggedTokensFromConcurrency bool
	// LargeBatchTier says devices of 160 GiB or more get 16384 batched
	// tokens (engine/arg_utils.py get_batch_defaults).
	LargeBatchTier bool
	// MLABlockByBackend says MLA's default block size follows the
	// attention backend (16 with FlashAttention-MLA on SM90 and bf16 KV);
	// otherwise FlashMLA's 64.
	MLABlockByBackend bool
	// SwapSpaceFlag says --swap-space exists; RemovedSwapSpace names the
	// release that removed it.
	SwapSpaceFlag bool
	// KVCacheMemoryFlag says --kv-cache-memory-bytes exists.
	KVCacheMemoryFlag bool
	// AutoMaxModelLen says --max-model-len auto exists.
	AutoMaxModelLen bool

	peaks peakModel
}

// mainCommit is the vLLM commit the current profile was read from.
const mainCommit = "d18bb7b3908800f5e7f4c271de4eaf82d0f6f3e6"

// CurrentName is the name of the default profile.
const CurrentName = "main-2026-08-14"

// current is vLLM's main branch at commit d18bb7b (2026-08-14, PR #52237).
var current = Profile{
	Name:                        CurrentName,
	Describes:                   "vLLM main at commit d18bb7b (2026-08-14)",
	Era:                         V1,
	DefaultUtil:                 0.92, // vllm/config/cache.py:69 (PR #38284)
	Rounding:                    budget.Ceil,
	GraphsCharged:               true,
	AsyncByDefault:              true,
	LoggedTokensFromConcurrency: true,
	LargeBatchTier:              true,
	MLABlockByBackend:           true,
	SwapSpaceFlag:               false, // removed by PR #36216
	KVCacheMemoryFlag:           true,
	AutoMaxModelLen:             true,
	peaks:                       peaksCurrent,
}

// Profiles lists the profiles --vllm-version can name, newest first.
func Profiles() []Profile {
	return []Profile{current}
}

// ProfileFor returns the profile of vLLM version spec: "main" (or "" or
// "current" or the current profile's name) for the newest vLLM membudget has
// read, or a release number.
func ProfileFor(spec string) (Profile, error) {
	switch strings.ToLower(strings.TrimSpace(spec)) {
	case "", "main", "current", "latest", CurrentName:
		return current, nil
	}
	v, err := ParseVersion(spec)
	if err != nil {
		return Profile{}, &SettingError{Flag: "vllm-version", Value: spec,
			Reason: fmt.Sprintf("want main or a release such as 0.19.0 (profiles: %s)", profileNames())}
	}
	p := current
	p.Release = v
	p.Name = v.String()
	return p, nil
}

func profileNames() string {
	var names []string
	for _, p := range Profiles() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}
