package logs

import (
	"regexp"
	"strings"
)

// The formats the reader knows. Each names the engine source that prints the
// line (vLLM paths are in the vllm-project/vllm tree; "#N" is the pull
// request that introduced or changed the line, whose merge date places it
// among releases), and which era it proves, if any.
const (
	// FormatLoadingWeightsTook: "Loading model weights took %.4f GB"
	// (vllm/worker/model_runner.py, load_model, #3120, v0.4.0), "GiB" since
	// #15807 (2025-04); V0 and V1 (vllm/v1/worker/gpu_model_runner.py until
	// #14063) alike.
	FormatLoadingWeightsTook Format = "vllm: Loading model weights took"
	// FormatModelLoadingTook: "Model loading took %.4f GB and %.6f seconds"
	// (#14063, 2025-03, V0 and V1), "GiB" since #15807, "%s GiB memory and"
	// with format_gib since #31865 (2026-01); V2 model runner "Model loading
	// took %s GiB and" (vllm/v1/worker/gpu/model_runner.py).
	FormatModelLoadingTook Format = "vllm: Model loading took"
	// FormatV0MemoryProfile: "model weights take %.2fGiB; non_torch_memory
	// takes %.2fGiB; PyTorch activation peak memory takes %.2fGiB; the rest of
	// the memory reserved for KV Cache is %.2fGiB." (vllm/worker/worker.py,
	// determine_num_available_blocks, #10511 v0.6.5 until V0's removal,
	// #25321); each clause is read on its own. V0 only.
	FormatV0MemoryProfile Format = "vllm V0: model weights take ..."
	// FormatV0Budget: "the current vLLM instance can use total_gpu_memory
	// (%.2fGiB) x gpu_memory_utilization (%.2f) = %.2fGiB" (the same message).
	// V0 only.
	FormatV0Budget Format = "vllm V0: total_gpu_memory (X) x gpu_memory_utilization (u) = Y"
	// FormatV0ProfilingResults: "Memory profiling results: [duration=%.2f
	// seconds, ]total_gpu_memory=%.2fGiB[,] initial_memory_usage=%.2fGiB[,]
	// peak_torch_memory=%.2fGiB[,] memory_usage_post_profile=%.2fGiB[,]
	// non_torch_memory=%.2fGiB[,] kv_cache_size=%.2fGiB[,]
	// gpu_memory_utilization=%.2f" (vllm/worker/worker.py, #9352, v0.6.4,
	// which printed "memory_usage_post_profile=%.2fGib" for bytes /
	// 1024**3; commas and the duration came before #10511 replaced the line
	// in v0.6.5); each key=value is read on its own. V0 only.
	FormatV0ProfilingResults Format = "vllm V0 0.6.4: Memory profiling results"
	// FormatBlocks: "# GPU blocks: %d, # CPU blocks: %d" (V0:
	// vllm/engine/llm_engine.py, then vllm/executor/*; "# %s blocks: %d, #
	// CPU blocks: %d" with the device's name, "CUDA" or "cuda", since #11256,
	// 2025-01) and V1's "# GPU blocks: %d" alone (vllm/v1/engine/core.py,
	// #9289 v0.6.4 until #13596, 2025-02). The pair proves V0; the count
	// alone proves nothing (quotes elide the CPU part).
	FormatBlocks Format = "vllm: # GPU blocks"
	// FormatMaxConcurrency: "Maximum concurrency for %s tokens per request:
	// %.2fx" (V0 vllm/executor/executor_base.py #8831, v0.6.3; V1
	// vllm/v1/core/kv_cache_utils.py #12569); the length has thousands
	// commas in V1.
	FormatMaxConcurrency Format = "vllm: Maximum concurrency for"
	// FormatKVCacheSize: "GPU KV cache size: %s tokens"
	// (vllm/v1/core/kv_cache_utils.py, #13596, 2025-02). V1 only.
	FormatKVCacheSize Format = "vllm V1: GPU KV cache size"
	// FormatAvailableKV: "Available KV cache memory: %.2f GiB"
	// (vllm/v1/worker/gpu_worker.py, determine_available_memory, #19312,
	// 2025-06; "%f" for a day in #29493, format_gib "%s" since #31865). V1
	// only.
	FormatAvailableKV Format = "vllm V1: Available KV cache memory"
	// FormatV1MemoryProfile: MemoryProfilingResult.__repr__, "Memory
	// profiling takes %.2f seconds. Total non KV cache memory: XGiB; torch
	// peak memory increase: XGiB; non-torch forward increase memory: XGiB;
	// weights memory: XGiB." (vllm/utils/mem_utils.py, #19312), "total
	// consumed (from mem_get_info): XGiB" in place of the non-torch clause
	// since #49208 (2026-07); each clause is read on its own. "Total non KV
	// cache memory" proves V1 (V0 never logged the repr).
	FormatV1MemoryProfile Format = "vllm V1: Memory profiling takes ..."
	// FormatV1EarlyProfile: the debug lines of V1's gpu_worker between
	// #18974 and #19312 (June 2025): "Initial free memory: %.2f GiB, free
	// memory: %.2f GiB, total GPU memory: %.2f GiB" and "Peak torch memory:
	// %.2f GiB, non-torch forward-pass memory: %.2f GiB, available KVCache
	// memory: %.2f GiB". V1 only.
	FormatV1EarlyProfile Format = "vllm V1 (early 2025): Peak torch memory"
	// FormatV1Requested: gpu_worker's debug lines "Initial free memory: %s
	// GiB; Requested memory: %f (util), %s GiB", "Free memory after
	// profiling: %s GiB (total), %s GiB (within requested)" and "worker
	// requested memory: %sGiB" (#29493, 2026-01). V1 only.
	FormatV1Requested Format = "vllm V1: Requested memory"
	// FormatFreeOnDevice: "Free memory on device (F/T GiB) on startup.
	// Desired GPU memory utilization is (u, Y GiB)." (gpu_worker,
	// compile_or_warm_up_model, #21489, 2025-09) and the startup error "Free
	// memory on device [dev ](F/T GiB) on startup is less than desired GPU
	// memory utilization (u, Y GiB)" (vllm/v1/worker/utils.py,
	// request_memory). V1 only.
	FormatFreeOnDevice Format = "vllm V1: Free memory on device"
	// FormatActualUsage: "Actual usage is X GiB for weight, Y GiB for peak
	// activation, Z GiB for non-torch memory, and W GiB for CUDAGraph memory"
	// (#21489), "X GiB for consumed memory (weights + non-torch), Y GiB for
	// peak activation, and W GiB for CUDAGraph memory" since #49208, with
	// "Replace gpu_memory_utilization config with `--kv-cache-memory=N` (X
	// GiB) to fit into requested memory, or `--kv-cache-memory=N` (X GiB) to
	// fully utilize gpu memory. Current kv cache memory in use is X GiB." V1
	// only.
	FormatActualUsage Format = "vllm V1: Actual usage is"
	// FormatEncoderCache: "Encoder cache will be initialized with a budget
	// of %s tokens, and profiled with %s %s items of the maximum feature
	// size." (vllm/v1/worker/gpu_model_runner.py profile_run, :6574-6581 at
	// main d18bb7b; the V2 runner's vllm/v1/worker/gpu/mm/encoder_runner.py
	// :95-101, #47985). V1 only.
	FormatEncoderCache Format = "vllm V1: Encoder cache will be initialized"
	// FormatEstimatedGraph: "Estimated CUDA graph memory: %.2f GiB total"
	// (vllm/v1/worker/gpu_model_runner.py, profile_cudagraph_memory, #30515,
	// 2026-03). V1 only.
	FormatEstimatedGraph Format = "vllm V1: Estimated CUDA graph memory"
	// FormatGraphPool: "CUDA graph pool memory: %s GiB (actual), %s GiB
	// (estimated), difference: ..." (gpu_worker, #30515). V1 only.
	FormatGraphPool Format = "vllm V1: CUDA graph pool memory"
	// FormatGraphCapture: "Graph capturing finished in %.0f secs, took %.2f
	// GiB" (vllm/worker/model_runner.py #10027, v0.6.4; V1
	// gpu_model_runner.py #10058); older lines end "in %.0f secs." with no
	// figure.
	FormatGraphCapture Format = "vllm: Graph capturing finished"
	// FormatGraphProfiling: the CUDA-graph memory profiling notes of
	// gpu_worker (#30515, #40465, #38284): "The current
	// --gpu-memory-utilization=%.4f is equivalent to
	// --gpu-memory-utilization=%.4f without CUDA graph memory profiling ...
	// increase --gpu-memory-utilization to %.4f", "In v0.19 (v0.21), CUDA
	// graph memory profiling will be enabled by default ... increase
	// --gpu-memory-utilization from %.4f to %.4f", "CUDA graph memory
	// profiling is disabled ... increasing --gpu-memory-utilization from %.4f
	// to %.4f". V1 only.
	FormatGraphProfiling Format = "vllm V1: CUDA graph memory profiling"
	// FormatV0MaxLenError: "The model's max seq len (L) is larger than the
	// maximum number of tokens that can be stored in KV cache (T). Try
	// increasing `gpu_memory_utilization` or decreasing `max_model_len`"
	// (vllm/worker/worker.py, raise_if_cache_size_invalid, #2163, 2023-12;
	// also V1 from #9289 until #11960, 2025-01); each half is read on its
	// own.
	FormatV0MaxLenError Format = "vllm: max seq len is larger than the maximum number of tokens"
	// FormatV1MaxLenError: "To serve at least one request with the models's
	// max seq len (L), (X GiB KV cache is needed, which is larger than the
	// available KV cache memory (Y GiB). Based on the available memory, the
	// estimated maximum model length is E." (vllm/v1/core/kv_cache_utils.py,
	// _check_enough_kv_cache_memory, #11960, 2025-01; the estimate since
	// #16168; "model's" since #42479). V1 only.
	FormatV1MaxLenError Format = "vllm V1: KV cache is needed, which is larger than the available"
	// FormatNumGPUBlocks: "[Engine %03d: ]vllm cache_config_info with
	// initialization after num_gpu_blocks is: %d" (vllm/v1/metrics/loggers.py,
	// #15755, 2025-04).
	FormatNumGPUBlocks Format = "vllm V1: num_gpu_blocks is"
	// FormatXPUProfile: "Before memory profiling run, total GPU memory: %.2f
	// MB, model load takes %.2f MB, free gpu memory is %.2f MB." and "After
	// memory profiling run, peak memory usage is %.2f MB,torch mem is %.2f
	// MB, non-torch mem is %.2f MB, free gpu memory is %.2f MB."
	// (vllm/v1/worker/xpu_worker.py, #19560, 2025-06; MB is bytes /
	// 1024**2). V1 only.
	FormatXPUProfile Format = "vllm V1 XPU: memory profiling run"
	// FormatMemorySnapshot: "worker init memory snapshot: torch_peak=...,
	// free_memory=XGiB, total_memory=XGiB, ..." (gpu_worker debug, #29493;
	// MemorySnapshot.__repr__ in vllm/utils/mem_utils.py). V1 only.
	FormatMemorySnapshot Format = "vllm V1: worker init memory snapshot"
	// FormatEngineConfig: "Initializing a V1 LLM engine (v%s) with config:
	// %s" (vllm/v1/engine/core.py), "Initializing a V0 LLM engine (v%s) with
	// config: %s, use_cached_outputs=%s" (vllm/engine/llm_engine.py, #12496
	// until #25033), "Initializing an LLM engine (v%s) with config: model=%r,
	// ..." (before #12496, 2025-01: V0 and early V1 alike), "Initializing an
	// LLM engine with config:" (before #3161, 2024-03), and the crash dump
	// "Dumping input data for V1 LLM engine (v%s) with config: %s"
	// (vllm/logging_utils/dump_input.py).
	FormatEngineConfig Format = "vllm: Initializing an LLM engine with config"
	// FormatServerVersion: "vLLM API server version %s"
	// (vllm/entrypoints/openai/api_server.py, #3161, until #32796), "vLLM
	// server version %s, serving model %s" and the logo's "version %s"
	// (vllm/entrypoints/serve/utils/api_utils.py, log_version_and_model,
	// #32796), "vLLM gRPC server version %s", "vLLM batch processing API
	// version %s".
	FormatServerVersion Format = "vllm: server version"
	// FormatNonDefaultArgs: "non-default args: %s", a Python dict
	// (vllm/entrypoints/serve/utils/api_utils.py, log_non_default_args,
	// #17803; offline LLM() since #21680).
	FormatNonDefaultArgs Format = "vllm: non-default args"
	// FormatSettingStatement: "Chunked prefill is enabled with
	// max_num_batched_tokens=%d." (vllm/config/scheduler.py), "Using max
	// model len %s" (vllm/config/model.py), "Setting attention block size to
	// %d tokens ..." (vllm/platforms/interface.py, #20840; "[XPU]Setting" in
	// vllm/platforms/xpu.py).
	FormatSettingStatement Format = "vllm: setting statement"
	// FormatDrafterStatement: the speculative-decoding drafter's load lines
	// (vllm/v1/worker/gpu_model_runner.py load_model, "Loading drafter
	// model..."; vllm/v1/spec_decode/llm_base_proposer.py
	// _maybe_share_embeddings and _maybe_share_lm_head, "Detected EAGLE
	// model without its own embed_tokens in the checkpoint. Sharing target
	// model embedding weights with the draft model.", "... with embed_tokens
	// identical to the target model. ...", "... with distinct embed_tokens
	// weights. Keeping separate ...", the same of lm_head; vLLM main
	// d18bb7b), read as the settings "drafter" ("loaded") and
	// "draft_embed_tokens" and "draft_lm_head" ("not in the checkpoint",
	// "identical", "distinct").
	FormatDrafterStatement Format = "vllm: drafter statement"

	// FormatSGLangLoadWeightBegin: "Load weight begin. avail mem=%.2f GB"
	// (python/sglang/srt/model_executor/model_runner.py, load_model).
	FormatSGLangLoadWeightBegin Format = "sglang: Load weight begin"
	// FormatSGLangLoadWeightEnd: "Load weight end. [elapsed=%.2f s, ]type=%s,
	// dtype=%s (or the quantization), avail mem=%.2f GB, mem usage=%.2f GB."
	// (the same function; older versions end at "avail mem").
	FormatSGLangLoadWeightEnd Format = "sglang: Load weight end"
	// FormatSGLangKVAllocated: "KV Cache is allocated. #tokens: %d, K size:
	// %.2f GB, V size: %.2f GB" (MHATokenToKVPool) and "... #tokens: %d, KV
	// size: %.2f GB" (MLATokenToKVPool), python/sglang/srt/mem_cache/
	// memory_pool.py, with GB = 1024 * 1024 * 1024.
	FormatSGLangKVAllocated Format = "sglang: KV Cache is allocated"
	// FormatSGLangMemoryPoolEnd: "Memory pool end. avail mem=%.2f GB"
	// (model_runner.py, init_memory_pool).
	FormatSGLangMemoryPoolEnd Format = "sglang: Memory pool end"
	// FormatSGLangCaptureEnd: "Capture cuda graph end. Time elapsed: %.2f s.
	// mem usage=%.2f GB. avail mem=%.2f GB." (model_runner.py,
	// init_device_graphs; "npu graph" on Ascend; older versions give only the
	// time).
	FormatSGLangCaptureEnd Format = "sglang: Capture cuda graph end"
	// FormatSGLangPiecewiseCaptureEnd: "Capture piecewise CUDA graph end.
	// Time elapsed: %.2f s. mem usage=%.2f GB. avail mem=%.2f GB."
	// (model_runner.py:2574-2576 at sgl-project/sglang v0.5.10,
	// :2919-2920 at v0.5.11; the same words from v0.5.6.post2, :2506),
	// logged after the decode graphs' line.
	FormatSGLangPiecewiseCaptureEnd Format = "sglang: Capture piecewise CUDA graph end"
	// FormatSGLangLimits: "max_total_num_tokens=%d, chunked_prefill_size=%d,
	// max_prefill_tokens=%d, max_running_requests=%d, context_len=%d[,
	// available_gpu_mem=%.2f GB]" (python/sglang/srt/managers/scheduler.py;
	// earlier tp_worker.py, with a "[gpu_id=N] " prefix and fewer keys).
	FormatSGLangLimits Format = "sglang: max_total_num_tokens"
	// FormatSGLangServerArgs: "server_args=ServerArgs(...)", the dataclass
	// repr that launch_server and Engine log with
	// logger.info(f"{server_args=}") (python/sglang/srt/entrypoints/).
	FormatSGLangServerArgs Format = "sglang: server_args"

	// FormatVersionBefore064 and FormatVersionFrom011 are era evidence from a
	// stated version: vLLM's V1 engine entered the tree in v0.6.4 (#9289 is
	// in v0.6.4 and not in v0.6.3), and V0 was removed before v0.11.0 (#25321,
	// #25033, 2025-09-20).
	FormatVersionBefore064 Format = "vllm version before 0.6.4"
	FormatVersionFrom011   Format = "vllm version 0.11.0 or later"
)

