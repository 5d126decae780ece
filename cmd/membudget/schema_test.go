package main

import "membudget/engine"

// The JSON schemas of the commands' --json output, engine by engine, as
// the README documents them: the tests decode the output strictly into
// them, so that a field cannot appear, vanish or move unseen.

// reportJSON is `membudget report --json`.
type reportJSON struct {
	Model     modelJSON            `json:"model"`
	Engine    string               `json:"engine"`
	Class     classJSON            `json:"class"`
	Serve     serveJSON            `json:"serve"`
	Footprint engine.FootprintJSON `json:"footprint"`
	// KVCapacity is absent for an encoder-only pooling model, which keeps
	// no KV cache: Pooling says what bounds it instead.
	KVCapacity *capacityJSON `json:"kv_capacity,omitempty"`
	Pooling    *poolingJSON  `json:"pooling,omitempty"`
	// Preallocated is vLLM's whole KV pool and the device's total with
	// it, when vLLM starts the serve.
	Preallocated *preallocatedJSON `json:"preallocated,omitempty"`
	// FirstStartColdCompile is the KV cache of a first start with an
	// empty torch.compile cache, when vLLM starts a compiled serve.
	FirstStartColdCompile *coldCompileJSON `json:"first_start_cold_compile,omitempty"`
	// ColdStartKeptSegment is, under --compile-cache cold (no
	// first_start_cold_compile), the table copy's segment that start can
	// also keep, when vLLM starts the serve and one is counted.
	ColdStartKeptSegment *coldKeptJSON `json:"cold_start_kept_segment,omitempty"`
	// GraphEstimateMargin is, where vLLM starts the serve (or it fits) on
	// less margin than vLLM's CUDA-graph estimate can move, the margins
	// and the move.
	GraphEstimateMargin *graphMarginJSON `json:"graph_estimate_margin,omitempty"`
	// GraphEstimateHostDependent is, where vLLM starts the serve on a
	// unified-memory device and takes its CUDA-graph estimate off the KV
	// cache, the estimate charged: vLLM reads it from the host there.
	GraphEstimateHostDependent *unifiedGraphsJSON `json:"graph_estimate_host_dependent,omitempty"`
	Fits                       bool               `json:"fits"`
	Advice                     *adviceJSON        `json:"advice,omitempty"`
}

// unifiedGraphsJSON is the report's "graph_estimate_host_dependent".
type unifiedGraphsJSON struct {
	EstimateBytes uint64 `json:"estimate_bytes"`
	Evidence      string `json:"evidence"`
}

// graphMarginJSON is the report's "graph_estimate_margin".
type graphMarginJSON struct {
	EstimateBytes    uint64          `json:"estimate_bytes"`
	SwingBytes       uint64          `json:"swing_bytes"`
	Modes            []graphModeJSON `json:"modes"`
	StartMarginBytes uint64          `json:"start_margin_bytes"`
	StartAtRisk      bool            `json:"start_at_risk"`
	FitMarginBytes   uint64          `json:"fit_margin_bytes"`
	FitAtRisk        bool            `json:"fit_at_risk"`
	Evidence         string          `json:"evidence"`
}

// graphModeJSON is one of graph_estimate_margin's "modes".
type graphModeJSON struct {
	Mode       string `json:"mode"`
	Graphs     uint64 `json:"graphs"`
	SwingBytes uint64 `json:"swing_bytes"`
}

// coldCompileJSON is the report's "first_start_cold_compile".
type coldCompileJSON struct {
	ExtraActivationBytes uint64 `json:"extra_activation_bytes"`
	Blocks               uint64 `json:"blocks"`
	LoggedTokens         uint64 `json:"logged_tokens"`
	Starts               bool   `json:"starts"`
	KeptSegmentBytes     uint64 `json:"kept_segment_bytes"`
	TokensIfKept         uint64 `json:"tokens_if_kept"`
	StartsIfKept         bool   `json:"starts_if_kept"`
}

