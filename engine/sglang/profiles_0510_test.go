package sglang

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/engine"
)

// TestProfile0510Rules: v0.5.10 is v0.5.9.post1's rules but the ones it
// changed, and v0.5.10.post1 changes none.
func TestProfile0510Rules(t *testing.T) {
	p := mustProfile("v0.5.10")
	want := renamedAs(mustProfile("v0.5.9.post1"), "v0.5.10", "1519acf37c23f2189adb93f57ca9cd2db1bebf18", p)
	want.PiecewiseByDefault = true  // PR #16331
	want.ReqPoolFromCapacity = true // PR #20142
	want.CaptureMaxBS = true        // PR #21005
	want.SpecReserve4GiB = true
	want.GptOssSplitAlways = true // PR #19079
	want.FP8IgnoreMoE = true      // PR #18742
	want.Native = native0510
	want.UnreadModels = slices.Concat(new059, new0510)
	want.ChangedModels = []string{"Gemma3ForCausalLM", "Gemma3ForConditionalGeneration", "Glm4MoeForCausalLM"}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("v0.5.10 against v0.5.9.post1's rules (-want +got):\n%s", diff)
	}
	// 7 classes by the grep and 2 more EntryClass names
	// (TransformersEmbeddingModel, TransformersMoEEmbeddingModel): 9.
	checkNewNative(t, "v0.5.10", native059, new0510, native0510, 9)
	post1 := mustProfile("v0.5.10.post1")
	want = renamedAs(p, "v0.5.10.post1", "7c35342c10e201899e22fe2972d40e60da19ff3e", post1)
	if diff := cmp.Diff(want, post1); diff != "" {
		t.Errorf("v0.5.10.post1 against v0.5.10's rules (-want +got):\n%s", diff)
	}
}

// TestPiecewiseSizes: _generate_piecewise_cuda_graph_tokens (v0.5.10
// server_args.py:1397-1415) by hand: 4..32 by 4 is 8 sizes, 48..256 by 16
// is 14, 288..512 by 32 is 8, 576..1024 by 64 is 8, 1280..4096 by 256 is
// 12, then 4608 on by 512.
func TestPiecewiseSizes(t *testing.T) {
	for _, tt := range []struct {
		max   int64
		count int
		last  uint64
		why   string
	}{
		{8192, 58, 8192, "8 + 14 + 8 + 8 + 12 + (8192 - 4608) / 512 + 1 = 50 + 8"},
		{16384, 74, 16384, "50 + (16384 - 4608) / 512 + 1 = 50 + 24"},
		{2048, 42, 2048, "8 + 14 + 8 + 8 + 1280, 1536, 1792, 2048"},
		{4096, 50, 4096, "the first five ranges whole"},
		{1000, 37, 960, "8 + 14 + 8 + 576..960 by 64, 7"},
		{16, 4, 16, "4, 8, 12, 16"},
		{3, 0, 0, "none under 4"},
		{-1, 0, 0, "chunked prefill off: none"},
	} {
		got := piecewiseSizes(tt.max)
		last := uint64(0)
		if len(got) > 0 {
			last = got[len(got)-1]
		}
		if len(got) != tt.count || last != tt.last {
			t.Errorf("piecewiseSizes(%d): %d sizes up to %d, want %d up to %d (%s)", tt.max, len(got), last, tt.count, tt.last, tt.why)
		}
	}
}