const (
	unsignedNum = `([0-9]+(?:\.[0-9]+)?)`
	signedNum   = `(-?[0-9]+(?:\.[0-9]+)?)`
	// count takes thousands commas only in groups of three, so that "1952,
	// # CPU" stays 1952.
	count = `([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)`
)

// fig says what one submatch of a line format is.
type fig struct {
	kind Kind
	unit Unit
	// unitGroup, when set, is the submatch holding "GB" or "GiB" instead of
	// a fixed unit.
	unitGroup int
	// minPlaces is the rounding the engine applied when it prints fewer
	// digits (format_gib's round(x, 2) prints "64.6").
	minPlaces uint8
}

// lineFormat is one message a log line may hold, found anywhere in the line.
type lineFormat struct {
	format Format
	engine Engine
	// era is what a match proves, if anything.
	era Era
	// anchor is a literal the line must contain before the pattern is tried.
	anchor string
	re     *regexp.Regexp
	// figs are the submatches, 1-based; a zero fig skips its group.
	figs []fig
	// then reads what the figures do not: settings, versions, states.
	then func(b *builder, line string, m []int)
	// once: only the first match in a line counts. The settings lines are
	// read from the match to the line's end; reading again from every
	// repetition of the marker would be quadratic in the line.
	once bool
}

