package properties

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/vllm"
	"membudget/model"
	"membudget/model/modelgen"
)

// layerShapesDivide reports whether tp divides what the family's layers
// split among ranks beyond the heads and intermediate sizes: per-layer KV
// heads (Gemma 4's global layers), the delta net's and Mamba's heads and
// groups, Mamba1's channels.
func layerShapesDivide(a *model.Arch, tp uint64) bool {
	for _, l := range a.Layers {
		if l.KVHeads > 0 && l.KVHeads%tp != 0 && tp%l.KVHeads != 0 {
			return false
		}
	}
	if d := a.DeltaNet; d != nil && (d.NumKeyHeads%tp != 0 || d.NumValueHeads%tp != 0) {
		return false
	}
	if m := a.Mamba; m != nil && (m.NumHeads%tp != 0 || (m.NGroups%tp != 0 && m.NGroups != 1)) {
		return false
	}
	// Mamba1 divides its channels (mamba_mixer.py:91-159).
	if m := a.Mamba; m != nil && m.Version == 1 && m.Intermediate%tp != 0 {
		return false
	}
	return true
}

// genArch draws a config of any model_type modelgen draws, writes it as
// Python does and parses it with the real parser.
func genArch(t *rapid.T, label string) (string, *model.Arch) {
	cfg := modelgen.Config().Draw(t, label)
	data, err := modelgen.JSON(cfg)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	a, err := model.ParseConfig("gen.json", data)
	if err != nil {
		t.Fatalf("a generated valid config does not parse: %v\n%s", err, data)
	}
	return string(data), a
}

// hasState reports whether a has layers that keep per-sequence state
// (Mamba, gated delta nets, Falcon-H1's Mamba beside attention).
func hasState(a *model.Arch) bool {
	for _, l := range a.Layers {
		if l.Kind == model.Mamba || l.Kind == model.LinearAttention || l.MambaBeside {
			return true
		}
	}
	return false
}

// profiles are the vLLM profiles the serves are drawn under: one of each
// era of rules --vllm-version names, main first (what a counterexample
// shrinks to).
var profiles = vllm.Profiles()

// stateOnV1 is the first release whose V1 engine runs state layers
// (vLLM PR #23650): membudget refuses the older ones for such a model.
var stateOnV1 = vllm.Version{Major: 0, Minor: 10, Patch: 2}

// incFirst is the first release whose loading of an AutoRound (inc)
// checkpoint membudget reads (vLLM PR #31716; engine/vllm's incRelease):
// it refuses the older ones for such a model.
var incFirst = vllm.Version{Major: 0, Minor: 15, Patch: 0}

// genProfile draws a profile that runs a: any, but for a model with state
// layers the V0 engine and the releases before stateOnV1, and for an
// AutoRound checkpoint the releases before incFirst, which membudget
// refuses for it (main, first in profiles, always runs it).
func genProfile(t *rapid.T, a *model.Arch) vllm.Profile {
	if a.Encoder != nil || a.EncoderDecoder() || a.DeepSeekV4 != nil {
		// The pooling runner's, the encoder-decoder and DeepSeek-V4's
		// rules are read at main only.
		return profiles[0]
	}
	var ok []vllm.Profile
	for _, p := range profiles {
		if (!hasState(a) || p.Era == vllm.V1 && p.Release.AtLeast(stateOnV1)) && (a.Quant.Method != "inc" || p.Release.AtLeast(incFirst)) {
			ok = append(ok, p)
		}
	}
	return rapid.SampledFrom(ok).Draw(t, "profile")
}

// genUtilCeiling draws a class's util_ceiling: 1, or a ceiling below it.
func genUtilCeiling(t *rapid.T) float64 {
	return rapid.OneOf(rapid.Just(1.0), rapid.Float64Range(0.5, 0.99)).Draw(t, "util_ceiling")
}

