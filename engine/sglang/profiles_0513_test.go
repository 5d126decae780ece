package sglang

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
)

// TestProfile0513Rules: v0.5.13 is v0.5.12.post1's rules but the ones it
// changed; v0.5.13.post1 changes none.
func TestProfile0513Rules(t *testing.T) {
	p := mustProfile("v0.5.13")
	want := renamedAs(mustProfile("v0.5.12.post1"), "v0.5.13", "28b095c01005d4a3a2a5b637b7d028b07fba31b2", p)
	want.PiecewiseCapByContext = true  // PR #22516
	want.PiecewiseWithTRTLLMMoE = true // PR #23351
	want.Native = native0513
	want.UnreadModels = slices.Concat(new059, new0510, new0511, new0512, new0513)
	want.ChangedModels = []string{"Gemma3ForCausalLM", "Gemma3ForConditionalGeneration", "Glm4MoeForCausalLM", "Glm4MoeLiteForCausalLM"} // + PR #26088
	want.UnreadQuant = []string{"compressed-tensors", "gptq", "modelopt"}                                                                // + PR #26402
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("v0.5.13 against v0.5.12.post1's rules (-want +got):\n%s", diff)
	}
	// 8 classes new by the grep, less the three drafts: 5.
	checkNewNative(t, "v0.5.13", native0512, new0513, native0513, 5)
	post1 := mustProfile("v0.5.13.post1")
	want = renamedAs(p, "v0.5.13.post1", "85fd90072d1a9f2432842b03588f63b745e524e4", post1)
	if diff := cmp.Diff(want, post1); diff != "" {
		t.Errorf("v0.5.13.post1 against v0.5.13's rules (-want +got):\n%s", diff)
	}
}

// TestProfile0513ContextCapsPiecewise walks Llama 3.1 8B on one H100 with
// --context-length 2048. v0.5.12.post1 captures the sizes up to the
// chunked prefill, 8192: 58, 464 MiB, and reserves 13440 + 464 = 13904
// MiB, 0.829 (see TestProfile0510Defaults). v0.5.13 caps them at 2048:
// 42 sizes, 336 MiB; 13440 + 336 = 13776 MiB, over the 10 GiB floor;
// 67304 / 81080 = 0.83010 -> 0.830, and the pool follows the fraction.
// Without --context-length (the derived 131072) the two agree.
func TestProfile0513ContextCapsPiecewise(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		profile string
		msf     float64
		sizes   int
	}{{"v0.5.12.post1", 0.829, 58}, {"v0.5.13", 0.830, 42}, {"v0.5.13.post1", 0.830, 42}} {
		r := ref(t, llama, Serve{ContextLength: 2048}, h100, mustProfile(tt.profile))
		c := r.Capacity()
		wantT := poolTokensByHand(c, tt.msf, 131072, false)
		if c.MemFractionStatic != tt.msf || c.MaxTotalNumTokens != wantT || len(r.Serve.PiecewiseSizes) != tt.sizes ||
			besideItem(r, "piecewise_cuda_graphs") != uint64(tt.sizes)*8*mib {
			t.Errorf("%s --context-length 2048: msf %v, T %d, %d sizes, piecewise %d B; want %v, %d, %d, %d x 8 MiB",
				tt.profile, c.MemFractionStatic, c.MaxTotalNumTokens, len(r.Serve.PiecewiseSizes), besideItem(r, "piecewise_cuda_graphs"), tt.msf, wantT, tt.sizes, tt.sizes)
		}
	}
	a := ref(t, llama, Serve{}, h100, mustProfile("v0.5.12.post1")).Capacity()
	b := ref(t, llama, Serve{}, h100, mustProfile("v0.5.13")).Capacity()
	if a.MemFractionStatic != b.MemFractionStatic || a.MaxTotalNumTokens != b.MaxTotalNumTokens {
		t.Errorf("derived context: v0.5.12.post1 %v / %d, v0.5.13 %v / %d; want the same", a.MemFractionStatic, a.MaxTotalNumTokens, b.MemFractionStatic, b.MaxTotalNumTokens)
	}
}