func gib(k Kind) fig    { return fig{kind: k, unit: UnitGiB, minPlaces: 2} }
func gbGiB(k Kind) fig  { return fig{kind: k, unit: UnitGBGiB, minPlaces: 2} }
func mbMiB(k Kind) fig  { return fig{kind: k, unit: UnitMBMiB, minPlaces: 2} }
func tokens(k Kind) fig { return fig{kind: k, unit: UnitTokens} }
func blocks(k Kind) fig { return fig{kind: k, unit: UnitBlocks} }
func ratio(k Kind, p uint8) fig {
	return fig{kind: k, unit: UnitRatio, minPlaces: p}
}

// times is a "%.2fx" multiple.
func times(k Kind) fig { return fig{kind: k, unit: UnitTimes, minPlaces: 2} }

// gibOrGB is a memory figure whose unit word is submatch g ("GB" is GiB in
// every format that uses it here).
func gibOrGB(k Kind, g int) fig { return fig{kind: k, unitGroup: g, minPlaces: 2} }

// signedKinds are the kinds whose engines print differences of measured
// memory, which can be negative (non-torch on unified memory, graph capture
// "took -0.22 GiB", "Available KV cache memory: -14.28 GiB" before the
// startup error). Every other kind is a size, a count or a ratio, and its
// patterns take no sign.
var signedKinds = map[Kind]bool{
	KindWeights: true, KindNonTorch: true, KindActivationPeak: true, KindActivationWithGraphs: true, KindTorchPeak: true,
	KindNonKVTotal: true, KindConsumed: true, KindKVCacheMemory: true, KindCUDAGraph: true, KindPiecewiseGraph: true,
	KindSuggestedKVCacheMemory: true, KindSuggestedKVCacheMemoryDevice: true,
	// vLLM's CUDA-graph estimate is the larger first capture of its modes,
	// each a difference of free memory, which it does not clamp
	// (profile_cudagraph_memory, vllm/v1/worker/gpu_model_runner.py:6846-6874
	// and :6919 at main d18bb7b): on unified memory, where that free memory
	// is the host's, rows 201 and 209 of corpus/observed/vllm.csv log
	// "Estimated CUDA graph memory: -4.74 GiB total" and "-0.90 GiB total".
	// Its "(estimated)" figure of "CUDA graph pool memory" is printed for a
	// positive estimate alone (gpu_worker.py:721-723) and takes no sign.
	KindCUDAGraphEstimate: true,
}