// sizedClass draws a device class sized around the serve's own footprint
// under p, so that the queries' answers spread over nothing-fits, inside
// the range and capped, rather than piling up at the ends: the budget is
// the fixed ledger plus k sequences of a drawn length (k up to twice the
// sequence cap), the driver's fixed bytes around what the util leaves
// beside it; its util_ceiling is ceiling.
func sizedClass(t *rapid.T, a *model.Arch, s vllm.Serve, si budget.Silicon, p vllm.Profile, ceiling float64) budget.Class {
	link := rapid.SampledFrom(budget.Interconnects).Draw(t, "interconnect")
	probe := budget.Class{Name: "probe", Device: budget.Device{Name: "probe", Silicon: si, MemoryBytes: 1 << 50, Interconnect: link}, Memory: budget.DriverTerms{UtilCeiling: 1}}
	ref, err := vllm.NewReference(a, s, probe, p)
	if err != nil {
		t.Fatalf("a valid serve is refused under %s: %v", p.Name, err)
	}
	fixed := ref.Evaluate(0, 0).Footprint.Ledger
	length := rapid.Uint64Range(1, ref.Serve.MaxModelLen).Draw(t, "sizing_length")
	perSeq := ref.Evaluate(1, length).Footprint.Ledger - fixed
	k := rapid.Uint64Range(0, 2*ref.Serve.MaxNumSeqs).Draw(t, "sizing_seqs")
	b := fixed + k*perSeq + rapid.Uint64Range(0, perSeq).Draw(t, "sizing_jitter")
	memory := uint64(float64(b)/s.GPUMemoryUtilization) + 1
	beside := memory - uint64(float64(memory)*s.GPUMemoryUtilization)
	return budget.Class{
		Name:   "gen",
		Device: budget.Device{Name: "Generated GPU", Silicon: si, MemoryBytes: memory, Interconnect: link},
		Memory: budget.DriverTerms{
			DriverFixedBytes:     rapid.Uint64Range(0, beside+beside/4).Draw(t, "fixed"),
			DriverBudgetPerMille: rapid.Uint64Range(0, 20).Draw(t, "per_mille"),
			Unified:              rapid.Bool().Draw(t, "unified"),
			UtilCeiling:          ceiling,
		},
	}
}

// serveCase is a parsed architecture with a serve that Resolve accepts
// under Profile; Config, its config.json, comes first so that a
// counterexample reads.
type serveCase struct {
	Config  string
	Arch    *model.Arch
	Serve   vllm.Serve
	Class   budget.Class
	Profile vllm.Profile
	Ref     *vllm.Reference
}

func (c serveCase) String() string {
	return fmt.Sprintf("%s / %+v on %+v under %s", c.Arch, c.Serve, c.Class, c.Profile.Name)
}

// validTPs are the tensor parallelisms from which genServeCase draws those
// that divide the model: the powers of two and the degrees 3 and 6 that
// the divisor-rich head counts take.
var validTPs = []uint64{1, 2, 3, 4, 6, 8}

// shardable reports whether a loads at tensor parallelism tp (with expert
// parallelism when ep): heads, KV heads (unless MLA), the intermediate
// sizes (the experts' unless ep) and the shapes layerShapesDivide checks
// divide among the ranks.
func shardable(a *model.Arch, tp uint64, ep bool) bool {
	return a.Heads%tp == 0 && (a.MLA || a.KVHeads%tp == 0 || tp%a.KVHeads == 0) && a.Intermediate%tp == 0 && (ep || a.MoEIntermediate%tp == 0) &&
		a.SharedIntermediate%tp == 0 && layerShapesDivide(a, tp) && towerDivides(a, tp) &&
		// vLLM's MoE block raises for a TP above the experts (Arch.TPWithinExperts).
		(a.TPWithinExperts == "" || tp <= a.Experts) && dsv4Divides(a, tp, ep)
}

// towerDivides reports whether a's vision tower loads at tensor
// parallelism tp where vLLM asserts it: GLM-4.1V's and GLM-4.5V's tower
// divides its heads among the ranks (glm4_1v.py:284-296), and so does
// Phi-4-multimodal's SigLIP (idefics2_vision_model.py:146-148); a
// Qwen-VL tower divides its heads and its MLP's width in weights mode
// (qwen2_5_vl.py:364-369, linear.py:461-466, 683; engine/vllm
// qwenTowerDivides).
func towerDivides(a *model.Arch, tp uint64) bool {
	v := a.Vision
	switch {
	case v == nil:
		return true
	case v.Kind == "glm4v" || v.Kind == "phi4mm":
		return v.Heads%tp == 0
	case v.Kind == "qwen2_vl" || v.Kind == "qwen2_5_vl" || v.Kind == "qwen3_vl":
		return v.Heads%tp == 0 && v.Intermediate%tp == 0
	}
	return true
}

