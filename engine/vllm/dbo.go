package vllm

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"membudget/engine"
)

// This file judges --enable-dbo (dual-batch overlap) and --ubatch-size,
// which membudget refuses: it names what they add to a serve and where
// vLLM allocates it, and stops a line vLLM itself would stop. Every rule
// is vLLM main's at commit d18bb7b (2026-08-14).
//
// ParallelConfig.use_ubatching is enable_dbo or ubatch_size > 1, and
// num_ubatches 2 under DBO, else ubatch_size (vllm/config/parallel.py:
// 554-559). VllmConfig then asserts the all-to-all backend is
// deepep_low_latency, deepep_high_throughput or nixl_ep (vllm/config/
// vllm.py:1682-1694; nixl_ep since PR #45275, merged 2026-06-16), and DBO
// sends a serve the V2 runner would take back to V1 (vllm/config/
// vllm.py:2453-2454). On V1, DBO changes memory in four places:
//
//   - The profile run splits. profile_run calls _dummy_run with
//     max_num_tokens and microbatching allowed (gpu_model_runner.py:
//     6602-6604, 5930); coordinate_batch_across_dp attempts it when the
//     tokens reach dbo_prefill_token_threshold, 512 by default (the dummy
//     batch is not a uniform decode; vllm/v1/worker/dp_utils.py:201-210,
//     ubatch_utils.py:38-46, parallel.py:221), so a profile of 512 tokens
//     or more runs as two micro-batches of half the tokens
//     (ubatch_utils.py:63-114), each on its own thread, the two threads
//     handing over at the MoE's dispatch and combine (gpu_ubatch_wrapper.
//     py:305-341; fused_moe/modular_kernel.py:1233-1258): both halves'
//     activations are live at once, and their outputs are concatenated
//     into a third tensor (gpu_ubatch_wrapper.py:34-48, 339-340). The
//     activation peak of that interleaving is not the one membudget
//     models.
//   - The workspace manager holds one workspace a micro-batch
//     (gpu_worker.py:406-407; workspace.py:38-44), each grown at its own
//     micro-batch's first request (workspace.py:119-179): the fused-MoE
//     caches of peaks.go's moeWorkspace twice, at the split run's tokens.
//     Each micro-batch thread also makes its own cuBLAS handle on the
//     compute and on the communication stream (gpu_ubatch_wrapper.py:
//     236-242), whose workspaces PyTorch keeps per handle and stream
//     (the cublas_handle_stream_to_workspace map of PyTorch's aten/src/
//     ATen/cuda/CublasHandlePool.cpp), allocated by its caching allocator.
//     Where the profile does not split (the 256 tokens vLLM defaults to
//     for deepep_low_latency, deepep_ll.go), these come at the first split
//     run: the capture's warmups, after the KV cache is allocated.
//   - The CUDA graphs: a uniform-decode FULL graph of at least
//     dbo_decode_token_threshold tokens (32 by default, parallel.py:216) is
//     captured as two micro-batches by UBatchWrapper in the shared pool,
//     its output concatenated inside the graph (gpu_model_runner.py:
//     5562-5570, 7116-7134; gpu_ubatch_wrapper.py:212-303), while vLLM's
//     graph estimate captures every size without micro-batching
//     (profile_cudagraph_memory, :6851, allow_microbatching False by
//     default, :7044): the graphs vLLM charges are not the ones it keeps.
//     With deepep_high_throughput under data parallelism vLLM captures no
//     graph at all (vllm/config/compilation.py:1232-1248).
//   - The all-to-all buffers are not doubled: one deep_ep.Buffer a GPU
//     serves both micro-batches, each keeping its own dispatch handle
//     (fused_moe/prepare_finalize/deepep_ht.py:65-68, deepep_ll.py:
//     100-103), so all2all.go's and deepep_ll.go's sizes stand. EPLB keeps
//     one int32 token count a micro-batch (eplb.go).

// dboBackendsSince is the first release whose DBO backend check membudget
// reads: main d18bb7b's list, nixl_ep in it since PR #45275 (merged
// 2026-06-16), which 0.24.0 (cut between 06-18 and 06-30) holds. Before
// it, the check named fewer backends, from VLLM_ALL2ALL_BACKEND at first
// (PR #23693): membudget refuses DBO there without it.
var dboBackendsSince = v0_24_0

// dboBackends are the all-to-all backends vLLM takes under micro-batching
// (vllm/config/vllm.py:1682-1694).
var dboBackends = []string{"deepep_low_latency", "deepep_high_throughput", "nixl_ep"}

// dboDefaultBackend is ParallelConfig.all2all_backend's default
// (vllm/config/parallel.py:188).
const dboDefaultBackend = "allgather_reducescatter"

// dboPrefillThreshold and dboDecodeThreshold are ParallelConfig's
// dbo_prefill_token_threshold and dbo_decode_token_threshold defaults
// (vllm/config/parallel.py:221, 216).
const (
	dboPrefillThreshold = 512
	dboDecodeThreshold  = 32
)

// judgeDBO is the error of --enable-dbo or --ubatch-size (given as
// asGiven) in the line args for release p, once the flag is on: vLLM's
// own stop where its backend check fails, else a refusal naming what
// micro-batching adds for the line's backend (see the file comment).
func judgeDBO(p Profile, args []string, asGiven string) error {
	backend := engine.LastValue(args, "all2all-backend")
	named := backend
	switch {
	case backend == "":
		named = dboDefaultBackend + " (the default)"
	case slices.Contains(a2aNeutral, backend) && backend != dboDefaultBackend:
		// Removed backends vLLM replaces with the default
		// (vllm/config/parallel.py:467-473) before the check.
		named = backend + " (taken as " + dboDefaultBackend + ")"
	}
	if !p.Release.Less(dboBackendsSince) && !slices.Contains(dboBackends, backend) && (backend == "" || slices.Contains(a2aBackends, backend)) {
		return fmt.Errorf("%s: vLLM stops at startup with --all2all-backend %s: \"Microbatching currently only supports the deepep_low_latency, deepep_high_throughput, and nixl_ep all2all backends\" (vllm/config/vllm.py:1682-1694 at main d18bb7b); give one of them", asGiven, named)
	}
	return fmt.Errorf("%s: %s: not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", asGiven, dboWhat(p, args, backend), p.Describes)
}