var formats = []lineFormat{
	{format: FormatLoadingWeightsTook, engine: EngineVLLM, anchor: "Loading model weights took",
		re:   regexp.MustCompile(`Loading model weights took ` + signedNum + ` ?(GiB|GB)\b`),
		figs: []fig{1: gibOrGB(KindWeights, 2)}},
	{format: FormatModelLoadingTook, engine: EngineVLLM, anchor: "Model loading took",
		re:   regexp.MustCompile(`Model loading took ` + signedNum + ` ?(GiB|GB)\b`),
		figs: []fig{1: gibOrGB(KindWeights, 2)}},

	{format: FormatV0MemoryProfile, engine: EngineVLLM, era: EraV0, anchor: "model weights take",
		re: regexp.MustCompile(`model weights take ` + signedNum + `GiB`), figs: []fig{1: gib(KindWeights)}},
	{format: FormatV0MemoryProfile, engine: EngineVLLM, era: EraV0, anchor: "non_torch_memory takes",
		re: regexp.MustCompile(`non_torch_memory takes ` + signedNum + `GiB`), figs: []fig{1: gib(KindNonTorch)}},
	{format: FormatV0MemoryProfile, engine: EngineVLLM, era: EraV0, anchor: "PyTorch activation peak memory takes",
		re: regexp.MustCompile(`PyTorch activation peak memory takes ` + signedNum + `GiB`), figs: []fig{1: gib(KindActivationPeak)}},
	{format: FormatV0MemoryProfile, engine: EngineVLLM, era: EraV0, anchor: "the rest of the memory reserved for KV Cache is",
		re: regexp.MustCompile(`the rest of the memory reserved for KV Cache is ` + signedNum + `GiB`), figs: []fig{1: gib(KindKVCacheMemory)}},
	{format: FormatV0Budget, engine: EngineVLLM, era: EraV0, anchor: "total_gpu_memory (",
		re:   regexp.MustCompile(`total_gpu_memory \(` + unsignedNum + `GiB\) x gpu_memory_utilization \(` + unsignedNum + `\) = ` + unsignedNum + `GiB`),
		figs: []fig{1: gib(KindDeviceTotal), 2: ratio(KindUtilization, 2), 3: gib(KindUtilBudget)}},
	// V0 0.6.4's key=value terms, read one by one because quotes elide some;
	// a MemorySnapshot repr ("torch_peak=..., non_torch_memory=...") uses one
	// of the names for another quantity and is left to its own format.
	{format: FormatV0ProfilingResults, engine: EngineVLLM, era: EraV0, anchor: "Gi",
		re:   regexp.MustCompile(`\b(total_gpu_memory|initial_memory_usage|peak_torch_memory|memory_usage_post_profile|non_torch_memory|kv_cache_size)=` + signedNum + `Gi[Bb]`),
		then: v0ProfilingResults},

	{format: FormatBlocks, engine: EngineVLLM, anchor: " blocks: ",
		re:   regexp.MustCompile(`(#\s?)?([A-Za-z]+) blocks: ` + count + `(?:, # CPU blocks: ` + count + `)?`),
		then: blockCounts},
	{format: FormatMaxConcurrency, engine: EngineVLLM, anchor: "Maximum concurrency for",
		re:   regexp.MustCompile(`Maximum concurrency for ` + count + ` tokens per request: ` + unsignedNum + `x`),
		figs: []fig{1: tokens(KindMaxModelLen), 2: times(KindMaxConcurrency)}},
	{format: FormatKVCacheSize, engine: EngineVLLM, era: EraV1, anchor: "GPU KV cache size:",
		re: regexp.MustCompile(`GPU KV cache size: ` + count + ` tokens`), figs: []fig{1: tokens(KindKVCacheTokens)}},
	{format: FormatAvailableKV, engine: EngineVLLM, era: EraV1, anchor: "Available KV cache memory:",
		re: regexp.MustCompile(`Available KV cache memory: ` + signedNum + ` GiB`), figs: []fig{1: gib(KindKVCacheMemory)}},

	{format: FormatV1MemoryProfile, engine: EngineVLLM, era: EraV1, anchor: "Total non KV cache memory:",
		re: regexp.MustCompile(`Total non KV cache memory: ` + signedNum + `GiB`), figs: []fig{1: gib(KindNonKVTotal)}},
	{format: FormatV1MemoryProfile, engine: EngineVLLM, anchor: "torch peak memory increase:",
		re: regexp.MustCompile(`torch peak memory increase: ` + signedNum + `GiB`), figs: []fig{1: gib(KindActivationPeak)}},
	{format: FormatV1MemoryProfile, engine: EngineVLLM, anchor: "non-torch forward increase memory:",
		re: regexp.MustCompile(`non-torch forward increase memory: ` + signedNum + `GiB`), figs: []fig{1: gib(KindNonTorch)}},
	{format: FormatV1MemoryProfile, engine: EngineVLLM, anchor: "total consumed (from mem_get_info):",
		re: regexp.MustCompile(`total consumed \(from mem_get_info\): ` + signedNum + `GiB`), figs: []fig{1: gib(KindConsumed)}},
	{format: FormatV1MemoryProfile, engine: EngineVLLM, anchor: "weights memory:",
		re: regexp.MustCompile(`; weights memory: ` + signedNum + `GiB`), figs: []fig{1: gib(KindWeights)}},

	{format: FormatV1EarlyProfile, engine: EngineVLLM, era: EraV1, anchor: "Peak torch memory:",
		re:   regexp.MustCompile(`Peak torch memory: ` + signedNum + ` GiB, non-torch forward-pass memory: ` + signedNum + ` GiB, available KVCache memory: ` + signedNum + ` GiB`),
		figs: []fig{1: gib(KindTorchPeak), 2: gib(KindNonTorch), 3: gib(KindKVCacheMemory)}},
	{format: FormatV1EarlyProfile, engine: EngineVLLM, era: EraV1, anchor: "total GPU memory:",
		re:   regexp.MustCompile(`Initial free memory: ` + unsignedNum + ` GiB, free memory: ` + unsignedNum + ` GiB, total GPU memory: ` + unsignedNum + ` GiB`),
		figs: []fig{1: gib(KindDeviceFree), 2: gib(KindFreeAfterProfile), 3: gib(KindDeviceTotal)}},

	{format: FormatV1Requested, engine: EngineVLLM, era: EraV1, anchor: "Requested memory:",
		re:   regexp.MustCompile(`Initial free memory: ` + unsignedNum + ` GiB; Requested memory: ` + unsignedNum + ` \(util\), ` + unsignedNum + ` GiB`),
		figs: []fig{1: gib(KindDeviceFree), 2: ratio(KindUtilization, 0), 3: gib(KindUtilBudget)}},
	{format: FormatV1Requested, engine: EngineVLLM, era: EraV1, anchor: "Free memory after profiling:",
		re: regexp.MustCompile(`Free memory after profiling: ` + unsignedNum + ` GiB \(total\)`), figs: []fig{1: gib(KindFreeAfterProfile)}},
	{format: FormatV1Requested, engine: EngineVLLM, era: EraV1, anchor: "worker requested memory:",
		re: regexp.MustCompile(`worker requested memory: ` + unsignedNum + ` ?GiB`), figs: []fig{1: gib(KindUtilBudget)}},

	// The error names the device ("cuda:0"); 40 bytes bound its name.
	{format: FormatFreeOnDevice, engine: EngineVLLM, era: EraV1, anchor: "Free memory on device",
		re:   regexp.MustCompile(`Free memory on device(?: [^ ()]{1,40})? \(` + unsignedNum + `/` + unsignedNum + ` GiB\) on startup`),
		figs: []fig{1: gib(KindDeviceFree), 2: gib(KindDeviceTotal)}},
	{format: FormatFreeOnDevice, engine: EngineVLLM, era: EraV1, anchor: "esired GPU memory utilization",
		re:   regexp.MustCompile(`(?:Desired GPU memory utilization is|is less than desired GPU memory utilization) \(` + unsignedNum + `, ` + unsignedNum + ` GiB\)`),
		figs: []fig{1: ratio(KindUtilization, 0), 2: gib(KindUtilBudget)}},

	{format: FormatActualUsage, engine: EngineVLLM, era: EraV1, anchor: "Actual usage is",
		re:   regexp.MustCompile(`Actual usage is ` + signedNum + ` GiB for weight, ` + signedNum + ` GiB for peak activation, ` + signedNum + ` GiB for non-torch memory, and ` + signedNum + ` GiB for CUDAGraph memory`),
		figs: []fig{1: gib(KindWeights), 2: gib(KindActivationPeak), 3: gib(KindNonTorch), 4: gib(KindCUDAGraph)}},
	{format: FormatActualUsage, engine: EngineVLLM, era: EraV1, anchor: "Actual usage is",
		re:   regexp.MustCompile(`Actual usage is ` + signedNum + ` GiB for consumed memory \(weights \+ non-torch\), ` + signedNum + ` GiB for peak activation, and ` + signedNum + ` GiB for CUDAGraph memory`),
		figs: []fig{1: gib(KindConsumed), 2: gib(KindActivationWithGraphs), 3: gib(KindCUDAGraph)}},
	{format: FormatActualUsage, engine: EngineVLLM, era: EraV1, anchor: "to fit into requested memory",
		re:   regexp.MustCompile("`--kv-cache-memory=(-?[0-9]+)` \\(" + signedNum + " GiB\\) to fit into requested memory"),
		figs: []fig{1: {kind: KindSuggestedKVCacheMemory, unit: UnitBytes}}},
	{format: FormatActualUsage, engine: EngineVLLM, era: EraV1, anchor: "to fully utilize gpu memory",
		re:   regexp.MustCompile("`--kv-cache-memory=(-?[0-9]+)` \\(" + signedNum + " GiB\\) to fully utilize gpu memory"),
		figs: []fig{1: {kind: KindSuggestedKVCacheMemoryDevice, unit: UnitBytes}}},
	{format: FormatActualUsage, engine: EngineVLLM, era: EraV1, anchor: "Current kv cache memory in use is",
		re: regexp.MustCompile(`Current kv cache memory in use is ` + signedNum + ` GiB`), figs: []fig{1: gib(KindKVCacheMemory)}},

	{format: FormatEncoderCache, engine: EngineVLLM, era: EraV1, anchor: "Encoder cache will be initialized",
		re:   regexp.MustCompile(`Encoder cache will be initialized with a budget of ` + count + ` tokens, and profiled with ` + count + ` [a-z_]+ items`),
		figs: []fig{1: tokens(KindEncoderBudget), 2: {kind: KindEncoderItems, unit: UnitItems}}},
	{format: FormatEstimatedGraph, engine: EngineVLLM, era: EraV1, anchor: "Estimated CUDA graph memory:",
		re: regexp.MustCompile(`Estimated CUDA graph memory: ` + signedNum + ` GiB total`), figs: []fig{1: gib(KindCUDAGraphEstimate)}},
	{format: FormatGraphPool, engine: EngineVLLM, era: EraV1, anchor: "CUDA graph pool memory:",
		re:   regexp.MustCompile(`CUDA graph pool memory: ` + signedNum + ` GiB \(actual\), ` + unsignedNum + ` GiB \(estimated\)`),
		figs: []fig{1: gib(KindCUDAGraph), 2: gib(KindCUDAGraphEstimate)}},
	{format: FormatGraphCapture, engine: EngineVLLM, anchor: "Graph capturing finished in",
		re: regexp.MustCompile(`Graph capturing finished in [0-9]+ secs?, took ` + signedNum + ` GiB`), figs: []fig{1: gib(KindCUDAGraph)}},

	{format: FormatGraphProfiling, engine: EngineVLLM, era: EraV1, anchor: "without CUDA graph memory profiling",
		re:   regexp.MustCompile(`current --gpu-memory-utilization=` + unsignedNum + ` is equivalent to --gpu-memory-utilization=` + unsignedNum + ` without CUDA graph memory profiling`),
		figs: []fig{1: ratio(KindUtilization, 4), 2: ratio(KindUtilWithoutGraphs, 4)},
		then: func(b *builder, _ string, _ []int) { b.graphBudget(GraphBudgetCounted) }},
	{format: FormatGraphProfiling, engine: EngineVLLM, era: EraV1, anchor: "increase --gpu-memory-utilization to",
		re: regexp.MustCompile(`increase --gpu-memory-utilization to ` + unsignedNum), figs: []fig{1: ratio(KindUtilSuggested, 4)}},
	{format: FormatGraphProfiling, engine: EngineVLLM, era: EraV1, anchor: "--gpu-memory-utilization from",
		re:   regexp.MustCompile(`increas(?:e|ing) --gpu-memory-utilization from ` + unsignedNum + ` to ` + unsignedNum),
		figs: []fig{1: ratio(KindUtilization, 4), 2: ratio(KindUtilSuggested, 4)}},
	{format: FormatGraphProfiling, engine: EngineVLLM, era: EraV1, anchor: "CUDA graph memory profiling",
		re:   regexp.MustCompile(`CUDA graph memory profiling (?:will be enabled by default|is disabled)`),
		then: func(b *builder, _ string, _ []int) { b.graphBudget(GraphBudgetNotCounted) }},

	{format: FormatV0MaxLenError, engine: EngineVLLM, anchor: "is larger than the maximum number of tokens",
		re: regexp.MustCompile(`max seq len \(` + count + `\) is larger than the maximum number of tokens`), figs: []fig{1: tokens(KindMaxModelLen)}},
	{format: FormatV0MaxLenError, engine: EngineVLLM, anchor: "maximum number of tokens that can be stored in KV cache",
		re: regexp.MustCompile(`maximum number of tokens that can be stored in KV cache \(` + count + `\)`), figs: []fig{1: tokens(KindKVCacheTokens)}},
	{format: FormatV1MaxLenError, engine: EngineVLLM, era: EraV1, anchor: "KV cache is needed",
		re:   regexp.MustCompile(`max seq len \(` + count + `\), \(` + unsignedNum + ` GiB KV cache is needed, which is larger than the available KV cache memory \(` + signedNum + ` GiB\)`),
		figs: []fig{1: tokens(KindMaxModelLen), 2: gib(KindKVCacheNeeded), 3: gib(KindKVCacheMemory)}},
	{format: FormatV1MaxLenError, engine: EngineVLLM, era: EraV1, anchor: "estimated maximum model length is",
		re: regexp.MustCompile(`the estimated maximum model length is ` + count), figs: []fig{1: tokens(KindEstimatedMaxModelLen)}},
	{format: FormatNumGPUBlocks, engine: EngineVLLM, anchor: "num_gpu_blocks is:",
		re: regexp.MustCompile(`num_gpu_blocks is: ` + count), figs: []fig{1: blocks(KindGPUBlocks)}},

	{format: FormatXPUProfile, engine: EngineVLLM, era: EraV1, anchor: "Before memory profiling run",
		re:   regexp.MustCompile(`Before memory profiling run, total GPU memory: ` + unsignedNum + ` MB, model load takes ` + unsignedNum + ` MB, free gpu memory is ` + unsignedNum + ` MB`),
		figs: []fig{1: mbMiB(KindDeviceTotal), 2: mbMiB(KindWeights), 3: mbMiB(KindDeviceFree)}},
	{format: FormatXPUProfile, engine: EngineVLLM, era: EraV1, anchor: "After memory profiling run",
		re:   regexp.MustCompile(`After memory profiling run, peak memory usage is ` + unsignedNum + ` MB, ?torch mem is ` + unsignedNum + ` MB, non-torch mem is ` + signedNum + ` MB, free gpu memory is ` + unsignedNum + ` MB`),
		figs: []fig{1: mbMiB(KindTorchPeak), 3: mbMiB(KindNonTorch), 4: mbMiB(KindFreeAfterProfile)}},
	{format: FormatMemorySnapshot, engine: EngineVLLM, era: EraV1, anchor: "memory snapshot:",
		re: regexp.MustCompile(`memory snapshot: `), then: memorySnapshot},

	{format: FormatEngineConfig, engine: EngineVLLM, anchor: "LLM engine",
		re:   regexp.MustCompile(`(?:Initializing|Dumping input data for) (?:an? )?(?:(V[01]) )?LLM engine(?: \(v([^)\s]{1,64})\))? with config: ?`),
		then: engineConfig, once: true},
	{format: FormatServerVersion, engine: EngineVLLM, anchor: "version",
		re:   regexp.MustCompile(`vLLM (?:API server|server|gRPC server|batch processing API) version ([0-9][0-9A-Za-z.+_-]{0,63})`),
		then: func(b *builder, line string, m []int) { b.version(line[m[2]:m[3]]) }},
	{format: FormatServerVersion, engine: EngineVLLM, anchor: "▀▄▀",
		re:   regexp.MustCompile(`▀▄▀ █\s+version\s+([0-9][0-9A-Za-z.+_-]{0,63})`),
		then: func(b *builder, line string, m []int) { b.version(line[m[2]:m[3]]) }},
	{format: FormatNonDefaultArgs, engine: EngineVLLM, anchor: "non-default args:",
		re: regexp.MustCompile(`non-default args: \{`), once: true,
		then: func(b *builder, line string, m []int) {
			scanDict(line[m[1]:], func(k, v string, lit Literal) { b.setting(k, k, v, lit, SourceNonDefaultArgs) })
		}},
	{format: FormatSettingStatement, engine: EngineVLLM, anchor: "Chunked prefill is enabled with",
		re:   regexp.MustCompile(`Chunked prefill is enabled with max_num_batched_tokens=([0-9]+)`),
		then: statement("max_num_batched_tokens")},
	{format: FormatDrafterStatement, engine: EngineVLLM, anchor: "Loading drafter model",
		re:   regexp.MustCompile(`Loading drafter model\.\.\.`),
		then: drafterStatement("drafter", "loaded")},
	{format: FormatDrafterStatement, engine: EngineVLLM, anchor: "Detected EAGLE model",
		re:   regexp.MustCompile(`Detected EAGLE model without its own (embed_tokens|lm_head) in the checkpoint`),
		then: drafterStatement("", "not in the checkpoint")},
	{format: FormatDrafterStatement, engine: EngineVLLM, anchor: "Detected EAGLE model",
		re:   regexp.MustCompile(`Detected EAGLE model with (embed_tokens|lm_head) identical to the target model`),
		then: drafterStatement("", "identical")},
	{format: FormatDrafterStatement, engine: EngineVLLM, anchor: "Detected EAGLE model",
		re:   regexp.MustCompile(`Detected EAGLE model with distinct (embed_tokens|lm_head) weights`),
		then: drafterStatement("", "distinct")},
	{format: FormatSettingStatement, engine: EngineVLLM, anchor: "Using max model len",
		re:   regexp.MustCompile(`Using max model len ([0-9]+)`),
		then: statement("max_model_len")},
	{format: FormatSettingStatement, engine: EngineVLLM, anchor: "Setting attention block size to",
		re:   regexp.MustCompile(`Setting attention block size to ([0-9]+) tokens`),
		then: statement("block_size")},

	{format: FormatSGLangLoadWeightBegin, engine: EngineSGLang, era: EraSGLang, anchor: "Load weight begin.",
		re: regexp.MustCompile(`Load weight begin\. avail mem=` + unsignedNum + ` ?GB`), figs: []fig{1: gbGiB(KindDeviceFree)}},
	{format: FormatSGLangLoadWeightEnd, engine: EngineSGLang, era: EraSGLang, anchor: "Load weight end.",
		re:   regexp.MustCompile(`Load weight end\.`),
		then: sglangAfter(gbGiB(KindFreeAfterLoad), gbGiB(KindWeights))},
	{format: FormatSGLangKVAllocated, engine: EngineSGLang, era: EraSGLang, anchor: "KV Cache is allocated.",
		re: regexp.MustCompile(`KV Cache is allocated\.`), then: sglangKVAllocated},
	{format: FormatSGLangMemoryPoolEnd, engine: EngineSGLang, era: EraSGLang, anchor: "Memory pool end.",
		re: regexp.MustCompile(`Memory pool end\. avail mem=` + unsignedNum + ` ?GB`), figs: []fig{1: gbGiB(KindFreeAfterPool)}},
	// "Capture cuda graph end.", "Capture npu graph end.", "Capture draft
	// cuda graph end.": up to 20 bytes of the graph's kind, in lower case;
	// the piecewise graphs' line, with its capital CUDA, is read apart.
	{format: FormatSGLangCaptureEnd, engine: EngineSGLang, era: EraSGLang, anchor: "graph end.",
		re:   regexp.MustCompile(`Capture [a-z ]{0,20}graph end\.`),
		then: sglangAfter(gbGiB(KindFreeAfterGraphs), gbGiB(KindCUDAGraph))},
	{format: FormatSGLangPiecewiseCaptureEnd, engine: EngineSGLang, era: EraSGLang, anchor: "piecewise CUDA graph end.",
		re:   regexp.MustCompile(`Capture piecewise CUDA graph end\.`),
		then: sglangAfter(gbGiB(KindFreeAfterPiecewise), gbGiB(KindPiecewiseGraph))},
	{format: FormatSGLangLimits, engine: EngineSGLang, era: EraSGLang, anchor: "max_total_num_tokens=",
		re:   regexp.MustCompile(`max_total_num_tokens=([0-9]+)`),
		figs: []fig{1: tokens(KindKVCacheTokens)},
		then: sglangLimits, once: true},
	{format: FormatSGLangServerArgs, engine: EngineSGLang, era: EraSGLang, anchor: "ServerArgs(",
		re: regexp.MustCompile(`server_args=ServerArgs\(`), once: true,
		then: func(b *builder, line string, m []int) {
			scanAssignments(line[m[1]:], func(k, v string, lit Literal) { b.setting(k, k, v, lit, SourceServerArgs) })
		}},
}

