package sglang

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
// flag; one that differs is refused naming the flag. By hand, on an H100:
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
		// fp8_e4m3 beside bfloat16: 2048 B against 4096, one layer:
		// 2048 B a token the fraction counts and the pool leaves free.
		{"fp8_e4m3 beside bfloat16", "llama", eagle3("", "fp8_e4m3"), v0518, "speculative-draft-kv-cache-dtype",
			"holds 2048 B a token a layer, the target's 4096; SGLang v0.5.18 (tag 71de97b, 2026-08-21) still sizes the target's pool with the target's cell scaled by (1 + draft layers / target layers), assuming the draft's layer shares the target's head_dim, num_kv_heads and dtype (model_executor/pool_configurator.py:174-213 at v0.5.18), so the draft's pool of 1 layer(s) leaves 2048 B a token free"},
		// auto beside an fp8_e4m3 target: the draft's bfloat16, 4096 B
		// against 2048: 2048 B a token beyond the fraction.
		{"auto beside fp8_e4m3", "llama", eagle3("fp8_e4m3", "auto"), v0518, "speculative-draft-kv-cache-dtype",
			"holds 4096 B a token a layer, the target's 2048;"},
		{"auto beside fp8_e4m3, the bytes", "llama", eagle3("fp8_e4m3", "auto"), v0518, "speculative-draft-kv-cache-dtype",
			"takes 2048 B a token more than the fraction counts"},
		// NEXTN fp8_e4m3 beside bfloat16: 576 B against 1152.
		{"NEXTN fp8_e4m3", "dsv3", nextn("fp8_e4m3"), v0518, "speculative-draft-kv-cache-dtype",
			"holds 576 B a token a layer, the target's 1152; SGLang v0.5.18 (tag 71de97b, 2026-08-21) still sizes the target's pool with the target's cell scaled by (1 + draft layers / target layers), assuming the draft's layer shares the target's head_dim, num_kv_heads and dtype (model_executor/pool_configurator.py:174-213 at v0.5.18), so the draft's pool of 1 layer(s) leaves 576 B a token free"},
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