// TestProfile0510Defaults: v0.5.10's default fraction by hand: v0.5.9's
// reserve (512 + 1.5 x chunked + 2 x cuda_graph_max_bs + tp x pp / 8 x
// 1024 MiB) plus the piecewise graphs' (8 MiB per size, 1.5 GiB for MLA)
// before the 10 GiB floor; msf = round((gpu_mem - reserved) / gpu_mem, 3).
func TestProfile0510Defaults(t *testing.T) {
	archs := shipped(t)
	p := mustProfile("v0.5.10")
	tests := []struct {
		name, model, class string
		s                  Serve
		msf                float64
		pieces             int // sizes the fraction reserves, -1 for MLA's 1.5 GiB, 0 for off
		captured           bool
		reasoning          string
	}{
		{"dense", "meta-llama__Llama-3.1-8B-Instruct", "h100-sxm-80g", Serve{}, 0.829, 58, true,
			"81080 MiB; 512 + 12288 + 512 + 128 = 13440, + 58 sizes x 8 = 464: 13904 MiB; 67176 / 81080 = 0.82852 -> 0.829 (v0.5.9: 0.834)"},
		{"MLA", "deepseek-ai__DeepSeek-V2-Lite", "h100-sxm-80g", Serve{}, 0.815, -1, true,
			"13440 + 1536 for MLA = 14976 MiB; 66104 / 81080 = 0.81529 -> 0.815"},
		{"floor", "meta-llama__Llama-3.1-8B-Instruct", "h100-sxm-80g", Serve{ChunkedPrefillSize: 2048}, 0.874, 42, true,
			"512 + 3072 + 512 + 128 + 42 x 8 = 4560 MiB, under the 10240 floor, which holds the piecewise reserve: 70840 / 81080 = 0.87370 -> 0.874, as v0.5.9"},
		{"rtx-5090", "meta-llama__Llama-3.1-8B-Instruct", "rtx-5090", Serve{}, 0.872, 42, true,
			"32112 MiB, chunked 2048, graph bs 24, no floor: 512 + 3072 + 48 + 128 + 336 = 4096; 28016 / 32112 = 0.87245 -> 0.872 (v0.5.9: 0.883)"},
		{"disabled", "meta-llama__Llama-3.1-8B-Instruct", "h100-sxm-80g", Serve{DisablePiecewiseCudaGraph: true}, 0.834, 0, false,
			"--disable-piecewise-cuda-graph: v0.5.9's 13440 MiB, 0.834"},
		{"pp2", "meta-llama__Llama-3.1-8B-Instruct", "h100-sxm-80g", Serve{PPSize: 2}, 0.833, 0, false,
			"pipeline parallelism turns them off (case 5): 512 + 12288 + 512 + 256 = 13568; 67512 / 81080 = 0.83266 -> 0.833"},
		{"llama-2 path", "meta-llama__Llama-2-70b-hf", "h100-sxm-80g", Serve{TPSize: 4}, 0.818, 50, true,
			"a path naming llama-2 caps the sizes at 4096: 50 x 8 = 400; TP4: graph bs 512; 512 + 12288 + 1024 + 512 + 400 = 14736; 66344 / 81080 = 0.81825 -> 0.818 (58 sizes would give 0.817)"},
		{"max-total-tokens", "meta-llama__Llama-3.1-8B-Instruct", "h100-sxm-80g", Serve{MaxTotalTokens: 1000}, 0.831, 37, true,
			"--max-total-tokens 1000 caps the sizes at 1000: 37 x 8 = 296; 13440 + 296 = 13736; 67344 / 81080 = 0.83058 -> 0.831"},
		{"B200 Qwen3-MoE", "Qwen__Qwen3-30B-A3B", "b200", Serve{}, 0.853, 74, false,
			"182633 MiB: chunked 16384, graph bs 512; 512 + 24576 + 1024 + 128 + 74 x 8 = 26832; 155801 / 182633 = 0.85308 -> 0.853; " +
				"SM100 gives the unquantized Qwen3-MoE the flashinfer_trtllm MoE runner, which turns the graphs off after the fraction (server_args.py:2722-2736): reserved, not captured"},
	}
	for _, tt := range tests {
		r, err := Resolve(tt.s, archs[tt.model], class(t, tt.class), p)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if math.Abs(r.MemFractionStatic-tt.msf) > 1e-12 {
			t.Errorf("%s: msf %v, want %v (%s)", tt.name, r.MemFractionStatic, tt.msf, tt.reasoning)
		}
		pieces := len(r.PiecewiseSizes)
		if r.Piecewise && archs[tt.model].MLA {
			pieces = -1
		}
		if !r.Piecewise {
			pieces = 0
		}
		if pieces != tt.pieces || r.PiecewiseCaptured != tt.captured {
			t.Errorf("%s: piecewise %d sizes (-1 MLA), captured %v; want %d, %v (%s)", tt.name, pieces, r.PiecewiseCaptured, tt.pieces, tt.captured, tt.reasoning)
		}
	}
}