var v0ProfilingKinds = map[string]Kind{
	"total_gpu_memory":          KindDeviceTotal,
	"initial_memory_usage":      KindInitialUsage,
	"peak_torch_memory":         KindTorchPeak,
	"memory_usage_post_profile": KindPostProfileUsage,
	"non_torch_memory":          KindNonTorch,
	"kv_cache_size":             KindKVCacheMemory,
}

// v0Utilization is the term that follows kv_cache_size in the 0.6.4 line,
// looked for in the v0UtilSpan bytes after it (", gpu_memory_utilization=
// 0.90" is 30).
var v0Utilization = regexp.MustCompile(`^,? gpu_memory_utilization=` + unsignedNum)

const v0UtilSpan = 64

// snapshotSpan is how far before a "non_torch_memory=" a MemorySnapshot
// repr's "torch_peak=" can be: the repr's first field, under 200 bytes
// before its non-torch field. Looking no further keeps a line of many
// matches linear.
const snapshotSpan = 300

func v0ProfilingResults(b *builder, line string, m []int) {
	if strings.Contains(line[max(0, m[0]-snapshotSpan):m[0]], "torch_peak=") {
		return // a MemorySnapshot repr, not the 0.6.4 results line
	}
	kind := v0ProfilingKinds[line[m[2]:m[3]]]
	if !signedKinds[kind] && line[m[4]] == '-' {
		return
	}
	b.figure(kind, line[m[4]:m[5]], gib(kind), m[0], line[m[0]:m[1]])
	if kind == KindKVCacheMemory {
		after := line[m[1]:min(len(line), m[1]+v0UtilSpan)]
		if u := v0Utilization.FindStringSubmatchIndex(after); u != nil {
			b.figure(KindUtilization, after[u[2]:u[3]], ratio(KindUtilization, 2), m[0], line[m[0]:m[1]+u[1]])
		}
	}
}

