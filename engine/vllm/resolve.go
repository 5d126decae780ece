package vllm

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// Bounds that keep every product of the ledger far from 2^64 while admitting
// any real serve.
const (
	maxParallel      = 1024
	maxBatchedTokens = 1 << 24
	maxNumSeqs       = 1 << 20
	maxGiBSetting    = 1 << 20
	maxBlockSize     = 1 << 16
)

// Resolved is a [Serve] with every default of its profile applied and
// checked against the architecture and the class.
type Resolved struct {
	Serve
	Profile Profile
	// ChunkedOff says the serve prefills without chunking: a batch holds
	// whole prompts (see chunked.go).
	ChunkedOff   bool
	DtypeBytes   uint64
	KVDtypeBytes uint64
	Quant        model.Quant
	// Async says async scheduling is on; MaxConcurrentBatches is the batches
	// in flight; InFlightTokens the tokens beyond its window a
	// sliding-window layer keeps for them.
	Async                bool
	MaxConcurrentBatches uint64
	InFlightTokens       uint64
	// SwapGiB is the CPU swap space the engine allocates per GPU (the V0
	// engine only).
	SwapGiB float64
	// Stages is the decoder layers of each pipeline stage, as vLLM's
	// get_pp_indices splits them.
	Stages []model.Sharding
	// ExpertRanks is the ranks experts are divided among (TP x DP with
	// --enable-expert-parallel on a mixture-of-experts model, else 1).
	ExpertRanks uint64
	// MaxLenLimit is the longest max_model_len the model allows, as vLLM
	// derives it from the config's length keys and rope scaling; MaxLenKey
	// is the key it comes from.
	MaxLenLimit uint64
	MaxLenKey   string
	// FP8DSMLA says the MLA latent is kept in the fp8_ds_mla format of 656
	// bytes a token: DeepSeek V3.2's sparse attention with an fp8 KV cache
	// on Hopper, where FlashMLA-Sparse is the backend that takes fp8 ("Using
	// fp8_ds_mla KV cache format for FLASHMLA_SPARSE backend",
	// vllm/model_executor/layers/attention/mla_attention.py:347-360,
	// 468-479); FlashInfer-MLA-Sparse keeps standard fp8 on Blackwell
	// (:481-489).
	FP8DSMLA bool
	// KVCacheDtypeString is the cache dtype string vLLM's attention backend
	// selection sees: --kv-cache-dtype as given, or for auto the
	// checkpoint's, which resolve_kv_cache_dtype_string maps from a
	// ModelOpt kv_cache_quant_algo FP8 to "fp8_e4m3" (vllm/utils/
	// torch_utils.py:66-69, 427-509, called from vllm/engine/arg_utils.py:
	// 1991) and a compressed-tensors kv_cache_scheme sets to "fp8"
	// (vllm/model_executor/layers/attention/attention.py:275-285).
	KVCacheDtypeString string
	// BlockSize is the block size vLLM uses: the given --block-size
	// (Serve.BlockSize, which it shadows: 0 when not given), or the one
	// vLLM derives, raised for a hybrid's state. The serve keeps what was
	// given, so that a serve resolved again (advice, a reference) derives
	// again rather than pin a derived size: the launch line pins only a
	// given one, since a pinned size also steers vLLM's choice of
	// attention backend (vllm/v1/attention/selector.py:131-135) and a
	// derived hybrid size may be one the release's command line refuses.
	BlockSize uint64
	// KVSkipLayers is the layers whose KV cache keeps the model's dtype
	// under --kv-cache-dtype-skip-layers, ascending; nil without it (see
	// [Resolved.resolveSkipLayers]).
	KVSkipLayers []int
	// SkipPagePadded is vLLM's skip_page_size_padded: the shared page, in
	// bytes a block on a rank, that sliding-window layers are padded to
	// when skipped layers take a larger page (from 0.25.0); 0 when none.
	SkipPagePadded uint64
	// skipSWBlock is the kernel block of a sliding layer under
	// SkipPagePadded: [kept in the KV dtype, skipped].
	skipSWBlock [2]uint64

	// PrefixCaching is enable_prefix_caching as vLLM resolves it.
	PrefixCaching bool
	// MambaCacheMode is vLLM's mamba_cache_mode for a model with state
	// layers: "align" under prefix caching, "none" without; "" for a model
	// without state layers.
	MambaCacheMode string
	// StatePages is the blocks a sequence keeps in each state layer: 2 in
	// align mode, 1 in none (MambaSpec.max_memory_usage_bytes,
	// vllm/v1/kv_cache_interface.py:768-777).
	StatePages uint64
	// MambaBlockSize is vLLM's mamba_block_size: the tokens a state block
	// stands for (the block size in align mode, max_model_len in none).
	MambaBlockSize uint64
	// UnraisedMambaBlock is mamba_block_size in align mode on a pipeline
	// stage that holds no attention layer, which skips the hybrid raise
	// (see [Resolved.noAttentionStage]): the block size before the raise.
	UnraisedMambaBlock uint64
	// StateConvBytes and StateSSMBytes are the bytes of an element of the
	// conv and the SSM state.
	StateConvBytes, StateSSMBytes uint64
	// StatePageBytes is one state layer's state of one sequence on one
	// rank (MambaSpec's page); StatePagePadded is its page in the block
	// pool once padded to the attention page, 0 when not padded.
	StatePageBytes, StatePagePadded uint64

	// LoRAHostBytes is the LoRA adapters each GPU's worker caches in host
	// memory at most (see loraHostBytes).
	LoRAHostBytes uint64
	// OffloadHostBytes is the pinned host memory of one GPU's worker for
	// --kv-offloading-size at most (see resolveOffload).
	OffloadHostBytes uint64
	// All2AllBytes is the all-to-all backend's buffers on each GPU (see
	// resolveAll2All).
	All2AllBytes uint64
	// Transfer is what --kv-transfer-config holds that membudget sizes
	// (see kvhost.go).
	Transfer KVTransfer
	// RedundantExperts is --eplb-config's num_redundant_experts under
	// --enable-eplb, EPLBWindow its window_size, and EPLBReserves says
	// the profile run reserves the communicator's buffers (see eplb.go).
	RedundantExperts, EPLBWindow uint64
	EPLBReserves                 bool

	// Encoder is what the profile run does with a multimodal model's
	// encoder; MMHostBytes the processor cache in host memory (see
	// multimodal.go).
	Encoder     EncoderProfile
	MMHostBytes uint64
	// EncoderPass is the profile run's pass of Encoder's dummy items
	// through the vision tower (encoderpass.go).
	EncoderPass EncoderPass

	// Spec is the serve's speculative decoding as resolved (see
	// [Resolved.resolveSpec]); its zero value is none.
	Spec Speculative

	// CaptureCeiling is the largest CUDA-graph capture size vLLM takes by
	// default on the device: 512, or 1024 on data-centre Blackwell under
	// [Profile.BlackwellCapture1024]; 0 reads as 512.
	CaptureCeiling uint64

	// Graphs is the CUDA graphs vLLM captures (see [Resolved.resolveGraphs]).
	Graphs Graphs

	// Collectives is what tensor parallelism sets up for its all-reduces
	// on the class's interconnect (see [Resolved.resolveCollectives]).
	Collectives Collectives

	// SMCount is the class's SMs (budget.Device.SMCount): what the Triton
	// top-k/top-p buffer's rows are capped at (tritonBufferRows); 0 when
	// the class does not say.
	SMCount uint64

	// EncoderTokens is an encoder-decoder model's max_source_positions:
	// the encoder tokens a request cross-attends to (encdec.go); 0 for
	// any other model.
	EncoderTokens uint64

	// Sources says where each defaulted setting came from, by flag name.
	Sources Sources
	// stateLayersPlus1 is the model's state layers (stateLayers) plus one,
	// as Resolve counted them, and attentionLayers its attention layers;
	// 0 for a Resolved it did not make (see layerCounts).
	stateLayersPlus1, attentionLayers uint64
	// unified says the class is a unified-memory device, where vLLM reads
	// its free memory from the host and charges the host memory its worker
	// takes after the startup snapshot (unifiedhost.go).
	unified bool
	// runnerMaxLen is the max_model_len vLLM's runner was built with when
	// --max-model-len auto fitted a shorter one after the profile (see
	// autoFitMaxModelLen); 0 when MaxModelLen is it.
	runnerMaxLen uint64
	// v2Model is the oracle's answer for the model ([v2DefaultModel]),
	// given once by Resolve: it depends on the release and the model alone,
	// and every stage of a compile asks ([Resolved.onV2Runner]).
	v2Model bool
}