// TestProfile0510PiecewiseOff: the cases of _handle_piecewise_cuda_graph a
// serve membudget takes can meet: the fraction is then v0.5.9's.
func TestProfile0510PiecewiseOff(t *testing.T) {
	archs := shipped(t)
	for _, tt := range []struct {
		name, model, class string
		why                string
	}{
		{"multimodal", "Qwen__Qwen2.5-VL-7B-Instruct", "h100-sxm-80g", "multimodal model (case 9)"},
		{"AMD", "meta-llama__Llama-3.1-8B-Instruct", "mi300x", "other than CUDA's (case 6)"},
	} {
		r, err := Resolve(Serve{}, archs[tt.model], class(t, tt.class), mustProfile("v0.5.10"))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		old, err := Resolve(Serve{}, archs[tt.model], class(t, tt.class), mustProfile("v0.5.9.post1"))
		if err != nil {
			t.Fatalf("%s under v0.5.9.post1: %v", tt.name, err)
		}
		if r.Piecewise || !strings.Contains(r.PiecewiseOff, tt.why) || r.MemFractionStatic != old.MemFractionStatic {
			t.Errorf("%s: piecewise %v (%q), msf %v; want off for %q at v0.5.9's %v", tt.name, r.Piecewise, r.PiecewiseOff, r.MemFractionStatic, tt.why, old.MemFractionStatic)
		}
	}
	// --disable-piecewise-cuda-graph is not a flag of v0.5.9.
	_, err := Resolve(Serve{DisablePiecewiseCudaGraph: true}, archs["meta-llama__Llama-3.1-8B-Instruct"], class(t, "h100-sxm-80g"), mustProfile("v0.5.9"))
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "disable-piecewise-cuda-graph" {
		t.Errorf("--disable-piecewise-cuda-graph under v0.5.9: %v; want it refused", err)
	}
}

// besideItem returns the named item beside stage 0's pool, 0 if none.
func besideItem(ref *Reference, name string) uint64 {
	for _, it := range ref.stages[0].beside {
		if it.Name == name {
			return it.Bytes
		}
	}
	return 0
}

