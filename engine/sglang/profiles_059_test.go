package sglang

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget"
	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// TestProfile059Rules: v0.5.9 is v0.5.8.post1's rules but the ones it
// changed, and v0.5.9.post1 changes none.
func TestProfile059Rules(t *testing.T) {
	p := mustProfile("v0.5.9")
	want := renamedAs(mustProfile("v0.5.8.post1"), "v0.5.9", "bbe9c7eeb520b0a67e92d133dfc137a3688dc7f2", p)
	want.BlackwellSM11 = true // PR #18787
	want.Native = native059
	want.UnreadModels = new059
	want.UnreadQuant = []string{"compressed-tensors", "modelopt"} // PRs #17503, #17300; MXFP4 (#18858) in mxfp4pad.go
	want.FP8IgnoreUnstripped = true                               // PR #18926
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("v0.5.9 against v0.5.8.post1's rules (-want +got):\n%s", diff)
	}
	// 27 classes added by the grep, less 4 drafts (two MTP, one NextN,
	// Step3p5MTP): 23.
	checkNewNative(t, "v0.5.9", native058, new059, native059, 23)
	post1 := mustProfile("v0.5.9.post1")
	want = renamedAs(p, "v0.5.9.post1", "92b4f9a33a71289037a302cc40e64b401e8eb4d0", post1)
	if diff := cmp.Diff(want, post1); diff != "" {
		t.Errorf("v0.5.9.post1 against v0.5.9's rules (-want +got):\n%s", diff)
	}
}

// TestProfile059Defaults: v0.5.9's defaults by hand, its
// _handle_gpu_memory_settings (server_args.py:911-1078) being
// v0.5.8.post1's for these serves: reserved = 512 + 1.5 x chunked + 2 x
// cuda_graph_max_bs + tp x pp / 8 x 1024 MiB, at least 10 GiB above 60
// GiB; msf = round((gpu_mem - reserved) / gpu_mem, 3).
func TestProfile059Defaults(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	p := mustProfile("v0.5.9")
	tests := []struct {
		name      string
		class     string
		msf       float64
		chunked   int64
		graphBS   uint64
		page      uint64
		backend   string
		reasoning string
	}{
		{"h100", "h100-sxm-80g", 0.834, 8192, 256, 1, "",
			"gpu_mem 85018542080 B / MiB = 81080; 512 + 1.5 x 8192 + 2 x 256 + 1024 / 8 = 512 + 12288 + 512 + 128 = 13440 MiB, above the 10 GiB floor; " +
				"67640 / 81080 = 0.83424 -> 0.834; SM90: fa3, page 1"},
		{"rtx-5090", "rtx-5090", 0.883, 2048, 24, 1, "",
			"under 35 GiB: chunked 2048, graph bs 24; 512 + 3072 + 48 + 128 = 3760 MiB of 32112, no floor under 60 GiB: 28352 / 32112 = 0.88291 -> 0.883; SM120: flashinfer"},
		{"b200", "b200", 0.856, 16384, 512, 64, "trtllm_mha",
			"512 + 24576 + 1024 + 128 = 26240 of 182633: 0.85632 -> 0.856; SM100 keeps trtllm_mha, page 64"},
		{"jetson-thor", "jetson-thor", 0.893, 8192, 256, 1, "",
			"131880452096 B / MiB = 125771, under 160 GiB: chunked 8192, graph bs 256; 512 + 12288 + 512 + 128 = 13440 MiB, above the floor: " +
				"112331 / 125771 = 0.89314 -> 0.893; SM110 is is_blackwell_supported() from v0.5.9 but not is_sm100_supported(), so no trtllm_mha: page 1"},
	}
	for _, tt := range tests {
		r, err := Resolve(Serve{}, llama, class(t, tt.class), p)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		checkServerDefaults(t, tt.name, tt.reasoning, &r, serverDefaults{tt.msf, tt.chunked, tt.graphBS, tt.page, tt.backend})
	}
}