// layerCounts returns a's state and attention layers (see stateLayers),
// counted once by Resolve: every resolve step asks, and a plan resolves
// thousands of serves of one model.
func (r *Resolved) layerCounts(a *model.Arch) (state, attention uint64) {
	if r.stateLayersPlus1 == 0 {
		return stateLayers(a) // a Resolved not made by Resolve
	}
	return r.stateLayersPlus1 - 1, r.attentionLayers
}

// Resolve applies profile p's defaults for a on class c and checks the
// settings against each other, the model and the device; every error is a
// *[engine.SettingError] naming the flag.
func Resolve(s Serve, a *model.Arch, c budget.Class, p Profile) (Resolved, error) {
	states, attention := stateLayers(a)
	return resolveCounted(s, a, c, p, states, attention, nil)
}

// resolveCounted is Resolve with a's state and attention layers counted
// (see stateLayers): a [Compiler] counts them once for every serve it
// resolves.
func resolveCounted(s Serve, a *model.Arch, c budget.Class, p Profile, states, attention uint64, whys *batchWhys) (Resolved, error) {
	r := Resolved{Serve: s, Profile: p, Sources: make(Sources, 0, 12)}
	def := r.Sources.Set
	r.stateLayersPlus1, r.attentionLayers = states+1, attention
	r.v2Model = v2DefaultModel(p.Release, a, func() uint64 { return states })
	r.SMCount = c.Device.SMCount

	if err := r.resolveMemory(c, def); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveParallel(a, def); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveRunnerEnv(a); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveV2Features(a); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveSpec(a, c, def); err != nil {
		return Resolved{}, err
	}
	if err := r.refuseV2Undecided(a); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveLengths(a, c, def, whys); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveRunner(a, def); err != nil {
		return Resolved{}, err
	}
	if err := r.checkPrefillLimits(); err != nil {
		return Resolved{}, err
	}
	if err := r.refuseForcedV2Pooling(); err != nil {
		return Resolved{}, err
	}
	if err := r.finishSpec(a); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveDtypes(a, c, def); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveHeadDtype(a); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveBlockSize(a, c, def); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveSkipLayers(a); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveState(a, def); err != nil {
		return Resolved{}, err
	}
	if err := r.refuseAlignWithoutChunks(); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveLoRA(a, def); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveGraphs(a); err != nil {
		return Resolved{}, err
	}
	if err := r.refuseColdUnmodelled(); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveDraftGraphs(); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveOverride(); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveOffload(def); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveEPLB(a); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveRemoteCode(a); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveMM(a); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveGemma3n(a); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveCollectives(c); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveAll2All(a); err != nil {
		return Resolved{}, err
	}
	if err := r.resolveKVTransfer(a); err != nil {
		return Resolved{}, err
	}
	return r, nil
}

func (r *Resolved) resolveMemory(c budget.Class, def func(string, string)) error {
	p := r.Profile
	r.unified = c.Memory.Unified
	r.CaptureCeiling = maxCaptureSize
	if p.BlackwellCapture1024 && c.Device.Silicon.Vendor == budget.NVIDIA && c.Device.Silicon.Major == 10 {
		// current_platform.is_device_capability_family(100).
		r.CaptureCeiling = blackwellCaptureSize
	}
	switch u := r.GPUMemoryUtilization; {
	case u == 0:
		r.GPUMemoryUtilization = p.DefaultUtil
		def("gpu-memory-utilization", "vLLM's default "+strconv.FormatFloat(p.DefaultUtil, 'g', -1, 64)+" (vllm/config/cache.py, "+p.Describes+")")
	case math.IsNaN(u) || u <= 0 || u > 1:
		return settingErr("gpu-memory-utilization", u, "must be in (0, 1]")
	}
	if r.KVCacheMemoryBytes > 0 && !p.KVCacheMemoryFlag {
		return settingErr("kv-cache-memory-bytes", r.KVCacheMemoryBytes, "%s has no such flag", p.Describes)
	}
	if r.KVCacheMemoryBytes > c.Device.MemoryBytes {
		return settingErr("kv-cache-memory-bytes", r.KVCacheMemoryBytes, "more than the %d bytes of %s", c.Device.MemoryBytes, c.Name)
	}
	if r.SwapSpaceGiB != nil {
		v := *r.SwapSpaceGiB
		if !p.SwapSpaceFlag {
			return settingErr("swap-space", v, "%s has no --swap-space: vLLM PR #36216 removed it in 0.18.0; V1 keeps no CPU swap blocks", p.Describes)
		}
		if math.IsNaN(v) || v < 0 || v > maxGiBSetting {
			return settingErr("swap-space", v, "want a size in GiB, 0 or more")
		}
		if p.SwapAllocated {
			r.SwapGiB = v
		}
	} else if p.SwapAllocated {
		// vllm/engine/arg_utils.py (V0): swap_space = 4 GiB per GPU, the CPU
		// blocks "# CPU blocks" counts.
		r.SwapGiB = 4
		def("swap-space", "the V0 engine's default 4 GiB of CPU KV blocks per GPU")
	}
	if v := r.CPUOffloadGiB; math.IsNaN(v) || v < 0 || v > maxGiBSetting {
		return settingErr("cpu-offload-gb", v, "want a size in GiB, 0 or more")
	}
	return nil
}