// genServeCase draws a config of any family modelgen draws, parses it
// with the real parser, draws a vLLM profile that runs it (genProfile) and
// serve settings that profile accepts for it: TP among validTPs that
// divide the heads, KV heads and intermediate sizes; lengths within the
// model's; no --kv-cache-memory-bytes where the profile has no such flag,
// no --async-scheduling where it has none, and under the V0 engine a
// batch that holds a whole prompt where chunked prefill is off; and a
// class sized around the serve (sizedClass) whose util_ceiling is 1 or
// below it, with the serve's util within it.
func genServeCase(maxSeqsCap, maxLenCap uint64) *rapid.Generator[serveCase] {
	return rapid.Custom(func(t *rapid.T) serveCase {
		data, a := genArch(t, "config")
		p := genProfile(t, a)
		// A model whose vLLM class cannot load its experts divided among
		// ranks (Arch.NoExpertParallel: DBRX's) is drawn without it.
		ep := a.Experts > 0 && a.NoExpertParallel == "" && rapid.Bool().Draw(t, "expert_parallel")
		var tps []uint64
		for _, tp := range validTPs {
			if shardable(a, tp, ep) {
				tps = append(tps, tp)
			}
		}
		if a.Encoder != nil && a.Encoder.SingleRank != "" {
			// vLLM's ModernBERT fails under tensor parallelism (refused,
			// tested in engine/vllm).
			tps = []uint64{1}
		}
		ceiling := genUtilCeiling(t)
		seqs := rapid.Uint64Range(1, maxSeqsCap).Draw(t, "max_num_seqs")
		maxPos := lengthOf(a)
		if a.Encoder != nil {
			maxPos = a.PositionLimit() // RoBERTa's positions start after the pad
		}
		maxLen := rapid.Uint64Range(1, min(maxPos, maxLenCap)).Draw(t, "max_model_len")
		minBatched := seqs
		if p.Era == vllm.V0 && !(maxLen > 32768 && a.SlidingLayers() == 0) || a.Encoder != nil {
			// The V0 engine without chunked prefill batches a whole prompt
			// (resolveV0Batch), as the pooling runner does an encoder's.
			minBatched = max(seqs, maxLen)
		}
		if a.EncoderDecoder() {
			// No chunked prefill, and one encoder input must fit a batch
			// (compute_mm_encoder_budget).
			minBatched = max(seqs, maxLen, a.Audio.SourcePositions)
		}
		asyncs := []engine.Switch{engine.Default, engine.Off}
		if p.Era == vllm.V1 && (p.AsyncByDefault || p.Release.AtLeast(vllm.Version{Major: 0, Minor: 10})) {
			asyncs = append(asyncs, engine.On)
		}
		s := vllm.Serve{
			GPUMemoryUtilization: rapid.Float64Range(0.05, ceiling).Draw(t, "util"),
			MaxModelLen:          maxLen,
			MaxNumSeqs:           seqs,
			MaxNumBatchedTokens:  rapid.Uint64Range(minBatched, max(minBatched, 16384)).Draw(t, "max_num_batched_tokens"),
			BlockSize:            drawBlockSize(t, p, []uint64{16, 32, 64, 128, 256}, "block_size"),
			KVCacheDtype:         rapid.SampledFrom([]string{"auto", "fp8", "bfloat16"}).Draw(t, "kv_cache_dtype"),
			TensorParallelSize:   rapid.SampledFrom(tps).Draw(t, "tp"),
			PipelineParallelSize: rapid.Uint64Range(1, maxStages(a, 4)).Draw(t, "pp"),
			DataParallelSize:     rapid.SampledFrom([]uint64{1, 2}).Draw(t, "dp"),
			EnableExpertParallel: ep,
			EnforceEager:         rapid.Bool().Draw(t, "enforce_eager"),
			AsyncScheduling:      rapid.SampledFrom(asyncs).Draw(t, "async"),
			CPUOffloadGiB:        float64(rapid.Uint64Range(0, 2).Draw(t, "cpu_offload_gib")) / 4,
			// A config only the checkpoint's code reads is served with it.
			TrustRemoteCode: a.Remote != nil,
		}
		s.PipelineParallelSize = cachedStages(a, s.PipelineParallelSize)
		if a.Indexer != nil {
			// DeepSeek V3.2's indexer takes blocks of 64 tokens only
			// (vllm/v1/attention/backends/mla/indexer.py:126-143).
			s.BlockSize = drawBlockSize(t, p, []uint64{64, 128, 256}, "block_size_indexer")
		}
		if rapid.Bool().Draw(t, "default_block") {
			s.BlockSize = 0 // the backend's, which for MLA depends on the silicon
		}
		if a.Encoder != nil || a.EncoderDecoder() {
			// vLLM's BertModel and Whisper are not SupportsPP; online
			// quantization of them is not modelled.
			s.PipelineParallelSize = 1
		} else if a.Quant.Method == "" && a.QuantizationRefused() == "" && rapid.Bool().Draw(t, "online_fp8") {
			s.Quantization = "fp8"
		}
		dsv4Serve(a, &s)
		si := dsv4Silicon(a, runnableOn(a, p, rapid.SampledFrom(silicons).Draw(t, "silicon")))
		if s.KVCacheDtype == "fp8" && si.Vendor == budget.NVIDIA && !si.AtLeast(8, 9) {
			s.KVCacheDtype = "auto" // vLLM refuses fp8 KV there: a setting error, tested elsewhere
		}
		if p.KVCacheMemoryFlag && a.Encoder == nil && rapid.Bool().Draw(t, "kv_cache_memory") {
			s.KVCacheMemoryBytes = rapid.Uint64Range(1<<20, 1<<34).Draw(t, "kv_cache_memory_bytes")
		}
		c := sizedClass(t, a, s, si, p, ceiling)
		s.KVCacheMemoryBytes = min(s.KVCacheMemoryBytes, c.Device.MemoryBytes)
		ref, err := vllm.NewReference(a, s, c, p)
		if err != nil {
			t.Fatalf("a valid serve is refused under %s: %v", p.Name, err)
		}
		return serveCase{data, a, s, c, p, ref}
	})
}