// coldKeptJSON is the report's "cold_start_kept_segment".
type coldKeptJSON struct {
	KeptSegmentBytes uint64 `json:"kept_segment_bytes"`
	TokensIfKept     uint64 `json:"tokens_if_kept"`
	StartsIfKept     bool   `json:"starts_if_kept"`
}

// preallocatedJSON is the report's "preallocated".
type preallocatedJSON struct {
	Blocks       uint64 `json:"blocks"`
	KVPoolBytes  uint64 `json:"kv_pool_bytes"`
	TotalBytes   uint64 `json:"total_bytes"`
	SizedKVBytes uint64 `json:"sized_kv_bytes"`
}

type serveJSON struct {
	VLLMVersion          string  `json:"vllm_version"`
	VLLM                 string  `json:"vllm"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization"`
	KVCacheMemoryBytes   uint64  `json:"kv_cache_memory_bytes"`
	MaxModelLen          uint64  `json:"max_model_len"`
	MaxNumSeqs           uint64  `json:"max_num_seqs"`
	MaxNumBatchedTokens  uint64  `json:"max_num_batched_tokens"`
	BlockSize            uint64  `json:"block_size"`
	KVCacheDtype         string  `json:"kv_cache_dtype"`
	// KVCacheDtypeSkipLayers is --kv-cache-dtype-skip-layers, absent
	// without it.
	KVCacheDtypeSkipLayers string `json:"kv_cache_dtype_skip_layers,omitempty"`
	TensorParallelSize     uint64 `json:"tensor_parallel_size"`
	PipelineParallelSize   uint64 `json:"pipeline_parallel_size"`
	DataParallelSize       uint64 `json:"data_parallel_size"`
	EnableExpertParallel   bool   `json:"enable_expert_parallel"`
	Dtype                  string `json:"dtype"`
	Quantization           string `json:"quantization"`
	EnforceEager           bool   `json:"enforce_eager"`
	CompileCache           string `json:"compile_cache,omitempty"`
	AsyncScheduling        bool   `json:"async_scheduling"`
	// Runner is "pooling" for a serve of vLLM's pooling runner, absent
	// for generation.
	Runner         string            `json:"runner,omitempty"`
	CPUOffloadGiB  float64           `json:"cpu_offload_gib"`
	SwapSpaceGiB   float64           `json:"swap_space_gib"`
	Defaults       map[string]string `json:"defaults"`
	Ignored        []string          `json:"ignored,omitempty"`
	RequiresPlugin string            `json:"requires_plugin,omitempty"`
	Command        string            `json:"command"`
	Multimodal     *multimodalJSON   `json:"multimodal,omitempty"`
	All2All        *all2allJSON      `json:"all2all,omitempty"`
}

// all2allJSON is the serve's "all2all", with --all2all-backend: DeepEP's
// buffers on each GPU, deepep_low_latency's RDMA hint, and the rule where
// deepep_high_throughput at DP > 1 turns the CUDA graphs off.
type all2allJSON struct {
	Backend       string `json:"all2all_backend"`
	BufferBytes   uint64 `json:"buffer_bytes"`
	RDMAHintBytes uint64 `json:"rdma_hint_bytes,omitempty"`
	GraphsOff     string `json:"cuda_graphs_off,omitempty"`
}