func (r *Resolved) resolveParallel(a *model.Arch, def func(string, string)) error {
	const why = "vLLM's default 1"
	// cmp.Or returns the first refusal.
	if err := cmp.Or(
		engine.ResolveDegree("tensor-parallel-size", &r.TensorParallelSize, maxParallel, def, why),
		engine.ResolveDegree("pipeline-parallel-size", &r.PipelineParallelSize, maxParallel, def, why),
		engine.ResolveDegree("data-parallel-size", &r.DataParallelSize, maxParallel, def, why),
	); err != nil {
		return err
	}
	tp, pp := r.TensorParallelSize, r.PipelineParallelSize
	// vllm/config/model.py:1375-1382 verify_with_parallel_config.
	if err := engine.CheckHeads(a, tp, "tensor-parallel-size", engine.ShardCites{}); err != nil {
		return err
	}
	if pp > uint64(len(a.Layers)) {
		return settingErr("pipeline-parallel-size", pp, "more stages than the %d layers of %s", len(a.Layers), a.Source)
	}
	r.ExpertRanks = 1
	if r.EnableExpertParallel && a.Experts > 0 {
		// vllm/config/parallel.py: the expert-parallel group is the
		// tensor-parallel ranks of every data-parallel rank.
		r.ExpertRanks = tp * r.DataParallelSize
		if a.NoExpertParallel != "" && r.ExpertRanks > 1 {
			return settingErr("enable-expert-parallel", "", "%s", a.NoExpertParallel)
		}
	}
	r.Stages = pipelineStages(len(a.Layers), int(pp))
	return refuseCachelessStage(a, r.Stages, pp)
}

// pipelineStages splits n layers among pp stages as vLLM's get_pp_indices
// does (vllm/distributed/utils.py): n/pp each, and the remainder one each
// to the stages before the last, from the second-to-last backwards.
func pipelineStages(n, pp int) []model.Sharding {
	parts := make([]int, pp)
	for i := range parts {
		parts[i] = n / pp
	}
	for i := 2; i < n%pp+2; i++ {
		parts[pp-i]++
	}
	return model.Stages(parts)
}

// resolveV0Batch applies the V0 engine's batch defaults (vllm/config.py
// SchedulerConfig, engine/arg_utils.py at v0.6-v0.10): 256 sequences; chunked
// prefill on by default above 32768 tokens of context without a sliding
// window, batching 2048 tokens (512 before 0.6.5); otherwise the whole
// context, max(max_model_len, 2048), which V0 requires at least.
// --enable-chunked-prefill and --no-enable-chunked-prefill set it as given
// (engine/arg_utils.py create_engine_config at v0.7.2: the default applies
// only to enable_chunked_prefill None; config.py SchedulerConfig
// __post_init__ then defaults the batched tokens by it).
func (r *Resolved) resolveV0Batch(a *model.Arch, def func(string, string)) error {
	if r.MaxNumSeqs == 0 {
		r.MaxNumSeqs = 256
		def("max-num-seqs", "the V0 engine's default 256")
	}
	chunked := r.MaxModelLen > 32768 && a.SlidingLayers() == 0
	switch r.ChunkedPrefill {
	case engine.On:
		chunked = true
	case engine.Off:
		chunked = false
	}
	r.ChunkedOff = !chunked
	if r.MaxNumBatchedTokens == 0 {
		switch {
		case chunked && r.Profile.Release.AtLeast(v0_6_5):
			r.MaxNumBatchedTokens = 2048
		case chunked:
			r.MaxNumBatchedTokens = 512
		default:
			r.MaxNumBatchedTokens = max(r.MaxModelLen, 2048)
		}
		def("max-num-batched-tokens", "the V0 engine's default: the whole context without chunked prefill, 2048 with it (on above 32768 tokens)")
	}
	if !chunked && r.MaxNumBatchedTokens < r.MaxModelLen {
		return settingErr("max-num-batched-tokens", r.MaxNumBatchedTokens, "smaller than --max-model-len %d: the V0 engine without chunked prefill needs a whole prompt in one batch", r.MaxModelLen)
	}
	return nil
}

// checkShardable refuses a tensor parallelism the model's parallel layers
// cannot be built with (vLLM fails while constructing the model, after
// resolving its settings): QKVParallelLinear divides the KV heads among the
// ranks or replicates them when there are fewer heads than ranks, and the
// column- and row-parallel MLPs divide their intermediate size.
func checkShardable(a *model.Arch, r *Resolved) error {
	if err := checkExpertsTP(a, r.TensorParallelSize); err != nil {
		return err
	}
	return engine.CheckShards(a, r.TensorParallelSize, "tensor-parallel-size", r.EnableExpertParallel, engine.ShardCites{})
}