// dboUbatches is the line's micro-batches, ParallelConfig.num_ubatches,
// and whether --enable-dbo is on: 2 under it, else --ubatch-size
// (vllm/config/parallel.py:553-559).
func dboUbatches(args []string) (n uint64, dbo bool) {
	for i, a := range args {
		if a == "--" {
			break
		}
		switch engine.FlagName(a) {
		case "enable-dbo":
			v, _ := engine.FlagValue(args, i, false)
			dbo = !isFalse(v)
		case "no-enable-dbo":
			dbo = false
		}
	}
	if dbo {
		return 2, true
	}
	n, err := strconv.ParseUint(strings.TrimSpace(engine.LastValue(args, "ubatch-size")), 10, 64)
	if err != nil || n < 2 {
		n = 2 // Judge calls judgeDBO with micro-batching on alone
	}
	return n, false
}

// dboSlotsApartSince is the first release surely holding PR #39226
// (merged 2026-04-23), from which a workspace grows alone
// (workspace.py:164-178); before it one growth grew every micro-batch's
// slot at once, so even a profile that does not split held two. v0.20.2rc1
// (2026-05-02) is the first tag surely after it (version.go's v0_20_2).
var dboSlotsApartSince = v0_20_2

// dboWhat is what micro-batching adds under release p to the line args
// with all-to-all backend (empty: the default), for its refusal: the
// micro-batches (dboUbatches) and the thresholds as the line gives them
// or their defaults. --ubatch-size without --enable-dbo splits in its
// count, but the workspace manager keeps one slot then (gpu_worker.py:
// 406-407 since PR #27532), which the later micro-batches' ids index past
// (workspace.py:128-129): said, not sized.
func dboWhat(p Profile, args []string, backend string) string {
	prefill := dboThreshold(args, "dbo-prefill-token-threshold", dboPrefillThreshold)
	decode := dboThreshold(args, "dbo-decode-token-threshold", dboDecodeThreshold)
	n, dbo := dboUbatches(args)
	var b strings.Builder
	if dbo {
		fmt.Fprintf(&b, "dual-batch overlap's second micro-batch: a profile run of max_num_batched_tokens >= %s is split in two halves run on two threads that hand over at the MoE's dispatch and combine, both halves' activations live at once and their outputs concatenated (vllm/v1/worker/gpu_model_runner.py:6602-6604, ubatch_utils.py:38-114, gpu_ubatch_wrapper.py:305-341); ", prefill)
	} else {
		fmt.Fprintf(&b, "micro-batching in %d (--ubatch-size): a profile run of max_num_batched_tokens >= %s is split in %d parts run on %d threads that hand over at the MoE's dispatch and combine, every part's activations live at once and their outputs concatenated (vllm/v1/worker/gpu_model_runner.py:6602-6604, ubatch_utils.py:38-114, gpu_ubatch_wrapper.py:305-341); ", n, prefill, n, n)
	}
	if !p.Release.Less(v0_14_0) {
		// The workspace manager came with PR #27532 (peaks.go's
		// moeWorkspace, from 0.14.0); before it each pass allocated its
		// own fused-MoE caches, activations of the split above.
		if dbo {
			b.WriteString("a second fused-MoE workspace, one a micro-batch (gpu_worker.py:406-407, workspace.py:38-44, 119-179), and ")
		} else {
			b.WriteString("a fused-MoE workspace manager of one slot, as without --enable-dbo (gpu_worker.py:406-407), which the later micro-batches' ids index past (workspace.py:128-129), and ")
		}
	}
	b.WriteString("each thread's cuBLAS workspaces on the compute and communication streams (gpu_ubatch_wrapper.py:236-242), allocated at the first split run, in the profile or else in the graph capture's warmups after the KV cache")
	if dbo && !p.Release.Less(v0_14_0) && p.Release.Less(dboSlotsApartSince) {
		b.WriteString(" (before PR #39226 of 2026-04-23, which this release may predate, one growth grew both workspaces, so even an unsplit profile held two)")
	}
	if backend != "deepep_high_throughput" {
		parts := "two"
		if !dbo {
			parts = strconv.FormatUint(n, 10)
		}
		fmt.Fprintf(&b, "; the uniform-decode FULL CUDA graphs of %s tokens or more captured as %s micro-batches in the shared pool (gpu_model_runner.py:7116-7134, gpu_ubatch_wrapper.py:212-303), which vLLM's graph estimate captures whole (:6851, 7044)", decode, parts)
	}
	b.WriteString("; the all-to-all buffers are not doubled (one deep_ep.Buffer a GPU, a dispatch handle a micro-batch: fused_moe/prepare_finalize/deepep_ht.py:65-68, deepep_ll.py:100-103)")
	return b.String()
}

// dboThreshold is the line's --name as a token count, or the default def
// with its source where the line does not give a count.
func dboThreshold(args []string, name string, def int) string {
	v := strings.TrimSpace(engine.LastValue(args, name))
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return fmt.Sprintf("%d (--%s)", n, name)
	}
	return fmt.Sprintf("%d (--%s's default)", def, name)
}