// multimodalJSON is the serve's "multimodal": a multimodal model's
// encoder cache as vLLM's profile run sizes it.
type multimodalJSON struct {
	LimitPerPrompt      string `json:"limit_mm_per_prompt,omitempty"`
	LanguageModelOnly   bool   `json:"language_model_only,omitempty"`
	SkipProfiling       bool   `json:"skip_mm_profiling"`
	ProcessorKwargs     string `json:"mm_processor_kwargs,omitempty"`
	Profiled            bool   `json:"encoder_profiled"`
	Sized               bool   `json:"encoder_cache_sized"`
	NotSized            string `json:"not_sized,omitempty"`
	Modality            string `json:"modality,omitempty"`
	Basis               string `json:"basis,omitempty"`
	TokensPerItem       uint64 `json:"max_tokens_per_mm_item,omitempty"`
	BudgetTokens        uint64 `json:"encoder_cache_budget_tokens,omitempty"`
	Items               uint64 `json:"profiled_items,omitempty"`
	CacheBytes          uint64 `json:"encoder_cache_bytes"`
	ProcessorCacheBytes uint64 `json:"processor_cache_bytes"`
	PassSized           bool   `json:"encoder_pass_sized"`
	PassNotSized        string `json:"encoder_pass_not_sized,omitempty"`
	PassPatches         uint64 `json:"encoder_pass_patches,omitempty"`
	PassPeakBytes       uint64 `json:"encoder_pass_peak_bytes"`
	PassBytes           uint64 `json:"encoder_pass_bytes"`
	EncoderTPMode       string `json:"mm_encoder_tp_mode"`
	TowerReplicated     bool   `json:"tower_replicated"`
	PassItems           uint64 `json:"encoder_pass_items,omitempty"`
}

// poolingJSON is the report's "pooling": an encoder-only pooling model's
// runner, batch and position table.
type poolingJSON struct {
	Runner        string `json:"runner"`
	KVCache       bool   `json:"kv_cache"`
	BatchTokens   uint64 `json:"batch_tokens"`
	PositionLimit uint64 `json:"position_limit"`
	Head          string `json:"head"`
}

type capacityJSON struct {
	AvailableBytes       uint64  `json:"available_bytes"`
	BlockBytes           uint64  `json:"block_bytes"`
	Blocks               uint64  `json:"blocks"`
	Tokens               uint64  `json:"tokens"`
	LoggedTokens         uint64  `json:"logged_tokens"`
	PagesPerSeq          uint64  `json:"pages_per_seq"`
	MaxConcurrency       float64 `json:"max_concurrency"`
	NeededBytes          uint64  `json:"needed_bytes"`
	Starts               bool    `json:"starts"`
	EstimatedMaxModelLen uint64  `json:"estimated_max_model_len"`
	// StateBlocks and SeqsOverStateBlocks: a hybrid model's Mamba cache
	// blocks, and whether vLLM refuses max_num_seqs above them.
	StateBlocks         uint64 `json:"state_blocks,omitempty"`
	SeqsOverStateBlocks bool   `json:"seqs_over_state_blocks,omitempty"`
	// Groups is vLLM's KV cache groups, as its spec classes name them.
	Groups string `json:"groups,omitempty"`
	// KVDtypeByLayer is, under --kv-cache-dtype-skip-layers, which layers
	// keep the model's dtype and which the KV cache dtype.
	KVDtypeByLayer string `json:"kv_dtype_by_layer,omitempty"`
}

// sglangReportJSON is `membudget report --engine sglang --json`.
type sglangReportJSON struct {
	Model  modelJSON       `json:"model"`
	Engine string          `json:"engine"`
	Class  classJSON       `json:"class"`
	Serve  sglangServeJSON `json:"serve"`
	// Footprint is the footprint's terms; Items names what each holds.
	Footprint engine.FootprintJSON `json:"footprint"`
	Items     []itemJSON           `json:"items"`
	KVPool    poolJSON             `json:"kv_pool"`
	Fits      bool                 `json:"fits"`
	Advice    *adviceJSON          `json:"advice,omitempty"`
}