func (r *Resolved) resolveLengths(a *model.Arch, c budget.Class, def func(string, string), whys *batchWhys) error {
	p := r.Profile
	d, err := deriveMaxLen(a)
	if err != nil {
		return err
	}
	r.MaxLenLimit, r.MaxLenKey = d.limit, d.key
	if r.AutoMaxModelLen && !p.AutoMaxModelLen {
		return settingErr("max-model-len", "auto", "%s has no auto max_model_len (vLLM PR #29431)", p.Describes)
	}
	switch {
	case r.MaxModelLen == 0:
		r.MaxModelLen = d.def
		switch {
		case r.AutoMaxModelLen:
			def("max-model-len", "auto: the longest whose one request fits the KV cache, at most the model's limit")
		case d.defHow != "":
			def("max-model-len", d.defHow)
		case d.how == "" && d.key == "max_position_embeddings":
			def("max-model-len", "the model's max_position_embeddings")
		default:
			def("max-model-len", "the model's maximum as vLLM derives it: "+d.explain())
		}
	case r.MaxModelLen > r.MaxLenLimit && !r.AllowLongMaxModelLen && r.MaxModelLen > a.MaxLenKeys["model_max_length"]:
		// vllm/config/model.py:2446-2474 refuses a longer max_model_len
		// unless it is within the config's model_max_length or
		// VLLM_ALLOW_LONG_MAX_MODEL_LEN is set.
		return settingErr("max-model-len", r.MaxModelLen, "above the derived max_model_len %d (%s); set --allow-long-max-model-len, vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, to accept it", r.MaxLenLimit, d.explain())
	}
	if r.MaxModelLen > 1<<30 {
		return settingErr("max-model-len", r.MaxModelLen, "beyond any serve (at most %d)", 1<<30)
	}
	if p.Era == V0 {
		if err := r.resolveV0Batch(a, def); err != nil {
			return err
		}
	} else if err := r.resolveV1Batch(a, c, def, whys); err != nil {
		return err
	}
	if r.MaxNumBatchedTokens > maxBatchedTokens {
		return settingErr("max-num-batched-tokens", r.MaxNumBatchedTokens, "beyond any serve (at most %d)", maxBatchedTokens)
	}
	if r.MaxNumSeqs > maxNumSeqs {
		return settingErr("max-num-seqs", r.MaxNumSeqs, "beyond any serve (at most %d)", maxNumSeqs)
	}
	if r.MaxNumBatchedTokens < r.MaxNumSeqs {
		// vllm/config/scheduler.py: max_num_batched_tokens must be at least
		// max_num_seqs. Name the flag the user gave.
		if _, defaulted := r.Sources.Get("max-num-batched-tokens"); defaulted {
			return settingErr("max-num-seqs", r.MaxNumSeqs, "above --max-num-batched-tokens %d (vLLM's default here); pass --max-num-batched-tokens of at least %d", r.MaxNumBatchedTokens, r.MaxNumSeqs)
		}
		if _, defaulted := r.Sources.Get("max-num-seqs"); defaulted {
			return settingErr("max-num-batched-tokens", r.MaxNumBatchedTokens, "%s", r.seqsNotLoweredWhy())
		}
		return settingErr("max-num-batched-tokens", r.MaxNumBatchedTokens, "below --max-num-seqs %d", r.MaxNumSeqs)
	}
	pp := r.PipelineParallelSize
	switch r.AsyncScheduling {
	case engine.On:
		if p.Era == V0 || !p.AsyncByDefault && p.Release.Less(Version{0, 10, 0}) {
			return settingErr("async-scheduling", "", "%s has no async scheduling", p.Describes)
		}
		r.Async = true
	case engine.Off:
		r.Async = false
	default:
		r.Async = p.AsyncByDefault && (pp == 1 || p.AsyncWithPP)
		if r.Async {
			def("async-scheduling", "on by default (vllm/config/vllm.py:1184-1233, since 0.14.0)")
		}
	}
	// vllm/config/vllm.py:546-557 max_concurrent_batches: under async
	// scheduling the V2 model runner keeps pp+1 batches in flight, the V1
	// runner 2 (or pp under pipeline parallelism); without it, pp.
	r.MaxConcurrentBatches = pp
	if r.Async {
		switch {
		case r.onV2Runner(a):
			r.MaxConcurrentBatches = pp + 1
		case pp <= 1:
			r.MaxConcurrentBatches = 2
		}
	}
	r.InFlightTokens = r.MaxNumBatchedTokens
	if p.InFlightWindow {
		r.InFlightTokens = r.MaxConcurrentBatches * r.MaxNumBatchedTokens
	}
	return nil
}

func (r *Resolved) resolveDtypes(a *model.Arch, c budget.Class, def func(string, string)) error {
	switch r.Dtype {
	case "", "auto":
		r.Dtype = a.Dtype
		if a.Dtype == "float32" {
			// vllm/config/model.py _resolve_auto_dtype: float32 checkpoints
			// are served in bfloat16 where the device supports it, else
			// float16.
			r.Dtype = "float16"
			// A pooling model prefers float16 (is_pooling_model, at main).
			if r.Profile.Float32AsBF16 && r.Runner != runnerPooling && (c.Device.Silicon.Vendor == budget.AMD || c.Device.Silicon.AtLeast(8, 0)) {
				r.Dtype = "bfloat16"
			}
		}
		if r.Dtype == "bfloat16" && c.Device.Silicon.Vendor == budget.NVIDIA && !c.Device.Silicon.AtLeast(8, 0) {
			r.Dtype = "float16" // auto picks the supported half type
		}
		def("dtype", "auto: the checkpoint's torch_dtype, as the device supports it")
	case "bfloat16", "float16", "float32":
	case "half":
		r.Dtype = "float16"
	case "float":
		r.Dtype = "float32"
	default:
		return settingErr("dtype", fmt.Sprintf("%q", r.Dtype), "want auto, bfloat16, float16 (half) or float32 (float)")
	}
	if r.Dtype == "bfloat16" && c.Device.Silicon.Vendor == budget.NVIDIA && !c.Device.Silicon.AtLeast(8, 0) {
		return settingErr("dtype", r.Dtype, "vLLM refuses it on %s: bfloat16 needs compute capability 8.0 or higher, and it has %s; use --dtype half",
			c.Device.Name, c.Device.Silicon)
	}
	r.DtypeBytes, _ = model.DtypeBytes(r.Dtype)
	q, err := resolveQuant(a, r.Quantization)
	if err != nil {
		return err
	}
	if q.Method == "inc" && r.Profile.Release.Less(incRelease) {
		return settingErr("model", a.Source, "an AutoRound (auto-round) checkpoint under %s: before vLLM's INC consolidation (PR #31716, merged 2026-01-14; 0.15.0 is the first release known to hold it) such a checkpoint was loaded by quantization/auto_round.py, which membudget has not read (model/quant_inc.go reads the inc method)", r.Profile.Describes)
	}
	// VllmConfig checks the quantization (vllm/config/vllm.py:758-786)
	// before the model, and with it the attention backend, is built.
	if err := checkQuantCapability(q, r.Quantization, r.Dtype, c.Device); err != nil {
		return err
	}
	r.KVCacheDtypeString = r.KVCacheDtype
	switch r.KVCacheDtype {
	case "", "auto":
		r.KVCacheDtype, r.KVCacheDtypeString = "auto", "auto"
		r.KVDtypeBytes = r.DtypeBytes
		if why := checkpointKVDtype(q, r.Profile); why != "" {
			// The checkpoint asks for an fp8 KV cache and auto gives it.
			if err := checkFP8KV(a, c.Device, r.Dtype, true); err != nil {
				return err
			}
			r.KVCacheDtypeString = "fp8"
			if q.Method == "modelopt" {
				r.KVCacheDtypeString = q.KVCacheDtype
			}
			r.KVCacheDtype, r.KVDtypeBytes = "fp8", 1
			def("kv-cache-dtype", why)
		}
	case "fp8", "fp8_e4m3", "fp8_e5m2":
		r.KVDtypeBytes = 1 // vllm/utils STR_DTYPE_TO_TORCH_DTYPE: uint8
		if err := checkFP8KV(a, c.Device, r.Dtype, false); err != nil {
			return err
		}
	case "bfloat16", "float16":
		r.KVDtypeBytes = 2
	default:
		return settingErr("kv-cache-dtype", fmt.Sprintf("%q", r.KVCacheDtype), "%s", kvDtypeRefusal(r.KVCacheDtype))
	}
	r.Quant = q
	if q.Method == "mxfp4" {
		// The MoE kernel lays gpt-oss's experts out by device (mxfp4.go).
		for i := range r.Stages {
			r.Stages[i].MXFP4 = mxfp4Kernel(c.Device, r.Profile)
		}
	}
	if q.W4A4NVFP4() {
		// The NVFP4 kernels pad block scales by device (nvfp4.go); only
		// ModelOpt and compressed-tensors checkpoints have W4A4 NVFP4
		// layers, so the method needs no check of its own.
		k := nvfp4Kernel(c.Device, r.Profile)
		for i := range r.Stages {
			r.Stages[i].NVFP4 = k
		}
		// Every stage's experts share the model's intermediate and the
		// serve's parallel sizes: one stage answers for all, filled in now
		// (the compiler fills its stages in later).
		st := r.rankSharding(r.Stages[0])
		if err := checkNVFP4Experts(a, st, r); err != nil {
			return err
		}
		if err := checkNVFP4ExpertBackend(a, c.Device, st, r); err != nil {
			return err
		}
	}
	// nemotron_h's float32 router is held in the model dtype where vLLM
	// has its router GEMMs (routergemm.go). Set only for such a router:
	// for every other model it changes no weight, and left unset it keeps
	// the compiler's weights shared across devices.
	gemm := a.RouterFollowsDevice() && routerGEMM(c.Device, r.Profile)
	for i := range r.Stages {
		r.Stages[i].RouterGEMM = gemm
	}
	if (q.Method == "awq" || q.Method == "gptq") && q.GroupSize == 0 {
		return settingErr("quantization", q.Method, "the checkpoint gives no group size")
	}
	return nil
}

