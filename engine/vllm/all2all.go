package vllm

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/internal/untrusted"
	"membudget/model"
)

// This file sizes --all2all-backend: the buffers an expert-parallel
// serve's all-to-all backend holds on every GPU. Every rule is vLLM main's
// at commit d18bb7b (2026-08-14).
//
// The backend is ParallelConfig.all2all_backend (vllm/config/parallel.py:
// 42-55 its choices, 188 its default allgather_reducescatter); "pplx" and
// "naive" were removed and fall back to allgather_reducescatter with a
// warning (:467-473). CudaCommunicator builds an all-to-all manager only
// when use_all2all, that is data parallelism (parallel.py:690-695,
// cuda_communicator.py:139-200), and a MoE layer asks it for buffers only
// with expert parallelism over more than one DP rank (use_all2all_kernels,
// vllm/model_executor/layers/fused_moe/config.py:1056-1070; use_ep is EP
// over TP x DP > 1, :1208). It asks while the quantization method
// processes the loaded weights (maybe_make_prepare_finalize, vllm/
// model_executor/layers/fused_moe/all2all_utils.py:118-200, called from
// fused_moe/oracle/*.py), inside load_model, after the worker's startup
// snapshot (vllm/v1/worker/gpu_worker.py:396) and before the profile
// (:461-536): the buffers are non-torch memory the profile counts in the
// util budget, not free memory beside it.
//
// deepep_high_throughput (DeepEPHTAll2AllManager, vllm/distributed/
// device_communicators/all2all.py:210-258) makes one deep_ep.Buffer a GPU,
// shared by every MoE layer through its handle cache, with num_nvl_bytes =
// VLLM_DEEPEP_BUFFER_SIZE_MB x 2^20 (default 1024, vllm/envs.py:271,
// 1916-1917) and num_rdma_bytes 0 within a node, as much again across
// nodes (all2all.py:218-229). DeepEP's Buffer (deepseek-ai/DeepEP,
// csrc/deep_ep.cpp; csrc/kernels/configs.cuh at 10e8a3b, which is not the
// d4f41e4 vLLM's tools/ep_kernels/install_python_libraries.sh:13 pins)
// cudaMallocs num_nvl_bytes plus its barrier signals and pointer tables
// (NUM_MAX_NVL_PEERS = 8 ints and two tables of 8 pointers), and a
// workspace of NUM_WORKSPACE_BYTES = 32 MiB. Across nodes the RDMA buffer
// lives in NVSHMEM's symmetric heap, sized by NVSHMEM's own environment:
// membudget refuses it by name, as it does the backends whose buffers
// their packages size (DeepEP's low-latency RDMA size hint, MoRI, NIXL EP,
// FlashInfer's workspaces).

// a2aSince is the first release whose all-to-all backends membudget sizes:
// main d18bb7b's all2all.py, which 0.28.0 (cut from main after
// 2026-08-14) carries; the flag came with PR #26732 in 0.11.0.
var a2aSince = v0_28_0

// a2aBackends are ParallelConfig's All2AllBackend choices at main d18bb7b
// (vllm/config/parallel.py:42-55).
var a2aBackends = []string{"naive", "pplx", "deepep_high_throughput", "deepep_low_latency", "deepep_v2", "mori_high_throughput", "mori_low_latency", "nixl_ep", "allgather_reducescatter", "flashinfer_all2allv", "flashinfer_nvlink_two_sided", "flashinfer_nvlink_one_sided"}

// a2aNeutral are the backends that hold no buffer beyond the collectives:
// allgather_reducescatter (AgRsAll2AllManager, all2all.py:44-153), and
// the removed pplx and naive it stands in for (parallel.py:467-473).
var a2aNeutral = []string{"allgather_reducescatter", "naive", "pplx"}

// deepepBufferMiB is VLLM_DEEPEP_BUFFER_SIZE_MB's default (vllm/envs.py:
// 271 and 1916-1917): the NVLink buffer of a GPU, in MiB.
const deepepBufferMiB = 1024

// deepepNVLExtra is what DeepEP's Buffer allocates with the NVLink buffer
// (csrc/deep_ep.cpp's constructor): NUM_MAX_NVL_PEERS = 8 int barrier
// signals, 8 buffer pointers and 8 barrier-signal pointers (csrc/kernels/
// configs.cuh): 8 x 4 + 8 x 8 + 8 x 8 bytes.
const deepepNVLExtra = 8*4 + 8*8 + 8*8

// deepepWorkspace is DeepEP's NUM_WORKSPACE_BYTES (csrc/kernels/
// configs.cuh): a second cudaMalloc of every Buffer.
const deepepWorkspace = 32 << 20

