package vllm

import (
	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// What vLLM's non-KV memory holds on a unified-memory device (a class with
// memory.unified: GB10, Jetson), beyond what it holds on a discrete GPU.
//
// On an integrated GPU vLLM reads its free memory from the host: psutil's
// available memory (MemAvailable) instead of cudaMemGetInfo
// (vllm/utils/mem_utils.py:147-155, MemorySnapshot.measure, at main d18bb7b;
// by compute capability 8.7, 11.0 and 12.1 from commit 4f8f47e of
// 2025-10-03, by is_integrated from PR #35356; before, cudaMemGetInfo,
// which on these devices reports the host's free pages and counts its page
// cache as used: MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#230 on GB10). The worker's non-KV memory is a difference of that
// reading between its startup snapshot (gpu_worker.py:396, init_device,
// before the model runner is built) and the end of the profile run: up to
// 0.26.0 the non-torch increase, (total - free) less torch's reserved
// memory (mem_utils.py memory_profiling as at commit 2497228, 2025-12-17),
// and from PR #49208 (0.26.1) the free memory consumed since the snapshot
// (mem_utils.py:355-357, total_consumed). On a discrete GPU that reading is
// the device's alone; on a unified one it is the host's, so the host
// memory the worker takes in between comes off the KV cache as non-torch
// memory, where on a discrete GPU it takes nothing. Public reports name
// the same mechanism: vllm-project/vllm#35920 (the page cache and other
// engines' loads counted as an engine's own on DGX Spark),
// eugr/spark-vllm-docker#286 (torch.compile's host heap during profile_run
// counted as non-torch memory), NVIDIA/xr-ai#462 (a cold start's
// page-cache activity shrinks or negates the KV cache where a warm start
// with the same settings passes).
//
// membudget charges two items of it to the non-torch term, both on every
// GPU's worker, shown together as "unified host memory":
//   - unified_host_token_ids: the runner's host tensors of every request's
//     token ids, sized max_num_seqs x max_model_len and made (zero-filled)
//     in the runner's constructor, after the snapshot (hostTokenIDsBytes);
//   - unified_host_growth: the rest of the worker's host growth over model
//     loading and the profile run (the model's Python objects,
//     torch.compile's Dynamo and Inductor state, Triton's kernels, the
//     loader's buffers), which no row splits: a floor calibrated on one
//     row ([unifiedHostGrowthBytes]).
//
// What the host takes that depends on the host's state (a cold page cache,
// other processes loading at the same time, a compile cache missed) is not
// charged: it moves from one start to the next with the same settings.

// unifiedHostGrowthBytes is the host memory vLLM's worker takes after its
// startup snapshot on a unified-memory device beyond the token-id tensors:
// 1796 MiB, calibrated on row 205 of corpus/observed/vllm.csv (GB10, vLLM
// 0.27.1, Qwen/Qwen3-0.6B bf16 at util 0.6 with torch.compile and CUDA
// graphs, on the V2 runner at GB10's default 256 sequences and 2048
// batched tokens, 40,960 tokens long), the one unified row whose log
// states its consumed memory: "Actual usage is 3.35 GiB for consumed
// memory (weights + non-torch)", at least 3.345 GiB (3,591,651,819 B)
// with its rounding, less what the model charges there beside this floor:
// weights 1,202,585,600 B, the non-torch growth of a discrete GPU
// 268,435,456 B, the V2 request state 169,930,756 B and the token-id
// tensors 67,108,864 B (1,708,060,676 B together) leaves 1,883,591,143 B,
// 1796.3 MiB, taken down to whole MiB. Held out: row 110 (0.13.0,
// Qwen3-30B-A3B-FP8 at 256 sequences) and row 208 (0.22.1,
// Qwen3.6-35B-A3B-NVFP4 with its MTP drafter at 5) hold 1.82 and 2.91 GiB
// beside the model's other terms, both more than the floor (1.75 GiB),
// which leaves their KV memory 1.6% and 1.55% high (46% and 3.9% before):
// it is a floor, not a fit, as the larger compiles and loads of those rows
// would make it. The three rows compile (torch.compile and CUDA graphs);
// the floor is charged on every serve of a unified class, eager and V0
// ones too, whose growth no row measures: there it can only leave the KV
// memory predicted low, never high.
const unifiedHostGrowthBytes = 1796 << 20

// isTokenIDsSince is the first release whose V1 InputBatch keeps
// is_token_ids beside token_ids_cpu (vLLM PR #24278, merged 2025-09-18,
// after 0.10.2).
var isTokenIDsSince = Version{0, 11, 0}

// mropeDims is the rows a request keeps in the V2 runner's M-RoPE state:
// num_dims=3 (vllm/v1/worker/gpu/mm/rope.py:143-151, get_rope_state).
const mropeDims = 3

// hostTokenIDsBytes is the host memory of the runner's per-request token
// tensors on each GPU's worker, n = max_num_seqs rows of l = max_model_len:
//   - the V1 runner's InputBatch: token_ids_cpu_tensor, n x l int32, and
//     (from 0.11.0) is_token_ids_tensor, n x l bool, both torch.zeros on
//     the CPU, unpinned (vllm/v1/worker/gpu_input_batch.py:130-147 at
//     d18bb7b);
//   - the V2 runner's RequestState: all_token_ids, n x l int32 in a
//     StagedWriteTensor made with uva_instead_of_gpu (vllm/v1/worker/gpu/
//     states.py:31-39, pinned through UvaBuffer, buffer_utils.py:44-50),
//     and for a model with M-RoPE the RopeState's prefill_positions, 3n x
//     l int32, made the same way (mm/rope.py:47-54). Pinned memory comes
//     from PyTorch's caching host allocator, which takes each allocation
//     up to the next power of two before cudaHostAlloc (aten/src/ATen/core/
//     CachingHostAllocator.h, CachingHostAllocatorImpl::allocate:
//     "roundSize = c10::llvm::PowerOf2Ceil(size)", pytorch/pytorch at
//     0445633).
//
// The V0 engine keeps no such tensors: 0.
func hostTokenIDsBytes(a *model.Arch, r *Resolved) uint64 {
	if r.Profile.Era == V0 {
		return 0
	}
	l := r.MaxModelLen
	if r.runnerMaxLen > 0 {
		l = r.runnerMaxLen // --max-model-len auto: the length the runner was built with
	}
	cells := budget.SatMul(r.MaxNumSeqs, l)
	if r.onV2Runner(a) {
		b := pinnedBytes(budget.SatMul(cells, 4))
		if usesMRoPE(a) {
			b = budget.SatAdd(b, pinnedBytes(budget.SatMul(budget.SatMul(cells, mropeDims), 4)))
		}
		return b
	}
	per := uint64(4)
	if r.Profile.Release.AtLeast(isTokenIDsSince) {
		per++ // is_token_ids, one bool a cell
	}
	return budget.SatMul(cells, per)
}

// pinnedBytes is what PyTorch's caching host allocator pins for a request
// of n bytes: n up to the next power of two (see hostTokenIDsBytes, and
// [nextPow2] for the rounding); 0 for nothing, and n itself past the
// largest power of two a uint64 holds.
func pinnedBytes(n uint64) uint64 {
	if n == 0 || n > 1<<63 {
		return n
	}
	return nextPow2(n)
}

// usesMRoPE says a's config holds an mrope_section (vLLM's uses_mrope,
// vllm/transformers_utils/config.py:564-570).
func usesMRoPE(a *model.Arch) bool {
	for _, rs := range a.RopeScalings {
		if rs.MRoPE {
			return true
		}
	}
	return a.RopeScaling != nil && a.RopeScaling.MRoPE
}

// unifiedHostBytes is the two items' sum on one GPU, summed from
// appendUnifiedHostItems so the ledger line and the items cannot part; 0
// off a unified-memory class.
func unifiedHostBytes(a *model.Arch, r *Resolved) uint64 {
	var sum uint64
	for _, it := range appendUnifiedHostItems(nil, a, r) {
		sum = budget.SatAdd(sum, it.Bytes)
	}
	return sum
}

// appendUnifiedHostItems appends, on a unified-memory class, the host
// memory vLLM's worker takes after its startup snapshot and counts as
// non-torch memory (see the comment at the head of this file).
func appendUnifiedHostItems(items []budget.Item, a *model.Arch, r *Resolved) []budget.Item {
	if !r.unified {
		return items
	}
	if b := hostTokenIDsBytes(a, r); b > 0 {
		items = append(items, budget.Item{Name: "unified_host_token_ids", Term: budget.TermNonTorch, Bytes: b})
	}
	return append(items, budget.Item{Name: "unified_host_growth", Term: budget.TermNonTorch, Bytes: unifiedHostGrowthBytes})
}

// unifiedHostLabel names the two items in a footprint's lines.
const unifiedHostLabel = "unified host memory"

// splitUnifiedHost names the unified host memory in a footprint's lines:
// the non-torch line without it, then "unified host memory".
func (sz *Sizing) splitUnifiedHost(lines []engine.FootprintLine, fp budget.Footprint) []engine.FootprintLine {
	r := sz.Serve
	if fp.Stage >= len(r.Stages) {
		return lines
	}
	return splitOut(lines, budget.TermNonTorch, unifiedHostLabel, unifiedHostBytes(sz.Model.Arch, r))
}