// checkpointKVDtype says why --kv-cache-dtype auto gives an fp8 KV cache
// for quantization q under profile p, "" when it gives the model dtype: a
// ModelOpt checkpoint's kv_cache_quant_algo FP8 (or an 8-bit float
// kv_cache_scheme) from 0.14.0 (resolve_kv_cache_dtype_string,
// vllm/utils/torch_utils.py:427-509, PR #30785), and a compressed-tensors
// checkpoint's kv_cache_scheme on the V1 engine
// (vllm/model_executor/layers/attention/attention.py:275-285).
func checkpointKVDtype(q model.Quant, p Profile) string {
	if q.KVCacheDtype == "" {
		return ""
	}
	switch {
	case q.Method == "modelopt" && p.Era == V1 && p.Release.AtLeast(v0_14_0):
		return "auto: fp8, the checkpoint's kv_cache_quant_algo (vllm/utils/torch_utils.py resolve_kv_cache_dtype_string, since 0.14.0)"
	case q.Method == "compressed-tensors" && p.Era == V1:
		return "auto: fp8, the checkpoint's kv_cache_scheme (vllm/model_executor/layers/attention/attention.py)"
	}
	return ""
}

// checkFP8KV refuses an fp8 KV cache where no attention backend of vLLM's
// takes one: below SM80 (FlashAttention and FlashInfer need SM80, Triton
// needs native fp8, SM89: vllm/v1/attention/backends/triton_attn.py:522-536)
// and, for MLA, below SM89 (Triton-MLA: triton_mla.py:207-222). AMD's
// backends take it on every target. fromCheckpoint says --kv-cache-dtype
// was auto and the checkpoint's quantization asked for fp8: the way out
// is then the model dtype, named, not the auto the user already gave.
func checkFP8KV(a *model.Arch, d budget.Device, dtype string, fromCheckpoint bool) error {
	si := d.Silicon
	if si.Vendor != budget.NVIDIA {
		return nil
	}
	if !si.AtLeast(8, 0) || (a.MLA && !si.AtLeast(8, 9) && si.Major != 9 && si.Major != 10) {
		if fromCheckpoint {
			return settingErr("kv-cache-dtype", "auto", "vLLM refuses it on %s (compute capability %s): auto takes the checkpoint's fp8 KV cache, and no attention backend there takes one (native fp8 needs SM89); --kv-cache-dtype %s keeps the KV cache in the model dtype",
				d.Name, si, dtype)
		}
		return settingErr("kv-cache-dtype", "fp8", "vLLM refuses it on %s (compute capability %s): no attention backend there takes an fp8 KV cache (native fp8 needs SM89); use --kv-cache-dtype auto", d.Name, si)
	}
	return nil
}

// sparseMLABackends are the sparse-MLA attention backends vLLM main tries
// on NVIDIA silicon of a compute capability major, in its order
// (vllm/platforms/cuda.py:83-150, _get_backend_priorities), with the
// cache dtype strings each takes (supported_kv_cache_dtypes and
// supports_combination): FLASH_ATTN_MLA_SPARSE (flashattn_mla_sparse.py:
// 33-38, 70-88, SM90), FLASHMLA_SPARSE (flashmla_sparse.py:88-96, 126-128,
// SM90 and SM100; "fp8" is its alias of fp8_ds_mla), FLASHINFER_MLA_SPARSE
// (flashinfer_mla_sparse.py:68-110, SM100, not fp8_ds_mla) and its SM120
// kind (:140-202). Any other major has none: the dense MLA backends refuse
// a sparse model (vllm/v1/attention/backend.py:388-392).
var sparseMLABackends = map[int][]struct {
	name string
	kv   []string
}{
	9: {
		{"FLASH_ATTN_MLA_SPARSE", []string{"auto", "float16", "bfloat16"}},
		{"FLASHMLA_SPARSE", []string{"auto", "bfloat16", "fp8_ds_mla", "fp8"}},
	},
	10: {
		{"FLASHMLA_SPARSE", []string{"auto", "bfloat16", "fp8_ds_mla", "fp8"}},
		{"FLASHINFER_MLA_SPARSE", []string{"auto", "float16", "bfloat16", "fp8", "fp8_e4m3"}},
	},
	12: {
		{"FLASHINFER_MLA_SPARSE_SM120", []string{"auto", "fp8", "fp8_e4m3", "fp8_ds_mla"}},
	},
}

