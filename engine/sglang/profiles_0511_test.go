package sglang

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
)

// TestProfile0511Rules: v0.5.11 is v0.5.10.post1's rules but the ones it
// changed.
func TestProfile0511Rules(t *testing.T) {
	p := mustProfile("v0.5.11")
	want := renamedAs(mustProfile("v0.5.10.post1"), "v0.5.11", "612785ffdcaf35552f1ed433a981d596ca9fe900", p)
	want.PiecewiseWithSpec = true // PR #22128
	want.ReqPadRow = true         // PR #24243
	want.SpecV2 = true            // PR #21062
	want.Native = native0511
	want.UnreadModels = slices.Concat(new059, new0510, new0511)
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("v0.5.11 against v0.5.10.post1's rules (-want +got):\n%s", diff)
	}
	// 12 classes new by the grep, less the three drafts: 9.
	checkNewNative(t, "v0.5.11", native0510, new0511, native0511, 9)
}

// TestProfile0511PoolByHand: Llama 3.1 8B on one H100 at v0.5.11's
// defaults takes v0.5.10's fraction (its _handle_gpu_memory_settings is
// v0.5.10's line for line: 13440 + 58 x 8 = 13904 MiB, 0.829) and its
// pool (the same available bytes over the same cell), but the
// req_to_token table has 2048 + 1 rows of (131072 + 4) int32, 524304
// bytes more (PR #24243).
func TestProfile0511PoolByHand(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	r10 := ref(t, llama, Serve{}, h100, mustProfile("v0.5.10.post1"))
	r11 := ref(t, llama, Serve{}, h100, mustProfile("v0.5.11"))
	c10, c11 := r10.Capacity(), r11.Capacity()
	wantT := poolTokensByHand(c11, 0.829, 131072, false)
	if c11.MemFractionStatic != 0.829 || c11.MaxTotalNumTokens != wantT || c11.MaxTotalNumTokens != c10.MaxTotalNumTokens || c11.MaxNumReqs != 2048 {
		t.Errorf("v0.5.11: msf %v, tokens %d (v0.5.10.post1 %d), max_num_reqs %d; want 0.829, %d, the same, 2048", c11.MemFractionStatic, c11.MaxTotalNumTokens, c10.MaxTotalNumTokens, c11.MaxNumReqs, wantT)
	}
	for _, tt := range []struct {
		name string
		ref  *Reference
		want uint64
	}{{"v0.5.10.post1", r10, 2048 * (131072 + 4) * 4}, {"v0.5.11", r11, 2049 * (131072 + 4) * 4}} {
		if got := besideItem(tt.ref, "req_to_token"); got != tt.want {
			t.Errorf("%s: req_to_token %d B, want %d", tt.name, got, tt.want)
		}
	}
}

// TestProfile0511SpecFraction: with EAGLE, v0.5.10 turns the piecewise
// graphs off (case 2) and reserves 512 + 1.5 x 8192 + 2 x 256 + 128 =
// 13440 MiB, over the 10 GiB floor, + 4096 for the draft = 17536; 63544 /
// 81080 = 0.78372 -> 0.784. v0.5.11 keeps them (PR #22128): + 58 x 8 =
// 464 before the floor, 18000 MiB; 63080 / 81080 = 0.77800 -> 0.778.
func TestProfile0511SpecFraction(t *testing.T) {
	in := MSFInputs{GPUMemMiB: 81080, TPSize: 1, PPSize: 1, ChunkedPrefillSize: 8192, MaxPrefillTokens: 16384, CudaGraphMaxBS: 256, Speculative: true}
	msf10, _ := DefaultMemFractionStatic(mustProfile("v0.5.10.post1"), in)
	in.PiecewiseMiB = float64(len(piecewiseSizes(8192)) * piecewiseMiBPerSize)
	msf11, res11 := DefaultMemFractionStatic(mustProfile("v0.5.11"), in)
	if msf10 != 0.784 || msf11 != 0.778 || res11 != 18000 {
		t.Errorf("EAGLE on an H100: v0.5.10.post1 %v, v0.5.11 %v (%v MiB); want 0.784, 0.778 (18000 MiB)", msf10, msf11, res11)
	}
	// The decision itself: speculative decoding turns them off under
	// v0.5.10.post1 alone.
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	for name, want := range map[string]string{"v0.5.10.post1": "speculative decoding (case 2)", "v0.5.11": ""} {
		r := &Resolved{Serve: Serve{Spec: Spec{Algorithm: "EAGLE"}, PPSize: 1}, Profile: mustProfile(name)}
		if got := r.piecewiseOffWhy(llama, h100); got != want {
			t.Errorf("%s with EAGLE: piecewise off for %q, want %q", name, got, want)
		}
	}
}

