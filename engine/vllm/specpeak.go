package vllm

import (
	"fmt"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// This file places an EAGLE or EAGLE-3 drafter's part of the profile run
// on the V1 model runner (the V2 speculator's is specv2.go). Every rule is
// vLLM main's at commit d18bb7b (2026-08-14), and the same at the commits
// of 2025-12-20 (8a7a414), 2026-02-15 (d5fe3f7), 2026-04-15 (b569620) and
// 2026-06-15 (c621af1), which bracket the releases membudget sizes EAGLE
// on V1 (0.14 to 0.27): profile_run, _dummy_run and the proposer's
// dummy_run read alike at each.
//
// profile_run (vllm/v1/worker/gpu_model_runner.py:6542-6619) calls
// _dummy_run over T = max_num_batched_tokens tokens with is_profile, which
// forces the target eager (:6037) and so hands the drafter a runtime mode
// of NONE: its dummy_run runs eager too (:6263-6306). For EAGLE-3 the
// target returns (hidden_states, aux_hidden_states) and _dummy_run binds
// the tuple to outputs and takes the first (:6250-6261), so the target's
// output h and the three auxiliary states, 3h (new tensors, hidden_states
// + residual, interfaces.py:1499-1509, taken after layers 2, L/2 and L-3,
// llama.py:420-430), stay referenced until _dummy_run returns: through
// the target's last layers and through the drafter's dummy_run. That
// dummy_run (vllm/v1/spec_decode/llm_base_proposer.py:1634-1686) runs the
// draft's model k times, one after another, over the T tokens, reading the
// proposer's persistent input_ids, positions and hidden_states buffers
// (already the "draft_buffers" item); it computes no logits and calls no
// combine_hidden_states, so the draft's fc, its LM head and the d2t map
// take no part, and each pass's output is dropped before the next. The
// sampler runs after _dummy_run returns, the auxiliary states freed: its
// point is the one without a draft ([peakItemsAt]).

// specV1ProfileBytes is the profile run's torch peak while an EAGLE or
// EAGLE-3 drafter takes part in it on the V1 runner, on a GPU of the last
// stage, without the residual: the larger of what is alive at two points,
// with h = T x H x dtype (H the target's hidden size, which the draft's
// equals) and the fused-MoE workspace W where the workspace manager keeps
// it past the forward pass (0 on a dense stage). For EAGLE-3:
//  1. the target's forward pass (perToken bytes a token) in its last
//     layers, the three auxiliary states alive: T x perToken + 3h;
//  2. the draft's forward pass over the T tokens beside the target's
//     output and the auxiliary states: 4h + W + T x the drafter's bytes a
//     token ([draftForwardBytesPerToken], the rule its CUDA graphs and the
//     V2 speculator use).
//
// For EAGLE-1 (EagleLlamaForCausalLM.forward, llama_eagle.py:108-123) the
// target returns its output alone and the draft's fc folds its embeddings
// into the proposer's hidden_states buffer:
//  1. the target's forward pass alone: T x perToken;
//  2. the draft's fc: the target's output h, the embeddings h, their
//     torch.cat 2h and fc's output h: 5h + W;
//  3. the draft's layers beside the target's output and the embeddings:
//     2h + W + T x the drafter's bytes a token.
func specV1ProfileBytes(a *model.Arch, r *Resolved, st model.Sharding, perToken uint64) uint64 {
	d := r.Spec.Draft
	t := r.MaxNumBatchedTokens
	el := r.DtypeBytes
	mul, add := budget.SatMul, budget.SatAdd
	h := mul(mul(t, a.Hidden), el)
	var w uint64
	if r.Profile.peaks.moeWorkspace && stageHasMoE(a, st) {
		w = moeWorkspaceBytes(a, st, r.TensorParallelSize, t, el)
	}
	layers := mul(t, draftForwardBytesPerToken(d, r.TensorParallelSize, el))
	forward := mul(t, perToken)
	if d.Method == "eagle" {
		fc := add(mul(5, h), w)
		draft := add(add(mul(2, h), w), layers)
		return max(forward, fc, draft)
	}
	forward = add(forward, mul(eagle3AuxStates, h))
	draft := add(add(mul(1+eagle3AuxStates, h), w), layers)
	return max(forward, draft)
}

// onV1EagleDrafter says the serve's EAGLE or EAGLE-3 draft runs on the V1
// runner's proposer.
func onV1EagleDrafter(r *Resolved) bool {
	d := r.Spec.Draft
	return d != nil && !d.V2 && (d.Method == "eagle3" || d.Method == "eagle")
}

// appendSpecV1Items appends what an EAGLE or EAGLE-3 drafter's part of the
// V1 profile run adds to the torch peak of the last stage above the
// target's forward pass and the sampler ("draft_profile_run"), none where
// it stays under them. perToken is the target's forward pass a token.
func appendSpecV1Items(items []budget.Item, a *model.Arch, r *Resolved, st model.Sharding, perToken uint64) []budget.Item {
	if !st.Last || !onV1EagleDrafter(r) {
		return items
	}
	return appendDraftProfileItem(items, r, specV1ProfileBytes(a, r, st, perToken))
}

// appendDraftProfileItem appends "draft_profile_run": the profile run's
// torch peak with the drafter (peak, without the residual) above the
// activation and sampler items, which sum to the peak without it, so that
// the three sum to the larger.
func appendDraftProfileItem(items []budget.Item, r *Resolved, peak uint64) []budget.Item {
	var without uint64
	for _, it := range items {
		if it.Name == "activation_peak" || it.Name == "sampler_logits" {
			without = budget.SatAdd(without, it.Bytes)
		}
	}
	with := budget.SatAdd(peak, r.Profile.peaks.residualBytes)
	return append(items, budget.Item{Name: "draft_profile_run", Term: budget.TermActivation, Bytes: budget.SatSub(with, without)})
}

// specV1Settings is the report's line of the drafter's part of the V1
// profile run, none without an EAGLE drafter there.
func (sz *Sizing) specV1Settings() []string {
	r := sz.Serve
	if !onV1EagleDrafter(r) {
		return nil
	}
	return []string{fmt.Sprintf("profile run: the drafter's eager dummy run over max_num_batched_tokens tokens, beside %s, adds %s to the torch peak",
		draftReads(r.Spec.Draft), engine.GiB(sz.specDraftItem("draft_profile_run")))}
}

// draftReads names what the drafter's part of the profile run reads
// beside it, on either runner: EAGLE-1 the target's output alone, EAGLE-3
// its auxiliary states too.
func draftReads(d *Draft) string {
	if d.Method == "eagle" {
		return "the target's hidden states"
	}
	return fmt.Sprintf("the target's hidden states and %d auxiliary ones", eagle3AuxStates)
}
