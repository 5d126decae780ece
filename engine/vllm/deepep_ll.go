package vllm

import (
	"fmt"
	"slices"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// This file sizes --all2all-backend deepep_low_latency within one node.
// vLLM's rules are main's at commit d18bb7b (2026-08-14); DeepEP's are
// those of d4f41e4e (2026-05-26), the commit vLLM's tools/ep_kernels/
// install_python_libraries.sh:13 pins.
//
// DeepEPLLAll2AllManager (vllm/distributed/device_communicators/
// all2all.py:286-327) makes one deep_ep.Buffer a GPU with num_nvl_bytes =
// VLLM_DEEPEP_BUFFER_SIZE_MB x 2^20, as the high-throughput manager does,
// and num_rdma_bytes = Buffer.get_low_latency_rdma_size_hint(
// max_num_tokens_per_dp_rank, token_hidden_size, num_ep_ranks,
// num_global_experts), with low_latency_mode. Its arguments come from the
// MoE layer's FusedMoEConfig (vllm/model_executor/layers/fused_moe/
// all2all_utils.py:171-186): max_num_tokens, which is the scheduler's
// max_num_batched_tokens (fused_moe/layer.py:268, 352); hidden_dim, the
// model's hidden size raised to the next size DeepEP's kernels are
// built for (prepare_finalize/deepep_ll.py:61-83); the EP group's size;
// and num_experts, the routed experts plus EPLB's redundant ones
// (fused_moe/layer.py:79). With no --max-num-batched-tokens, vLLM sets it
// to 256 for this backend under expert and data parallelism
// (use_batched_dp_moe, vllm/config/parallel.py:698-707; vllm/engine/
// arg_utils.py:2776-2780, SchedulerConfig.
// DEFAULT_MAX_NUM_BATCHED_TOKENS_FOR_BATCHED_DP = 256, vllm/config/
// scheduler.py:43).
//
// DeepEP's Buffer (csrc/legacy/buffer.hpp:84-169) cudaMallocs the NVLink
// buffer with its barrier signals and pointer tables, and the 32 MiB
// workspace (LEGACY_NUM_WORKSPACE_BYTES, csrc/kernels/legacy/
// compiled.cuh:7): the high-throughput buffers deepepHTBytes sizes. In
// low-latency mode it also initialises NVSHMEM over the whole EP group,
// even within a node, and allocates the RDMA buffer in NVSHMEM's
// symmetric heap (buffer.hpp:255-271, nvshmem_align of num_rdma_bytes).
// The size hint is LowLatencyLayout's total (csrc/legacy/config.hpp:
// 131-188): two send buffers, two receive buffers and two signalling
// buffers, in BF16 whatever the dispatch dtype (deep_ep/buffers/
// legacy.py:178). deep_ep's Python Buffer sets NVSHMEM_CUMEM_GRANULARITY
// to 2^29 before NVSHMEM starts (legacy.py:121-122, "NVSHMEM
// initialization requires at least 256 MiB"): the heap maps its device
// memory in chunks of that size, so membudget charges the RDMA buffer in
// whole 512 MiB chunks. What NVSHMEM keeps beside the heap (its teams,
// its IBGDA queues) is the nvshmem package's, not sized.

// deepepLLHidden are the hidden sizes DeepEP's low-latency kernels are
// built for (SUPPORTED_HIDDEN_SIZES, vllm/model_executor/layers/
// fused_moe/prepare_finalize/deepep_ll.py:61).
var deepepLLHidden = []uint64{2048, 2560, 3072, 4096, 5120, 6144, 7168, 8192}

// batchedDPTokens is vLLM's max_num_batched_tokens default for a batched
// DP MoE backend (SchedulerConfig.
// DEFAULT_MAX_NUM_BATCHED_TOKENS_FOR_BATCHED_DP, vllm/config/
// scheduler.py:43).
const batchedDPTokens = 256

// deepepBufferAlign is DeepEP's LEGACY_NUM_BUFFER_ALIGNMENT_BYTES (csrc/
// kernels/legacy/compiled.cuh:9).
const deepepBufferAlign = 128

// nvshmemChunk is NVSHMEM_CUMEM_GRANULARITY as deep_ep sets it
// (deep_ep/buffers/legacy.py:122, 2^29): the chunk NVSHMEM's symmetric
// heap maps device memory in.
const nvshmemChunk = 1 << 29

// batchedDPMoE says vLLM defaults max_num_batched_tokens to 256 for the
// serve: a batched DP MoE backend under expert and data parallelism
// (use_batched_dp_moe, vllm/config/parallel.py:698-707), in the releases
// whose all-to-all backends membudget reads.
func (r *Resolved) batchedDPMoE() bool {
	return (r.All2AllBackend == "deepep_low_latency" || r.All2AllBackend == "nixl_ep") &&
		r.EnableExpertParallel && r.DataParallelSize > 1 && !r.Profile.Release.Less(a2aSince)
}

// deepepLLRDMAHint is deep_ep.Buffer.get_low_latency_rdma_size_hint
// (csrc/legacy/config.hpp:131-188) for tokens dispatched a rank, a
// hidden size and the experts: LowLatencyLayout's total, then
// ((total + 128) / 128) x 128, which adds a whole 128 B to a total
// already aligned.
func deepepLLRDMAHint(tokens, hidden, experts uint64) uint64 {
	scales := hidden / 128
	// A dispatch message: an int4 of control, then the BF16 token or its
	// FP8 bytes with a float scale per 128 channels, whichever is larger.
	dispatchMsg := budget.SatAdd(16, max(budget.SatMul(hidden, 2), budget.SatAdd(hidden, budget.SatMul(scales, 4))))
	// A combine message: a bfloat162 per 128 channels and the BF16 token.
	combineMsg := budget.SatAdd(budget.SatMul(scales, 4), budget.SatMul(hidden, 2))
	slots := budget.SatMul(experts, tokens)
	send := max(budget.SatMul(tokens, dispatchMsg), budget.SatMul(slots, combineMsg))
	recv := max(budget.SatMul(slots, dispatchMsg), budget.SatMul(slots, combineMsg))
	signal := budget.SatMul(budget.CeilDiv(budget.SatMul(experts, 4), deepepBufferAlign), deepepBufferAlign)
	total := budget.SatMul(budget.SatAdd(budget.SatAdd(send, recv), signal), 2)
	return budget.SatMul(budget.SatAdd(total, deepepBufferAlign)/deepepBufferAlign, deepepBufferAlign)
}

// deepepLLBytes is a low-latency Buffer's device memory on one GPU within
// a node: the high-throughput buffers of the NVLink buffer of mib MiB and
// the workspace, and the RDMA buffer of rdma bytes in whole NVSHMEM heap
// chunks.
func deepepLLBytes(mib, rdma uint64) uint64 {
	return budget.SatAdd(deepepHTBytes(mib), budget.SatMul(budget.CeilDiv(rdma, nvshmemChunk), nvshmemChunk))
}

// deepepLLArgs is what vLLM passes get_low_latency_rdma_size_hint for the
// serve (see the file comment).
type deepepLLArgs struct {
	Tokens, Hidden, Ranks, Experts uint64
}

// deepepLLArgsOf is the hint's arguments for the serve of a.
func (r *Resolved) deepepLLArgsOf(a *model.Arch) deepepLLArgs {
	return deepepLLArgs{Tokens: r.MaxNumBatchedTokens, Hidden: a.MoEHidden(), Ranks: r.ExpertRanks, Experts: budget.SatAdd(a.Experts, r.RedundantExperts)}
}

// resolveDeepEPLL sizes deepep_low_latency's buffers on each GPU of an
// expert-parallel serve within one node, or refuses it.
func (r *Resolved) resolveDeepEPLL(a *model.Arch) error {
	ep := r.ExpertRanks
	args := r.deepepLLArgsOf(a)
	if ep > deepepMaxNVLPeers || r.Collectives.Interconnect == budget.NoPeer {
		rdma := "DeepEP's RDMA buffer a GPU"
		if args.Tokens > 0 { // a log's serve may leave the tokens unread
			rdma = fmt.Sprintf("DeepEP's RDMA buffer of %s a GPU", engine.GiB(deepepLLRDMAHint(args.Tokens, args.Hidden, args.Experts)))
		}
		return settingErr("all2all-backend", "", "deepep_low_latency over %d GPUs across nodes: %s over NVSHMEM's network transport and its queue pairs, set up by NVSHMEM's environment (vllm/distributed/device_communicators/all2all.py:305-327): not modelled for %s; membudget sizes it within one node of at most %d GPUs; membudget refuses it rather than size a serve vLLM would contradict",
			ep, rdma, r.Profile.Describes, deepepMaxNVLPeers)
	}
	// The dispatch carries the tokens at the experts' width: a latent
	// MoE's (Arch.MoEHidden) after its routed input transform.
	if !slices.Contains(deepepLLHidden, a.MoEHidden()) {
		if a.MoEHidden() > deepepLLHidden[len(deepepLLHidden)-1] {
			return settingErr("all2all-backend", "deepep_low_latency", "vLLM stops at startup: Hidden Size %d is greater than the maximum supported hidden size %d (vllm/model_executor/layers/fused_moe/prepare_finalize/deepep_ll.py:80-83)", a.MoEHidden(), deepepLLHidden[len(deepepLLHidden)-1])
		}
		return settingErr("all2all-backend", "", "deepep_low_latency with hidden size %d: vLLM pads the MoE layers to DeepEP's next kernel size (vllm/model_executor/layers/fused_moe/prepare_finalize/deepep_ll.py:61-83), padded weights and activations membudget does not size: not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", a.MoEHidden(), r.Profile.Describes)
	}
	r.All2AllBytes = deepepLLBytes(deepepBufferMiB, deepepLLRDMAHint(args.Tokens, args.Hidden, args.Experts))
	return nil
}

// deepepLLSettings is the line a report prints of deepep_low_latency's
// buffers.
func (sz *Sizing) deepepLLSettings() string {
	args := sz.Serve.deepepLLArgsOf(sz.Model.Arch)
	rdma := deepepLLRDMAHint(args.Tokens, args.Hidden, args.Experts)
	return fmt.Sprintf("all-to-all: DeepEP low-latency buffers of %s a GPU: its %d MiB NVLink buffer and 32 MiB workspace, and its RDMA buffer of %d B (get_low_latency_rdma_size_hint(%d tokens a rank, hidden %d, %d EP ranks, %d experts)) in NVSHMEM's heap, charged in whole 512 MiB chunks; allocated while the model loads and counted in the util budget; NVSHMEM's own state beside its heap is not sized",
		engine.GiB(sz.Serve.All2AllBytes), deepepBufferMiB, rdma, args.Tokens, args.Hidden, args.Ranks, args.Experts)
}

// batchedDPWhy is the source of max_num_batched_tokens when
// [Resolved.batchedDPMoE] sets it.
const batchedDPWhy = "vLLM's default for a batched DP MoE backend (deepep_low_latency or nixl_ep with expert and data parallelism): DEFAULT_MAX_NUM_BATCHED_TOKENS_FOR_BATCHED_DP, vllm/engine/arg_utils.py:2776-2780"

// batchedDPSeqsWhy is the source of max_num_seqs when vLLM lowers its
// default to the batched tokens (vllm/engine/arg_utils.py:2842-2844,
// min(max_num_seqs, max_num_batched_tokens) when max_num_seqs is not
// given) and [Resolved.batchedDPMoE] set those tokens, the one serve whose
// default tokens are fewer than its default sequences; a line that gives
// fewer tokens gets [Resolved.lowerDefaultSeqs]' general source.
const batchedDPSeqsWhy = "vLLM's default lowered to max_num_batched_tokens (vllm/engine/arg_utils.py:2842-2844), which a batched DP MoE backend sets to 256"