// TestPropertyContextCapNeverLowersTheFraction: the cap of PR #22516, as
// Resolve applies it to Llama 3.1 8B with a --context-length given, only
// drops the piecewise sizes above that length (v0.5.13's list is
// v0.5.12.post1's less every size above it, server_args.py:1579-1585), so
// v0.5.13's default fraction is never below v0.5.12.post1's and reserves at
// most the dropped sizes' 8 MiB each less (the 10 GiB floor may absorb
// them). Half the contexts drawn are at most 20000, below or near every
// chunked prefill drawn, where the cap bites.
func TestPropertyContextCapNeverLowersTheFraction(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	p12, p13 := mustProfile("v0.5.12.post1"), mustProfile("v0.5.13")
	classes := map[string]budget.Class{}
	for _, name := range []string{"h100-sxm-80g", "l40s"} {
		classes[name] = class(t, name)
	}
	rapid.Check(t, func(t *rapid.T) {
		c := classes[rapid.SampledFrom([]string{"h100-sxm-80g", "l40s"}).Draw(t, "class")]
		s := Serve{
			ChunkedPrefillSize: rapid.SampledFrom([]int64{2048, 4096, 8192, 16384}).Draw(t, "chunked"),
			ContextLength:      uint64(rapid.OneOf(rapid.IntRange(1, 20000), rapid.IntRange(1, 131072)).Draw(t, "context")),
		}
		r12, err := Resolve(s, llama, c, p12)
		if err != nil {
			t.Fatalf("v0.5.12.post1: %v", err)
		}
		r13, err := Resolve(s, llama, c, p13)
		if err != nil {
			t.Fatalf("v0.5.13: %v", err)
		}
		var kept []uint64
		for _, size := range r12.PiecewiseSizes {
			if size <= s.ContextLength {
				kept = append(kept, size)
			}
		}
		if diff := cmp.Diff(kept, r13.PiecewiseSizes, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("context %d: v0.5.13's sizes against v0.5.12.post1's up to it (-want +got):\n%s", s.ContextLength, diff)
		}
		dropped := float64((len(r12.PiecewiseSizes) - len(r13.PiecewiseSizes)) * piecewiseMiBPerSize)
		if r13.MemFractionStatic < r12.MemFractionStatic || r13.ReservedMiB > r12.ReservedMiB || r12.ReservedMiB-r13.ReservedMiB > dropped {
			t.Fatalf("context %d: v0.5.12.post1 %v (%v MiB), v0.5.13 %v (%v MiB), %v MiB of sizes dropped", s.ContextLength, r12.MemFractionStatic, r12.ReservedMiB, r13.MemFractionStatic, r13.ReservedMiB, dropped)
		}
	})
}

// TestProfile0513RefusedByName: GPTQ's package and GLM-4.7-Flash's fp32
// router copies by name under v0.5.13 alone; the fork's v0.5.13.post2
// stays refused.
func TestProfile0513RefusedByName(t *testing.T) {
	archs := shipped(t)
	h100 := class(t, "h100-sxm-80g")
	for _, tt := range []struct{ name, model, mark string }{
		{"GPTQ", "Qwen__Qwen2.5-7B-Instruct-GPTQ-Int4", "#26402"},
		{"GLM-4.7-Flash", "zai-org__GLM-4.7-Flash", "_weight_fp32"},
	} {
		a, ok := archs[tt.model]
		if !ok {
			t.Fatalf("%s is not shipped", tt.model)
		}
		_, err := Resolve(Serve{}, a, h100, mustProfile("v0.5.13.post1"))
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "model" || !strings.Contains(se.Reason, tt.mark) {
			t.Errorf("%s under v0.5.13.post1: %v; want a refusal of --model naming %q", tt.name, err, tt.mark)
		}
		if _, err := Resolve(Serve{}, a, h100, mustProfile("v0.5.12.post1")); err != nil && strings.Contains(err.Error(), tt.mark) {
			t.Errorf("%s under v0.5.12.post1: %v; want no refusal naming %q", tt.name, err, tt.mark)
		}
	}
	if _, err := ProfileFor("v0.5.13.post2"); err == nil || !strings.Contains(err.Error(), "fork branch") {
		t.Errorf("v0.5.13.post2: %v; want it refused as the mirror owner's fork tag", err)
	}
	for _, tt := range []struct {
		args []string
		want string // "" for taken
	}{
		{[]string{"--sglang-version", "v0.5.13", "--kv-canary", "none"}, ""},
		{[]string{"--sglang-version", "v0.5.13", "--kv-canary", "all"}, "a canary on the KV pool"},
		{[]string{"--sglang-version", "v0.5.13", "--radix-cache-backend", "x"}, "radix cache backend"},
		{[]string{"--sglang-version", "v0.5.13", "--record-nolora-graph"}, "--record-nolora-graph"},
		{[]string{"--sglang-version", "v0.5.13.post1", "--dsa-decode-backend", "flashmla_sparse"}, ""},
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
