package logs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// figureView is what a test compares of a Figure: the number as logged, its
// unit and rounding, and where it was.
type figureView struct {
	Kind      Kind
	Value     string
	Unit      Unit
	RoundedTo uint8
	Process   string
	Line      int
}

func viewFigures(fs []Figure) []figureView {
	var out []figureView
	for _, f := range fs {
		out = append(out, figureView{f.Kind, f.Value.String(), f.Unit, f.RoundedTo, f.Process, f.Line})
	}
	return out
}

// logCase is a whole log in testdata/, written from the format strings of
// the engine version it names (formats.go cites each), and what it states,
// entered by hand from the log's text.
type logCase struct {
	file    string
	engine  Engine
	version string
	era     Era
	graph   GraphBudget
	figures []figureView
	// settings are looked up with Log.Setting (the last statement wins);
	// settingCount is how many settings the log states in all.
	settings     map[string]Setting
	settingCount int
}

// Figures in the cases are written f(kind, value, unit, rounded-to, process,
// line). RoundedTo is the printed places, raised to 2 for GiB/GB figures
// (format_gib rounds to 2 places; "%.2f" prints 2).
func f(k Kind, v string, u Unit, r uint8, p string, line int) figureView {
	return figureView{k, v, u, r, p, line}
}

// engineSetting is a setting read from an engine config line.
func engineSetting(key, logged, value string, lit Literal, line int) Setting {
	return Setting{Key: key, LoggedKey: logged, Value: value, Literal: lit, Source: SourceEngineConfig, Line: line}
}