func blockCounts(b *builder, line string, m []int) {
	hash := m[2] >= 0
	device := line[m[4]:m[5]]
	pair := m[8] >= 0
	if !hash && !pair {
		return // "num blocks: 5" and the like: not vLLM's block line
	}
	if device == "CPU" && !pair {
		return // the CPU backend's device blocks, or an elided pair: unknown
	}
	text := line[m[0]:m[1]]
	b.figure(KindGPUBlocks, line[m[6]:m[7]], blocks(KindGPUBlocks), m[0], text)
	if pair {
		b.figure(KindCPUBlocks, line[m[8]:m[9]], blocks(KindCPUBlocks), m[0], text)
		b.evidence(EraV0, FormatBlocks)
	}
}

var (
	sglangAvail = regexp.MustCompile(`avail mem=` + unsignedNum + ` ?GB`)
	sglangUsage = regexp.MustCompile(`mem usage=` + signedNum + ` ?GB`)
)

// sglangSpan bounds how far after an SGLang marker its figures are looked
// for: the model type and quantization words come first.
const sglangSpan = 400

// sglangAfter reads "avail mem=" and "mem usage=" after an SGLang marker
// ("Load weight end.", "Capture cuda graph end."), in either order (forks
// swap them).
func sglangAfter(avail, usage fig) func(b *builder, line string, m []int) {
	return func(b *builder, line string, m []int) {
		rest := line[m[1]:min(len(line), m[1]+sglangSpan)]
		if a := sglangAvail.FindStringSubmatchIndex(rest); a != nil {
			b.figure(avail.kind, rest[a[2]:a[3]], avail, m[0], line[m[0]:m[1]+a[1]])
		}
		if u := sglangUsage.FindStringSubmatchIndex(rest); u != nil {
			b.figure(usage.kind, rest[u[2]:u[3]], usage, m[0], line[m[0]:m[1]+u[1]])
		}
	}
}

