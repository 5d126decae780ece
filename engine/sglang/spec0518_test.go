package sglang

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
)

// TestSpec0518AgainstV0517 sizes the EAGLE-3 Llama-3.1-8B serve on one
// H100 at top-k 1 with --disable-cuda-graph at v0.5.17 and v0.5.18.
// v0.5.18 keeps v0.5.17's draft rules for the serve (specReleases), and
// of its target rules (profile0518) none reaches it: the multimodal
// reservation is for multimodal models (a text model reserves nothing,
// mmReserveBytes), the MLA prefill graphs are of MLA models and off with
// --disable-cuda-graph anyway (server_args.py:4507-4509), the reserve's
// terms are v0.5.17's (512 + 1.5 x 8192 + 1024 / 8 = 12928 MiB; round(
// (81080 - 12928) / 81080, 3) = 0.841), and the DeepGEMM layout budget is
// of an FP8 MoE. So the pool is v0.5.17's, 391306 tokens of int(32 x 4096
// x (1 + 1 / 32)) = 135168 B (docs/sglang.md, "v0.5.17"; TestSpecByHand0515
// works each term by hand over v0.5.18 too), and every item the same: no
// difference to explain.
func TestSpec0518AgainstV0517(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	s := Serve{Dtype: "bfloat16", DisableCudaGraph: true,
		Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: draftDir(t, eagle3Llama8B), NumSteps: 3, EagleTopK: 1, NumDraftTokens: 4}}
	old, cur := ref(t, llama, s, h100, mustProfile("v0.5.17")), ref(t, llama, s, h100, mustProfile("v0.5.18"))
	if r := cur.Serve; r.MemFractionStatic != 0.841 || r.ReservedMiB != 12928 {
		t.Errorf("msf %v reserving %v MiB, want 0.841 reserving 12928", r.MemFractionStatic, r.ReservedMiB)
	}
	got := cur.Capacity()
	if got.CellBytes != 135168 || got.MaxTotalNumTokens != 391306 {
		t.Errorf("%d tokens of %d B; want v0.5.17's 391306 of 135168", got.MaxTotalNumTokens, got.CellBytes)
	}
	if diff := cmp.Diff(old.Capacity(), got); diff != "" {
		t.Errorf("the pool differs from v0.5.17's (-v0.5.17 +v0.5.18):\n%s", diff)
	}
	if diff := cmp.Diff(old.EvaluateStage(0, 48, 4096).Items, cur.EvaluateStage(0, 48, 4096).Items); diff != "" {
		t.Errorf("the items differ from v0.5.17's (-v0.5.17 +v0.5.18):\n%s", diff)
	}
}