var logCases = []logCase{
	{
		// vLLM 0.4.2 (vllm/engine/llm_engine.py, vllm/worker/model_runner.py,
		// vllm/executor/gpu_executor.py at v0.4.2): a version before 0.6.4
		// and the block pair both say V0.
		file: "vllm-0.4.2-v0.log", engine: EngineVLLM, version: "0.4.2", era: EraV0,
		figures: []figureView{
			f(KindWeights, "14.9595", UnitGBGiB, 4, "", 3),
			f(KindGPUBlocks, "27793", UnitBlocks, 0, "", 4),
			f(KindCPUBlocks, "2048", UnitBlocks, 0, "", 4),
			// "Graph capturing finished in 6 secs." states no memory.
		},
		settings: map[string]Setting{
			"model":             engineSetting("model", "model", "meta-llama/Meta-Llama-3-8B-Instruct", LiteralString, 1),
			"max_model_len":     engineSetting("max_model_len", "max_seq_len", "8192", LiteralNumber, 1),
			"dtype":             engineSetting("dtype", "dtype", "torch.bfloat16", LiteralOther, 1),
			"quantization":      engineSetting("quantization", "quantization", "None", LiteralNone, 1),
			"enforce_eager":     engineSetting("enforce_eager", "enforce_eager", "False", LiteralBool, 1),
			"decoding_config":   engineSetting("decoding_config", "decoding_config", "DecodingConfig(guided_decoding_backend='outlines')", LiteralOther, 1),
			"served_model_name": engineSetting("served_model_name", "served_model_name", "meta-llama/Meta-Llama-3-8B-Instruct", LiteralOther, 1),
		},
		// model .. served_model_name: the 22 %-fields of the v0.4.2 format.
		settingCount: 22,
	},
	{
		// vLLM 0.6.4 with tensor parallelism 2 over multiprocessing: the
		// second rank's lines carry "(VllmWorkerProcess pid=N)" in ANSI cyan
		// (vllm/executor/multiproc_worker_utils.py, _add_prefix); the
		// 0.6.4-only "Memory profiling results" line (with its "Gib" typo)
		// says V0. Each rank's figures are kept.
		file: "vllm-0.6.4-v0-tp2.log", engine: EngineVLLM, version: "0.6.4", era: EraV0,
		figures: []figureView{
			f(KindWeights, "7.5100", UnitGBGiB, 4, "", 4),
			f(KindWeights, "7.5100", UnitGBGiB, 4, "VllmWorkerProcess", 5),
			f(KindDeviceTotal, "23.58", UnitGiB, 2, "VllmWorkerProcess", 6),
			f(KindInitialUsage, "8.03", UnitGiB, 2, "VllmWorkerProcess", 6),
			f(KindTorchPeak, "8.87", UnitGiB, 2, "VllmWorkerProcess", 6),
			f(KindPostProfileUsage, "8.04", UnitGiB, 2, "VllmWorkerProcess", 6),
			f(KindNonTorch, "0.40", UnitGiB, 2, "VllmWorkerProcess", 6),
			f(KindKVCacheMemory, "11.95", UnitGiB, 2, "VllmWorkerProcess", 6),
			f(KindUtilization, "0.90", UnitRatio, 2, "VllmWorkerProcess", 6),
			f(KindDeviceTotal, "23.58", UnitGiB, 2, "", 7),
			f(KindInitialUsage, "8.03", UnitGiB, 2, "", 7),
			f(KindTorchPeak, "8.87", UnitGiB, 2, "", 7),
			f(KindPostProfileUsage, "8.04", UnitGiB, 2, "", 7),
			f(KindNonTorch, "0.42", UnitGiB, 2, "", 7),
			f(KindKVCacheMemory, "11.93", UnitGiB, 2, "", 7),
			f(KindUtilization, "0.90", UnitRatio, 2, "", 7),
			// 11.93 GiB / 1 MiB blocks (32 layers x 4 KV heads per rank x
			// 128 x 2 x 2 B x 16 tokens) = 12216.3: 12216 blocks.
			f(KindGPUBlocks, "12216", UnitBlocks, 0, "", 8),
			f(KindCPUBlocks, "4096", UnitBlocks, 0, "", 8),
			// 12216 x 16 / 20000 = 9.77.
			f(KindMaxModelLen, "20000", UnitTokens, 0, "", 9),
			f(KindMaxConcurrency, "9.77", UnitTimes, 2, "", 9),
			f(KindCUDAGraph, "0.31", UnitGiB, 2, "", 10),
			f(KindCUDAGraph, "0.31", UnitGiB, 2, "VllmWorkerProcess", 11),
		},
		settings: map[string]Setting{
			"tensor_parallel_size": engineSetting("tensor_parallel_size", "tensor_parallel_size", "2", LiteralNumber, 2),
			"max_model_len":        engineSetting("max_model_len", "max_seq_len", "20000", LiteralNumber, 2),
			// The format lacks the comma between these two.
			"chunked_prefill_enabled":   engineSetting("chunked_prefill_enabled", "chunked_prefill_enabled", "False", LiteralBool, 2),
			"multi_step_stream_outputs": engineSetting("multi_step_stream_outputs", "multi_step_stream_outputs", "True", LiteralBool, 2),
			"pooler_config":             engineSetting("pooler_config", "pooler_config", "None", LiteralNone, 2),
		},
		settingCount: 34,
	},
	{
		// vLLM 0.7.2's V0 engine (vllm/worker/worker.py, #10511 message;
		// vllm/executor/executor_base.py "# %s blocks" with "CUDA").
		file: "vllm-0.7.2-v0.log", engine: EngineVLLM, version: "0.7.2", era: EraV0,
		figures: []figureView{
			f(KindWeights, "14.9888", UnitGBGiB, 4, "", 4),
			f(KindDeviceTotal, "79.22", UnitGiB, 2, "", 6),
			f(KindUtilization, "0.90", UnitRatio, 2, "", 6),
			f(KindUtilBudget, "71.29", UnitGiB, 2, "", 6),
			// 71.29 - 14.99 - 0.52 - 1.19 = 54.59.
			f(KindWeights, "14.99", UnitGiB, 2, "", 7),
			f(KindNonTorch, "0.52", UnitGiB, 2, "", 7),
			f(KindActivationPeak, "1.19", UnitGiB, 2, "", 7),
			f(KindKVCacheMemory, "54.59", UnitGiB, 2, "", 7),
			// 54.59 GiB / 2 MiB blocks = 27950.1; 27950 x 16 / 131072 = 3.41.
			f(KindGPUBlocks, "27950", UnitBlocks, 0, "", 8),
			f(KindCPUBlocks, "2048", UnitBlocks, 0, "", 8),
			f(KindMaxModelLen, "131072", UnitTokens, 0, "", 9),
			f(KindMaxConcurrency, "3.41", UnitTimes, 2, "", 9),
			f(KindCUDAGraph, "0.53", UnitGiB, 2, "", 11),
		},
		settings: map[string]Setting{
			"compilation_config": engineSetting("compilation_config", "compilation_config",
				`{"splitting_ops":[],"compile_sizes":[],"cudagraph_capture_sizes":[256,248,240],"max_capture_size":256}`, LiteralOther, 3),
			"use_cached_outputs": engineSetting("use_cached_outputs", "use_cached_outputs", "True", LiteralBool, 3),
		},
		settingCount: 34,
	},
	{
		// vLLM 0.10.1.1's V1 engine under "vllm serve": non-default args,
		// the settings statements, and the engine core's lines.
		file: "vllm-0.10-v1.log", engine: EngineVLLM, version: "0.10.1.1", era: EraV1,
		figures: []figureView{
			f(KindWeights, "15.2683", UnitGiB, 4, "EngineCore_0", 7),
			f(KindKVCacheMemory, "16.88", UnitGiB, 2, "EngineCore_0", 9),
			// 16.88 GiB / (36 x 8 x 128 x 2 x 2 B x 16) = 7682.3 blocks:
			// 122,912 tokens; / 32768 = 3.75.
			f(KindKVCacheTokens, "122912", UnitTokens, 0, "EngineCore_0", 10),
			f(KindMaxModelLen, "32768", UnitTokens, 0, "EngineCore_0", 11),
			f(KindMaxConcurrency, "3.75", UnitTimes, 2, "EngineCore_0", 11),
			f(KindCUDAGraph, "0.61", UnitGiB, 2, "EngineCore_0", 12),
		},
		settings: map[string]Setting{
			"max_model_len":          engineSetting("max_model_len", "max_seq_len", "32768", LiteralNumber, 6),
			"gpu_memory_utilization": {Key: "gpu_memory_utilization", LoggedKey: "gpu_memory_utilization", Value: "0.85", Literal: LiteralNumber, Source: SourceNonDefaultArgs, Line: 2},
			"max_num_seqs":           {Key: "max_num_seqs", LoggedKey: "max_num_seqs", Value: "128", Literal: LiteralNumber, Source: SourceNonDefaultArgs, Line: 2},
			"limit_mm_per_prompt":    {Key: "limit_mm_per_prompt", LoggedKey: "limit_mm_per_prompt", Value: "{'image': 0}", Literal: LiteralOther, Source: SourceNonDefaultArgs, Line: 2},
			"max_num_batched_tokens": {Key: "max_num_batched_tokens", LoggedKey: "max_num_batched_tokens", Value: "2048", Literal: LiteralNumber, Source: SourceStatement, Line: 4},
			"served_model_name":      engineSetting("served_model_name", "served_model_name", "qwen3", LiteralOther, 6),
		},
		// 8 non-default args + 2 statements + 29 engine config fields.
		settingCount: 39,
	},
	{
		// vLLM 0.19.0, tensor parallelism 2, DEBUG: two workers' lines,
		// the debug memory lines of gpu_worker.py and mem_utils.py, the
		// "In v0.19, ... will be enabled by default" note (the estimate was
		// not charged), and the startup summary.
		file: "vllm-0.19-v1-tp2-debug.log", engine: EngineVLLM, version: "0.19.0", era: EraV1, graph: GraphBudgetNotCounted,
		figures: []figureView{
			f(KindDeviceFree, "77.66", UnitGiB, 2, "Worker_TP0", 4),
			f(KindDeviceTotal, "79.19", UnitGiB, 2, "Worker_TP0", 4),
			// 79.19 x 0.95 = 75.23.
			f(KindUtilBudget, "75.23", UnitGiB, 2, "Worker_TP0", 5),
			f(KindUtilBudget, "75.23", UnitGiB, 2, "Worker_TP1", 6),
			f(KindWeights, "7.51", UnitGiB, 2, "Worker_TP0", 7),
			f(KindWeights, "7.51", UnitGiB, 2, "Worker_TP1", 8),
			f(KindDeviceFree, "77.66", UnitGiB, 2, "Worker_TP0", 9),
			f(KindUtilization, "0.950000", UnitRatio, 6, "Worker_TP0", 9),
			f(KindUtilBudget, "75.23", UnitGiB, 2, "Worker_TP0", 9),
			f(KindFreeAfterProfile, "66.89", UnitGiB, 2, "Worker_TP0", 10),
			// 7.51 + 1.89 + 2.07 = 11.47; 75.23 - 11.47 = 63.76 below.
			f(KindNonKVTotal, "11.47", UnitGiB, 2, "Worker_TP0", 11),
			f(KindActivationPeak, "1.89", UnitGiB, 2, "Worker_TP0", 11),
			f(KindNonTorch, "2.07", UnitGiB, 2, "Worker_TP0", 11),
			f(KindWeights, "7.51", UnitGiB, 2, "Worker_TP0", 11),
			f(KindCUDAGraphEstimate, "1.69", UnitGiB, 2, "Worker_TP0", 12),
			f(KindKVCacheMemory, "63.76", UnitGiB, 2, "Worker_TP0", 13),
			f(KindKVCacheMemory, "63.79", UnitGiB, 2, "Worker_TP1", 14),
			// 0.95 + 1.69 / 79.19 = 0.9713.
			f(KindUtilization, "0.9500", UnitRatio, 4, "Worker_TP0", 15),
			f(KindUtilSuggested, "0.9713", UnitRatio, 4, "Worker_TP0", 15),
			// 65293 blocks x 16 = 1,044,688 tokens; / 8192 = 127.53.
			f(KindKVCacheTokens, "1044688", UnitTokens, 0, "EngineCore_DP0", 16),
			f(KindMaxModelLen, "8192", UnitTokens, 0, "EngineCore_DP0", 17),
			f(KindMaxConcurrency, "127.53", UnitTimes, 2, "EngineCore_DP0", 17),
			f(KindCUDAGraph, "0.76", UnitGiB, 2, "Worker_TP0", 18),
			f(KindCUDAGraph, "0.76", UnitGiB, 2, "Worker_TP0", 19),
			f(KindCUDAGraphEstimate, "1.69", UnitGiB, 2, "Worker_TP0", 19),
			f(KindDeviceFree, "77.66", UnitGiB, 2, "Worker_TP0", 20),
			f(KindDeviceTotal, "79.19", UnitGiB, 2, "Worker_TP0", 20),
			f(KindUtilization, "0.95", UnitRatio, 2, "Worker_TP0", 20),
			f(KindUtilBudget, "75.23", UnitGiB, 2, "Worker_TP0", 20),
			f(KindWeights, "7.51", UnitGiB, 2, "Worker_TP0", 20),
			f(KindActivationPeak, "1.89", UnitGiB, 2, "Worker_TP0", 20),
			f(KindNonTorch, "2.07", UnitGiB, 2, "Worker_TP0", 20),
			f(KindCUDAGraph, "0.76", UnitGiB, 2, "Worker_TP0", 20),
			// 75.23 GiB - (7.51 + 2.07 + 1.89 + 0.76) GiB - 150 MiB.
			f(KindSuggestedKVCacheMemory, "67488448512", UnitBytes, 0, "Worker_TP0", 20),
			f(KindSuggestedKVCacheMemoryDevice, "70097641144", UnitBytes, 0, "Worker_TP0", 20),
			f(KindKVCacheMemory, "63.76", UnitGiB, 2, "Worker_TP0", 20),
			f(KindGPUBlocks, "65293", UnitBlocks, 0, "EngineCore_DP0", 21),
		},
		settings: map[string]Setting{
			"tensor_parallel_size":   engineSetting("tensor_parallel_size", "tensor_parallel_size", "2", LiteralNumber, 3),
			"enable_prefix_caching":  engineSetting("enable_prefix_caching", "enable_prefix_caching", "False", LiteralBool, 3),
			"max_num_batched_tokens": {Key: "max_num_batched_tokens", LoggedKey: "max_num_batched_tokens", Value: "8192", Literal: LiteralNumber, Source: SourceStatement, Line: 2},
			"compilation_config": engineSetting("compilation_config", "compilation_config",
				"{'mode': <CompilationMode.VLLM_COMPILE: 3>, 'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'cudagraph_capture_sizes': [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256, 272, 288, 304, 320, 336, 352, 368, 384, 400, 416, 432, 448, 464, 480, 496, 512]}", LiteralOther, 3),
		},
		// 6 non-default args + 1 statement + 28 engine config fields.
		settingCount: 35,
	},
	{
		// vLLM 0.26.0 on Windows: ANSI-coloured prefixes, CRLF line ends,
		// backslashes escaped in reprs but not in str(), the consumed-memory
		// forms of #49208, CUDA-graph profiling on (the estimate counted),
		// and the combined capacity line of #50462.
		file: "vllm-0.26-v1-windows.log", engine: EngineVLLM, version: "0.26.0", era: EraV1, graph: GraphBudgetCounted,
		figures: []figureView{
			f(KindWeights, "1.12", UnitGiB, 2, "EngineCore", 4),
			// 1.24 consumed + 1.11 transient peak = 2.35.
			f(KindNonKVTotal, "2.35", UnitGiB, 2, "EngineCore", 5),
			f(KindActivationPeak, "1.11", UnitGiB, 2, "EngineCore", 5),
			f(KindConsumed, "1.24", UnitGiB, 2, "EngineCore", 5),
			f(KindWeights, "1.12", UnitGiB, 2, "EngineCore", 5),
			f(KindCUDAGraphEstimate, "0.31", UnitGiB, 2, "EngineCore", 7),
			// 12.74 - 2.35 - 0.31 = 10.08.
			f(KindKVCacheMemory, "10.08", UnitGiB, 2, "EngineCore", 8),
			// 0.8 -/+ 0.31 / 15.92 = 0.7805 / 0.8195.
			f(KindUtilization, "0.8000", UnitRatio, 4, "EngineCore", 9),
			f(KindUtilWithoutGraphs, "0.7805", UnitRatio, 4, "EngineCore", 9),
			f(KindUtilSuggested, "0.8195", UnitRatio, 4, "EngineCore", 9),
			// 10.08 GiB / (28 x 8 x 128 x 2 x 2 B x 16) = 5898.2 blocks:
			// 94,368 tokens; / 4096 = 23.04.
			f(KindMaxModelLen, "4096", UnitTokens, 0, "EngineCore", 10),
			f(KindMaxConcurrency, "23.04", UnitTimes, 2, "EngineCore", 10),
			f(KindKVCacheTokens, "94368", UnitTokens, 0, "EngineCore", 10),
			f(KindCUDAGraph, "0.29", UnitGiB, 2, "EngineCore", 11),
			f(KindCUDAGraph, "0.29", UnitGiB, 2, "EngineCore", 12),
			f(KindCUDAGraphEstimate, "0.31", UnitGiB, 2, "EngineCore", 12),
			f(KindDeviceFree, "14.55", UnitGiB, 2, "EngineCore", 13),
			f(KindDeviceTotal, "15.92", UnitGiB, 2, "EngineCore", 13),
			f(KindUtilization, "0.8", UnitRatio, 1, "EngineCore", 13),
			f(KindUtilBudget, "12.74", UnitGiB, 2, "EngineCore", 13),
			f(KindConsumed, "1.24", UnitGiB, 2, "EngineCore", 13),
			// 1.11 transient peak + 0.31 graph estimate = 1.42.
			f(KindActivationWithGraphs, "1.42", UnitGiB, 2, "EngineCore", 13),
			f(KindCUDAGraph, "0.29", UnitGiB, 2, "EngineCore", 13),
			f(KindSuggestedKVCacheMemory, "10354646056", UnitBytes, 0, "EngineCore", 13),
			f(KindSuggestedKVCacheMemoryDevice, "12298118758", UnitBytes, 0, "EngineCore", 13),
			f(KindKVCacheMemory, "10.08", UnitGiB, 2, "EngineCore", 13),
		},
		settings: map[string]Setting{
			"model":             engineSetting("model", "model", `C:\models\Qwen3-0.6B`, LiteralString, 3),
			"served_model_name": engineSetting("served_model_name", "served_model_name", `C:\models\Qwen3-0.6B`, LiteralOther, 3),
			"kernel_config":     engineSetting("kernel_config", "kernel_config", "KernelConfig(moe_backend='auto')", LiteralOther, 3),
			"max_model_len":     engineSetting("max_model_len", "max_seq_len", "4096", LiteralNumber, 3),
		},
		// 4 non-default args + 33 engine config fields.
		settingCount: 37,
	},
	{
		// Two failed V1 starts: the max-model-len error with its estimate
		// (vllm/v1/core/kv_cache_utils.py) and the free-memory error
		// (vllm/v1/worker/utils.py, request_memory).
		file: "vllm-v1-startup-errors.log", engine: EngineVLLM, era: EraV1,
		figures: []figureView{
			// 131072 tokens x 128 KiB = 16 GiB; 4.6 GiB holds 2355 blocks
			// of 2 MiB: 37680 tokens.
			f(KindMaxModelLen, "131072", UnitTokens, 0, "EngineCore_DP0", 1),
			f(KindKVCacheNeeded, "16.0", UnitGiB, 2, "EngineCore_DP0", 1),
			f(KindKVCacheMemory, "4.6", UnitGiB, 2, "EngineCore_DP0", 1),
			f(KindEstimatedMaxModelLen, "37680", UnitTokens, 0, "EngineCore_DP0", 1),
			f(KindDeviceFree, "10.2", UnitGiB, 2, "EngineCore_DP0", 2),
			f(KindDeviceTotal, "79.19", UnitGiB, 2, "EngineCore_DP0", 2),
			f(KindUtilization, "0.9", UnitRatio, 1, "EngineCore_DP0", 2),
			f(KindUtilBudget, "71.27", UnitGiB, 2, "EngineCore_DP0", 2),
		},
	},
	{
		// SGLang (python/sglang/srt/model_executor/model_runner.py,
		// mem_cache/memory_pool.py, managers/scheduler.py): "GB" is GiB.
		file: "sglang.log", engine: EngineSGLang, era: EraSGLang,
		figures: []figureView{
			f(KindDeviceFree, "78.58", UnitGBGiB, 2, "TP0", 3),
			// 78.58 - 63.52 = 15.06.
			f(KindFreeAfterLoad, "63.52", UnitGBGiB, 2, "TP0", 4),
			f(KindWeights, "15.06", UnitGBGiB, 2, "TP0", 4),
			// (452213 + 1 padded slot) x 32 layers x 8 heads x 128 x 2 B =
			// 27.60 GiB each for K and V.
			f(KindKVCacheTokens, "452213", UnitTokens, 0, "TP0", 5),
			f(KindKCacheMemory, "27.60", UnitGBGiB, 2, "TP0", 5),
			f(KindVCacheMemory, "27.60", UnitGBGiB, 2, "TP0", 5),
			f(KindFreeAfterPool, "7.73", UnitGBGiB, 2, "TP0", 6),
			f(KindFreeAfterGraphs, "6.89", UnitGBGiB, 2, "TP0", 8),
			f(KindCUDAGraph, "0.83", UnitGBGiB, 2, "TP0", 8),
			f(KindKVCacheTokens, "452213", UnitTokens, 0, "TP0", 9),
			f(KindFreeAfterGraphs, "6.89", UnitGBGiB, 2, "TP0", 9),
		},
		settings: map[string]Setting{
			"model_path":          {Key: "model_path", LoggedKey: "model_path", Value: "meta-llama/Llama-3.1-8B-Instruct", Literal: LiteralString, Source: SourceServerArgs, Line: 1},
			"mem_fraction_static": {Key: "mem_fraction_static", LoggedKey: "mem_fraction_static", Value: "0.88", Literal: LiteralNumber, Source: SourceServerArgs, Line: 1},
			"context_length":      {Key: "context_length", LoggedKey: "context_length", Value: "None", Literal: LiteralNone, Source: SourceServerArgs, Line: 1},
			// The server args said None; the scheduler states the value.
			"max_running_requests": {Key: "max_running_requests", LoggedKey: "max_running_requests", Value: "4097", Literal: LiteralNumber, Source: SourceSGLangLimits, Line: 9},
			"context_len":          {Key: "context_len", LoggedKey: "context_len", Value: "131072", Literal: LiteralNumber, Source: SourceSGLangLimits, Line: 9},
		},
		// 35 server args + 4 scheduler limits.
		settingCount: 39,
	},
}

// TestParseLogs reads whole logs of each era and compares everything they
// state with what was entered by hand.
func TestParseLogs(t *testing.T) {
	for _, c := range logCases {
		t.Run(c.file, func(t *testing.T) {
			fh, err := os.Open(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			log, err := Parse(fh)
			if err != nil {
				t.Fatal(err)
			}
			type head struct {
				Engine  Engine
				Version string
				Era     Era
				Graph   GraphBudget
			}
			if diff := cmp.Diff(head{c.engine, c.version, c.era, c.graph}, head{log.Engine, log.EngineVersion, log.Era, log.GraphBudget}); diff != "" {
				t.Errorf("engine, version, era, graph budget (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.figures, viewFigures(log.Figures)); diff != "" {
				t.Errorf("figures (-want +got):\n%s", diff)
			}
			for key, want := range c.settings {
				got, ok := log.Setting(key)
				if !ok {
					t.Errorf("setting %s: none", key)
					continue
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("setting %s (-want +got):\n%s", key, diff)
				}
			}
			if len(log.Settings) != c.settingCount {
				t.Errorf("%d settings, want %d", len(log.Settings), c.settingCount)
			}
		})
	}
}
