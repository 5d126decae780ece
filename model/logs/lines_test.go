package logs

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// TestLineFormats reads single lines of the formats and variants the whole
// logs of TestParseLogs do not show, each written from the format string
// formats.go cites, and lines the reader must leave alone.
func TestLineFormats(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []figureView
		era  Era
	}{
		{"V1 'GB' between #14063 and #15807",
			"INFO 03-20 10:00:00 [gpu_model_runner.py:1120] Model loading took 15.1749 GB and 81.2 seconds",
			[]figureView{f(KindWeights, "15.1749", UnitGBGiB, 4, "", 1)}, ""},
		{"V2 model runner",
			"INFO [model_runner.py:375] Model loading took 21.42 GiB and 175.218386 seconds",
			[]figureView{f(KindWeights, "21.42", UnitGiB, 2, "", 1)}, ""},
		{"a transcription without the space before the unit",
			"Model loading took 14.25GiB",
			[]figureView{f(KindWeights, "14.25", UnitGiB, 2, "", 1)}, ""},
		{"no unit: not guessed",
			"Model loading took 29.09",
			nil, ""},
		{"the %f day of #29493",
			"INFO [gpu_worker.py:565] Available KV cache memory: 51.380000 GiB",
			[]figureView{f(KindKVCacheMemory, "51.380000", UnitGiB, 6, "", 1)}, EraV1},
		{"negative KV memory before the startup error",
			"Available KV cache memory: -14.28 GiB",
			[]figureView{f(KindKVCacheMemory, "-14.28", UnitGiB, 2, "", 1)}, EraV1},
		{"the encoder cache's budget and dummy items (a public 0.23.0 log of Qwen2.5-VL-7B)",
			"(EngineCore pid=129) INFO 07-01 04:23:59 [gpu_model_runner.py:6200] Encoder cache will be initialized with a budget of 114688 tokens, and profiled with 1 video items of the maximum feature size.",
			[]figureView{f(KindEncoderBudget, "114688", UnitTokens, 0, "EngineCore", 1), f(KindEncoderItems, "1", UnitItems, 0, "EngineCore", 1)}, EraV1},
		{"a negative CUDA-graph estimate (row 201, GB10: free memory rose during the captures)",
			"Estimated CUDA graph memory: -4.74 GiB total",
			[]figureView{f(KindCUDAGraphEstimate, "-4.74", UnitGiB, 2, "", 1)}, EraV1},
		{"graph capture can free memory",
			"Graph capturing finished in 3 secs, took -0.22 GiB",
			[]figureView{f(KindCUDAGraph, "-0.22", UnitGiB, 2, "", 1)}, ""},
		{"older capture line: no figure",
			"INFO 05-14 09:12:19 model_runner.py:1017] Graph capturing finished in 6 secs.",
			nil, ""},
		{"V1's block count alone (#9289 to #13596) proves no era",
			"INFO 01-10 10:00:00 core.py:61] # GPU blocks: 33660",
			[]figureView{f(KindGPUBlocks, "33660", UnitBlocks, 0, "", 1)}, ""},
		{"the device's name, lower case (0.8)",
			"# cuda blocks: 12652, # CPU blocks: 32768",
			[]figureView{f(KindGPUBlocks, "12652", UnitBlocks, 0, "", 1), f(KindCPUBlocks, "32768", UnitBlocks, 0, "", 1)}, EraV0},
		{"a quote that lost the first '#'",
			"GPU blocks: 1952, # CPU blocks: 2048",
			[]figureView{f(KindGPUBlocks, "1952", UnitBlocks, 0, "", 1), f(KindCPUBlocks, "2048", UnitBlocks, 0, "", 1)}, EraV0},
		{"CPU blocks alone: which device's is unknown",
			"# CPU blocks: 4096",
			nil, ""},
		{"another library's block count",
			"Num tokens: 512, num blocks: 32, block size: 16",
			nil, ""},
		{"V0's max-model-len error",
			"ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (37696). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
			[]figureView{f(KindMaxModelLen, "131072", UnitTokens, 0, "", 1), f(KindKVCacheTokens, "37696", UnitTokens, 0, "", 1)}, ""},
		{"#42479's spelling of the V1 error",
			"ValueError: To serve at least one request with the model's max seq len (32768), (4.0 GiB KV cache is needed, which is larger than the available KV cache memory (1.9 GiB). Try increasing `gpu_memory_utilization`",
			[]figureView{f(KindMaxModelLen, "32768", UnitTokens, 0, "", 1), f(KindKVCacheNeeded, "4.0", UnitGiB, 2, "", 1), f(KindKVCacheMemory, "1.9", UnitGiB, 2, "", 1)}, EraV1},
		{"V1's debug lines of June 2025 (#18974)",
			"DEBUG [gpu_worker.py:236] Initial free memory: 78.50 GiB, free memory: 60.12 GiB, total GPU memory: 79.19 GiB / DEBUG [gpu_worker.py:241] Peak torch memory: 16.40 GiB, non-torch forward-pass memory: 0.30 GiB, available KVCache memory: 54.57 GiB",
			[]figureView{
				f(KindDeviceFree, "78.50", UnitGiB, 2, "", 1), f(KindFreeAfterProfile, "60.12", UnitGiB, 2, "", 1), f(KindDeviceTotal, "79.19", UnitGiB, 2, "", 1),
				f(KindTorchPeak, "16.40", UnitGiB, 2, "", 2), f(KindNonTorch, "0.30", UnitGiB, 2, "", 2), f(KindKVCacheMemory, "54.57", UnitGiB, 2, "", 2),
			}, EraV1},
		{"XPU worker, MB meaning MiB",
			"Before memory profiling run, total GPU memory: 65520.00 MB, model load takes 12870.74 MB, free gpu memory is 52435.44 MB. / After memory profiling run, peak memory usage is 13552.69 MB,torch mem is 12870.74 MB, non-torch mem is 426.94 MB, free gpu memory is 51896.32 MB.",
			[]figureView{
				f(KindDeviceTotal, "65520.00", UnitMBMiB, 2, "", 1), f(KindWeights, "12870.74", UnitMBMiB, 2, "", 1), f(KindDeviceFree, "52435.44", UnitMBMiB, 2, "", 1),
				f(KindTorchPeak, "13552.69", UnitMBMiB, 2, "", 2), f(KindNonTorch, "426.94", UnitMBMiB, 2, "", 2), f(KindFreeAfterProfile, "51896.32", UnitMBMiB, 2, "", 2),
			}, EraV1},
		{"0.6.4's typo alone in an elided quote",
			"... memory_usage_post_profile=8.04Gib ...",
			[]figureView{f(KindPostProfileUsage, "8.04", UnitGiB, 2, "", 1)}, EraV0},
		{"a MemorySnapshot repr is not V0's results line",
			"DEBUG [gpu_worker.py:560] torch_peak=16.4GiB, torch_allocated=15.0GiB, free_memory=60.1GiB, total_memory=79.19GiB, cuda_memory=19.1GiB, torch_memory=16.5GiB, non_torch_memory=2.6GiB, timestamp=1.0, auto_measure=False",
			nil, ""},
		{"the CUDA-graph note of #30515 (estimate counted, opt-in)",
			"CUDA graph memory profiling is enabled (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1). This will become the default in v0.21. The current --gpu-memory-utilization=0.9000 is equivalent to --gpu-memory-utilization=0.8876 without CUDA graph memory profiling. To maintain the same effective KV cache size as before, increase --gpu-memory-utilization to 0.9124.",
			[]figureView{f(KindUtilization, "0.9000", UnitRatio, 4, "", 1), f(KindUtilWithoutGraphs, "0.8876", UnitRatio, 4, "", 1), f(KindUtilSuggested, "0.9124", UnitRatio, 4, "", 1)}, EraV1},
		{"the warning when profiling is switched off (#38284)",
			"WARNING [gpu_worker.py:597] CUDA graph memory profiling is disabled (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0). Without it, CUDA graph memory is not accounted for during KV cache allocation, which may require lowering --gpu-memory-utilization to avoid OOM. Consider re-enabling it (the default as of v0.21.0) and increasing --gpu-memory-utilization from 0.9000 to 0.9124.",
			[]figureView{f(KindUtilization, "0.9000", UnitRatio, 4, "", 1), f(KindUtilSuggested, "0.9124", UnitRatio, 4, "", 1)}, EraV1},
		{"SGLang's MLA pool: one KV size",
			"[2025-11-04 05:27:13 DP0 TP0 EP0] KV Cache is allocated. #tokens: 524288, KV size: 17.16 GB",
			[]figureView{f(KindKVCacheTokens, "524288", UnitTokens, 0, "DP0 TP0 EP0", 1), f(KindKVCacheMemory, "17.16", UnitGBGiB, 2, "DP0 TP0 EP0", 1)}, EraSGLang},
		{"SGLang before mem usage was logged",
			"[2024-12-13 01:44:59 TP0] Load weight end. type=MistralForCausalLM, dtype=torch.bfloat16, avail mem=9.69 GB",
			[]figureView{f(KindFreeAfterLoad, "9.69", UnitGBGiB, 2, "TP0", 1)}, EraSGLang},
		{"SGLang on Ascend, usage before avail",
			"[2026-03-11 13:53:32 TP1] Capture npu graph end. Time elapsed: 8.04 s. mem usage=0.80 GB. avail mem=10.30 GB.",
			[]figureView{f(KindFreeAfterGraphs, "10.30", UnitGBGiB, 2, "TP1", 1), f(KindCUDAGraph, "0.80", UnitGBGiB, 2, "TP1", 1)}, EraSGLang},
		// v0.5.13's pool line names the pool's dtype before #tokens
		// (mem_cache/memory_pool.py:819 at sgl-project/sglang v0.5.13, PR
		// #26205): f"KV Cache is allocated. dtype: {self.dtype}, #tokens:
		// {num_tokens}, K size: {k_size_GB:.2f} GB, V size: ..."
		{"SGLang v0.5.13's pool line, its dtype first",
			"[2026-06-11 09:00:01 TP0] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 412345, K size: 25.17 GB, V size: 25.17 GB",
			[]figureView{f(KindKVCacheTokens, "412345", UnitTokens, 0, "TP0", 1), f(KindKCacheMemory, "25.17", UnitGBGiB, 2, "TP0", 1), f(KindVCacheMemory, "25.17", UnitGBGiB, 2, "TP0", 1)}, EraSGLang},
		// The format string of model_runner.py:2574-2576 at sgl-project/
		// sglang v0.5.10 (f"Capture piecewise CUDA graph end. Time elapsed:
		// {..:.2f} s. mem usage={mem_usage:.2f} GB. avail mem={after_mem:.2f}
		// GB."), with its figures filled in; capital CUDA, which the decode
		// graphs' pattern ([a-z ]) does not take.
		{"SGLang's piecewise graphs, read apart from the decode graphs",
			"[2026-04-06 10:12:44 TP0] Capture piecewise CUDA graph end. Time elapsed: 21.37 s. mem usage=0.46 GB. avail mem=9.81 GB.",
			[]figureView{f(KindFreeAfterPiecewise, "9.81", UnitGBGiB, 2, "TP0", 1), f(KindPiecewiseGraph, "0.46", UnitGBGiB, 2, "TP0", 1)}, EraSGLang},
		{"prose about a log is not a log",
			"KV cache 1,710,928 tokens (after PR) with max_num_seqs=256, max_model_len=2048, gpu_memory_utilization=0.98",
			nil, ""},
		{"a markdown table is not a log",
			"| gpt-oss-20b | 13.47 | 7.38 | 0.13 | 0.39 | 50.28 | 1 | 0.9 | 16000 |",
			nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, err := ParseQuote(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, viewFigures(log.Figures)); diff != "" {
				t.Errorf("figures (-want +got):\n%s", diff)
			}
			if log.Era != tt.era {
				t.Errorf("era %q, want %q (evidence %v)", log.Era, tt.era, log.EraEvidence)
			}
		})
	}
}

