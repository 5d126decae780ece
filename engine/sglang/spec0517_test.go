package sglang

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
)

// TestSpec0517AgainstV0516 sizes the EAGLE-3 Llama-3.1-8B serve on one
// H100 at top-k 1 with --disable-cuda-graph at v0.5.16 and v0.5.17, with
// and without --context-length 2048. v0.5.17 keeps v0.5.16's draft rules
// for the serve (specReleases); of its target rules (Profile fields) the
// one this serve could meet is #30206, the prefill sizes no longer capped
// by a given context length in the reserve (PiecewiseCapByContext), and
// --disable-cuda-graph turns the prefill graphs off before the reserve
// counts them: 512 + 1.5 x 8192 + 1024 / 8 = 12928 MiB at both, round(
// (81080 - 12928) / 81080, 3) = 0.841, and the serve item for item
// v0.5.16's (TestSpecByHand0515 works the draft's terms by hand).
func TestSpec0517AgainstV0516(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	dir := draftDir(t, eagle3Llama8B)
	for _, ctx := range []uint64{0, 2048} {
		s := Serve{Dtype: "bfloat16", DisableCudaGraph: true, ContextLength: ctx,
			Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir, NumSteps: 3, EagleTopK: 1, NumDraftTokens: 4}}
		old, cur := ref(t, llama, s, h100, mustProfile("v0.5.16")), ref(t, llama, s, h100, mustProfile("v0.5.17"))
		if r := cur.Serve; r.MemFractionStatic != 0.841 || r.ReservedMiB != 12928 {
			t.Errorf("context %d: msf %v reserving %v MiB, want 0.841 reserving 12928", ctx, r.MemFractionStatic, r.ReservedMiB)
		}
		if diff := cmp.Diff(old.Capacity(), cur.Capacity()); diff != "" {
			t.Errorf("context %d: the pool differs from v0.5.16's (-v0.5.16 +v0.5.17):\n%s", ctx, diff)
		}
		if diff := cmp.Diff(old.EvaluateStage(0, 48, 4096).Items, cur.EvaluateStage(0, 48, 4096).Items); diff != "" {
			t.Errorf("context %d: the items differ from v0.5.16's (-v0.5.16 +v0.5.17):\n%s", ctx, diff)
		}
	}
}

// TestSpec0517NormBeforeFC: v0.5.17's EAGLE-3 draft builds input_norm, an
// RMSNorm of fc's 3 x 4096 inputs, when its config says norm_before_fc
// (models/llama_eagle3.py:161-174; eagle3NormBeforeFCFrom): 3 x 4096 x 2
// bytes (bfloat16) = 24576 B more in the load than the same draft without
// the key; v0.5.16 ignores the key (its llama_eagle3.py has no such norm),
// the load the draft's without it. A key that is no boolean is refused.
func TestSpec0517NormBeforeFC(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	plainDir := draftDir(t, eagle3Llama8B)
	normDir := draftDir(t, strings.Replace(eagle3Llama8B, `"draft_vocab_size": 32000`, `"draft_vocab_size": 32000, "norm_before_fc": true`, 1))
	serve := func(dir string) Serve {
		return Serve{Dtype: "bfloat16", DisableCudaGraph: true, MemFractionStatic: 0.841,
			Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir, NumSteps: 3, EagleTopK: 1, NumDraftTokens: 4}}
	}
	for _, tc := range []struct {
		release string
		norm    uint64
	}{{"v0.5.16", 0}, {"v0.5.17", 3 * 4096 * 2}} {
		p := mustProfile(tc.release)
		with, without := ref(t, llama, serve(normDir), h100, p), ref(t, llama, serve(plainDir), h100, p)
		if g := itemBytes(with.Serve.Draft.Weights, "spec_draft.input_norm"); g != tc.norm {
			t.Errorf("%s: spec_draft.input_norm %d B, want %d", tc.release, g, tc.norm)
		}
		checkDraftLoad(t, with, without, tc.norm, false)
	}
	bad := draftDir(t, strings.Replace(eagle3Llama8B, `"draft_vocab_size": 32000`, `"draft_vocab_size": 32000, "norm_before_fc": 1`, 1))
	_, err := NewReference(llama, serve(bad), h100, mustProfile("v0.5.17"))
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "speculative-draft-model-path" || !strings.Contains(se.Reason, `key "norm_before_fc" is 1; want a boolean`) {
		t.Errorf("norm_before_fc 1: %v; want --speculative-draft-model-path refused naming the key", err)
	}
}