// TestProfile0510PoolByHand walks Llama 3.1 8B on one H100 at v0.5.10's
// defaults as profile_max_num_token, _resolve_token_capacity and
// _resolve_max_num_reqs do (model_runner_kv_cache_mixin.py:142-169,
// 808-857), from the reference's own load.
func TestProfile0510PoolByHand(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	r := ref(t, llama, Serve{}, h100, mustProfile("v0.5.10"))
	c := r.Capacity()
	// The cell: 8 KV heads x (128 + 128) x 32 layers x 2 B = 131072. rest
	// = F1 - F0 x (1 - 0.829) in GiB; T = int(rest x 2^30) // 131072.
	f0, f1 := float64(c.F0Bytes), float64(c.F0Bytes-c.LoadedBytes)
	rest := f1/gib - f0/gib*(1-0.829)
	wantT := int64(math.Floor(rest*gib)) / 131072
	if c.MemFractionStatic != 0.829 || c.CellBytes != 131072 || c.MaxTotalNumTokens != wantT || wantT <= 0 {
		t.Errorf("msf %v, cell %d, tokens %d; want 0.829, 131072, %d", c.MemFractionStatic, c.CellBytes, c.MaxTotalNumTokens, wantT)
	}
	// T is about 50 GiB x 8192 = 410000: int(T / 131072 x 512) is about
	// 1600, so the estimate is its floor 2048, under T // 2: 2048 rows and
	// 2048 running, as v0.5.9.
	if c.MaxNumReqs != 2048 || c.MaxRunningRequests != 2048 {
		t.Errorf("max_num_reqs %d, max_running_requests %d; want 2048, 2048", c.MaxNumReqs, c.MaxRunningRequests)
	}
	// Beside the pool: the decode graphs at 2 MiB x 256 and the piecewise
	// graphs at SGLang's reserve, 58 x 8 MiB.
	if g, pw := besideItem(r, "cuda_graphs"), besideItem(r, "piecewise_cuda_graphs"); g != 256*2*mib || pw != 58*8*mib {
		t.Errorf("cuda_graphs %d, piecewise_cuda_graphs %d; want %d, %d", g, pw, 256*2*mib, 58*8*mib)
	}

	// --max-total-tokens 1000: T = 1000; the estimate 2048 (its floor)
	// and T // 2 = 500: 500 rows of (131072 + 4) int32, and 500 running.
	// v0.5.9 sized the rows from the profiled T, 2048 of them, and ran
	// min(500, 2048) = 500.
	capped := ref(t, llama, Serve{MaxTotalTokens: 1000}, h100, mustProfile("v0.5.10"))
	old := ref(t, llama, Serve{MaxTotalTokens: 1000}, h100, mustProfile("v0.5.9.post1"))
	for _, tt := range []struct {
		name          string
		ref           *Reference
		rows, running uint64
	}{{"v0.5.10", capped, 500, 500}, {"v0.5.9.post1", old, 2048, 500}} {
		c := tt.ref.Capacity()
		if c.MaxTotalNumTokens != 1000 || c.MaxNumReqs != tt.rows || c.MaxRunningRequests != tt.running ||
			besideItem(tt.ref, "req_to_token") != tt.rows*(131072+4)*4 {
			t.Errorf("%s --max-total-tokens 1000: T %d, rows %d, running %d, req_to_token %d; want 1000, %d, %d, %d",
				tt.name, c.MaxTotalNumTokens, c.MaxNumReqs, c.MaxRunningRequests, besideItem(tt.ref, "req_to_token"), tt.rows, tt.running, tt.rows*(131072+4)*4)
		}
	}
	// --max-running-requests 8192: v0.5.10 takes min(8192, the estimate
	// 2048); v0.5.9 gave the table 8192 rows and ran min(8192, 8192).
	for _, tt := range []struct {
		name  string
		p     string
		rows  uint64
		bytes uint64
	}{{"v0.5.10", "v0.5.10", 2048, 2048 * (131072 + 4) * 4}, {"v0.5.9.post1", "v0.5.9.post1", 8192, 8192 * (131072 + 4) * 4}} {
		rr := ref(t, llama, Serve{MaxRunningRequests: 8192}, h100, mustProfile(tt.p))
		c := rr.Capacity()
		if c.MaxNumReqs != tt.rows || c.MaxRunningRequests != tt.rows || besideItem(rr, "req_to_token") != tt.bytes {
			t.Errorf("%s --max-running-requests 8192: rows %d, running %d, req_to_token %d; want %d, %d, %d", tt.name, c.MaxNumReqs, c.MaxRunningRequests, besideItem(rr, "req_to_token"), tt.rows, tt.rows, tt.bytes)
		}
	}
}