// sglangServeJSON is the resolved SGLang server, under SGLang's names.
type sglangServeJSON struct {
	SGLangVersion string  `json:"sglang_version"`
	SGLang        string  `json:"sglang"`
	MemFraction   float64 `json:"mem_fraction_static"`
	ContextLength uint64  `json:"context_length"`
	// DerivedContextLength is the one SGLang derives from config.json.
	DerivedContextLength uint64 `json:"derived_context_length"`
	AllowLongContext     bool   `json:"allow_overwrite_longer_context_len"`
	// MaxRunningRequests and MaxTotalTokens are as given, 0 when not: the
	// pool decides them (kv_pool).
	MaxRunningRequests uint64            `json:"max_running_requests"`
	MaxTotalTokens     uint64            `json:"max_total_tokens"`
	ChunkedPrefillSize int64             `json:"chunked_prefill_size"`
	MaxPrefillTokens   uint64            `json:"max_prefill_tokens"`
	PageSize           uint64            `json:"page_size"`
	KVCacheDtype       string            `json:"kv_cache_dtype"`
	TPSize             uint64            `json:"tp_size"`
	PPSize             uint64            `json:"pp_size"`
	DPSize             uint64            `json:"dp_size"`
	Dtype              string            `json:"dtype"`
	Quantization       string            `json:"quantization"`
	AttentionBackend   string            `json:"attention_backend"`
	DisableCudaGraph   bool              `json:"disable_cuda_graph"`
	CudaGraphMaxBS     uint64            `json:"cuda_graph_max_bs"`
	DistInitBytes      uint64            `json:"dist_init_bytes"`
	Defaults           map[string]string `json:"defaults"`
	Ignored            []string          `json:"ignored,omitempty"`
	Command            string            `json:"command"`
}

// poolJSON is SGLang's KV pool as its startup sizes and logs it.
type poolJSON struct {
	GPUMemMiB         float64  `json:"gpu_mem_mib"`
	MemFraction       float64  `json:"mem_fraction_static"`
	F0Bytes           uint64   `json:"f0_bytes"`
	LoadedBytes       uint64   `json:"loaded_bytes"`
	StaticBudgetBytes uint64   `json:"static_budget_bytes"`
	RestBytes         int64    `json:"rest_bytes"`
	CellBytes         uint64   `json:"cell_bytes"`
	ProfiledTokens    int64    `json:"profiled_tokens"`
	MaxTotalNumTokens int64    `json:"max_total_num_tokens"`
	HybridSWA         bool     `json:"hybrid_swa"`
	SWATokens         int64    `json:"swa_tokens"`
	KBytes            uint64   `json:"k_bytes"`
	VBytes            uint64   `json:"v_bytes"`
	SWAKBytes         uint64   `json:"swa_k_bytes"`
	SWAVBytes         uint64   `json:"swa_v_bytes"`
	PageSize          uint64   `json:"page_size"`
	MaxNumReqs        uint64   `json:"max_num_reqs"`
	MaxRunning        uint64   `json:"max_running_requests"`
	MaxReqLen         int64    `json:"max_req_len"`
	MaxReqInputLen    int64    `json:"max_req_input_len"`
	ContextLen        uint64   `json:"context_len"`
	Starts            bool     `json:"starts"`
	Failure           string   `json:"failure,omitempty"`
	LogLines          []string `json:"log_lines"`
	// Caveat is, where SGLang starts, what may still stop it serving
	// (the logits all-gather's rendezvous without peer access).
	Caveat string `json:"caveat,omitempty"`
	// A Mamba hybrid's slots, a slot's bytes and the rest left for the
	// KV pool after them; absent for any other model.
	MambaSlots     int64  `json:"mamba_slots,omitempty"`
	MambaSlotBytes uint64 `json:"mamba_slot_bytes,omitempty"`
	KVRestBytes    int64  `json:"kv_rest_bytes,omitempty"`
}

// itemJSON is one line of an SGLang footprint: the reference's allocations
// of one kind, summed (every layer's K and V, every weight tensor).
type itemJSON struct {
	Name   string `json:"name"`
	Term   string `json:"term"`
	Bytes  uint64 `json:"bytes"`
	Beside bool   `json:"beside"`
}