// checkSparseMLABackend refuses a DeepSeek V3.2-style model where no
// sparse-MLA backend takes the serve's cache dtype string: vLLM stops
// with "No valid attention backend found" (vllm/platforms/cuda.py:
// 449-453). The checkpoint's fp8 KV cache, resolved to "fp8_e4m3", is
// taken by neither of Hopper's, while --kv-cache-dtype fp8 is
// (FlashMLA-Sparse's fp8_ds_mla).
func (r *Resolved) checkSparseMLABackend(d budget.Device) error {
	si := d.Silicon
	backends := sparseMLABackends[si.Major]
	if len(backends) == 0 {
		return settingErr("model", "", "vLLM has no sparse-MLA attention backend for %s (compute capability %s): DeepSeek V3.2's sparse attention runs on compute capability 9.x, 10.x and 12.x only (vllm/platforms/cuda.py:83-150): \"No valid attention backend found\"",
			d.Name, si)
	}
	var took []string
	for _, b := range backends {
		if slices.Contains(b.kv, r.KVCacheDtypeString) {
			return nil
		}
		took = append(took, fmt.Sprintf("%s takes %s", b.name, strings.Join(b.kv, ", ")))
	}
	value, how := r.KVCacheDtypeString, ""
	if why, _ := r.Sources.Get("kv-cache-dtype"); why != "" {
		// auto, resolved from the checkpoint.
		value, how = "auto", fmt.Sprintf("auto resolves to the checkpoint's %q (vllm/utils/torch_utils.py resolve_kv_cache_dtype_string), and ", r.KVCacheDtypeString)
	}
	lift := ""
	for _, b := range backends {
		if slices.Contains(b.kv, "fp8") && value != "fp8" {
			lift = "; --kv-cache-dtype fp8 starts (" + b.name + ")"
			break
		}
	}
	return settingErr("kv-cache-dtype", value, "vLLM refuses it on %s (compute capability %s): %sno sparse-MLA attention backend there takes it (%s): \"No valid attention backend found\" (vllm/platforms/cuda.py:449-453)%s",
		d.Name, si, how, strings.Join(took, "; "), lift)
}

// quantLimit is one quantization config's get_min_capability() (major x
// 10 + minor) and get_supported_act_dtypes() on vLLM main
// (vllm/model_executor/layers/quantization/, commit d18bb7b), which
// vllm/config/vllm.py:758-786 (_get_quantization_config) checks before
// the model loads.
type quantLimit struct {
	config string   // vLLM's config class, for messages
	least  int      // get_min_capability
	dtypes []string // get_supported_act_dtypes, as --dtype names them
}

// halves is the dtypes most quantization methods take: a package value, so
// that a compile does not build it again.
var halves = []string{"bfloat16", "float16"}

// quantLimitOf is q's limit, false for a method membudget knows none of:
// fp8.py:139-145; auto_awq.py:225-231; auto_gptq.py:182-188;
// compressed_tensors.py:111-117; mxfp4.py:60-72 (gpt-oss's
// GptOssMxfp4Config inherits it); modelopt.py by quant_algo: the FP8
// family 401-407, NVFP4 1037-1043, MXFP8 1685-1692, mixed precision
// 2174-2187.
func quantLimitOf(q model.Quant) (quantLimit, bool) {
	switch q.Method {
	case "fp8":
		return quantLimit{"Fp8Config", 75, halves}, true
	case "awq":
		return quantLimit{"AutoAWQConfig", 75, halves}, true
	case "gptq":
		return quantLimit{"AutoGPTQConfig", 60, halves}, true
	case "compressed-tensors":
		return quantLimit{"CompressedTensorsConfig", 70, []string{"float32", "bfloat16", "float16"}}, true
	case "mxfp4":
		return quantLimit{"Mxfp4Config", 80, []string{"bfloat16"}}, true
	case "inc":
		// inc/inc.py:174-180; Marlin's own floor is checkINCMarlin's.
		return quantLimit{"INCConfig", 60, halves}, true
	case "modelopt":
		switch q.Algo {
		case "FP8", "FP8_PER_CHANNEL_PER_TOKEN", "FP8_PB_WO":
			return quantLimit{"ModelOptFp8Config", 80, halves}, true
		case "NVFP4", "W4A16_NVFP4":
			return quantLimit{"ModelOptNvFp4Config", 75, halves}, true
		case "MXFP8":
			return quantLimit{"ModelOptMxFp8Config", 80, []string{"bfloat16"}}, true
		case "MIXED_PRECISION":
			return quantLimit{"ModelOptMixedPrecisionConfig", 75, halves}, true
		}
	}
	return quantLimit{}, false
}

// checkQuantCapability refuses a quantization the device's compute
// capability is below, or whose kernels do not take the serve's dtype,
// with vLLM's messages (vllm/config/vllm.py:758-786): the first names
// --quantization (the checkpoint's own: no flag lifts it but another
// device), the second --dtype.
func checkQuantCapability(q model.Quant, flag, dtype string, d budget.Device) error {
	lim, ok := quantLimitOf(q)
	if !ok {
		return nil
	}
	si := d.Silicon
	name := q.Method
	if q.Algo != "" {
		name += " " + q.Algo
	}
	if si.Vendor == budget.NVIDIA && si.Major*10+si.Minor < lim.least {
		value := flag
		if value == "" {
			value = "(the checkpoint's " + name + ")"
		}
		return settingErr("quantization", value, "vLLM refuses it on %s: the quantization method %s is not supported for the current GPU. Minimum capability: %d. Current capability: %d. (%s, vllm/config/vllm.py:758-786)",
			d.Name, name, lim.least, si.Major*10+si.Minor, lim.config)
	}
	if !slices.Contains(lim.dtypes, dtype) {
		return settingErr("dtype", dtype, "vLLM refuses it: %s is not supported for quantization method %s. Supported dtypes: %s (%s, vllm/config/vllm.py:779-785)",
			dtype, name, strings.Join(lim.dtypes, ", "), lim.config)
	}
	return checkINCMarlin(q, flag, d)
}

// incRelease is the first release known to hold vLLM PR #31716 (50632adc5,
// merged 2026-01-14), which routed auto-round checkpoints through the INC
// method (inc.py) model/quant_inc.go reads: it is an ancestor of #32359
// (b34474bf2, 2026-01-15), which 0.15.0 holds (v0_15_0).
var incRelease = v0_15_0

// incMarlinLeast is the compute capability below which Marlin has no
// integer kernel (query_marlin_supported_quant_types returns none:
// vllm/model_executor/layers/quantization/utils/marlin_utils.py:65-66 at
// main d18bb7b).
const incMarlinLeast = 75