// TestProfile0510MLAPoolByHand walks DeepSeek-V2-Lite on one H100: MLA's
// cell is one latent of kv_lora_rank 512 + qk_rope_head_dim 64 per layer,
// 27 layers, 2 bytes: 31104; the fraction 0.815 (see
// TestProfile0510Defaults); the piecewise graphs charged at 1.5 GiB.
func TestProfile0510MLAPoolByHand(t *testing.T) {
	r := ref(t, shipped(t)["deepseek-ai__DeepSeek-V2-Lite"], Serve{}, class(t, "h100-sxm-80g"), mustProfile("v0.5.10"))
	c := r.Capacity()
	f0, f1 := float64(c.F0Bytes), float64(c.F0Bytes-c.LoadedBytes)
	rest := f1/gib - f0/gib*(1-0.815)
	wantT := int64(math.Floor(rest*gib)) / 31104
	if c.CellBytes != 31104 || c.MaxTotalNumTokens != wantT || wantT <= 0 {
		t.Errorf("cell %d, tokens %d; want 31104, %d", c.CellBytes, c.MaxTotalNumTokens, wantT)
	}
	// Its context is 163840 tokens (max_position_embeddings, its YaRN
	// naming original_max_position_embeddings: no factor). The weights
	// are about 29 GiB of msf x F0 = 0.815 x 78.6 = 64 GiB: T is about
	// 35 GiB / 31104 B = 1.2 million, and int(T / 163840 x 512) about
	// 3700, between the estimate's 2048 and 4096 and under T // 2: the
	// rows and max_running_requests.
	est := uint64(float64(wantT) / 163840 * 512)
	if r.Serve.ContextLength != 163840 || est <= 2048 || est >= 4096 || c.MaxNumReqs != est || c.MaxRunningRequests != est {
		t.Errorf("context %d, max_num_reqs %d, max_running_requests %d; want 163840, %d, %d (between 2048 and 4096)", r.Serve.ContextLength, c.MaxNumReqs, c.MaxRunningRequests, est, est)
	}
	if pw := besideItem(r, "piecewise_cuda_graphs"); pw != 1536*mib {
		t.Errorf("piecewise_cuda_graphs %d, want 1.5 GiB", pw)
	}
}

// TestProfile0510CaptureMaxBS: --cuda-graph-max-bs 100 captures up to 96
// under v0.5.9 (the list steps by 8 there) and 100 itself under v0.5.10
// (PR #21005), charged at 2 MiB a batch.
func TestProfile0510CaptureMaxBS(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	for name, want := range map[string]uint64{"v0.5.9.post1": 96, "v0.5.10": 100} {
		r := ref(t, llama, Serve{CudaGraphMaxBS: 100}, class(t, "h100-sxm-80g"), mustProfile(name))
		if got := besideItem(r, "cuda_graphs"); got != want*2*mib {
			t.Errorf("%s: cuda_graphs %d, want %d x 2 MiB", name, got, want)
		}
	}
}

// TestProfile0510RefusedByName: what v0.5.10 changed and membudget has not
// read is refused by name, for the serves it touches only.
func TestProfile0510RefusedByName(t *testing.T) {
	archs := shipped(t)
	tests := []struct {
		name, model, on string
		s               Serve
		flag            string // "" for sized
		mark            string
	}{
		{"gpt-oss on B200", "openai__gpt-oss-20b", "b200", Serve{}, "model", "#19079"},
		{"Gemma 3", "google__gemma-3-1b-it", "h100-sxm-80g", Serve{}, "model", "gemma3_causal.py:204"},
		{"Gemma 3 multimodal", "google__gemma-3-4b-it", "h100-sxm-80g", Serve{}, "model", "gemma3_causal.py:204"},
		// GLM-4.5 on A100s (SM80: no all-reduce fusion): its float32 gates.
		{"GLM-4.5 MoE", "zai-org__GLM-4.5", "a100-80g", Serve{TPSize: 8}, "model", "_weight_fp32"},
		{"Qwen3-MoE TP2 on H100", "Qwen__Qwen3-30B-A3B", "h100-sxm-80g", Serve{TPSize: 2}, "enable-flashinfer-allreduce-fusion", "may turn it on by itself"},
		{"Qwen3-MoE TP1 on H100", "Qwen__Qwen3-30B-A3B", "h100-sxm-80g", Serve{}, "", ""},
		// Its ignore list names routers and layernorms only: no MoE skipped.
		{"Qwen3-MoE FP8 TP1 on H100", "Qwen__Qwen3-30B-A3B-FP8", "h100-sxm-80g", Serve{}, "", ""},
		{"explicit fusion", "meta-llama__Llama-3.1-8B-Instruct", "h100-sxm-80g", Serve{TPSize: 2, Nodes: Nodes{EnableARFusion: true}}, "enable-flashinfer-allreduce-fusion", "not modelled for SGLang v0.5.10"},
	}
	for _, tt := range tests {
		c := class(t, tt.on)
		_, err := Resolve(tt.s, archs[tt.model], c, mustProfile("v0.5.10"))
		if tt.flag == "" {
			if err != nil {
				t.Errorf("%s under v0.5.10: %v; want it sized", tt.name, err)
			}
			continue
		}
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != tt.flag || !strings.Contains(se.Reason, tt.mark) {
			t.Errorf("%s under v0.5.10: %v; want a refusal of --%s naming %q", tt.name, err, tt.flag, tt.mark)
			continue
		}
		// v0.5.9.post1 does not refuse it for this reason.
		if _, err := Resolve(tt.s, archs[tt.model], c, mustProfile("v0.5.9.post1")); err != nil && strings.Contains(err.Error(), tt.mark) {
			t.Errorf("%s under v0.5.9.post1: %v; want no refusal naming %q", tt.name, err, tt.mark)
		}
	}
}