// sglangQueryJSON is `membudget max-seqs --engine sglang --json` and
// `membudget max-len --engine sglang --json`.
type sglangQueryJSON struct {
	Query       string                `json:"query"`
	Engine      string                `json:"engine"`
	Model       string                `json:"model"`
	Class       string                `json:"class"`
	Serve       sglangServeJSON       `json:"serve"`
	Given       uint64                `json:"given"`
	Cap         uint64                `json:"cap"`
	Answer      uint64                `json:"answer"`
	Fits        bool                  `json:"fits"`
	Capped      bool                  `json:"capped"`
	Evals       int                   `json:"evals"`
	Starts      bool                  `json:"starts"`
	Failure     string                `json:"failure,omitempty"`
	Adjusted    string                `json:"adjusted,omitempty"`
	At          engine.FootprintJSON  `json:"at"`
	Next        *engine.FootprintJSON `json:"next,omitempty"`
	TippingTerm string                `json:"tipping_term,omitempty"`
}

// budgetJSON is `membudget budget --json`.
type budgetJSON struct {
	Class                string  `json:"class"`
	Device               string  `json:"device"`
	MemoryBytes          uint64  `json:"memory_bytes"`
	VLLMVersion          string  `json:"vllm_version"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization"`
	UtilCeiling          float64 `json:"util_ceiling"`
	AboveCeiling         bool    `json:"above_ceiling"`
	UtilBudgetBytes      uint64  `json:"util_budget_bytes"`
	DriverFixedBytes     uint64  `json:"driver_fixed_bytes"`
	DriverPerMilleBytes  uint64  `json:"driver_per_mille_bytes"`
	DriverBytes          uint64  `json:"driver_bytes"`
	OutsideBudgetBytes   uint64  `json:"outside_budget_bytes"`
	DriverHeadroomBytes  uint64  `json:"driver_headroom_bytes"`
	Unified              bool    `json:"unified"`
	StartupFreeBytes     uint64  `json:"startup_free_bytes"`
	RefusedAtStartup     bool    `json:"refused_at_startup"`
	// HostBoundBytes and UtilReached are, on a unified-memory class, the
	// most the host may hold for the util to pass and the class's
	// util_reached; absent elsewhere.
	HostBoundBytes uint64  `json:"host_bound_bytes,omitempty"`
	UtilReached    float64 `json:"util_reached,omitempty"`
}

// planRowJSON is one deployment of `membudget plan --json`.
type planRowJSON struct {
	Class                string               `json:"class"`
	Device               string               `json:"device"`
	GPUs                 uint64               `json:"gpus"`
	TensorParallelSize   uint64               `json:"tensor_parallel_size"`
	PipelineParallelSize uint64               `json:"pipeline_parallel_size"`
	DataParallelSize     uint64               `json:"data_parallel_size"`
	Quantization         string               `json:"quantization"`
	KVCacheDtype         string               `json:"kv_cache_dtype"`
	GPUMemoryUtilization float64              `json:"gpu_memory_utilization"`
	PerEngine            uint64               `json:"sequences_per_engine"`
	MostSeqs             uint64               `json:"most_seqs_at_length"`
	MostSeqsCapped       bool                 `json:"most_seqs_capped"`
	LongestLen           uint64               `json:"longest_len_at_concurrency"`
	LongestLenCapped     bool                 `json:"longest_len_capped"`
	HeadroomBytes        uint64               `json:"headroom_bytes"`
	Nodes                uint64               `json:"nodes"`
	KVHeadroomBytes      uint64               `json:"kv_headroom_bytes"`
	MarginBytes          uint64               `json:"margin_bytes"`
	Tight                bool                 `json:"tight"`
	OnlineQuantization   bool                 `json:"online_quantization"`
	KVQuantized          bool                 `json:"kv_quantized"`
	USDPerHour           *float64             `json:"usd_per_hour,omitempty"`
	KVCacheMemoryBytes   uint64               `json:"kv_cache_memory_bytes"`
	PinnedKVCacheBytes   uint64               `json:"pinned_kv_cache_memory_bytes"`
	PinnedKVCache        bool                 `json:"pinned_kv_cache"`
	Command              string               `json:"command"`
	Footprint            engine.FootprintJSON `json:"footprint"`
}