// TestSpec0518DraftKVDtype: v0.5.18's --speculative-draft-kv-cache-dtype
// sets the draft's pool dtype (mem_cache/kv_cache_dtype.py:33-36; see
// specDraftKVDtypeFrom) while the target's pool is still sized with the
// target's cell scaled by the draft's layers (pool_configurator.py:
// 174-213). A draft cell equal to the target's is sized as without the
// flag; a smaller one sizes the same pool, the draft's pool and its share
// of the held tokens smaller; a larger one is refused naming the flag.
// By hand, on an H100:
// Llama-3.1-8B's layer is 8 KV heads x 128 x 2 (K and V) = 2048 elements,
// the one-layer EAGLE-3 draft's the same (8 KV heads of 128): 4096 B in
// bfloat16, 2048 in FP8. DeepSeek-V3's MLA latent is 512 + 64 = 576
// elements, the NextN layer's the same: 1152 B in bfloat16, 576 in FP8.
func TestSpec0518DraftKVDtype(t *testing.T) {
	archs := shipped(t)
	llama, dsv3 := archs["meta-llama__Llama-3.1-8B-Instruct"], archs["deepseek-ai__DeepSeek-V3"]
	h100 := class(t, "h100-sxm-80g")
	dir := draftDir(t, eagle3Llama8B)
	kv4Dir := draftDir(t, strings.Replace(eagle3Llama8B, `"num_key_value_heads": 8`, `"num_key_value_heads": 4`, 1))
	eagle3 := func(kv, draftKV string) Serve {
		return Serve{Dtype: "bfloat16", KVCacheDtype: kv, DisableCudaGraph: true,
			Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir, NumSteps: 3, EagleTopK: 1, NumDraftTokens: 4, DraftKVCacheDtype: draftKV}}
	}
	nextn := func(draftKV string) Serve {
		return Serve{TPSize: 16, Nodes: Nodes{NNodes: 2}, DisableCudaGraph: true, Spec: Spec{Algorithm: "NEXTN", DraftKVCacheDtype: draftKV}}
	}
	v0518 := mustProfile("v0.5.18")

	// Sized: the draft's cell is the target's, and the serve the one
	// without the flag but its launch line.
	for _, tc := range []struct {
		name       string
		s, without Serve
		cell       uint64
	}{
		// bf16 and bfloat16 beside a bfloat16 target: 4096 B.
		{"bf16 beside bfloat16", eagle3("", "bf16"), eagle3("", ""), 4096},
		{"bfloat16 beside bfloat16", eagle3("", "bfloat16"), eagle3("", ""), 4096},
		// auto: the draft model's own dtype (it has no quant_config),
		// bfloat16: 4096 B.
		{"auto beside bfloat16", eagle3("", "auto"), eagle3("", ""), 4096},
		// fp8_e5m2 beside an fp8_e4m3 target: one byte each, 2048 B.
		{"fp8_e5m2 beside fp8_e4m3", eagle3("fp8_e4m3", "fp8_e5m2"), eagle3("fp8_e4m3", ""), 2048},
		// NEXTN, bf16 beside DeepSeek-V3's bfloat16 KV: 1152 B.
		{"NEXTN bf16", nextn("bf16"), nextn(""), 1152},
	} {
		a := llama
		if tc.s.Spec.Algorithm == "NEXTN" {
			a = dsv3
		}
		with, without := ref(t, a, tc.s, h100, v0518), ref(t, a, tc.without, h100, v0518)
		if got := with.Serve.Draft.LayerCell; got != tc.cell {
			t.Errorf("%s: the draft's cell %d B, want %d", tc.name, got, tc.cell)
		}
		if diff := cmp.Diff(without.Capacity(), with.Capacity()); diff != "" {
			t.Errorf("%s: the pool differs from the serve without the flag (-without +with):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(without.EvaluateStage(0, 48, 4096).Items, with.EvaluateStage(0, 48, 4096).Items); diff != "" {
			t.Errorf("%s: the items differ from the serve without the flag (-without +with):\n%s", tc.name, diff)
		}
		if want := " --speculative-draft-kv-cache-dtype " + tc.s.Spec.DraftKVCacheDtype; !strings.HasSuffix(with.Serve.specLine(), want) {
			t.Errorf("%s: launch line %q; want it to end %q", tc.name, with.Serve.specLine(), want)
		}
	}

	// Sized, smaller: the pool the one without the flag (the same
	// tokens of the same scaled cell), the draft's logged pool, its share
	// of the 48 x 4096 held tokens and its padding row (pages of 1) in
	// its own cell, and what the smaller draft pool leaves free of the
	// budget, the difference of the two shares for every token of the
	// pool, unallocated: so that the budget still holds the pool's tokens
	// and not one more, and the compiled plan says what the ledger says.
	for _, tc := range []struct {
		name       string
		s, without Serve
		tokens     uint64
		// draftK is the draft's logged K bytes (MLA: the latent), V the
		// same but for MLA (0).
		draftK, draftV uint64
		share, padding uint64
		freed          uint64
	}{
		// fp8_e4m3 beside Llama-3.1-8B's bfloat16 cache: 391306 tokens
		// (TestSpec0518AgainstV0517) and a padding row, 8 x 128 x 1 B for
		// K and for V: 391307 x 1024 each; the share 196608 x 2048, the
		// padding row 2048, where bfloat16 gives twice each; free
		// 391306 x (4096 - 2048).
		{"fp8_e4m3 beside bfloat16", eagle3("", "fp8_e4m3"), eagle3("", ""), 391306, 391307 * 1024, 391307 * 1024, 48 * 4096 * 2048, 2048, 391306 * 2048},
		// NEXTN fp8_e4m3 beside DeepSeek-V3's bfloat16 latent: 316322
		// tokens (the golden sglang-nextn-dsv3-tp16-v0517's) and a padding
		// row of 576 B: 316323 x 576; the share 196608 x 576; free
		// 316322 x (71424 - 70272 - 576).
		{"NEXTN fp8_e4m3", nextn("fp8_e4m3"), nextn(""), 316322, 316323 * 576, 0, 48 * 4096 * 576, 576, 316322 * 576},
	} {
		a := llama
		if tc.s.Spec.Algorithm == "NEXTN" {
			a = dsv3
		}
		with, without := ref(t, a, tc.s, h100, v0518), ref(t, a, tc.without, h100, v0518)
		want := without.Capacity()
		want.DraftKBytes, want.DraftVBytes = tc.draftK, tc.draftV
		if diff := cmp.Diff(want, with.Capacity()); diff != "" {
			t.Errorf("%s: the pool (-want +got):\n%s", tc.name, diff)
		}
		wantItems := slices.Clone(without.EvaluateStage(0, 48, 4096).Items)
		for i, it := range wantItems {
			switch it.Name {
			case "spec_draft.kv_cache":
				wantItems[i].Bytes = tc.share
			case "spec_draft.kv_cache.padding_rows":
				wantItems[i].Bytes = tc.padding
			case "kv_cache.unallocated":
				wantItems[i].Bytes += tc.freed
			}
		}
		if diff := cmp.Diff(wantItems, with.EvaluateStage(0, 48, 4096).Items); diff != "" {
			t.Errorf("%s: the items (-want +got):\n%s", tc.name, diff)
		}
		// The pool holds its tokens and not one page more, in the
		// reference and in the compiled plan alike.
		plan, page := with.Plan(), with.Capacity().PageSize
		for _, pt := range [][2]uint64{{48, 4096}, {1, tc.tokens}, {1, tc.tokens + page}} {
			if diff := cmp.Diff(with.Evaluate(pt[0], pt[1]).Footprint, plan.Evaluate(pt[0], pt[1])); diff != "" {
				t.Errorf("%s at %v: Plan != Reference (-reference +plan):\n%s", tc.name, pt, diff)
			}
		}
		if with.Evaluate(1, tc.tokens).Footprint.Failed == budget.OverBudget {
			t.Errorf("%s: one sequence of the pool's %d tokens is over the budget", tc.name, tc.tokens)
		}
		if f := with.Evaluate(1, tc.tokens+page).Footprint; f.Failed != budget.OverBudget {
			t.Errorf("%s: one sequence of %d tokens, a page beyond the pool's, fits the budget (%v)", tc.name, tc.tokens+page, f.Failed)
		}
	}

	// Refused.
	kv4 := eagle3("", "bf16")
	kv4.Spec.DraftModelPath = kv4Dir
	v0517 := mustProfile("v0.5.17")
	for _, tc := range []struct {
		name string
		a    string
		s    Serve
		p    Profile
		flag string
		want string
	}{
		// auto beside an fp8_e4m3 target: the draft's bfloat16, 4096 B
		// against 2048: 2048 B a token beyond the fraction.
		{"auto beside fp8_e4m3", "llama", eagle3("fp8_e4m3", "auto"), v0518, "speculative-draft-kv-cache-dtype",
			"holds 4096 B a token a layer, the target's 2048;"},
		{"auto beside fp8_e4m3, the bytes", "llama", eagle3("fp8_e4m3", "auto"), v0518, "speculative-draft-kv-cache-dtype",
			"takes 2048 B a token more than the fraction counts"},
		// A draft of 4 KV heads differs from the target without the
		// flag: the scaled cell's own refusal, 4 x 128 x 2 x 2 = 2048
		// B against 4096.
		{"4 KV heads with bf16", "llama", kv4, v0518, "speculative-algorithm", "this draft's layer holds 2048 B a token, the target's 4096"},
		{"fp4", "llama", eagle3("", "fp4_e2m1"), v0518, "speculative-draft-kv-cache-dtype", "SGLang's choices are auto, fp8_e5m2, fp8_e4m3, bf16, bfloat16 (server_args.py:2197 at v0.5.18)"},
		{"at v0.5.17", "llama", eagle3("", "bf16"), v0517, "speculative-draft-kv-cache-dtype", "not a flag of SGLang v0.5.17"},
		{"without a draft", "llama", Serve{DisableCudaGraph: true, Spec: Spec{DraftKVCacheDtype: "bf16"}}, v0518, "speculative-draft-kv-cache-dtype", "given without --speculative-algorithm"},
		// NEXTN auto beside a checkpoint asking for an FP8 KV cache: the
		// draft's own quant_config's reading is not modelled.
		{"NEXTN auto, FP8 KV asked", "dsv3-fp8kv", nextn("auto"), v0518, "speculative-draft-kv-cache-dtype", "beside a checkpoint that asks for fp8_e4m3"},
	} {
		a := llama
		switch tc.a {
		case "dsv3":
			a = dsv3
		case "dsv3-fp8kv":
			c := *dsv3
			c.Quant.KVCacheDtype = "fp8_e4m3"
			a = &c
		}
		_, err := NewReference(a, tc.s, h100, tc.p)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != tc.flag || !strings.Contains(se.Reason, tc.want) {
			t.Errorf("%s: %v; want --%s refused with %q", tc.name, err, tc.flag, tc.want)
		}
	}
}