// deepepMaxNVLPeers is DeepEP's NUM_MAX_NVL_PEERS (csrc/kernels/
// configs.cuh): an expert-parallel group of more GPUs spans nodes, where
// vLLM adds the RDMA buffer.
const deepepMaxNVLPeers = 8

// cudaMallocGranularity is the 2 MiB page a cudaMalloc of this size is
// mapped in (the driver's allocation granularity, cuMemGetAllocation
// Granularity's recommended size on the GPUs vLLM's DeepEP runs on): the
// NVLink buffer's 160 bytes beyond 1 GiB take a page of their own.
const cudaMallocGranularity = 2 << 20

// registerAll2All registers --all2all-backend into b.
func registerAll2All(fs *flag.FlagSet, b *string) {
	fs.StringVar(b, "all2all-backend", "", "vLLM's --all2all-backend: allgather_reducescatter (default), deepep_high_throughput and deepep_low_latency (their buffers sized within a node); the others refused by name")
}

// resolveAll2All checks --all2all-backend as vLLM does and sizes the
// buffers its manager allocates on each GPU (see the file comment).
func (r *Resolved) resolveAll2All(a *model.Arch) error {
	r.All2AllBytes = 0
	b := r.All2AllBackend
	if b == "" {
		return nil
	}
	// The table's neutral value holds in every release that has the flag.
	if b == "allgather_reducescatter" {
		return nil
	}
	if r.Profile.Release.Less(a2aSince) {
		return settingErr("all2all-backend", "", "%s, %s: not modelled for %s (membudget reads the backends of vLLM %s on); membudget refuses it rather than size a serve vLLM would contradict", b, whatA2a, r.Profile.Describes, a2aSince)
	}
	if !slices.Contains(a2aBackends, b) {
		return settingErr("all2all-backend", b, "vLLM takes %s (vllm/config/parallel.py:42-55)", strings.Join(a2aBackends, ", "))
	}
	if slices.Contains(a2aNeutral, b) || !r.a2aBuffers(a) {
		// No manager without data parallelism, no buffer without expert
		// parallelism over it (see the file comment).
		return nil
	}
	if b == "deepep_low_latency" {
		return r.resolveDeepEPLL(a)
	}
	if b != "deepep_high_throughput" {
		return settingErr("all2all-backend", "", "%s, %s: not modelled for %s (its buffers are sized by its own package, not by vLLM: vllm/distributed/device_communicators/all2all.py); membudget refuses it rather than size a serve vLLM would contradict", b, a2aWhat(b), r.Profile.Describes)
	}
	ep := r.ExpertRanks
	if ep > deepepMaxNVLPeers || r.Collectives.Interconnect == budget.NoPeer {
		return settingErr("all2all-backend", "", "deepep_high_throughput over %d GPUs across nodes: DeepEP's RDMA buffer of %d MiB a GPU in NVSHMEM's symmetric heap, sized by NVSHMEM's environment (vllm/distributed/device_communicators/all2all.py:224-226): not modelled for %s; membudget sizes it within one node of at most %d GPUs; membudget refuses it rather than size a serve vLLM would contradict", ep, deepepBufferMiB, r.Profile.Describes, deepepMaxNVLPeers)
	}
	r.All2AllBytes = deepepHTBytes(deepepBufferMiB)
	return nil
}

// deepepHTGraphsOffSince is the first release surely holding vLLM's rule
// that deepep_high_throughput under data parallelism captures no CUDA
// graph at all (CompilationConfig.set_splitting_ops_for_v1, vllm/config/
// compilation.py:1232-1248 at main d18bb7b: "DeepEP: Disabling CUDA Graphs
// since DeepEP high-throughput kernels are optimized for prefill and are
// incompatible with CUDA Graphs"). Its history on main, read from the
// commits that touch that message:
//   - PR #18434 (2025-06-03) forced enforce_eager for it, the backend then
//     named by VLLM_ALL2ALL_BACKEND (vllm/platforms/cuda.py);
//   - PR #24123 (2025-09-09) kept PIECEWISE graphs with the MoE ops split
//     out, PR #25093 (2025-09-18) set NONE again (a torch.compile cache
//     key error), PR #25531 (2025-09-24) reworded its log;
//   - PR #29558 (2025-12-07) captured graphs again with the MoE ops split
//     out, and PR #30910 (2025-12-17) reverted that to NONE in its present
//     form, reading --all2all-backend.
//
// 0.14.0 is the first release cut surely after PR #30910; whether 0.13.0
// holds it is not read. membudget sizes the backend from a2aSince (0.28.0)
// and refuses it, and VLLM_ALL2ALL_BACKEND naming it, before that, so the
// rule holds in every release that reaches it.
var deepepHTGraphsOffSince = v0_14_0