// Some SGLang forks put words between "KV Cache is allocated." and
// "#tokens" ("dtype: torch.bfloat16, "); the figures are looked for in a
// window after the marker, so that a line of many markers stays linear.
const kvAllocatedSpan = 300

var (
	sglangKV  = regexp.MustCompile(`^#tokens: ` + count + `, K size: ` + unsignedNum + ` ?GB, V size: ` + unsignedNum + ` ?GB`)
	sglangMLA = regexp.MustCompile(`^#tokens: ` + count + `, KV size: ` + unsignedNum + ` ?GB`)
)

func sglangKVAllocated(b *builder, line string, m []int) {
	w := line[m[1]:min(len(line), m[1]+kvAllocatedSpan)]
	at := strings.Index(w, "#tokens: ")
	if at < 0 {
		return
	}
	w, off := w[at:], m[1]+at
	text := func(end int) string { return line[m[0] : off+end] }
	if k := sglangKV.FindStringSubmatchIndex(w); k != nil {
		b.figure(KindKVCacheTokens, w[k[2]:k[3]], tokens(KindKVCacheTokens), m[0], text(k[1]))
		b.figure(KindKCacheMemory, w[k[4]:k[5]], gbGiB(KindKCacheMemory), m[0], text(k[1]))
		b.figure(KindVCacheMemory, w[k[6]:k[7]], gbGiB(KindVCacheMemory), m[0], text(k[1]))
	} else if k := sglangMLA.FindStringSubmatchIndex(w); k != nil {
		b.figure(KindKVCacheTokens, w[k[2]:k[3]], tokens(KindKVCacheTokens), m[0], text(k[1]))
		b.figure(KindKVCacheMemory, w[k[4]:k[5]], gbGiB(KindKVCacheMemory), m[0], text(k[1]))
	}
}