// checkINCMarlin refuses an AutoRound (inc) checkpoint on an NVIDIA device
// below Marlin's floor: INCConfig itself asks for 6.0, but on CUDA it
// builds its GPTQ layers on Marlin alone (NotImplementedError without it,
// inc/schemes/inc_wna16_linear.py:45-82) and its AWQ ones on Marlin or
// AutoAWQ's own kernels, whose config asks for 7.5 too (auto_awq.py:225-231),
// so vLLM fails when the model loads.
func checkINCMarlin(q model.Quant, flag string, d budget.Device) error {
	si := d.Silicon
	if q.Method != "inc" || si.Vendor != budget.NVIDIA || si.Major*10+si.Minor >= incMarlinLeast {
		return nil
	}
	value := flag
	if value == "" {
		value = "(the checkpoint's inc)"
	}
	return settingErr("quantization", value, "vLLM fails when it loads the model on %s (compute capability %d): INC builds the AutoRound layers on Marlin (or AutoAWQ's kernels for AWQ packing off Marlin), which need %d (inc/schemes/inc_wna16_linear.py:45-126, utils/marlin_utils.py:65-66, auto_awq.py:225-231)",
		d.Name, si.Major*10+si.Minor, incMarlinLeast)
}

// resolveBlockSize applies the platform's default block size: 16, or for
// MLA the attention backend's (vllm/platforms/cuda.py and the MLA backends).
func (r *Resolved) resolveBlockSize(a *model.Arch, c budget.Class, def func(string, string)) error {
	if a.DeepSeekV4 != nil {
		return r.resolveDeepSeekV4(a, c)
	}
	r.BlockSize = r.Serve.BlockSize
	if r.BlockSize == 0 {
		var why string
		r.BlockSize, why = defaultBlockSize(a, c.Device.Silicon, r.KVDtypeBytes, r.Profile)
		r.Sources.Set("block-size", why)
	} else if ch := r.Profile.BlockSizeChoices; ch != nil && !slices.Contains(ch, r.BlockSize) {
		// argparse refuses it before anything loads ("invalid choice").
		return settingErr("block-size", r.BlockSize, "%s's command line takes only %s (its BlockSize choices; any size from 0.18.0, PR #35122)",
			r.Profile.Describes, joinUints(ch))
	}
	// vllm/config/cache.py bounds the block size only by gt=0; the
	// attention backends take multiples of 16 (FlashAttention, Triton,
	// FlashAttention-MLA: MultipleOf(16); FlashInfer 16, 32, 64; FlashMLA
	// 64), so any other size finds no backend ("No valid attention backend
	// found", vllm/platforms/cuda.py:449-453).
	if r.BlockSize%16 != 0 || r.BlockSize > maxBlockSize {
		return settingErr("block-size", r.BlockSize, "vLLM's attention backends take a multiple of 16 tokens (16 to %d)", maxBlockSize)
	}
	if sparseMLA(a) && c.Device.Silicon.Vendor == budget.NVIDIA {
		if err := r.checkSparseMLABackend(c.Device); err != nil {
			return err
		}
		if r.BlockSize%64 != 0 {
			// select_common_block_size raises "No common block size for
			// N" (vllm/v1/worker/utils.py:301-367).
			return settingErr("block-size", r.BlockSize, "the DeepSeek V3.2 indexer's backend takes blocks of 64 tokens on CUDA (vllm/v1/attention/backends/mla/indexer.py:142-143), and vLLM finds no common kernel block size for %d: want a multiple of 64", r.BlockSize)
		}
		r.FP8DSMLA = r.KVDtypeBytes == 1 && c.Device.Silicon.Major == 9
	}
	return nil
}