// TestProfile059TRTLLMMLAOnThor: --attention-backend trtllm_mla on a Jetson
// Thor (SM110) is refused by v0.5.8.post1, whose is_blackwell_supported()
// is SM10x and SM12x, and taken by v0.5.9, which counts SM11x too (PR
// #18787; server_args.py:1874-1881), at page 64 (TensorRT-LLM MLA takes 32
// or 64, server_args.py:1883-1887).
func TestProfile059TRTLLMMLAOnThor(t *testing.T) {
	lite := shipped(t)["deepseek-ai__DeepSeek-V2-Lite"]
	thor := class(t, "jetson-thor")
	s := Serve{AttentionBackend: "trtllm_mla"}
	if _, err := Resolve(s, lite, thor, mustProfile("v0.5.8.post1")); err == nil || !strings.Contains(err.Error(), "needs Blackwell") {
		t.Errorf("v0.5.8.post1 trtllm_mla on Thor: %v; want it refused", err)
	}
	r, err := Resolve(s, lite, thor, mustProfile("v0.5.9"))
	if err != nil || r.PageSize != 64 {
		t.Errorf("v0.5.9 trtllm_mla on Thor: %v, page %d; want it taken at page 64", err, r.PageSize)
	}
	// An A100 (SM80) is no Blackwell in either.
	if _, err := Resolve(s, lite, class(t, "a100-80g"), mustProfile("v0.5.9")); err == nil {
		t.Errorf("v0.5.9 trtllm_mla on A100: sized; want it refused")
	}
}

// TestProfile059PoolByHand walks Llama 3.1 8B on one H100 at v0.5.9's
// defaults as its profile_max_num_token and init_memory_pool do
// (model_runner_kv_cache_mixin.py:47-115, 116 on, unchanged for a model
// without a sliding-window split), from the reference's own load, so that
// the arithmetic is checked apart from the estimates that feed it.
func TestProfile059PoolByHand(t *testing.T) {
	r := ref(t, shipped(t)["meta-llama__Llama-3.1-8B-Instruct"], Serve{}, class(t, "h100-sxm-80g"), mustProfile("v0.5.9"))
	c := r.Capacity()
	// F0: 85018542080 - 576 MiB (driver_fixed_bytes 603979776), no
	// distributed init at TP1 = 84414562304 bytes.
	if c.F0Bytes != 85018542080-603979776 {
		t.Errorf("F0 %d, want %d", c.F0Bytes, 85018542080-603979776)
	}
	// The cell: 8 KV heads x (head_dim 128 + v_head_dim 128) x 32 layers
	// x 2 B = 131072 (get_cell_size_per_token's non-split branch,
	// :94-97). rest = F1 - F0 x (1 - 0.834) in GiB; T = int(rest x 2^30)
	// // 131072, page 1.
	f0, f1 := float64(c.F0Bytes), float64(c.F0Bytes-c.LoadedBytes)
	rest := f1/gib - f0/gib*(1-0.834)
	wantT := int64(math.Floor(rest*gib)) / 131072
	if c.CellBytes != 131072 || c.MaxTotalNumTokens != wantT || wantT <= 0 {
		t.Errorf("cell %d, tokens %d; want 131072 and %d", c.CellBytes, c.MaxTotalNumTokens, wantT)
	}
	// F0 is 78.6 GiB, msf x F0 65.6 GiB, the weights about 15 GiB: the
	// rest about 50.5 GiB, T about 50.5 x 8192 = 414000, under 524288:
	// max_num_reqs = min(max(int(T / 131072 x 512), 2048), 4096) = 2048,
	// and max_running_requests = min(T // 2, 2048) = 2048.
	if wantT >= 524288 || c.MaxNumReqs != 2048 || c.MaxRunningRequests != 2048 {
		t.Errorf("T %d, max_num_reqs %d, max_running_requests %d; want T under 524288, 2048, 2048", wantT, c.MaxNumReqs, c.MaxRunningRequests)
	}
	// K: (T + 1) rows x 8 heads x 128 x 2 B x 32 layers; V the same.
	if c.KBytes != uint64(wantT+1)*8*128*2*32 || c.VBytes != c.KBytes {
		t.Errorf("K %d, V %d; want %d each", c.KBytes, c.VBytes, uint64(wantT+1)*8*128*2*32)
	}
	want := "max_total_num_tokens=" + strconv.FormatInt(wantT, 10) + ", chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=2048, context_len=131072"
	if lines := c.LogLines(); len(lines) != 2 || lines[1] != want {
		t.Errorf("log lines %q; want the scheduler's %q", lines, want)
	}
	// And v0.5.8.post1 sizes it alike: the same fraction and tokens.
	old := ref(t, shipped(t)["meta-llama__Llama-3.1-8B-Instruct"], Serve{}, class(t, "h100-sxm-80g"), mustProfile("v0.5.8.post1")).Capacity()
	if old.MaxTotalNumTokens != c.MaxTotalNumTokens || old.MemFractionStatic != c.MemFractionStatic {
		t.Errorf("v0.5.8.post1 %d tokens at %v, v0.5.9 %d at %v; want the same", old.MaxTotalNumTokens, old.MemFractionStatic, c.MaxTotalNumTokens, c.MemFractionStatic)
	}
}