// deepepHTGraphsOff says vLLM turns the serve's CUDA graphs off:
// --all2all-backend deepep_high_throughput with more than one
// data-parallel rank of a mixture-of-experts model (vLLM passes the DP
// size only for an is_moe model, one with experts, vllm/config/vllm.py:
// 1612-1621; model.py:2099-2100), expert parallelism or not. vLLM applies
// it under compilation mode VLLM_COMPILE only (set_splitting_ops_for_v1
// returns before it otherwise, compilation.py:1138-1142); the caller
// checks the mode.
func (r *Resolved) deepepHTGraphsOff(a *model.Arch) bool {
	return r.All2AllBackend == "deepep_high_throughput" && r.DataParallelSize > 1 && a != nil && a.Experts > 0 && r.Profile.Release.AtLeast(deepepHTGraphsOffSince)
}

// a2aBuffers says the serve's MoE layers ask the all-to-all manager for
// buffers: expert parallelism over more than one data-parallel rank.
func (r *Resolved) a2aBuffers(a *model.Arch) bool {
	return r.EnableExpertParallel && a != nil && a.Experts > 0 && r.DataParallelSize > 1
}

// deepepHTBytes is DeepEP's two cudaMallocs of a high-throughput Buffer
// within a node: the NVLink buffer of mib MiB with its signals, in whole
// 2 MiB pages, and the workspace.
func deepepHTBytes(mib uint64) uint64 {
	nvl := budget.SatAdd(budget.SatMul(mib, 1<<20), deepepNVLExtra)
	nvl = budget.SatMul(budget.CeilDiv(nvl, cudaMallocGranularity), cudaMallocGranularity)
	return budget.SatAdd(nvl, deepepWorkspace)
}

// a2aWhat is what backend b would add, for its refusal.
func a2aWhat(b string) string {
	switch b {
	case "deepep_low_latency":
		return fmt.Sprintf("DeepEP low-latency's NVLink buffer of %d MiB and its RDMA buffer of deep_ep.Buffer.get_low_latency_rdma_size_hint(max tokens a DP rank, hidden size, EP ranks, experts), a size DeepEP computes (all2all.py:286-327)", deepepBufferMiB)
	case "deepep_v2":
		return "DeepEP v2's buffers, sized by DeepEP"
	case "mori_high_throughput", "mori_low_latency":
		return "MoRI EP's buffers, sized by the mori package"
	case "nixl_ep":
		return "NIXL EP's RDMA buffer of nixl_ep's Buffer.get_rdma_size_hint and its counters (all2all.py:407-432)"
	}
	return "FlashInfer's all-to-all workspace, sized by FlashInfer"
}

// a2aEnv refuses VLLM_DEEPEP_BUFFER_SIZE_MB other than its default in a
// line whose DeepEP buffers membudget sizes: it sizes the default. name,
// value and assignment are the line's NAME, value and NAME=value.
func a2aEnv(name, value, assignment, backend string, p Profile) error {
	if name != "VLLM_DEEPEP_BUFFER_SIZE_MB" || backend != "deepep_high_throughput" && backend != "deepep_low_latency" || p.Release.Less(a2aSince) {
		return nil
	}
	if n, err := strconv.Atoi(strings.TrimSpace(value)); err == nil && n == deepepBufferMiB {
		return nil
	}
	return fmt.Errorf("%s in the launch line: DeepEP's NVLink buffer of that many MiB a GPU (vllm/distributed/device_communicators/all2all.py:220): not modelled for %s, which sizes its default of %d MiB; membudget refuses it rather than size a serve vLLM would contradict", assignment, p.Describes, deepepBufferMiB)
}

// writeAll2AllFlags writes --all2all-backend to a launch line, as given.
func writeAll2AllFlags(b *strings.Builder, backend string) {
	if backend == "" {
		return
	}
	b.WriteString(" --all2all-backend ")
	b.WriteString(backend)
}

// appendA2AItems appends the all-to-all backend's buffers to a GPU's
// ledger: non-torch memory the profile counts (see the file comment).
func appendA2AItems(items []budget.Item, r *Resolved) []budget.Item {
	if r.All2AllBytes == 0 {
		return items
	}
	return append(items, budget.Item{Name: "deepep_buffers", Term: budget.TermNonTorch, Bytes: r.All2AllBytes})
}

// a2aSettings is the line a report prints of the serve's all-to-all
// buffers.
func (sz *Sizing) a2aSettings() []string {
	var out []string
	switch {
	case sz.Serve.All2AllBytes == 0:
	case sz.Serve.All2AllBackend == "deepep_low_latency":
		out = append(out, sz.deepepLLSettings())
	default:
		out = append(out, fmt.Sprintf("all-to-all: DeepEP high-throughput buffers of %s a GPU (its %d MiB NVLink buffer and 32 MiB workspace), allocated while the model loads and counted in the util budget; sized for an expert-parallel group within one node (across nodes vLLM adds as much RDMA buffer, which membudget refuses)",
			engine.GiB(sz.Serve.All2AllBytes), deepepBufferMiB))
	}
	if why := sz.Serve.deepepHTGraphsWhy(); why != "" {
		out = append(out, "CUDA graphs: none: "+why)
	}
	return out
}

