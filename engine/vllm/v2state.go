package vllm

import (
	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// The V2 model runner's persistent request state: the device tensors it
// sizes by max_num_seqs, the batched tokens and the vocabulary, made after
// the worker's startup memory snapshot (gpu_worker.py:396, init_device)
// and before the profile run. Up to 0.26.0 vLLM charged the weights, the
// torch peak increase of the profile run and the non-torch growth, so these
// tensors stood beside the budget, taking nothing off the KV cache; from
// vLLM PR #49208 ([Profile.ConsumedSinceSnapshot]) the worker charges the
// free memory consumed since the snapshot, and they come off it. They are
// logged inside "consumed memory (weights + non-torch)", so membudget
// charges them to the non-torch term, named "V2 request state" in the
// ledger. Read at vLLM main d18bb7b (2026-08-14); every file below has the
// same allocations at 58b2012 (PR #49208's merge, 2026-07-20), so 0.26.1 to
// 0.28 have them. The tensors the runner makes in initialize_kv_cache (the
// block tables, the CUDA-graph manager's pools) come after the KV cache is
// sized and are not charged; its host tensors (UvaBackedTensor, and the
// StagedWriteTensor rows made with uva_instead_of_gpu, buffer_utils.py) hold
// no device memory.

// The V2 sampler's per-request limits, each a row width of a state tensor:
//   - vLLM's MAX_NUM_ALLOWED_TOKEN_IDS and MAX_NUM_LOGIT_BIAS_TOKENS, 1024,
//     and MAX_NUM_STOP_TOKEN_IDS, 128 (vllm/v1/worker/gpu/sample/
//     logit_bias.py:10-12);
//   - VLLM_MAX_BAD_WORDS_TOTAL_TOKENS, 1024, and VLLM_MAX_NUM_BAD_WORDS, 128,
//     their defaults (vllm/envs.py:113-114, :1134-1141);
//   - MAX_LOGPROB_TOKEN_IDS, 128 (vllm/sampling_params.py:30).
const (
	v2AllowedTokenIDs  = 1024
	v2LogitBiasTokens  = 1024
	v2StopTokenIDs     = 128
	v2BadWordsTokens   = 1024
	v2BadWords         = 128
	v2LogprobTokenIDs  = 128
	v2PackedMaskPerBit = 32 // a packed mask's int32 holds 32 tokens (cdiv(vocab_size, 32))
)

// v2RequestState calls add(bytes, count) for each device tensor of the V2
// runner's request state on a GPU of stage st, whether the profile's vLLM
// charges it or not ([v2StateBytes] charges it where
// [Profile.ConsumedSinceSnapshot], [besideAfterSnapshot] stands it beside
// the budget before); nothing where the profile's vLLM does not run a on
// its V2 runner. N is max_num_seqs, T the batched
// tokens, V the vocabulary (model_config.get_vocab_size(): config.json's,
// unpadded), k the speculative tokens and q = 1 + k the logits a request
// a decode step.
//
// Every stage (GPUModelRunner.__init__, vllm/v1/worker/gpu/model_runner.py:
// 271-293):
//   - RequestState (states.py:37-86): total_len and num_computed_tokens, N
//     int32 each; last_sampled_tokens, N int64; draft_tokens, N x k int64;
//     next_prefill_tokens, N int32 (one step of lookahead; multi-module
//     MTP's k is not modelled: [Resolved.resolveSpec] sizes no such drafter);
//   - InputBuffers (input_batch.py InputBuffers): input_ids, T int32;
//     positions, T int64; is_padding, T bool; query_start_loc, N + 1 int32;
//     seq_lens and dcp_local_seq_lens, N int32 each.
//
// A stage after the first (load_model, model_runner.py:433-438): the
// intermediate tensors it receives, made once at T tokens
// (make_empty_intermediate_tensors, vllm/model_executor/models/utils.py:
// 854-867): hidden_states and residual, T x hidden each in the model dtype,
// for the families whose source lists both (see [pipelineResidual]); not
// charged for the others, whose lists were not read.
//
// The last stage of a generative serve (load_model, model_runner.py:
// 391-431, after the weights are measured):
//   - the Sampler's PenaltiesState (sample/penalties.py:32-41):
//     prompt_bin_mask, N x cdiv(V, 32) int32, and output_bin_counts, N x V
//     int32: the bulk of it;
//   - LogitBiasState (logit_bias.py:16-47): allowed_token_ids, N x 1024
//     int32; logit_bias_token_ids, N x 1024 int32; logit_bias, N x 1024
//     float32; stop_token_ids, N x 128 int32;
//   - BadWordsState (bad_words.py:19-32): N x 1024 and N x 129 int32;
//   - LogprobTokenIdsState (logprob.py:240-247): N x 128 int32;
//   - StructuredOutputsWorker (structured_outputs.py:21-26): logits_indices,
//     N x q int32, and grammar_bitmask, N x q x cdiv(V, 32) int32.
//
// Not charged: ThinkingBudgetState's three N int32 tensors, made only with
// a reasoning parser's token ids (thinking_budget.py:48-67, PR #46727,
// 2026-08-07, in main alone); the rejection sampler's buffers under
// speculative decoding; a multimodal model's inputs_embeds, T x hidden on
// the first stage (mm/encoder_runner.py:52-54).
func v2RequestState(a *model.Arch, r *Resolved, st model.Sharding, add func(bytes, count uint64)) {
	if !r.onV2Runner(a) {
		return
	}
	n, t := r.MaxNumSeqs, r.MaxNumBatchedTokens
	k := r.Spec.Tokens
	add(budget.SatMul(n, 4), 2)                   // total_len, num_computed_tokens
	add(budget.SatMul(n, 8), 1)                   // last_sampled_tokens
	add(budget.SatMul(budget.SatMul(n, k), 8), 1) // draft_tokens
	add(budget.SatMul(n, 4), 1)                   // next_prefill_tokens
	add(budget.SatMul(t, 4), 1)                   // input_ids
	add(budget.SatMul(t, 8), 1)                   // positions
	add(t, 1)                                     // is_padding
	add(budget.SatMul(n+1, 4), 1)                 // query_start_loc
	add(budget.SatMul(n, 4), 2)                   // seq_lens, dcp_local_seq_lens
	if !st.First && pipelineResidual(a) {
		add(budget.SatMul(budget.SatMul(t, a.Hidden), r.DtypeBytes), 2) // hidden_states, residual
	}
	if !st.Last || r.Runner == runnerPooling {
		return
	}
	v := a.Vocab
	packed := budget.CeilDiv(v, v2PackedMaskPerBit)
	q := specQueryLen(r)
	add(budget.SatMul(budget.SatMul(n, packed), 4), 1) // prompt_bin_mask
	add(budget.SatMul(budget.SatMul(n, v), 4), 1)      // output_bin_counts
	add(budget.SatMul(n, v2AllowedTokenIDs*4), 1)      // allowed_token_ids
	add(budget.SatMul(n, v2LogitBiasTokens*4), 2)      // logit_bias_token_ids, logit_bias
	add(budget.SatMul(n, v2StopTokenIDs*4), 1)         // stop_token_ids
	add(budget.SatMul(n, v2BadWordsTokens*4), 1)       // bad_word_token_ids
	add(budget.SatMul(n, (v2BadWords+1)*4), 1)         // bad_word_offsets
	add(budget.SatMul(n, v2LogprobTokenIDs*4), 1)      // logprob token_ids
	nq := budget.SatMul(n, q)
	add(budget.SatMul(nq, 4), 1)                        // logits_indices
	add(budget.SatMul(budget.SatMul(nq, packed), 4), 1) // grammar_bitmask
}

// pipelineResidual says a's model passes a pipeline stage its hidden
// states and residual, the two intermediate tensors its vLLM model lists
// (make_empty_intermediate_tensors_factory(["hidden_states", "residual"],
// config.hidden_size) at d18bb7b): llama.py:394-396 (Llama, and Mistral,
// which vLLM serves with it), qwen2.py:386-388 (Qwen2, and Qwen3, whose
// Qwen3Model is a Qwen2Model), qwen2_moe.py:384-385, qwen3_moe.py:471-472,
// gemma2.py:278-279 and gemma3.py:334-335. The other families are not
// charged: 16 of vLLM's models list hidden_states alone (gpt2.py, opt.py,
// falcon.py, ...) and the rest were not read.
func pipelineResidual(a *model.Arch) bool {
	switch a.ModelType {
	case "llama", "mistral", "qwen2", "qwen3", "qwen2_moe", "qwen3_moe", "gemma2", "gemma3", "gemma3_text":
		return true
	}
	return false
}

// v2StateBytes is the V2 runner's request state on a GPU of stage st (see
// [v2RequestState]) where the profile's vLLM charges it
// ([Profile.ConsumedSinceSnapshot]), 0 otherwise.
func v2StateBytes(a *model.Arch, r *Resolved, st model.Sharding) uint64 {
	if !r.Profile.ConsumedSinceSnapshot {
		return 0
	}
	return v2RequestStateBytes(a, r, st)
}

// v2RequestStateBytes is [v2RequestState]'s tensors summed, charged or not:
// the one sum [v2StateBytes] and [besideAfterSnapshot] each take.
func v2RequestStateBytes(a *model.Arch, r *Resolved, st model.Sharding) uint64 {
	var total uint64
	v2RequestState(a, r, st, func(bytes, count uint64) { total = budget.SatAdd(total, budget.SatMul(bytes, count)) })
	return total
}

// besideAfterSnapshot is what the V2 model runner makes on a GPU of stage
// st after vLLM's startup snapshot and does not charge before PR #49208
// ([Profile.ConsumedSinceSnapshot]): its request state ([v2RequestState])
// and, on the last stage, its speculator's buffers ([specV2BufferBytes]).
// They take nothing off the KV cache, but vLLM fills its util share of the
// device with the weights, the profile's peak and the KV cache, so they
// must fit in what the util leaves beside the driver's share, as the CUDA
// graphs captured after the KV cache do ([budget.Stage].BesideFixed). The
// bulk of the state, PenaltiesState's output_bin_counts and prompt_bin_mask
// and LogitBiasState's rows, is made as at d18bb7b already at ae4f59f0e
// (PR #39337, the oracle of 0.22.0): vllm/v1/worker/gpu/sample/
// penalties.py:32-45 and logit_bias.py:10-44 there. 0 from 0.26.1, where
// they are charged to the non-torch term instead.
func besideAfterSnapshot(a *model.Arch, r *Resolved, st model.Sharding) uint64 {
	if r.Profile.ConsumedSinceSnapshot {
		return 0
	}
	total := v2RequestStateBytes(a, r, st)
	if st.Last && onV2Speculator(r) {
		total = budget.SatAdd(total, specV2BufferBytes(r, st))
	}
	return total
}

// besideAfterSnapshotLabel names [besideAfterSnapshot]'s bytes in a
// footprint's lines.
const besideAfterSnapshotLabel = "V2 runner state, uncharged"

// appendV2StateItems appends the V2 runner's request state of one stage: in
// the non-torch term, as vLLM logs it inside its consumed memory.
func appendV2StateItems(items []budget.Item, a *model.Arch, r *Resolved, st model.Sharding) []budget.Item {
	b := v2StateBytes(a, r, st)
	if b == 0 {
		return items
	}
	return append(items, budget.Item{Name: "v2_request_state", Term: budget.TermNonTorch, Bytes: b})
}

// v2StateLabel names the state in a footprint's lines.
const v2StateLabel = "V2 request state"

// splitV2State names the V2 runner's request state in a footprint's
// lines: the non-torch line without it, then "V2 request state" (the sum
// is the non-torch term).
func (sz *Sizing) splitV2State(lines []engine.FootprintLine, fp budget.Footprint) []engine.FootprintLine {
	r := sz.Serve
	if fp.Stage >= len(r.Stages) {
		return lines
	}
	return splitOut(lines, budget.TermNonTorch, v2StateLabel, v2StateBytes(sz.Model.Arch, r, stageOf(r, fp.Stage)))
}