// TestFP8IgnoreSkipsMoE: which fp8 ignored_layers entries leave a fused
// MoE layer of Qwen3-30B-A3B (every layer MoE, prefix
// model.layers.<i>.mlp.experts) unquantized under v0.5.10.
func TestFP8IgnoreSkipsMoE(t *testing.T) {
	moe := shipped(t)["Qwen__Qwen3-30B-A3B-FP8"]
	dense := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	for _, tt := range []struct {
		m    string
		want bool
		why  string
	}{
		{"model.layers.0.mlp.gate", false, "the router: not a substring of model.layers.0.mlp.experts"},
		{"model.layers.3.input_layernorm", false, "not under the experts"},
		{"lm_head", false, "no layer"},
		{"model.layers.3.mlp", true, "a substring of model.layers.3.mlp.experts"},
		{"layers.3", true, "kept as model.layers.3 too, a substring of the experts' prefix"},
		{"model.layers.0.mlp.experts.0.down_proj", true, "an entry naming experts that holds the prefix"},
		{"layers.7.mlp.experts.1.up_proj", true, "the same once model. is added"},
	} {
		if got := fp8IgnoreSkipsMoE(fp8MoEPrefixes(moe), tt.m); got != tt.want {
			t.Errorf("%s: %v, want %v (%s)", tt.m, got, tt.want, tt.why)
		}
	}
	if fp8IgnoreSkipsMoE(fp8MoEPrefixes(dense), "model.layers.3.mlp") {
		t.Errorf("a dense model has no fused MoE to skip")
	}
}

// TestMMAttentionCuDNNRefused: --mm-attention-backend is memory-neutral
// but for v0.5.10's new flashinfer_cudnn, whose workspace Qwen3-VL's
// vision tower allocates as it loads; v0.5.9 has no such choice.
func TestMMAttentionCuDNNRefused(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string // "" for taken
	}{
		{[]string{"--sglang-version", "v0.5.10", "--mm-attention-backend", "flashinfer_cudnn"}, "--mm-attention-backend flashinfer_cudnn: FlashInfer's cuDNN vision attention, whose 128 MiB workspace"},
		{[]string{"--sglang-version", "v0.5.10.post1", "--mm-attention-backend=flashinfer_cudnn"}, "128 MiB workspace"},
		{[]string{"--sglang-version", "v0.5.10", "--mm-attention-backend", "fa3"}, ""},
		{[]string{"--sglang-version", "v0.5.9", "--mm-attention-backend", "fa3"}, ""},
	} {
		i := slices.IndexFunc(tt.args, func(a string) bool { return strings.HasPrefix(a, "--mm-") })
		err := (&flagServe{}).Judge(tt.args, i)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Judge(%q): %v; want it taken", tt.args, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Judge(%q): %v; want %q", tt.args, err, tt.want)
		}
	}
}