// snapshotFields reads free_memory and total_memory, adjacent in a
// MemorySnapshot repr after torch_peak and torch_allocated.
var snapshotFields = regexp.MustCompile(`^free_memory=` + unsignedNum + `GiB, total_memory=` + unsignedNum + `GiB`)

func memorySnapshot(b *builder, line string, m []int) {
	w := line[m[1]:min(len(line), m[1]+snapshotSpan)]
	at := strings.Index(w, "free_memory=")
	if at < 0 {
		return
	}
	w, off := w[at:], m[1]+at
	if k := snapshotFields.FindStringSubmatchIndex(w); k != nil {
		text := line[m[0] : off+k[1]]
		b.figure(KindDeviceFree, w[k[2]:k[3]], gib(KindDeviceFree), m[0], text)
		b.figure(KindDeviceTotal, w[k[4]:k[5]], gib(KindDeviceTotal), m[0], text)
	}
}

var sglangAvailableGPU = regexp.MustCompile(`available_gpu_mem=` + unsignedNum + ` ?GB`)

func sglangLimits(b *builder, line string, m []int) {
	rest := line[m[0]:]
	scanAssignments(rest, func(k, v string, lit Literal) {
		if k != "max_total_num_tokens" && k != "available_gpu_mem" {
			b.setting(k, k, v, lit, SourceSGLangLimits)
		}
	})
	if a := sglangAvailableGPU.FindStringSubmatchIndex(rest); a != nil {
		b.figure(KindFreeAfterGraphs, rest[a[2]:a[3]], gbGiB(KindFreeAfterGraphs), m[0], rest[a[0]:a[1]])
	}
}

func statement(key string) func(b *builder, line string, m []int) {
	return func(b *builder, line string, m []int) {
		b.setting(key, key, line[m[2]:m[3]], LiteralNumber, SourceStatement)
	}
}

// drafterStatement records a drafter line as a setting: key, or
// "draft_" and the tensor the line names (its first submatch), at value.
func drafterStatement(key, value string) func(b *builder, line string, m []int) {
	return func(b *builder, line string, m []int) {
		k := key
		if k == "" {
			k = "draft_" + line[m[2]:m[3]]
		}
		b.setting(k, k, value, LiteralString, SourceStatement)
	}
}

func engineConfig(b *builder, line string, m []int) {
	if m[2] >= 0 {
		b.evidence(Era(line[m[2]:m[3]]), FormatEngineConfig)
	}
	if m[4] >= 0 {
		b.version(line[m[4]:m[5]])
	}
	scanAssignments(line[m[1]:], func(k, v string, lit Literal) {
		key := k
		if k == "max_seq_len" {
			key = "max_model_len"
		}
		b.setting(key, k, v, lit, SourceEngineConfig)
	})
}