// TestProfile059RefusedByName: what v0.5.9 changed and membudget has not
// read is refused by name, for the serves it touches only.
func TestProfile059RefusedByName(t *testing.T) {
	archs := shipped(t)
	p := mustProfile("v0.5.9")
	h100, b200 := class(t, "h100-sxm-80g"), class(t, "b200")
	tests := []struct {
		name  string
		model string
		s     Serve
		on    string
		marks []string // "" for sized
	}{
		// Kimi-K2.5 is native from v0.5.9 (PR #17789), its models/kimi_k25.py
		// not read.
		{"Kimi-K2.5", "moonshotai__Kimi-K2.5", Serve{TPSize: 8, TrustRemoteCode: true}, "h100", []string{"new in this release", "KimiK25ForConditionalGeneration"}},
		// ModelOpt NVFP4's padded linears (PR #17300).
		{"Qwen3-235B NVFP4", "nvidia__Qwen3-235B-A22B-NVFP4", Serve{TPSize: 8}, "b200", []string{"#17300", "ModelOpt"}},
		// gpt-oss's MXFP4 experts: sized on SM10x with the permutation
		// cache of PR #18858 (see TestMXFP4FlashInferPad); off Blackwell
		// (triton_kernels, aiter) not read at this release
		// (TestMXFP4FlashInferRefused).
		{"gpt-oss-20b on B200", "openai__gpt-oss-20b", Serve{}, "b200", nil},
		// fp8 whose ignore list names only layernorms and router gates
		// under model.layers.: the same layers skipped either way.
		{"Qwen3-30B-A3B-FP8", "Qwen__Qwen3-30B-A3B-FP8", Serve{TPSize: 2}, "h100", nil},
		// Unquantized, AWQ, GPTQ, block fp8 without an ignore list: sized.
		{"Llama 3.1 8B", "meta-llama__Llama-3.1-8B-Instruct", Serve{}, "h100", nil},
		{"Qwen2.5-14B AWQ", "Qwen__Qwen2.5-14B-Instruct-AWQ", Serve{}, "h100", nil},
		{"Qwen2.5-7B GPTQ", "Qwen__Qwen2.5-7B-Instruct-GPTQ-Int4", Serve{}, "h100", nil},
		{"Qwen3-32B-FP8", "Qwen__Qwen3-32B-FP8", Serve{}, "h100", nil},
	}
	for _, tt := range tests {
		a, ok := archs[tt.model]
		if !ok {
			t.Errorf("%s: %s is not shipped", tt.name, tt.model)
			continue
		}
		if hq, hqPath, ok := membudget.ModelQuantConfig(tt.model); ok {
			// ModelOpt's quantization is in hf_quant_config.json, as
			// --model reads it from the checkpoint's directory.
			data, path, _ := membudget.ModelConfig(tt.model)
			var err error
			if a, err = model.ParseConfig(path, data, model.WithHFQuantConfig(hqPath, hq)); err != nil {
				t.Fatal(err)
			}
		}
		c := map[string]budget.Class{"h100": h100, "b200": b200}[tt.on]
		_, err := Resolve(tt.s, a, c, p)
		if tt.marks == nil {
			if err != nil {
				t.Errorf("%s under v0.5.9: %v; want it sized", tt.name, err)
			}
			continue
		}
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "model" {
			t.Errorf("%s under v0.5.9: %v; want a refusal of --model", tt.name, err)
			continue
		}
		for _, m := range tt.marks {
			if !strings.Contains(se.Reason, m) {
				t.Errorf("%s under v0.5.9: %q does not name %q", tt.name, se.Reason, m)
			}
		}
		// v0.5.8.post1 does not refuse it for this reason (it refuses
		// Kimi-K2.5 as no native architecture, and the NVFP4 Qwen3-MoE at
		// TP 8 for its fusion workspace, unread at that release).
		if _, err := Resolve(tt.s, a, c, mustProfile("v0.5.8.post1")); err != nil && strings.Contains(err.Error(), tt.marks[0]) {
			t.Errorf("%s under v0.5.8.post1: %v; want no refusal naming %q", tt.name, err, tt.marks[0])
		}
	}
}