// TestProfile0510Budget: `membudget budget --engine sglang` at v0.5.10
// reserves the piecewise graphs of a text model without MLA on CUDA at one
// stage: H100, 13440 + 58 x 8 = 13904 MiB, 0.829; at PP 2 none, v0.5.9's
// 512 + 12288 + 512 + 256 = 13568, 0.833; on an MI300X none (case 6, not
// CUDA): v0.5.9.post1's fraction.
func TestProfile0510Budget(t *testing.T) {
	for _, tt := range []struct {
		class, version string
		pp             uint64
		want           float64
	}{
		{"h100-sxm-80g", "v0.5.10", 1, 0.829},
		{"h100-sxm-80g", "v0.5.9.post1", 1, 0.834},
		{"h100-sxm-80g", "v0.5.10", 2, 0.833},
	} {
		q := &budgetQuery{version: tt.version, pp: tt.pp}
		res, err := q.Budget(class(t, tt.class))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.JSON.(budgetJSON).MemFractionStatic; got != tt.want {
			t.Errorf("%s %s pp %d: msf %v, want %v", tt.version, tt.class, tt.pp, got, tt.want)
		}
	}
	mi := class(t, "mi300x")
	a, errA := (&budgetQuery{version: "v0.5.10"}).Budget(mi)
	b, errB := (&budgetQuery{version: "v0.5.9.post1"}).Budget(mi)
	if errA != nil || errB != nil || a.JSON.(budgetJSON).MemFractionStatic != b.JSON.(budgetJSON).MemFractionStatic {
		t.Errorf("MI300X: v0.5.10 %v, v0.5.9.post1 %v; want the same (no piecewise graphs off CUDA)", a.JSON, b.JSON)
	}
}

// TestPropertyPiecewiseReserveNeverRaisesTheFraction: v0.5.10's default
// fraction is never above v0.5.9.post1's for the same device and settings,
// and reserves at most the piecewise graphs' term more (the 10 GiB floor
// may absorb some or all of it, server_args.py:1313-1314).
func TestPropertyPiecewiseReserveNeverRaisesTheFraction(t *testing.T) {
	p9, p10 := mustProfile("v0.5.9.post1"), mustProfile("v0.5.10")
	rapid.Check(t, func(t *rapid.T) {
		chunked := rapid.SampledFrom([]int64{-1, 2048, 4096, 8192, 16384, 32768}).Draw(t, "chunked")
		in := MSFInputs{
			GPUMemMiB: float64(rapid.IntRange(8*1024, 300*1024).Draw(t, "gpu_mem")),
			TPSize:    uint64(rapid.IntRange(1, 16).Draw(t, "tp")), PPSize: 1,
			ChunkedPrefillSize: chunked, MaxPrefillTokens: 16384,
			CudaGraphMaxBS: uint64(rapid.IntRange(0, 1024).Draw(t, "graph_bs")),
		}
		msf9, res9 := DefaultMemFractionStatic(p9, in)
		in.PiecewiseMiB = float64(len(piecewiseSizes(chunked)) * piecewiseMiBPerSize)
		if rapid.Bool().Draw(t, "mla") {
			in.PiecewiseMiB = piecewiseMLAMiB
		}
		msf10, res10 := DefaultMemFractionStatic(p10, in)
		if msf10 > msf9 || res10 < res9 || res10-res9 > in.PiecewiseMiB {
			t.Fatalf("v0.5.9.post1 %v (%v MiB), v0.5.10 %v (%v MiB) with %v MiB of piecewise graphs", msf9, res9, msf10, res10, in.PiecewiseMiB)
		}
		// The term comes before the floor: where v0.5.9's sum and it stay
		// under 10 GiB on a device above 60 GiB, the floor holds both.
		noFloor := in
		noFloor.GPUMemMiB, noFloor.PiecewiseMiB = 60*1024, 0
		_, sum := DefaultMemFractionStatic(p9, noFloor)
		if in.GPUMemMiB > 60*1024 && sum+in.PiecewiseMiB <= 10*1024 && res10 != 10*1024 {
			t.Fatalf("v0.5.9's %v MiB and %v MiB of piecewise graphs under the floor: v0.5.10 reserves %v MiB, want 10240", sum, in.PiecewiseMiB, res10)
		}
	})
}