// TestSpec0518DraftKVDtypeProperty: whatever --kv-cache-dtype and
// --speculative-draft-kv-cache-dtype an EAGLE-3 Llama-3.1-8B or NEXTN
// DeepSeek-V3 serve takes at v0.5.18, a serve membudget sizes has the pool
// of the same serve without the draft flag (SGLang sizes it by the
// target's cell alone, pool_configurator.py:174-213) and a draft pool no
// larger than that serve's: the flag never buys tokens, and a draft it
// would grow past the fraction is refused; and its compiled plan says what
// its reference says, up to a sequence past the pool.
func TestSpec0518DraftKVDtypeProperty(t *testing.T) {
	archs := shipped(t)
	llama, dsv3 := archs["meta-llama__Llama-3.1-8B-Instruct"], archs["deepseek-ai__DeepSeek-V3"]
	h100 := class(t, "h100-sxm-80g")
	dir := draftDir(t, eagle3Llama8B)
	v0518 := mustProfile("v0.5.18")
	rapid.Check(t, func(t *rapid.T) {
		kv := rapid.SampledFrom([]string{"", "auto", "fp8_e4m3", "fp8_e5m2", "bf16"}).Draw(t, "kv")
		flag := rapid.SampledFrom(specDraftKVDtypes).Draw(t, "draft kv")
		a, s := llama, Serve{Dtype: "bfloat16", KVCacheDtype: kv, DisableCudaGraph: true,
			Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir, NumSteps: 3, EagleTopK: 1, NumDraftTokens: 4}}
		if rapid.Bool().Draw(t, "nextn") {
			a, s = dsv3, Serve{KVCacheDtype: kv, TPSize: 16, Nodes: Nodes{NNodes: 2}, DisableCudaGraph: true, Spec: Spec{Algorithm: "NEXTN"}}
		}
		flagged := s
		flagged.Spec.DraftKVCacheDtype = flag
		with, err := NewReference(a, flagged, h100, v0518)
		if err != nil {
			var se *engine.SettingError
			if !errors.As(err, &se) {
				t.Fatalf("%v: not a setting error", err)
			}
			return
		}
		without, err := NewReference(a, s, h100, v0518)
		if err != nil {
			t.Fatalf("sized with --speculative-draft-kv-cache-dtype %s, refused without it: %v", flag, err)
		}
		w, wo := with.Capacity(), without.Capacity()
		if w.MaxTotalNumTokens != wo.MaxTotalNumTokens || w.CellBytes != wo.CellBytes {
			t.Fatalf("%d tokens of %d B, without the flag %d of %d", w.MaxTotalNumTokens, w.CellBytes, wo.MaxTotalNumTokens, wo.CellBytes)
		}
		if w.DraftKBytes+w.DraftVBytes > wo.DraftKBytes+wo.DraftVBytes {
			t.Fatalf("the draft's pool %d B, without the flag %d", w.DraftKBytes+w.DraftVBytes, wo.DraftKBytes+wo.DraftVBytes)
		}
		n := rapid.Uint64Range(0, 64).Draw(t, "seqs")
		tok := rapid.Uint64Range(0, uint64(max(w.MaxTotalNumTokens, 0))+64).Draw(t, "tokens")
		if diff := cmp.Diff(with.Evaluate(n, tok).Footprint, with.Plan().Evaluate(n, tok)); diff != "" {
			t.Fatalf("Plan != Reference at (%d, %d) (-reference +plan):\n%s", n, tok, diff)
		}
	})
}