// drawBlockSize draws one of sizes that profile p's --block-size takes
// (its BlockSizeChoices), 0 (the default) when it takes none of them.
func drawBlockSize(t *rapid.T, p vllm.Profile, sizes []uint64, label string) uint64 {
	var ok []uint64
	for _, b := range sizes {
		if p.BlockSizeChoices == nil || slices.Contains(p.BlockSizeChoices, b) {
			ok = append(ok, b)
		}
	}
	if len(ok) == 0 {
		return 0
	}
	return rapid.SampledFrom(ok).Draw(t, label)
}

// runnableOn is si, or the nearest silicon vLLM runs a on when it refuses
// a there (a setting error, tested on its own): DeepSeek V3.2's sparse MLA
// has backends on Hopper and Blackwell only (vllm/platforms/cuda.py:
// 83-150), MXFP4 and ModelOpt FP8 need compute capability 8.0
// (mxfp4.py:60-64, modelopt.py:401-407), and W4A4 NVFP4 experts on 10.x
// before nvfp4TRTLLMDefault are refused by membudget (their MoE kernel is
// not settled), where Hopper runs them on Marlin.
func runnableOn(a *model.Arch, p vllm.Profile, si budget.Silicon) budget.Silicon {
	if si.Vendor != budget.NVIDIA {
		return si
	}
	if a.Indexer != nil && si.Major != 9 && si.Major != 10 {
		return budget.Silicon{Vendor: budget.NVIDIA, Major: 9}
	}
	if si.Major == 10 && p.Release.Less(nvfp4TRTLLMDefault) && a.Experts > 0 && a.Quant.W4A4NVFP4() {
		return budget.Silicon{Vendor: budget.NVIDIA, Major: 9}
	}
	needs80 := a.Quant.Method == "mxfp4" || a.Quant.Method == "modelopt" && strings.HasPrefix(a.Quant.Algo, "FP8")
	if needs80 && !si.AtLeast(8, 0) {
		return budget.Silicon{Vendor: budget.NVIDIA, Major: 8}
	}
	return si
}

// nvfp4TRTLLMDefault is the first release whose W4A4 NVFP4 experts on
// 10.x membudget sizes (vLLM PR #32414; engine/vllm/nvfp4.go).
var nvfp4TRTLLMDefault = vllm.Version{Major: 0, Minor: 16}

// silicons are the devices the generators size on: the backends, block
// sizes and dtypes vLLM picks differ between them.
var silicons = []budget.Silicon{
	{Vendor: budget.NVIDIA, Major: 9},           // Hopper: FlashAttention(-MLA)
	{Vendor: budget.NVIDIA, Major: 10},          // Blackwell: FlashInfer(-MLA)
	{Vendor: budget.NVIDIA, Major: 8, Minor: 9}, // Ada: Triton-MLA
	{Vendor: budget.NVIDIA, Major: 8},           // Ampere
	{Vendor: budget.NVIDIA, Major: 7, Minor: 5}, // Turing: no bfloat16, no fp8 KV
	{Vendor: budget.AMD, Target: "gfx942"},      // MI300X
}

// current is the profile of the properties that size under one (vLLM's
// main branch).
var current, _ = vllm.ProfileFor("main")

// genPoint draws (seqs, tokens) that reach the edges: 0, 1, block
// boundaries, the caps, and beyond.
func genPoint(t *rapid.T, c serveCase) (uint64, uint64) {
	bs := c.Ref.Serve.BlockSize
	s := rapid.OneOf(rapid.Uint64Range(0, 4), rapid.Uint64Range(0, c.Ref.Serve.MaxNumSeqs), rapid.Uint64Range(0, 1<<20)).Draw(t, "seqs")
	tok := rapid.OneOf(
		rapid.Uint64Range(0, 3),
		rapid.Custom(func(t *rapid.T) uint64 {
			// a block boundary, one before it or one after it
			v := bs*rapid.Uint64Range(0, 4096).Draw(t, "blocks") + rapid.Uint64Range(0, 2).Draw(t, "off")
			return budget.SatSub(v, 1)
		}),
		rapid.Uint64Range(0, c.Ref.Serve.MaxModelLen),
		rapid.Uint64Range(0, math.MaxUint32),
	).Draw(t, "tokens")
	return s, tok
}