// TestCommandDisablePiecewise: the launch line membudget prints carries
// --disable-piecewise-cuda-graph where it was given, not where SGLang turns
// the graphs off by itself (PP 2 here), and the flag round-trips through
// the flag judge as a flag of v0.5.10.
func TestCommandDisablePiecewise(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	for _, tt := range []struct {
		s    Serve
		want bool
	}{{Serve{DisablePiecewiseCudaGraph: true}, true}, {Serve{PPSize: 2}, false}, {Serve{}, false}} {
		r, err := Resolve(tt.s, llama, class(t, "h100-sxm-80g"), mustProfile("v0.5.10"))
		if err != nil {
			t.Fatal(err)
		}
		line := Command("meta-llama/Llama-3.1-8B-Instruct", "", r)
		if got := strings.Contains(line, " --disable-piecewise-cuda-graph"); got != tt.want {
			t.Errorf("%+v: %q; want the flag %v", tt.s, line, tt.want)
		}
	}
	args := []string{"--sglang-version", "v0.5.10", "python", "-m", "sglang.launch_server", "--disable-piecewise-cuda-graph"}
	if err := (&flagServe{}).Judge(args, 5); err != nil {
		t.Errorf("Judge(%q): %v; want it taken", args, err)
	}
	args[1] = "v0.5.9.post1"
	if err := (&flagServe{}).Judge(args, 5); err == nil || !strings.Contains(err.Error(), "came in v0.5.10") {
		t.Errorf("Judge(%q): %v; want it not a flag of v0.5.9.post1, naming v0.5.10", args, err)
	}
}

// TestProfile0510SpecReserve: v0.5.10 reserves 4 GiB for an EAGLE, EAGLE3
// or NEXTN draft where v0.5.9.post1 reserves 2, after the 10 GiB floor
// (server_args.py:1313-1322 at v0.5.10). No serve reaches it (speculative
// decoding is modelled before v0.5.9 alone), so the fraction is pinned
// here, on an H100 of 81559 MiB at TP 1 with graph bs 256. Neither release
// gives the piecewise term: v0.5.9.post1 captures none by default and
// v0.5.10 turns them off under speculative decoding (case 2,
// server_args.py:1078-1139 at v0.5.10; see TestProfile0511SpecFraction).
func TestProfile0510SpecReserve(t *testing.T) {
	for _, tt := range []struct {
		name             string
		chunked          int64
		want059, want510 float64
		reasoning        string
	}{
		{"above the floor", 8192, 0.810, 0.785,
			"v0.5.9: 512 + 12288 + 512 + 128 = 13440, + 2048 = 15488; 66071 / 81559 = 0.81010. " +
				"v0.5.10: 13440 + 4096 = 17536; 64023 / 81559 = 0.78499"},
		{"the floor", 2048, 0.849, 0.824,
			"v0.5.9: 512 + 3072 + 512 + 128 = 4224 -> 10240, + 2048 = 12288; 69271 / 81559 = 0.84934. " +
				"v0.5.10: 4224 -> 10240, + 4096 = 14336; 67223 / 81559 = 0.82423"},
	} {
		in := MSFInputs{GPUMemMiB: 81559, TPSize: 1, PPSize: 1, ChunkedPrefillSize: tt.chunked, MaxPrefillTokens: 16384, CudaGraphMaxBS: 256, Speculative: true}
		got059, _ := DefaultMemFractionStatic(mustProfile("v0.5.9.post1"), in)
		got510, _ := DefaultMemFractionStatic(mustProfile("v0.5.10"), in)
		if got059 != tt.want059 || got510 != tt.want510 {
			t.Errorf("%s: v0.5.9.post1 %v, v0.5.10 %v; want %v, %v (%s)", tt.name, got059, got510, tt.want059, tt.want510, tt.reasoning)
		}
	}
}