// TestFP8IgnoreMayDiffer: an fp8 ignore entry is refused under v0.5.9
// where keeping its "model." may change the layers it leaves unquantized.
func TestFP8IgnoreMayDiffer(t *testing.T) {
	text := shipped(t)["Qwen__Qwen3-30B-A3B-FP8"]
	vlm := shipped(t)["Qwen__Qwen2.5-VL-7B-Instruct"]
	tests := []struct {
		a    *model.Arch
		m    string
		want bool
		why  string
	}{
		{text, "lm_head", false, "no model. to strip"},
		{text, "model.layers.0.mlp.gate", false, "a substring of model.layers.0.mlp.* exactly where layers.0.mlp.gate is"},
		{text, "model.layers.3.input_layernorm", false, "the same"},
		{text, "model.layers.0.mlp.experts.0.gate_proj", true, "experts match the other way round"},
		{text, "model.layers.0.self_attn.q_proj", true, "a projection, looked up whole for gate_up_proj"},
		{text, "model.embed_tokens", true, "not under model.layers."},
		{text, "language_model.model.layers.0", true, "model. not in front"},
		{vlm, "model.layers.0.mlp.gate", true, "a multimodal model's prefixes differ"},
	}
	for _, tt := range tests {
		if got := fp8IgnoreMayDiffer(tt.a, tt.m); got != tt.want {
			t.Errorf("%s: %v, want %v (%s)", tt.m, got, tt.want, tt.why)
		}
	}
}

// TestProfile059CompressedTensors: a compressed-tensors checkpoint (here
// Llama 3.1 8B's config with a W8A8 fp8 scheme, as RedHat's FP8-dynamic
// checkpoints carry) is sized by v0.5.8.post1 and refused by v0.5.9, whose
// scheme lookup was rewritten (PR #17503).
func TestProfile059CompressedTensors(t *testing.T) {
	data, path, ok := membudget.ModelConfig("meta-llama__Llama-3.1-8B-Instruct")
	if !ok {
		t.Fatal("Llama 3.1 8B is not shipped")
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	var q map[string]any
	if err := json.Unmarshal([]byte(`{"quant_method": "compressed-tensors", "format": "float-quantized", "ignore": ["lm_head"],
		"config_groups": {"group_0": {"targets": ["Linear"],
		"weights": {"num_bits": 8, "type": "float", "strategy": "channel", "dynamic": false, "symmetric": true},
		"input_activations": {"num_bits": 8, "type": "float", "strategy": "token", "dynamic": true, "symmetric": true}}}}`), &q); err != nil {
		t.Fatal(err)
	}
	cfg["quantization_config"] = q
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := model.ParseConfig(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if a.Quant.Method != "compressed-tensors" {
		t.Fatalf("quant method %q, want compressed-tensors", a.Quant.Method)
	}
	h100 := class(t, "h100-sxm-80g")
	if _, err := Resolve(Serve{}, a, h100, mustProfile("v0.5.8.post1")); err != nil {
		t.Errorf("v0.5.8.post1: %v; want it sized", err)
	}
	for _, name := range []string{"v0.5.9", "v0.5.9.post1"} {
		if _, err := Resolve(Serve{}, a, h100, mustProfile(name)); err == nil || !strings.Contains(err.Error(), "#17503") {
			t.Errorf("%s: %v; want it refused naming #17503", name, err)
		}
	}
}
