package vllm

import (
	"fmt"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// This file sizes an EAGLE-3 or EAGLE draft on the V2 model runner, whose speculator
// (vllm/v1/worker/gpu/spec_decode/) replaces the V1 proposer there: the
// draft's weights and KV cache layers are the V1 runner's (specdraft.go:
// the speculator's load_model builds the same Eagle3LlamaForCausalLM or
// EagleLlamaForCausalLM and
// shares the target's embedding and LM head by the same rule,
// spec_decode/eagle/utils.py:12-26, 36-100, inside the target's measured
// load, model_runner.py:345-378; get_kv_cache_spec walks the same
// attention layers, :483-486), while its buffers, its place in the
// profile run and its graphs are its own. Every rule is vLLM main's at
// commit d18bb7b (2026-08-14), and the releases from 0.22.0, the first to
// run a model on the V2 runner by default, to 0.28 carry the same eager
// rules (see [specV2Read]); their graphs differ (specv2graphs.go).
//
// The buffers: GPUModelRunner.__init__ makes the speculator on the last
// stage (init_speculator, model_runner.py:233-238) after the worker's
// startup snapshot, as it makes the request state (v2state.go): from
// 0.26.1 ([Profile.ConsumedSinceSnapshot]) they come off the KV cache,
// logged inside "consumed memory", so they are charged to the non-torch
// term as "V2 speculator buffers".
//
// The profile run (profile_run, model_runner.py:781-820) runs the target
// over T = max_num_batched_tokens tokens, then, before the dummy sampler,
// the speculator's propose with dummy_run and is_profile (:712-755), eager
// (need_eager=is_profile, autoregressive/speculator.py:282-290), while
// _dummy_run still holds the target's hidden states and EAGLE-3's three
// auxiliary hidden states (:702-707; EAGLE-1 reads none, :240-242). The auxiliary states are new
// tensors (hidden_states + residual, interfaces.py:1499-1509) taken after
// layers 2, L/2 and L-3 (:1578-1600), so all three are alive through the
// target's last layers (llama.py:420-430). What is alive at each point
// ([specV2ProfileBytes]) is placed against the target's forward pass and
// the sampler, which runs after _dummy_run returns and the auxiliary
// states are freed; the V2 dummy sampler runs no rejection sampler
// (_dummy_sampler_run, model_runner.py:762-774).

// specV2Read says p's V2 speculator, eager, is the one membudget read:
// vLLM main at d18bb7b and every release from 0.22.0, the first whose V2
// model runner is a default (PR #39337, merged 2026-05-14, which keeps
// eagle, eagle3 and mtp on it: vllm/config/vllm.py
// _get_v2_model_runner_unsupported_features, since PR #38758), to 0.28.
// Read at the main commits each release's branch was cut near (0.22
// between 2026-05-22, its notes' #35045, and 2026-06-02, 0.23's #43458;
// 0.23 on 2026-06-07, the Sunday before PR #42667's review of 06-11 said
// so; 0.24 out 2026-07-01; 0.25.0 tagged 2026-07-11; 0.26.1 after #49208
// of 07-20; 0.27.0rc1 out 2026-08-07), the speculator's terms sized here
// are main's at each:
//   - its buffers are made in GPUModelRunner.__init__ by init_speculator
//     (model_runner.py:175 at ae4f59f0e, #39337's merge; :238 at
//     d18bb7b), the same tensors in EagleSpeculator.__init__ (spec_decode/
//     eagle/speculator.py, up to PR #43241 of 2026-06-03) and after it in
//     DraftModelSpeculator and AutoRegressiveSpeculator, but for
//     InputBuffers.is_padding (T bool), added by PR #46428 on 2026-06-23.
//     They are charged from 0.26.1 alone ([Profile.ConsumedSinceSnapshot]),
//     whose branch has it;
//   - _dummy_run proposes once, eager (need_eager=is_profile), while it
//     holds the target's hidden states and the auxiliary ones, before the
//     dummy sampler, and propose combines, runs and samples the draft the
//     same way (compute_logits then argmax where draft_sample_method is
//     greedy) at ae4f59f0e, 0.23's cut 4dcd10eb0 and d18bb7b; the
//     opt-in local argmax (PR #46448, 2026-06-26) is a key membudget
//     refuses;
//   - the auxiliary states (interfaces.py EagleModelMixin) and
//     Eagle3LlamaForCausalLM's and EagleLlamaForCausalLM's tensors and
//     compute_logits change from 2026-05-25 to d18bb7b only in how their
//     weights load.
//
// 0.29 reserves the V2 runner's CUDA-graph memory (PR #53306) and was
// sized from its release notes, not its source.
func specV2Read(p Profile) bool {
	return p.Era == V1 && p.Release.AtLeast(v0_22_0) && p.Release.Less(v0_29_0)
}

// specV2Refusal is the refusal of a draft of method on the V2 model runner
// of profile p that membudget does not size, nil where it is sized: an
// EAGLE or EAGLE-3 draft under a release whose speculator was read (its
// graphs are refused apart, where they were not: [specV2GraphsRefusal]).
func specV2Refusal(method string, p Profile, a *model.Arch) error {
	if specV2Read(p) {
		return nil
	}
	unread := "V2 speculator"
	if p.Release.AtLeast(v0_29_0) {
		unread = "speculator and CUDA-graph reservation for it (PR #53306)"
	}
	return settingErr("speculative-config", method, "an %s draft on the V2 model runner, which runs %s there: not modelled for %s, whose %s membudget has not read (it sizes the V2 speculator of vLLM 0.22.0 to 0.28 and main d18bb7b, eager, and its CUDA graphs for 0.27, 0.28 and main); membudget refuses it rather than size a serve vLLM would contradict", draftName(method), a.Source, p.Describes, unread)
}

// onV2Speculator says the serve's draft runs on the V2 runner's
// speculator.
func onV2Speculator(r *Resolved) bool {
	return r.Spec.Draft != nil && r.Spec.Draft.V2
}

// specV2Buffers yields the bytes of each persistent device tensor of the
// V2 speculator on a GPU of stage st (the last: the speculator is made
// there alone), with N = max_num_seqs, T = max_num_batched_tokens, k the
// speculative tokens and H the draft's hidden size in the model dtype:
//   - DraftModelSpeculator (speculator.py:110-141): its InputBuffers
//     (input_batch.py:18-38: input_ids T int32, positions T int64,
//     is_padding T bool, query_start_loc N+1 int32, seq_lens and
//     dcp_local_seq_lens N int32 each); idx_mapping N int32; temperature
//     N float32; seeds N int64; draft_tokens N x k int64. Its arange is on
//     the host, and draft_logits is made only under draft_sample_method
//     "probabilistic", a key membudget refuses (greedy is the default,
//     vllm/config/speculative.py:290);
//   - AutoRegressiveSpeculator (autoregressive/speculator.py:33-39):
//     hidden_states T x H; current_draft_step, one int64;
//     last_token_indices N int64. Its inputs_embeds is made only for a
//     multimodal target (:47-57), which membudget sizes an EAGLE-3 draft
//     on with the V1 runner alone (specdraft.go eagle3V1Only).
func specV2Buffers(r *Resolved, st model.Sharding, yield func(uint64)) {
	if !st.Last || !onV2Speculator(r) {
		return
	}
	n, t, k := r.MaxNumSeqs, r.MaxNumBatchedTokens, r.Spec.Tokens
	mul := budget.SatMul
	yield(mul(t, 4))                                      // input_ids
	yield(mul(t, 8))                                      // positions
	yield(t)                                              // is_padding
	yield(mul(budget.SatAdd(n, 1), 4))                    // query_start_loc
	yield(mul(n, 4))                                      // seq_lens
	yield(mul(n, 4))                                      // dcp_local_seq_lens
	yield(mul(n, 4))                                      // idx_mapping
	yield(mul(n, 4))                                      // temperature
	yield(mul(n, 8))                                      // seeds
	yield(mul(mul(n, k), 8))                              // draft_tokens
	yield(mul(mul(t, r.Spec.Draft.Hidden), r.DtypeBytes)) // hidden_states
	yield(8)                                              // current_draft_step
	yield(mul(n, 8))                                      // last_token_indices
}

// specV2BufferBytes is the V2 speculator's buffers on a GPU of stage st.
func specV2BufferBytes(r *Resolved, st model.Sharding) uint64 {
	var n uint64
	specV2Buffers(r, st, func(b uint64) { n = budget.SatAdd(n, b) })
	return n
}

// eagle3AuxStates is the auxiliary hidden states EAGLE-3 reads: the
// default layers (2, L/2, L-3), interfaces.py:1578-1600, or three others
// a draft config's eagle_aux_hidden_state_layer_ids names from 1 to L-1,
// alive through the target's last layers all the same (any other list is
// refused, specdraft.go readAuxLayers).
const eagle3AuxStates = 3

// specV2ProfileBytes is the profile run's torch peak while the drafter
// takes part in it, on a GPU of the last stage, without the residual
// (cuBLAS workspaces and the like, the same at every point): the largest
// of what is alive at four points, with T tokens, R = min(max_num_seqs,
// T) dummy requests, H the hidden size (the draft's equals the target's)
// and h = T x H x dtype. For EAGLE-3:
//  1. the target's forward pass (perToken bytes a token) in its last
//     layers, with the three auxiliary states alive: T x perToken + 3h;
//  2. combine_hidden_states: the target's output h, the auxiliary states
//     3h, their torch.cat 3h and fc's output h
//     (autoregressive/speculator.py:243-250, llama_eagle3.py:359-379): 8h;
//  3. the draft's forward pass over the T tokens, eager, beside the target's
//     output, the auxiliary states and fc's output, which propose keeps
//     referenced to its end: 5h + T x the drafter's bytes a token
//     ([draftForwardBytesPerToken]);
//  4. the draft's logits for the R requests' last tokens: beside those
//     5h, the draft's output h, the sampled rows R x H, the draft
//     vocabulary's logits gathered on every rank (R x the draft
//     vocabulary padded to 64), the arange and target index of the draft
//     vocabulary (int64 each) and logits_new, R x the target vocabulary
//     (Eagle3LlamaForCausalLM.compute_logits, llama_eagle3.py:335-357,
//     which always maps through draft_id_to_target_id).
//
// For EAGLE-1 (EagleLlamaForCausalLM, llama_eagle.py:107-121), propose
// hands the draft the target's output itself:
//  1. the target's forward pass alone: T x perToken;
//  2. the draft's fc: the target's output h, the draft's input_embeds h,
//     their torch.cat 2h and fc's output h: 5h;
//  3. the draft's layers beside the target's output and input_embeds: 2h
//     + T x the drafter's bytes a token;
//  4. its logits through the target's LM head (LlamaForCausalLM.
//     compute_logits, llama.py:529-534): beside the target's output and
//     the draft's, R x H sampled rows and R x the target's vocabulary
//     padded to 64.
//
// The draft's decode steps run R tokens each after its prefill's output is
// freed, below point 4; the sampler runs once the auxiliary states are
// freed, as without the draft ([peakItemsAt]).
func specV2ProfileBytes(a *model.Arch, r *Resolved, perToken uint64) uint64 {
	d := r.Spec.Draft
	t := r.MaxNumBatchedTokens
	el := r.DtypeBytes
	mul, add := budget.SatMul, budget.SatAdd
	h := mul(mul(t, a.Hidden), el)
	reqs := min(r.MaxNumSeqs, t)
	layers := mul(t, draftForwardBytesPerToken(d, r.TensorParallelSize, el))
	if d.Method == "eagle" {
		forward := mul(t, perToken)
		fc := mul(5, h)
		draft := add(mul(2, h), layers)
		logits := add(mul(2, h), specV2LogitsBytes(a, d, reqs, el))
		return max(forward, fc, draft, logits)
	}
	forward := add(mul(t, perToken), mul(eagle3AuxStates, h))
	combine := mul(2+2*eagle3AuxStates, h)
	held := mul(2+eagle3AuxStates, h)
	draft := add(held, layers)
	logits := add(add(held, h), specV2LogitsBytes(a, d, reqs, el))
	return max(forward, combine, draft, logits)
}

// appendSpecV2Items appends the V2 speculator's terms to a stage's items:
// its buffers in the non-torch term ("v2_draft_buffers"), and what the
// drafter's part of the profile run adds to the torch peak above the
// target's forward pass and the sampler ("draft_profile_run"), so that the
// activation and sampler items sum to the peak. perToken is the target's
// forward pass a token.
func appendSpecV2Items(items []budget.Item, a *model.Arch, r *Resolved, st model.Sharding, perToken uint64) []budget.Item {
	if !st.Last || !onV2Speculator(r) {
		return items
	}
	if n := specV2BufferBytes(r, st); n > 0 && r.Profile.ConsumedSinceSnapshot {
		items = append(items, budget.Item{Name: "v2_draft_buffers", Term: budget.TermNonTorch, Bytes: n})
	}
	return appendDraftProfileItem(items, r, specV2ProfileBytes(a, r, perToken))
}

// specDraftItem is the bytes of the named item of the last stage, 0 where
// it is not or the serve has no draft (the V2 speculator's items, and the
// drafter's part of the profile run on either runner, specpeak.go).
func (sz *Sizing) specDraftItem(name string) uint64 {
	r := sz.Serve
	if r.Spec.Draft == nil || len(r.Stages) == 0 {
		return 0
	}
	a := sz.Model.Arch
	for _, it := range peakItems(a, r, stageOf(r, len(r.Stages)-1)) {
		if it.Name == name {
			return it.Bytes
		}
	}
	return 0
}

// V2 speculator labels in a footprint's lines.
const (
	specV2BuffersLabel = "V2 speculator buffers"
	specV2ProfileLabel = "draft profile run"
)

// splitSpecV2 names the V2 speculator's terms in a footprint's lines: its
// buffers out of the non-torch line, and the drafter's part of the profile
// run (on either runner, specpeak.go) out of the activation peak's (each
// pair sums to its term).
func (sz *Sizing) splitSpecV2(lines []engine.FootprintLine, fp budget.Footprint) []engine.FootprintLine {
	r := sz.Serve
	if r.Spec.Draft == nil || fp.Stage != len(r.Stages)-1 {
		return lines
	}
	if onV2Speculator(r) {
		lines = splitOut(lines, budget.TermNonTorch, specV2BuffersLabel, sz.specDraftItem("v2_draft_buffers"))
	}
	return splitOut(lines, budget.TermActivation, specV2ProfileLabel, sz.specDraftItem("draft_profile_run"))
}

// specRunnerName is the model runner a speculative serve runs on, as the
// report names it.
func specRunnerName(r *Resolved) string {
	if onV2Speculator(r) {
		return "the V2 model runner's speculator"
	}
	return "the V1 model runner"
}

// specV2Settings is the report's line of the V2 speculator's terms, none
// without it.
func (sz *Sizing) specV2Settings() []string {
	if !onV2Speculator(sz.Serve) {
		return nil
	}
	buffers := fmt.Sprintf("%s of buffers (the max_num_batched_tokens x hidden hidden states and the per-request inputs, off the KV cache as consumed memory)", engine.GiB(sz.specDraftItem("v2_draft_buffers")))
	if !sz.Serve.Profile.ConsumedSinceSnapshot {
		// Made after the startup snapshot, as the V2 request state is
		// (v2state.go): uncounted before PR #49208.
		buffers = "its buffers (the max_num_batched_tokens x hidden hidden states and the per-request inputs) are made after the startup snapshot and not charged before 0.26.1 (PR #49208): they stand beside the budget"
	}
	return []string{fmt.Sprintf("V2 speculator: %s; its dummy propose in the profile run, beside %s, adds %s to the torch peak",
		buffers, draftReads(sz.Serve.Spec.Draft), engine.GiB(sz.specDraftItem("draft_profile_run")))}
}
