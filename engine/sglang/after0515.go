package sglang

import (
	"fmt"

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

// checkVocabShards refuses a --tp-size that does not divide the padded
// vocabulary of the model's embedding and LM head, or of a speculative
// draft's own head ([specDraft.HeadVocab]). VocabParallelEmbedding (and
// ParallelLMHead, built on it) pads the vocabulary to a multiple of 64
// and splits it with divide(), which asserts the division is exact
// (distributed/utils.py:59-70 at v0.5.15, :53-64 at v0.5.16 and v0.5.17):
// _get_indices first
// (vocab_parallel_embedding.py:281-288, vocab_range_from_global_vocab_size
// :67-73), then num_embeddings_per_partition (:316-318) at v0.5.15, the
// same at v0.5.16 and v0.5.17 (:284, :319) and v0.5.18 (:288, :323;
// distributed/utils.py:53-64 still), and the same divide() of the
// padded rows at v0.4.9.post2 (:312), v0.5.6.post2 (:284) and v0.5.9
// (:292): so every profile is checked.
// Only on CPU does SGLang widen the padding to tp x 64 (:258-264): on a GPU
// the model fails to build, so no shard of tp-th of the padded rows
// (what the weights and the logits all-gather would take, rounded) is
// ever allocated.
func (r *Resolved) checkVocabShards(a *model.Arch) error {
	tp := r.TPSize
	if tp <= 1 {
		return nil
	}
	type head struct {
		what  string
		vocab uint64
	}
	heads := []head{{"the vocabulary of " + a.Source, a.Vocab}}
	if r.Draft != nil && r.Draft.HeadVocab != a.Vocab {
		heads = append(heads, head{"the speculative draft's head", r.Draft.HeadVocab})
	}
	for _, h := range heads {
		if padded := budget.RoundUp(h.vocab, sglVocabPadding); padded%tp != 0 {
			return settingErr("tp-size", tp, "does not divide %s, %d rows padded to %d (a multiple of %d): SGLang's VocabParallelEmbedding asserts \"%d is not divisible by %d\" when it builds the model (layers/vocab_parallel_embedding.py:281-288, 316-318 at v0.5.15, :284 and :319 at v0.5.16 and v0.5.17, :288 and :323 at v0.5.18; distributed/utils.py:59-70 at v0.5.15, :53-64 after)",
				h.what, h.vocab, padded, sglVocabPadding, padded, tp)
		}
	}
	return nil
}

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
// pool (see [Profile.LogitsAllGather]) and keeps where
// [logitsAllGatherKept] says: (rows, padded vocabulary) bf16, rows
// max(--max-running-requests given x max(draft tokens, top-k, 1), 128)
// (see [logitsAllGatherRows]), the running requests read from the
// arguments as given when the model is built (triton_symm_mem_ag.py:421-440,
// create_state :308-334, _build :517-548). None at TP 1, for logits other
// than bf16 (:518), or where a rank's shard of the vocabulary is not a
// multiple of 8 (:523). The same at v0.5.15.post1, v0.5.16, v0.5.17 and
// v0.5.18, at the same lines: the file differs only in where the server
// arguments are read from (v0.5.16 :426-428; v0.5.17 also :469-480;
// v0.5.18's file is v0.5.17's byte for byte). At v0.5.18 the gatherer is
// built as before (layers/logits_processor.py:324-330), and a TP LM
// head's all-to-all (:675-678, :805-840) may take the place of the
// gather, which then allocates nothing: charged all the same, the side
// that cannot say a serve fits where it does not.
func logitsAllGatherBytes(a *model.Arch, c budget.Class, r Resolved) uint64 {
	return gatherBytes(a.Vocab, c, r)
}

// logitsAllGatherKept says SGLang keeps the logits all-gather's buffer on
// the class's GPUs under serve r, v0.5.15 to v0.5.18 alike (v0.5.18 pins
// torch 2.13.0, python/pyproject.toml:81, whose symmetric memory was not
// re-read: whether a device reports multicast is the driver's attribute
// either way):
//   - The gatherer is built disabled, with no buffer, where the TP group
//     spans nodes: --nnodes above 1 and a rank of the group on another
//     node (triton_symm_mem_ag.py:478-487). A node holds tp x pp / nnodes
//     ranks, fewer than a TP group's tp exactly where --nnodes exceeds
//     --pp-size: every group spans nodes then. Where it does not, a group
//     on one node keeps the buffer, and that is what is charged.
//   - Otherwise _build allocates and rendezvous the buffer, and drops it
//     (the state is never stored, so the tensor and its handle are freed)
//     where the handle has no multicast address (:537-544) or where any
//     step raises (:546-548). PyTorch gives a multicast address only where
//     every rank's device reports CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED
//     and TORCH_SYMM_MEM_DISABLE_MULTICAST is not set
//     (torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemory.cu,
//     check_group_multicast_support and make_peer_alloc_info; c10d/cuda/
//     utils.cpp deviceSupportsMulticast; pytorch/pytorch 029e473, SGLang
//     pins torch 2.11.0, python/pyproject.toml:76-78), and never on ROCm,
//     where init_multicast_for_block is compiled out. A freed symmetric
//     block is unmapped and released (~AllocationRef), so where the
//     buffer is dropped it leaves nothing: the allocation it tries is
//     taken after the pool, and an out-of-memory there is caught (:546).
//   - Multicast is NVSwitch's (NVLS): Hopper and later (SGLang's own
//     multimem kernels, kernels/jit/csrc/distributed/custom_all_reduce.cuh:
//     160-205 at v0.5.17, are "only supported on Hopper or later"; NCCL's
//     NVLS needs third-generation NVSwitch). So no buffer on AMD, over PCIe
//     with or without peer access (L4, L40S, RTX and H100 PCIe cards), with
//     no peer in the node, or over NVLink before Hopper (A100, V100).
//
// An NVLink class of Hopper or later is charged whether or not its GPUs
// sit behind an NVSwitch: an NVLink-bridged H100 NVL or H200 NVL pair, or
// GH200 superchips, may report no multicast, which the class cannot say;
// charging it is the side that cannot say a serve fits where it does not.
// So is an environment that turns multicast off.
func logitsAllGatherKept(c budget.Class, r Resolved) bool {
	d := c.Device
	if d.Silicon.Vendor != budget.NVIDIA || d.Interconnect != budget.NVLink || !d.Silicon.AtLeast(9, 0) {
		return false
	}
	return tpGroupOnOneNode(r)
}

// tpGroupOnOneNode says each of serve r's TP groups sits on one node: a
// node holds tp x pp / nnodes ranks, a whole group exactly where --nnodes
// is at most --pp-size (see [logitsAllGatherKept]).
func tpGroupOnOneNode(r Resolved) bool { return r.Nodes.NNodes <= max(r.PPSize, 1) }

// draftLogitsAllGatherBytes is the same buffer of a speculative draft's
// own LogitsProcessor (models/llama_eagle3.py and models/deepseek_nextn.py
// build one each; v0.5.15 layers/logits_processor.py:365-371, 929-930):
// each MultimemAllGatherer owns its buffer (triton_symm_mem_ag.py:445-470),
// of the same rows, and of the vocabulary of the head the draft computes
// its logits with ([specDraft.HeadVocab]), kept where the target's is
// ([logitsAllGatherKept]). The draft's logits are charged as bf16 where the
// target's are, whatever the draft's own dtype: a float16 draft's would
// take none, the side that cannot say a serve fits where it does not.
func draftLogitsAllGatherBytes(c budget.Class, r Resolved) uint64 {
	if r.Draft == nil {
		return 0
	}
	return gatherBytes(r.Draft.HeadVocab, c, r)
}

// gatherBytes is one logits all-gather buffer of a head of vocab rows.
func gatherBytes(vocab uint64, c budget.Class, r Resolved) uint64 {
	if !logitsGatherRendezvous(vocab, r) || !logitsAllGatherKept(c, r) {
		return 0
	}
	shard := budget.RoundUp(vocab, sglVocabPadding) / r.TPSize
	return budget.SatMul(budget.SatMul(logitsAllGatherRows(r), budget.SatMul(shard, r.TPSize)), 2)
}

// logitsGatherRendezvous says the logits all-gather of a head of vocab
// rows allocates its symmetric buffer and runs torch's rendezvous under
// serve r, whatever the GPUs (v0.5.15 to v0.5.18 alike, the file's
// lines the same at each tag): the gatherer is built enabled at TP above
// 1 unless its TP group spans nodes (triton_symm_mem_ag.py:454-487; see
// [logitsAllGatherKept] for when it does), and its first call outside a
// graph capture (_build, :517-548) returns before create_state only for
// logits other than bf16 (:518) or a rank's shard of the vocabulary
// that is not a multiple of 8 (:523-524); create_state then allocates
// and calls symm_mem.rendezvous (:308-345, the call at :331), and only
// after it returns does _build read the handle's multicast address
// (:537). Nothing on the way asks whether the GPUs can reach each other.
func logitsGatherRendezvous(vocab uint64, r Resolved) bool {
	if !r.Profile.LogitsAllGather || r.TPSize <= 1 || r.Dtype != "bfloat16" || !tpGroupOnOneNode(r) {
		return false
	}
	// A TP size that does not divide the padded rows is refused before
	// (see [Resolved.checkVocabShards]): the division is exact.
	shard := budget.RoundUp(vocab, sglVocabPadding) / r.TPSize
	return shard != 0 && shard%logitsAllGatherNumel == 0
}

// logitsRendezvousCaveat is what a report says beside "SGLang starts"
// where the logits all-gather's rendezvous runs (see
// [logitsGatherRendezvous]) on NVIDIA GPUs without peer access (the
// class's interconnect [budget.PCIe]: GeForce cards on the stock
// driver), and "" elsewhere. sgl-project/sglang#40485 (open, 2026-09-20)
// reports SIGFPE (exit code -8) inside symm_mem.rendezvous, called from
// create_state, on two consumer PCIe GPUs with no NVLink and no P2P: a
// signal, not the Python exception _build catches (:546-548), so the
// scheduler dies before the multicast check could drop the buffer. It
// is one box's report, in an unmerged PR whose fix (a peer-access check
// in the gatherer's constructor) no release membudget sizes has; so the
// serve is still sized (its buffer charged nothing, see
// [logitsAllGatherKept]), and the report says it may not run rather than
// that it runs.
//
// When it runs: the first call outside a graph capture. Where the decode
// CUDA graphs are captured (the default) that is their warmup passes, run
// eagerly before each capture at startup (model_executor/runner_backend/
// full_cuda_graph_backend.py:89-92 at v0.5.15 to v0.5.17, :105-108 at
// v0.5.18), the models' forward ending in the logits processor
// (models/llama.py:584-592 and layers/logits_processor.py:672-681 at
// v0.5.18); with --disable-cuda-graph, the first eager forward. The PR
// says the server started and its first request killed the scheduler,
// which these tags do only without the decode graphs (or where a
// warmup pass skipped the gather); on such a box the serve does not run,
// at startup or at the first request.
// float16 logits take no buffer and run no rendezvous (:518).
func (ref *Reference) logitsRendezvousCaveat() string {
	r, c := ref.Serve, ref.Class
	if c.Device.Silicon.Vendor != budget.NVIDIA || c.Device.Interconnect != budget.PCIe {
		return ""
	}
	if !logitsGatherRendezvous(ref.Arch.Vocab, r) && (r.Draft == nil || !logitsGatherRendezvous(r.Draft.HeadVocab, r)) {
		return ""
	}
	when := "at startup, in the decode CUDA graphs' warmup passes"
	if r.DisableCudaGraph {
		when = "at the first forward outside a graph (with --disable-cuda-graph, the first request)"
	}
	return fmt.Sprintf("but it may not serve on %s GPUs, which have no peer access: %s runs torch's symmetric-memory rendezvous for the logits all-gather (its MultimemAllGatherer) %s, before it checks for multicast (triton_symm_mem_ag.py:517-548), and sgl-project/sglang#40485 (open) reports SIGFPE there on consumer PCIe GPUs without peer access, killing the scheduler; float16 logits skip it",
		c.Device.Name, r.Profile.Describes, when)
}

// logitsAllGatherRows is recommended_max_tokens(include_prefill=False,
// floor=128): max_running_requests x max(speculative_num_draft_tokens,
// speculative_eagle_topk, 1), at least 128 (v0.5.15
// triton_symm_mem_ag.py:421-440), the server arguments as the speculative
// hook leaves them (the 48 requests and the draft tokens adjusted at top-k
// 1, arg_groups/speculative_hook.py:329-334, 439-447).
func logitsAllGatherRows(r Resolved) uint64 {
	return max(budget.SatMul(r.MaxRunningRequests, r.Draft.tokensPerRequest()), logitsAllGatherFloor)
}

// tokensPerRequest is max(draft tokens, top-k, 1): the rows a running
// request takes in the target's verify and the draft's extend, which
// v0.5.15's eager runners (model_executor/runner/eager_runner.py:69-89:
// the target's get_num_tokens_per_bs_for_target_verify, the draft tokens,
// speculative/spec_info.py:183-191; the draft's max(top-k, draft tokens)
// without multi-layer EAGLE) and the logits all-gather size for; 1 with
// no draft.
func (d *specDraft) tokensPerRequest() uint64 {
	if d == nil {
		return 1
	}
	return max(d.DraftTokens, d.TopK, 1)
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
// tokens pool tokens and maxRunning running requests of perRequest tokens
// each ([specDraft.tokensPerRequest]), from v0.5.15 (see
// [Profile.EagerTokensFromPool]): max(max_total_num_tokens,
// max_prefill_buffer_tokens(), max_bs x tokens per request) tokens, the
// chunked prefill size the second (server_args.py:5020-5033, dynamic
// chunking refused), and max_bs the running requests (eager_runner.py:
// 69-112). v0.5.14 sized them to the chunked prefill size alone
// (eager_runner.py:103-108 there), within the 2 MiB a batch membudget
// charges the decode graphs.
func eagerInputBytes(r Resolved, tokens, maxRunning, perRequest uint64) uint64 {
	if !r.Profile.EagerTokensFromPool {
		return 0
	}
	n := max(tokens, uint64(max(r.ChunkedPrefillSize, 0)), budget.SatMul(maxRunning, perRequest))
	return budget.SatAdd(budget.SatMul(n, eagerTokenBytes), budget.SatMul(maxRunning, eagerRequestBytes))
}

// after0515Items are stage i's allocations after the pool new in v0.5.15
// (none for an earlier profile).
func (ref *Reference) after0515Items(i int) []budget.Item {
	r, st := ref.Serve, &ref.stages[i]
	var items []budget.Item
	if b := logitsAllGatherBytes(ref.Arch, ref.Class, r); b > 0 {
		items = append(items, budget.Item{Name: "logits_all_gather", Term: budget.TermNonTorch, Bytes: b})
	}
	running := ref.maxRunning
	if running == ^uint64(0) {
		running = 0
	}
	eager := eagerInputBytes(r, uint64(max(st.tokens, 0)), running, r.Draft.tokensPerRequest())
	if eager > 0 {
		items = append(items, budget.Item{Name: "eager_input_buffers", Term: budget.TermNonTorch, Bytes: eager})
	}
	if r.Draft == nil || st.tokens <= 0 {
		return items
	}
	// The draft's ModelRunner builds its own eager runner in its
	// init_cuda_graphs, which the scheduler calls with graphs off too
	// (v0.5.15 model_runner.py:922-957, managers/scheduler.py:864-874,
	// speculative/eagle_worker_v2.py:247-253), over the target's pool
	// tokens and running requests (its MemoryPoolConfig,
	// model_runner_kv_cache_mixin.py:1264-1267): the target's buffers
	// again.
	if eager > 0 {
		items = append(items, budget.Item{Name: "spec_draft.eager_input_buffers", Term: budget.TermNonTorch, Bytes: eager})
	}
	if b := draftLogitsAllGatherBytes(ref.Class, r); b > 0 {
		items = append(items, budget.Item{Name: "spec_draft.logits_all_gather", Term: budget.TermNonTorch, Bytes: b})
	}
	return items
}