// TestVersionsAndEngineLines reads the version lines and the engine config
// line's older and crash-dump forms.
func TestVersionsAndEngineLines(t *testing.T) {
	tests := []struct {
		name, line, version string
		era                 Era
		settings            int
	}{
		{"before #3161: no version", "INFO llm_engine.py:70] Initializing an LLM engine with config: model='/raid/llama3_70b_hf', tokenizer='/raid/llama3_70b_hf', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=8, quantization=None, seed=0)", "", "", 7},
		{"early V1 used the V0 wording (#9289 to #12496)", "Initializing an LLM engine (v0.7.0) with config: model='m', max_seq_len=4096", "0.7.0", "", 2},
		{"the crash dump", "ERROR [dump_input.py:73] Dumping input data for V1 LLM engine (v0.9.0) with config: model='m', max_seq_len=4096, ", "0.9.0", EraV1, 2},
		{"the logo (#32796), ANSI stripped", "\x1b[1m█     █     █ ▀▄▀ █\x1b[0m  version \x1b[1m0.15.1\x1b[0m", "0.15.1", EraV1, 0},
		{"the gRPC server", "vLLM gRPC server version 0.12.0", "0.12.0", EraV1, 0},
		{"the API server", "vLLM API server version 0.5.3.post1", "0.5.3.post1", EraV0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, err := ParseQuote(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			got := struct {
				Version  string
				Era      Era
				Settings int
			}{log.EngineVersion, log.Era, len(log.Settings)}
			want := struct {
				Version  string
				Era      Era
				Settings int
			}{tt.version, tt.era, tt.settings}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestEraOfVersion: releases before 0.6.4 had no V1 engine; 0.11.0 and later
// have no V0; anything between, and pre-releases of 0.11.0, prove nothing.
func TestEraOfVersion(t *testing.T) {
	tests := []struct {
		version string
		want    Era
	}{
		{"0.2.7", EraV0},
		{"0.6.3.post1", EraV0},
		{"0.6.3.dev12+g1234567", EraV0},
		{"0.6.4", EraUnknown},
		{"0.8.5.post1", EraUnknown},
		{"0.10.2+cu130", EraUnknown},
		{"0.11.0rc2.dev98", EraUnknown},
		{"0.11.0", EraV1},
		{"0.11.1.dev5", EraV1},
		{"0.13.0+faa43dbf.nv26.01", EraV1},
		{"1.0.0", EraV1},
		{"0.1.dev8168+g475c1a0", EraUnknown}, // setuptools-scm's fallback
		{"0.1.4", EraV0},
		{"main", EraUnknown},
	}
	for _, tt := range tests {
		if got, _ := eraOfVersion(tt.version); got != tt.want {
			t.Errorf("eraOfVersion(%q) = %q, want %q", tt.version, got, tt.want)
		}
	}
}

// TestEvidenceConflicts: lines of two eras, or of two engines, leave the era
// (and the engine) unknown rather than picking one, and keep the evidence.
func TestEvidenceConflicts(t *testing.T) {
	log, err := ParseQuote("# GPU blocks: 100, # CPU blocks: 10 / GPU KV cache size: 1,600 tokens")
	if err != nil {
		t.Fatal(err)
	}
	wantEv := []Evidence{{EraV0, FormatBlocks, 1}, {EraV1, FormatKVCacheSize, 2}}
	if diff := cmp.Diff(wantEv, log.EraEvidence); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
	if log.Era != EraUnknown || log.Engine != EngineVLLM {
		t.Errorf("era %q engine %q, want unknown era of vllm", log.Era, log.Engine)
	}

	log, err = ParseQuote("GPU KV cache size: 1,600 tokens / KV Cache is allocated. #tokens: 1600, K size: 0.10 GB, V size: 0.10 GB")
	if err != nil {
		t.Fatal(err)
	}
	if log.Engine != EngineUnknown || log.Era != EraUnknown {
		t.Errorf("engine %q era %q, want both unknown", log.Engine, log.Era)
	}

	log, err = ParseQuote("In v0.19, CUDA graph memory profiling will be enabled by default / The current --gpu-memory-utilization=0.9000 is equivalent to --gpu-memory-utilization=0.8876 without CUDA graph memory profiling.")
	if err != nil {
		t.Fatal(err)
	}
	if log.GraphBudget != GraphBudgetUnknown {
		t.Errorf("graph budget %q after both notes, want unknown", log.GraphBudget)
	}
}

// TestScanSettings covers the Python reprs the settings lines hold.
func TestScanSettings(t *testing.T) {
	type kv struct {
		Key, Value string
		Literal    Literal
	}
	collect := func(scan func(string, func(string, string, Literal)), s string) []kv {
		var out []kv
		scan(s, func(k, v string, lit Literal) { out = append(out, kv{k, v, lit}) })
		return out
	}
	tests := []struct {
		name  string
		scan  func(string, func(string, string, Literal))
		input string
		want  []kv
	}{
		{"nested values are one value", scanAssignments,
			"speculative_config=SpeculativeConfig(method='mtp', num_spec_tokens=3), max_seq_len=200000, device_config=device(type='cuda'), sizes=[1, 2], cfg={'a': (1, 2)}",
			[]kv{{"speculative_config", "SpeculativeConfig(method='mtp', num_spec_tokens=3)", LiteralOther}, {"max_seq_len", "200000", LiteralNumber},
				{"device_config", "device(type='cuda')", LiteralOther}, {"sizes", "[1, 2]", LiteralOther}, {"cfg", "{'a': (1, 2)}", LiteralOther}}},
		{"elisions and spaces between pairs", scanAssignments,
			"model='m' ... dtype=torch.bfloat16, max_seq_len=8192 ... tensor_parallel_size=8 ... kv_cache_dtype=auto",
			[]kv{{"model", "m", LiteralString}, {"dtype", "torch.bfloat16", LiteralOther}, {"max_seq_len", "8192", LiteralNumber}, {"tensor_parallel_size", "8", LiteralNumber}, {"kv_cache_dtype", "auto", LiteralOther}}},
		{"#4326's missing comma", scanAssignments,
			"disable_custom_all_reduce=Falsequantization=None, enforce_eager=True",
			[]kv{{"disable_custom_all_reduce", "False", LiteralBool}, {"quantization", "None", LiteralNone}, {"enforce_eager", "True", LiteralBool}}},
		{"escapes in a repr", scanAssignments,
			`model='D:\\Resources\\Models\\Qwen3.5-0.8B', name="it's", tab='a\tb'`,
			[]kv{{"model", `D:\Resources\Models\Qwen3.5-0.8B`, LiteralString}, {"name", "it's", LiteralString}, {"tab", "a\tb", LiteralString}}},
		{"a closing bracket ends ServerArgs(", scanAssignments,
			"tp_size=2, mem_fraction_static=0.88) trailing=1",
			[]kv{{"tp_size", "2", LiteralNumber}, {"mem_fraction_static", "0.88", LiteralNumber}}},
		{"keys inside words and comparisons are not keys", scanAssignments,
			"x==1, obj.attr=2, y= 3",
			[]kv{{"y", "3", LiteralNumber}}},
		{"an unterminated string runs to the end", scanAssignments,
			"model='abc, dtype=half",
			[]kv{{"model", "abc, dtype=half", LiteralString}}},
		{"an unclosed bracket runs to the end", scanAssignments,
			"a=1, cfg={'x': [1, 2, b=3",
			[]kv{{"a", "1", LiteralNumber}, {"cfg", "{'x': [1, 2, b=3", LiteralOther}}},
		{"a dict with nesting and elisions", scanDict,
			"... 'max_model_len': 1048576, 'limit_mm_per_prompt': {'image': 0, 'audio': 0}, ... 'served_model_name': ['qwen-custom'], 'enable_prefix_caching': False, 'ratio': 0.5}, 'after': 1",
			[]kv{{"max_model_len", "1048576", LiteralNumber}, {"limit_mm_per_prompt", "{'image': 0, 'audio': 0}", LiteralOther},
				{"served_model_name", "['qwen-custom']", LiteralOther}, {"enable_prefix_caching", "False", LiteralBool}, {"ratio", "0.5", LiteralNumber}}},
		{"a dict value that is an enum repr", scanDict,
			"'cudagraph_mode': <CUDAGraphMode.NONE: 0>}",
			[]kv{{"cudagraph_mode", "<CUDAGraphMode.NONE:", LiteralOther}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, collect(tt.scan, tt.input)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSettingValues reads settings as numbers and bools only when they are.
func TestSettingValues(t *testing.T) {
	log, err := ParseQuote("non-default args: {'max_model_len': 32768, 'gpu_memory_utilization': 0.85, 'enforce_eager': True, 'model': '7'}")
	if err != nil {
		t.Fatal(err)
	}
	type values struct {
		Len        int64
		LenOK      bool
		Util       float64
		UtilOK     bool
		Eager      bool
		EagerOK    bool
		ModelIntOK bool
	}
	var got values
	s, _ := log.Setting("max_model_len")
	got.Len, got.LenOK = s.Int()
	s, _ = log.Setting("gpu_memory_utilization")
	got.Util, got.UtilOK = s.Float()
	s, _ = log.Setting("enforce_eager")
	got.Eager, got.EagerOK = s.Bool()
	s, _ = log.Setting("model")
	_, got.ModelIntOK = s.Int() // the string '7' is not a number
	if diff := cmp.Diff(values{32768, true, 0.85, true, true, true, false}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, ok := log.Setting("tensor_parallel_size"); ok {
		t.Error("a setting the log does not state was found")
	}
}

// TestProcessOf reads the logging process from a line's prefix.
func TestProcessOf(t *testing.T) {
	tests := []struct{ line, want string }{
		{"(EngineCore_DP0 pid=123) INFO 05-12 10:11:12 [gpu_worker.py:123] Available KV cache memory: 1.00 GiB", "EngineCore_DP0"},
		{"(VllmWorker TP1 pid=456) INFO Available KV cache memory: 1.00 GiB", "VllmWorker TP1"},
		{"(VllmWorker rank=3 pid=456) INFO Available KV cache memory: 1.00 GiB", "VllmWorker rank=3"},
		{"(RayWorkerWrapper pid=9, ip=10.0.0.1) INFO worker.py:232] model weights take 1.00GiB", "RayWorkerWrapper"},
		{"(EngineCore_DP0 pid=1) (Worker_TP1_EP1 pid=2) INFO Available KV cache memory: 1.00 GiB", "Worker_TP1_EP1"},
		{"[2025-11-04 05:27:13 DP0 TP2 EP2] KV Cache is allocated. #tokens: 5, KV size: 0.01 GB", "DP0 TP2 EP2"},
		{"INFO 05-12 [C:\\vllm\\gpu_worker.py:123] Available KV cache memory: 1.00 GiB", ""},
		// A parenthesis after the first message is no prefix.
		{"CUDA graph pool memory: 0.47 GiB (actual), 0.47 GiB (estimated), difference: 0.0 GiB (1.1%).", ""},
	}
	for _, tt := range tests {
		log, err := ParseQuote(tt.line)
		if err != nil {
			t.Fatal(err)
		}
		if len(log.Figures) == 0 {
			t.Errorf("%q: no figure", tt.line)
			continue
		}
		for _, fg := range log.Figures {
			if fg.Process != tt.want {
				t.Errorf("%q: process %q, want %q", tt.line, fg.Process, tt.want)
			}
		}
	}
}

// TestFigureArithmetic checks bytes and tolerances against values worked by
// hand.
func TestFigureArithmetic(t *testing.T) {
	tests := []struct {
		name      string
		fig       Figure
		bytes     int64
		bytesOK   bool
		tolerance int64
	}{
		// 5138 x 2^30 / 100 = 55168854917.12; half of 0.01 GiB is
		// 2^30 / 200 = 5368709.12, rounded up.
		{"51.38 GiB", Figure{Value: Decimal{5138, 2}, RoundedTo: 2, Unit: UnitGiB}, 55168854917, true, 5368710},
		// 64.6 printed by round(x, 2): 646 x 2^30 / 10 = 69363721830.4,
		// and the tolerance is still 0.005 GiB.
		{"64.6 GiB from format_gib", Figure{Value: Decimal{646, 1}, RoundedTo: 2, Unit: UnitGiB}, 69363721830, true, 5368710},
		// 149595 x 2^30 / 10^4 = 16062640816.13; 2^30 / 20000 = 53687.09.
		{"14.9595 GB meaning GiB", Figure{Value: Decimal{149595, 4}, RoundedTo: 4, Unit: UnitGBGiB}, 16062640816, true, 53688},
		// 42694 x 2^20 / 100 = 447679037.44; 2^20 / 200 = 5242.88.
		{"426.94 MB meaning MiB", Figure{Value: Decimal{42694, 2}, RoundedTo: 2, Unit: UnitMBMiB}, 447679037, true, 5243},
		// -5 x 2^30 / 100 = -53687091.2: rounds toward zero here.
		{"-0.05 GiB", Figure{Value: Decimal{-5, 2}, RoundedTo: 2, Unit: UnitGiB}, -53687091, true, 5368710},
		// Bytes as logged; half a byte rounds up to 1.
		{"a byte count", Figure{Value: Decimal{67488448512, 0}, Unit: UnitBytes}, 67488448512, true, 1},
		{"a token count is not memory", Figure{Value: Decimal{1000, 0}, Unit: UnitTokens}, 0, false, 0},
		{"too large for int64", Figure{Value: Decimal{9_000_000_000_000_000_000, 0}, Unit: UnitGiB}, 0, false, 536870912},
	}
	for _, tt := range tests {
		b, ok := tt.fig.Bytes()
		tol := tt.fig.Tolerance()
		if b != tt.bytes || ok != tt.bytesOK || tol != tt.tolerance {
			t.Errorf("%s: Bytes() = %d, %v; Tolerance() = %d; want %d, %v; %d", tt.name, b, ok, tol, tt.bytes, tt.bytesOK, tt.tolerance)
		}
	}
}

// TestParseDecimal reads numbers as logged and refuses the rest.
func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want Decimal
		ok   bool
		str  string
	}{
		{"51.38", Decimal{5138, 2}, true, "51.38"},
		{"-0.05", Decimal{-5, 2}, true, "-0.05"},
		{"1,234,567", Decimal{1234567, 0}, true, "1234567"},
		{"0.950000", Decimal{950000, 6}, true, "0.950000"},
		{"7", Decimal{7, 0}, true, "7"},
		{"", Decimal{}, false, ""},
		{"1.", Decimal{}, false, ""},
		{".5", Decimal{}, false, ""},
		{"1e5", Decimal{}, false, ""},
		{"-", Decimal{}, false, ""},
		{"1234567890123456789", Decimal{}, false, ""}, // 19 digits
	}
	for _, tt := range tests {
		got, ok := parseDecimal(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseDecimal(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok && got.String() != tt.str {
			t.Errorf("%q: String() = %q, want %q", tt.in, got.String(), tt.str)
		}
	}
}

// TestLimits: long lines are skipped and counted, the input cap is an error
// naming itself, and figures past their cap are counted, not kept.
func TestLimits(t *testing.T) {
	long := "Available KV cache memory: 9.99 GiB " + strings.Repeat("x", 100)
	in := "Available KV cache memory: 1.00 GiB\n" + long + "\nGPU KV cache size: 10 tokens"
	log, err := Limits{MaxLineBytes: 64}.Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []figureView{f(KindKVCacheMemory, "1.00", UnitGiB, 2, "", 1), f(KindKVCacheTokens, "10", UnitTokens, 0, "", 3)}
	if diff := cmp.Diff(want, viewFigures(log.Figures)); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
	if log.Lines != 3 || log.LongLines != 1 {
		t.Errorf("lines %d long %d, want 3 and 1", log.Lines, log.LongLines)
	}

	// A line of exactly the limit is read, newline or not; one byte more is
	// not.
	exact := "GPU KV cache size: 10 tokens" // 28 bytes
	for _, in := range []string{exact + "\n", exact} {
		log, err := Limits{MaxLineBytes: len(exact)}.Parse(strings.NewReader(in))
		if err != nil || len(log.Figures) != 1 || log.LongLines != 0 {
			t.Errorf("%q under a %d-byte line limit: %d figures, %d long lines, %v", in, len(exact), len(log.Figures), log.LongLines, err)
		}
		log, err = Limits{MaxLineBytes: len(exact) - 1}.Parse(strings.NewReader(in))
		if err != nil || len(log.Figures) != 0 || log.LongLines != 1 {
			t.Errorf("%q under a %d-byte line limit: %d figures, %d long lines, %v", in, len(exact)-1, len(log.Figures), log.LongLines, err)
		}
	}

	// A long last line with no newline is counted too.
	log, err = Limits{MaxLineBytes: 64}.Parse(strings.NewReader("GPU KV cache size: 10 tokens\n" + long))
	if err != nil {
		t.Fatal(err)
	}
	if log.Lines != 2 || log.LongLines != 1 || len(log.Figures) != 1 {
		t.Errorf("lines %d long %d figures %d, want 2, 1, 1", log.Lines, log.LongLines, len(log.Figures))
	}

	// 100 bytes pass a 100-byte cap; 101 do not.
	if _, err := (Limits{MaxInputBytes: 100}).Parse(strings.NewReader(strings.Repeat("a", 100))); err != nil {
		t.Errorf("100 bytes under a 100-byte cap: %v", err)
	}
	_, err = Limits{MaxInputBytes: 100}.Parse(strings.NewReader(strings.Repeat("a", 101)))
	var big *InputTooLargeError
	if !errors.As(err, &big) || big.Limit != 100 || !strings.Contains(err.Error(), "MaxInputBytes") {
		t.Errorf("101 bytes under a 100-byte cap: %v", err)
	}
	if _, err := (Limits{MaxInputBytes: 10}).ParseQuote(strings.Repeat("a", 11)); !errors.As(err, &big) {
		t.Errorf("an 11-byte quote under a 10-byte cap: %v", err)
	}

	log, err = Limits{MaxFigures: 2, MaxSettings: 1}.ParseQuote("GPU KV cache size: 1 tokens / GPU KV cache size: 2 tokens / GPU KV cache size: 3 tokens / Using max model len 10 / Using max model len 20")
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Figures) != 2 || log.DroppedFigures != 1 || len(log.Settings) != 1 || log.DroppedSettings != 1 {
		t.Errorf("figures %d dropped %d, settings %d dropped %d; want 2, 1, 1, 1", len(log.Figures), log.DroppedFigures, len(log.Settings), log.DroppedSettings)
	}
}

// TestReadErrors: a failing reader's error comes back wrapped, with no Log.
func TestReadErrors(t *testing.T) {
	boom := errors.New("disk gone")
	r := io.MultiReader(strings.NewReader("GPU KV cache size: 1 tokens\n"), iotest.ErrReader(boom))
	log, err := Parse(r)
	if !errors.Is(err, boom) || log != nil || !strings.Contains(err.Error(), "reading log") {
		t.Errorf("Parse = %v, %v; want a wrapped %v and no log", log, err, boom)
	}
}

// TestUnknownTextIsSkipped: text with none of the formats states nothing and
// is no error.
func TestUnknownTextIsSkipped(t *testing.T) {
	// The last line is the fuzzer's find: a dict key that is empty.
	in := "hello\n\n\x00\xff\xfe binary\r\nINFO Starting vLLM API server on http://0.0.0.0:8000\nMemory profiling takes 5.20 seconds\nnon-default args: {'': 1}\n"
	log, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Figures) != 0 || len(log.Settings) != 0 || log.Engine != EngineUnknown || log.Lines != 6 {
		t.Errorf("got %d figures, %d settings, engine %q, %d lines; want nothing from 6 lines", len(log.Figures), len(log.Settings), log.Engine, log.Lines)
	}
}

// TestAccessors: All keeps every occurrence in order, First the first,
// DeviceTotal the first total in bytes.
func TestAccessors(t *testing.T) {
	log, err := ParseQuote("(Worker_TP0 pid=1) Available KV cache memory: 10.64 GiB / (Worker_TP1 pid=2) Available KV cache memory: 10.68 GiB / Free memory on device (43.93/44.42 GiB) on startup.")
	if err != nil {
		t.Fatal(err)
	}
	all := viewFigures(log.All(KindKVCacheMemory))
	want := []figureView{f(KindKVCacheMemory, "10.64", UnitGiB, 2, "Worker_TP0", 1), f(KindKVCacheMemory, "10.68", UnitGiB, 2, "Worker_TP1", 2)}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	if first, ok := log.First(KindKVCacheMemory); !ok || first.Process != "Worker_TP0" {
		t.Errorf("First = %+v, %v", first, ok)
	}
	if _, ok := log.First(KindWeights); ok {
		t.Error("First found a kind the log does not state")
	}
	// 4442 x 2^30 / 100 = 47695611822.08.
	if total, ok := log.DeviceTotal(); !ok || total != 47695611822 {
		t.Errorf("DeviceTotal = %d, %v; want 47695611822", total, ok)
	}
}
