package sglang

import (
	"membudget/budget"
	"membudget/model"
)

// What v0.5.15 allocates after the KV pool that v0.5.14 did not: the
// logits' symmetric all-gather buffer under TP (PR #29223) and the eager
// runner's input buffers over the pool's tokens (PR #28894). Both come out
// of what (1 - msf) x F0 leaves, as the CUDA graphs do.

// sglVocabPadding is SGLang's DEFAULT_VOCAB_PADDING_SIZE: the LM head's
// rows are padded to a multiple of 64 and then divided among the TP ranks
// (v0.5.15 layers/vocab_parallel_embedding.py:45, 273-318).
const sglVocabPadding = 64

// logitsAllGatherFloor is the rows the multimem all-gather's buffer keeps
// at least: recommended_max_tokens(include_prefill=False, floor=128)
// (v0.5.15 layers/logits_processor.py:365-371,
// distributed/device_communicators/triton_symm_mem_ag.py:421-440).
const logitsAllGatherFloor = 128

// logitsAllGatherNumel is the elements a row's 16-byte multimem store
// moves (_NUMEL_PER_THREAD, triton_symm_mem_ag.py:24): a rank's shard of
// the vocabulary that is not a multiple of it takes no buffer (:528-529).
const logitsAllGatherNumel = 8

// logitsAllGatherBytes is the symmetric-memory buffer v0.5.15's logits
// processor allocates on each rank at its first eager call after the KV
// pool (see [Profile.LogitsAllGather]): (rows, padded vocabulary) bf16,
// rows max(--max-running-requests given x max(draft tokens, top-k, 1),
// 128), the running requests read from the arguments as given when the
// model is built (triton_symm_mem_ag.py:421-440, create_state :308-334,
// _build :517-548). None at TP 1, for logits other than bf16 (:518), or
// where a rank's shard of the vocabulary is not a multiple of 8 (:523).
// SGLang keeps it only where the device gives the group a multicast
// address (:537-544, NVSwitch's NVLS); membudget does not know the
// interconnect's multicast (nor ROCm's symmetric memory, not read) and
// charges it at every TP above 1, the side that cannot say a serve fits
// where it does not. The speculative
// serves that would multiply the rows are refused at v0.5.15 (see
// [specReleases]).
func logitsAllGatherBytes(a *model.Arch, r Resolved) uint64 {
	if !r.Profile.LogitsAllGather || r.TPSize <= 1 || r.Dtype != "bfloat16" {
		return 0
	}
	shard := budget.RoundUp(a.Vocab, sglVocabPadding) / r.TPSize
	if shard == 0 || shard%logitsAllGatherNumel != 0 {
		return 0
	}
	rows := max(r.MaxRunningRequests, logitsAllGatherFloor)
	return budget.SatMul(budget.SatMul(rows, budget.SatMul(shard, r.TPSize)), 2)
}

// eagerTokenBytes is what the eager runner's input registry keeps per
// token: input_ids, positions and out_cache_loc int64 and
// mrope_positions (3, tokens) int64, 48 bytes (v0.5.15
// model_executor/cuda_graph_buffer_registry.py:507-590, build_decode_registry,
// which build_eager_registry, :893-937, calls); and per running request:
// req_pool_indices and seq_lens int64 on the device, 16 bytes (seq_lens_cpu
// is the host's).
const (
	eagerTokenBytes   = 8 + 8 + 8 + 3*8
	eagerRequestBytes = 8 + 8
)

// eagerInputBytes is the eager runner's input buffers on a stage of
// tokens pool tokens and maxRunning running requests, from v0.5.15 (see
// [Profile.EagerTokensFromPool]): max(max_total_num_tokens,
// max_prefill_buffer_tokens()) tokens, the chunked prefill size the
// latter (server_args.py:5020-5033, dynamic chunking refused), and at
// least the running requests (eager_runner.py:96-112; no draft at
// v0.5.15, see [specReleases]). v0.5.14 sized them to the chunked prefill
// size alone (eager_runner.py:103-108 there), within the 2 MiB a batch
// membudget charges the decode graphs.
func eagerInputBytes(r Resolved, tokens, maxRunning uint64) uint64 {
	if !r.Profile.EagerTokensFromPool {
		return 0
	}
	n := max(tokens, uint64(max(r.ChunkedPrefillSize, 0)), maxRunning)
	return budget.SatAdd(budget.SatMul(n, eagerTokenBytes), budget.SatMul(maxRunning, eagerRequestBytes))
}

// after0515Items are stage i's allocations after the pool new in v0.5.15
// (none for an earlier profile).
func (ref *Reference) after0515Items(i int) []budget.Item {
	r, st := ref.Serve, &ref.stages[i]
	var items []budget.Item
	if b := logitsAllGatherBytes(ref.Arch, r); b > 0 {
		items = append(items, budget.Item{Name: "logits_all_gather", Term: budget.TermNonTorch, Bytes: b})
	}
	running := ref.maxRunning
	if running == ^uint64(0) {
		running = 0
	}
	if b := eagerInputBytes(r, uint64(max(st.tokens, 0)), running); b > 0 {
		items = append(items, budget.Item{Name: "eager_input_buffers", Term: budget.TermNonTorch, Bytes: b})
	}
	return items
}