// deepepHTGraphsWhy is the rule that turned the serve's CUDA graphs off
// for deepep_high_throughput, with its source; empty where it did not.
func (r *Resolved) deepepHTGraphsWhy() string {
	if !r.Graphs.OffForDeepEPHT {
		return ""
	}
	return fmt.Sprintf("vLLM sets cudagraph_mode NONE for --all2all-backend deepep_high_throughput at --data-parallel-size %d (\"DeepEP high-throughput kernels are optimized for prefill and are incompatible with CUDA Graphs\", vllm/config/compilation.py:1232-1248, since %s), so no graph pool and no graph estimate",
		r.DataParallelSize, deepepHTGraphsOffSince)
}

// splitA2A names the all-to-all buffers in a footprint's lines: the
// non-torch line without them, then "all-to-all buffers" (the sum is the
// non-torch term).
func (sz *Sizing) splitA2A(lines []engine.FootprintLine) []engine.FootprintLine {
	return splitOut(lines, budget.TermNonTorch, "all-to-all buffers", sz.Serve.All2AllBytes)
}

// dropUnsizedA2A keeps a log's all-to-all backend where membudget sizes
// it for the log's serve under p; elsewhere (a release before a2aSince, a
// backend its package sizes, a group across nodes) it leaves it out of
// the serve with a warning: the log is explained, short of its buffers.
func (ls *loggedServe) dropUnsizedA2A(a *model.Arch, c budget.Class, p Profile) {
	if ls.Serve.All2AllBackend == "" {
		return
	}
	r := Resolved{Serve: ls.Serve, Profile: p}
	r.TensorParallelSize, r.DataParallelSize = max(r.TensorParallelSize, 1), max(r.DataParallelSize, 1)
	if r.EnableExpertParallel && a != nil && a.Experts > 0 {
		r.ExpertRanks = r.TensorParallelSize * r.DataParallelSize
	}
	r.Collectives.Interconnect = c.Device.Interconnect
	if r.Interconnect != "" {
		r.Collectives.Interconnect = r.Interconnect
	}
	err := r.resolveAll2All(a)
	if err == nil {
		return
	}
	b := ls.Serve.All2AllBackend
	ls.Serve.All2AllBackend = ""
	delete(ls.From, "all2all-backend")
	// err repeats the logged value: the refusal's first clause alone.
	why, _, _ := strings.Cut(err.Error(), ": not modelled")
	ls.Warnings = append(ls.Warnings, fmt.Sprintf("the log's serve uses the all-to-all backend %s, whose buffers membudget does not size for it (%s): its predictions leave them out", untrusted.Text(b), untrusted.Text(why)))
}

// a2aJSON is the serve's all-to-all backend: the report's
// "serve"."all2all".
type a2aJSON struct {
	Backend string `json:"all2all_backend"`
	// BufferBytes is the backend's buffers on each GPU, non-torch memory
	// the util budget pays; 0 where the serve asks for none.
	BufferBytes uint64 `json:"buffer_bytes"`
	// RDMAHintBytes is deepep_low_latency's get_low_latency_rdma_size_hint,
	// the RDMA buffer DeepEP asks of NVSHMEM (deepep_ll.go); 0 otherwise.
	RDMAHintBytes uint64 `json:"rdma_hint_bytes,omitempty"`
	// GraphsOff is why the serve captures no CUDA graph where vLLM turns
	// them off for deepep_high_throughput under data parallelism (the
	// rule and its source); empty otherwise.
	GraphsOff string `json:"cuda_graphs_off,omitempty"`
}

// a2aJSON is the sizing's all-to-all backend for the report, nil when the
// serve names none.
func (sz *Sizing) a2aJSON() *a2aJSON {
	if sz.Serve.All2AllBackend == "" {
		return nil
	}
	j := &a2aJSON{Backend: sz.Serve.All2AllBackend, BufferBytes: sz.Serve.All2AllBytes, GraphsOff: sz.Serve.deepepHTGraphsWhy()}
	if j.Backend == "deepep_low_latency" && j.BufferBytes > 0 {
		args := sz.Serve.deepepLLArgsOf(sz.Model.Arch)
		j.RDMAHintBytes = deepepLLRDMAHint(args.Tokens, args.Hidden, args.Experts)
	}
	return j
}