// TestProfile0511PiecewiseOffCases: v0.5.11 drops v0.5.10's case 2
// (speculative decoding) from _handle_piecewise_cuda_graph and numbers the
// rest one lower (server_args.py:1194-1262 at v0.5.11: "# 4. Pipeline
// parallelism", "# 5. Non-CUDA hardware", "# 8. Multimodal / VLM models";
// the same at v0.5.13, :1342 on), where v0.5.10 has 5, 6 and 9
// (:1078-1139); the reason names the release's own case.
func TestProfile0511PiecewiseOffCases(t *testing.T) {
	archs := shipped(t)
	for _, tt := range []struct {
		name, model, class string
		s                  Serve
		want10, want11     string
	}{
		{"pipeline", "meta-llama__Llama-3.1-8B-Instruct", "h100-sxm-80g", Serve{PPSize: 2}, "pipeline parallelism (case 5)", "pipeline parallelism (case 4)"},
		{"AMD", "meta-llama__Llama-3.1-8B-Instruct", "mi300x", Serve{}, "a device other than CUDA's (case 6)", "a device other than CUDA's (case 5)"},
		{"multimodal", "Qwen__Qwen2.5-VL-7B-Instruct", "h100-sxm-80g", Serve{}, "a multimodal model (case 9)", "a multimodal model (case 8)"},
	} {
		for _, v := range []struct{ profile, want string }{{"v0.5.10.post1", tt.want10}, {"v0.5.11", tt.want11}, {"v0.5.13.post1", tt.want11}} {
			r, err := Resolve(tt.s, archs[tt.model], class(t, tt.class), mustProfile(v.profile))
			if err != nil {
				t.Errorf("%s under %s: %v", tt.name, v.profile, err)
				continue
			}
			if r.PiecewiseOff != v.want {
				t.Errorf("%s under %s: piecewise off for %q, want %q", tt.name, v.profile, r.PiecewiseOff, v.want)
			}
		}
	}
}

// TestProfile0511RefusedByName: what v0.5.11 changed and membudget has not
// read is refused by name, for the serves it touches only; v0.5.10's
// refusals carry.
func TestProfile0511RefusedByName(t *testing.T) {
	archs := shipped(t)
	h100 := class(t, "h100-sxm-80g")
	p := mustProfile("v0.5.11")
	// EAGLE at SGLang's own top-k for Llama, 4, on the spec v2 worker
	// (sized at top-k 1 alone, see spec.go): named.
	_, err := Resolve(Serve{DisableCudaGraph: true, DisablePiecewiseCudaGraph: true, Spec: Spec{Algorithm: "EAGLE3"}}, archs["meta-llama__Llama-3.1-8B-Instruct"], h100, p)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "speculative-eagle-topk" || !strings.Contains(se.Reason, "#21062") || !strings.Contains(se.Reason, "eagle_worker_v2.py") {
		t.Errorf("EAGLE3 under v0.5.11: %v; want a refusal naming the spec v2 worker (#21062)", err)
	}
	// A new native architecture: refused by name under v0.5.11, a
	// Transformers fallback (refused too) under v0.5.10.post1.
	hy := *archs["meta-llama__Llama-3.1-8B-Instruct"]
	hy.Architectures = []string{"HYV3ForCausalLM"}
	if _, err := Resolve(Serve{}, &hy, h100, p); err == nil || !strings.Contains(err.Error(), "implements HYV3ForCausalLM natively, new in this release") {
		t.Errorf("HYV3ForCausalLM under v0.5.11: %v; want it refused as a new native architecture", err)
	}
	if _, err := Resolve(Serve{}, &hy, h100, mustProfile("v0.5.10.post1")); err == nil || !strings.Contains(err.Error(), "no native implementation") {
		t.Errorf("HYV3ForCausalLM under v0.5.10.post1: %v; want the Transformers fallback refused", err)
	}
	for _, tt := range []struct{ name, model, on, flag, mark string }{
		{"gpt-oss (v0.5.10's split)", "openai__gpt-oss-20b", "b200", "model", "#19079"},
		{"Gemma 3 (v0.5.10's get_rope)", "google__gemma-3-1b-it", "h100-sxm-80g", "model", "gemma3_causal.py:204"},
		{"Qwen3-MoE TP2 (the fusion workspace)", "Qwen__Qwen3-30B-A3B", "h100-sxm-80g", "enable-flashinfer-allreduce-fusion", "may turn it on by itself"},
	} {
		s := Serve{}
		if strings.Contains(tt.name, "TP2") {
			s.TPSize = 2
		}
		_, err := Resolve(s, archs[tt.model], class(t, tt.on), p)
		if !errors.As(err, &se) || se.Flag != tt.flag || !strings.Contains(se.Reason, tt.mark) {
			t.Errorf("%s under v0.5.11: %v; want a refusal of --%s naming %q", tt.name, err, tt.flag, tt.mark)
		}
	}
	// Its new flags that move memory are refused, the others taken.
	for _, tt := range []struct {
		args []string
		want string // "" for taken
	}{
		{[]string{"--sglang-version", "v0.5.11", "--debug-cuda-graph"}, "--debug-cuda-graph: CUDA graphs in debug mode"},
		{[]string{"--sglang-version", "v0.5.11", "--enable-breakable-cuda-graph"}, "breakable graph runner"},
		{[]string{"--sglang-version", "v0.5.11", "--weight-loader-prefetch-checkpoints"}, "host page cache"},
		{[]string{"--sglang-version", "v0.5.11", "--no-record-nolora-graph"}, "without LoRA hooks"},
		{[]string{"--sglang-version", "v0.5.11", "--tokenizer-backend", "huggingface"}, ""},
		{[]string{"--sglang-version", "v0.5.11", "--no-lora-strict-loading"}, ""},
		{[]string{"--sglang-version", "v0.5.10.post1", "--debug-cuda-graph"}, "--debug-cuda-graph"},
	} {
		err := (&flagServe{}).Judge(tt.args, 2)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Judge(%q): %v; want it taken", tt.args, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Judge(%q): %v; want %q", tt.args, err, tt.want)
		}
	}
}