// planJSON is `membudget plan --json`.
type planJSON struct {
	Model       string             `json:"model"`
	Length      uint64             `json:"length"`
	Concurrency uint64             `json:"concurrency"`
	VLLM        string             `json:"vllm"`
	Classes     []string           `json:"classes"`
	MaxGPUs     uint64             `json:"max_gpus"`
	GPUsPerNode uint64             `json:"gpus_per_node"`
	MaxNodes    uint64             `json:"max_nodes"`
	Prefer      string             `json:"prefer"`
	Margin      float64            `json:"margin_percent"`
	Prices      map[string]float64 `json:"prices"`
	Ranked      string             `json:"ranked"`
	Searched    string             `json:"searched"`
	Notes       []string           `json:"notes"`
	Dropped     []string           `json:"dropped"`
	Ignored     []string           `json:"ignored"`
	Rows        []planRowJSON      `json:"deployments"`
}

// queryJSON is `membudget max-seqs --json` and `membudget max-len --json`.
type queryJSON struct {
	Query       string                `json:"query"`
	Engine      string                `json:"engine"`
	Model       string                `json:"model"`
	Class       string                `json:"class"`
	Serve       serveJSON             `json:"serve"`
	Given       uint64                `json:"given"`
	Cap         uint64                `json:"cap"`
	Answer      uint64                `json:"answer"`
	Fits        bool                  `json:"fits"`
	Capped      bool                  `json:"capped"`
	Evals       int                   `json:"evals"`
	Starts      bool                  `json:"starts"`
	Failure     string                `json:"failure,omitempty"`
	Adjusted    string                `json:"adjusted,omitempty"`
	At          engine.FootprintJSON  `json:"at"`
	Next        *engine.FootprintJSON `json:"next,omitempty"`
	TippingTerm string                `json:"tipping_term,omitempty"`
	SteadyState *steadyJSON           `json:"steady_state,omitempty"`
}

// weightsJSON says where the weights per rank came from and, when a
// checkpoint was read, how they compare with those derived from
// config.json, on the pipeline stage that binds.
type weightsJSON struct {
	// From is "checkpoint" or "config".
	From        string `json:"from"`
	Description string `json:"description"`
	// CheckpointBytes is absent when no checkpoint was read.
	CheckpointBytes   *uint64       `json:"checkpoint_bytes,omitempty"`
	DerivedBytes      uint64        `json:"derived_bytes"`
	DifferencePercent float64       `json:"difference_percent"`
	PipelineStage     int           `json:"pipeline_stage"`
	Skipped           []skippedJSON `json:"skipped,omitempty"`
	Unknown           []string      `json:"unknown,omitempty"`
	Warnings          []string      `json:"warnings,omitempty"`
}

type skippedJSON struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// sglangBudgetJSON is `membudget budget --engine sglang --json`.
type sglangBudgetJSON struct {
	Class              string  `json:"class"`
	Device             string  `json:"device"`
	MemoryBytes        uint64  `json:"memory_bytes"`
	SGLangVersion      string  `json:"sglang_version"`
	MemFractionStatic  float64 `json:"mem_fraction_static"`
	Defaulted          bool    `json:"defaulted"`
	ReservedMiB        float64 `json:"reserved_mib,omitempty"`
	TPSize             uint64  `json:"tp_size"`
	PPSize             uint64  `json:"pp_size"`
	GPUMemMiB          float64 `json:"gpu_mem_mib"`
	DriverFixedBytes   uint64  `json:"driver_fixed_bytes"`
	DistInitBytes      uint64  `json:"dist_init_bytes"`
	F0Bytes            uint64  `json:"f0_bytes"`
	StaticBudgetBytes  uint64  `json:"static_budget_bytes"`
	OutsideBudgetBytes uint64  `json:"outside_budget_bytes"`
	UtilCeiling        float64 `json:"util_ceiling"`
	AboveCeiling       bool    `json:"above_ceiling"`
	Unified            bool    `json:"unified"`
}