// joinUints writes vs as "a, b or c".
func joinUints(vs []uint64) string {
	var b strings.Builder
	for i, v := range vs {
		switch {
		case i == 0:
		case i == len(vs)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		fmt.Fprint(&b, v)
	}
	return b.String()
}

// sparseMLA says a is a DeepSeek V3.2-style model: MLA with a lightning
// indexer, whose key cache vLLM keeps beside the latent.
func sparseMLA(a *model.Arch) bool { return a.MLA && a.Indexer != nil }

// defaultBlockSize is the block size vLLM picks when --block-size is not
// given, and why: 16, unless the attention backend the platform chooses
// prefers another (vllm/platforms/interface.py:608-649,
// update_block_size_for_backend). On main that happens only for MLA, whose
// backends the platform tries in order of priority (vllm/platforms/cuda.py:
// 93-143): on Hopper FlashAttention-MLA (multiples of 16, 16-bit KV only),
// then FlashMLA (64); on Blackwell (SM10x) FlashInfer-MLA (32 or 64);
// elsewhere Triton-MLA (multiples of 16).
func defaultBlockSize(a *model.Arch, si budget.Silicon, kvBytes uint64, p Profile) (uint64, string) {
	if sparseMLA(a) && si.Vendor == budget.NVIDIA {
		// The first attention layer vLLM registers is layer 0's indexer
		// cache, and the platform asks its backend for the block size.
		return 64, "64: the DeepSeek V3.2 indexer's backend, asked first, takes only blocks of 64 on CUDA (vllm/v1/attention/backends/mla/indexer.py:142-143; vllm/platforms/interface.py:588-638)"
	}
	if !a.MLA {
		return 16, "16: the platform's default (vllm/config/cache.py:48)"
	}
	if !p.MLABlockByBackend {
		// vllm/platforms/cuda.py check_and_update_config before PR #35122:
		// FlashMLA forced 64 where it runs (Hopper), CUTLASS-MLA 128 on
		// Blackwell; elsewhere the default 16 (PR #14451).
		switch {
		case si.Vendor == budget.NVIDIA && si.Major == 9:
			return 64, "64: FlashMLA, forced for MLA on Hopper (vllm/platforms/cuda.py, PR #14451)"
		case si.Vendor == budget.NVIDIA && si.Major == 10:
			return 128, "128: CUTLASS-MLA, forced for MLA on Blackwell (vllm/platforms/cuda.py)"
		}
		return 16, "16: the platform's default; FlashMLA does not run here (vllm/platforms/cuda.py)"
	}
	switch {
	case si.Vendor == budget.NVIDIA && si.Major == 10:
		return 32, "32: FlashInfer-MLA, the first MLA backend on Blackwell (vllm/v1/attention/backends/mla/flashinfer_mla.py:132-134)"
	case si.Vendor == budget.NVIDIA && si.Major == 9 && kvBytes >= 2:
		return 16, "16: FlashAttention-MLA on Hopper with a 16-bit KV cache (vllm/v1/attention/backends/mla/flashattn_mla.py:51-53)"
	case si.Vendor == budget.NVIDIA && si.Major == 9:
		return 64, "64: FlashMLA, Hopper's MLA backend for an fp8 KV cache (vllm/v1/attention/backends/mla/flashmla.py:57-59)"
	}
	return 16, "16: Triton-MLA, the MLA backend of this device (vllm/v1/attention/backends/mla/triton_mla.py:114-122)"
}

// batchWhy is the sources of vLLM's batch defaults on one device, and
// whether its name makes it an A100, which get_batch_defaults tests by
// name.
type batchWhy struct {
	tokens, seqs string
	a100         bool
	// noNVMLTotal says NVML reports no memory total for the device, so
	// get_batch_defaults reads 0 (see nvmlNoMemoryTotal).
	noNVMLTotal bool
}

// nvmlNoMemoryTotal names the devices, by class device name, whose NVML
// answers no memory total, and why. vLLM's get_batch_defaults reads the
// device's memory through the platform (vllm/engine/arg_utils.py:2576-2582
// at d18bb7b) and takes 0 when that raises, which puts the device in the
// smallest tier: 2048 batched tokens for the API server and 256 sequences.
// Where NVML loads, the platform is NvmlCudaPlatform, whose
// get_device_total_memory is nvmlDeviceGetMemoryInfo (vllm/platforms/
// cuda.py:776-781, 1008-1022; Jetson has no NVML and reads torch's total
// instead, :987-989).
var nvmlNoMemoryTotal = map[string]string{
	"NVIDIA GB10": "NVML reports no memory total on GB10 (nvmlDeviceGetMemoryInfo is NVMLError_NotSupported there, " +
		"nvidia-smi's memory.total [N/A]: vllm-project/vllm#55828, a DGX Spark run of NvmlCudaPlatform), so vLLM's get_batch_defaults " +
		"takes the smallest tier; row 110 of corpus/observed/vllm.csv (vLLM 0.13.0 on GB10) compiles for 1-2048 tokens, its default",
}

// batchWhys holds a batchWhy by device name, for one [Compiler]: it
// resolves every serve a plan tries and every request of a batch, on a few
// devices. A nil *batchWhys writes the sources afresh.
type batchWhys struct {
	mu sync.Mutex
	m  map[string]batchWhy
}

// of returns the sources of the batch defaults on the device named name.
func (c *batchWhys) of(name string) batchWhy {
	if c == nil {
		return newBatchWhy(name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.m[name]
	if !ok {
		if c.m == nil {
			c.m = map[string]batchWhy{}
		}
		w = newBatchWhy(name)
		c.m[name] = w
	}
	return w
}

// newBatchWhy returns the sources of the batch defaults on the device
// named name.
func newBatchWhy(name string) batchWhy {
	if why, ok := nvmlNoMemoryTotal[name]; ok {
		return batchWhy{
			tokens:      "vLLM's API-server default for " + name + " (engine/arg_utils.py get_batch_defaults): " + why,
			seqs:        "vLLM's default for " + name + " (engine/arg_utils.py get_batch_defaults): " + why,
			noNVMLTotal: true,
		}
	}
	return batchWhy{
		tokens: "vLLM's API-server default for " + name + " (engine/arg_utils.py get_batch_defaults)",
		seqs:   "vLLM's default for " + name + " (engine/arg_utils.py get_batch_defaults)",
		a100:   containsFold(name, "a100"),
	}
}

// containsFold reports whether sub, in lower-case ASCII, is within s in
// any case, without the copy strings.ToLower makes.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	// Only where the first byte matches is the rest compared: a Resolve
	// made without a [Compiler] asks this of the device's name every time.
	lo, up := sub[0], sub[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i] != lo && s[i] != up {
			continue
		}
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// rankSharding returns stage st with the serve's parallel sizes, dtype and
// quantization filled in: Stages hold each stage's layers and kernels, and
// every weighing of a stage needs the rest (one place, not a copy in
// each caller).
func (r *Resolved) rankSharding(st model.Sharding) model.Sharding {
	st.TP, st.ExpertRanks, st.DtypeBytes, st.Quant = r.TensorParallelSize, r.ExpertRanks, r.DtypeBytes, r.Quant
	return st
}

// resolveV1Batch applies the V1 engine's batch defaults, and its batch
// without chunked prefill (see chunked.go): the batched tokens raised to
// max_model_len, then to a multimodal prefix-LM model's largest item
// (prefixlm.go), then capped, before a defaulted max_num_seqs is lowered
// to them, as engine/arg_utils.py:2761-2846 orders it.
func (r *Resolved) resolveV1Batch(a *model.Arch, c budget.Class, def func(string, string), whys *batchWhys) error {
	off, err := r.chunkedOffV1()
	if err != nil {
		return err
	}
	r.ChunkedOff = off
	batchedDefaulted := r.MaxNumBatchedTokens == 0
	if batchedDefaulted || r.MaxNumSeqs == 0 {
		// engine/arg_utils.py get_batch_defaults (API server): >= 160 GiB
		// (on main), >= 70 GiB and not an A100 (by name), else.
		w := whys.of(c.Device.Name)
		total := c.Device.MemoryBytes
		if w.noNVMLTotal {
			total = 0
		}
		big := total >= 70<<30 && !w.a100
		huge := r.Profile.LargeBatchTier && total >= 160<<30
		if r.MaxNumBatchedTokens == 0 && r.batchedDPMoE() {
			r.MaxNumBatchedTokens = batchedDPTokens
			def("max-num-batched-tokens", batchedDPWhy)
		}
		if r.MaxNumBatchedTokens == 0 {
			switch {
			case huge:
				r.MaxNumBatchedTokens = 16384
			case big:
				r.MaxNumBatchedTokens = 8192
			default:
				r.MaxNumBatchedTokens = 2048
			}
			def("max-num-batched-tokens", w.tokens)
		}
		seqsDefaulted := r.MaxNumSeqs == 0
		if seqsDefaulted {
			r.MaxNumSeqs = 256
			if big || huge {
				r.MaxNumSeqs = 1024
			}
			def("max-num-seqs", w.seqs)
		}
		if off {
			if err := r.wholePromptBatch(batchedDefaulted, def); err != nil {
				return err
			}
		}
		if batchedDefaulted {
			if err := r.prefixLMFloor(a, def); err != nil {
				return err
			}
			r.clampDefaultBatch(def)
		}
		if seqsDefaulted {
			r.lowerDefaultSeqs(def)
		}
		return nil
	}
	if off {
		return r.wholePromptBatch(false, def)
	}
	return nil
}
