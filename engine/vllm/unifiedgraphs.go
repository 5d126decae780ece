package vllm

import (
	"fmt"
	"io"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/logs"
)

// What vLLM's CUDA-graph estimate reads on a unified-memory device (a class
// with memory.unified: GB10, Jetson), and why membudget charges it there as
// on a discrete GPU but names it host-dependent.
//
// vLLM's profile_cudagraph_memory (vllm/v1/worker/gpu_model_runner.py at
// main d18bb7b) captures the first two sizes of each mode into a throwaway
// pool and reads each capture as the driver's free memory before less
// after (:6850-6865): torch.cuda.mem_get_info from PR #30515 (2026-03-07,
// printed from 0.18.0), torch.accelerator.get_memory_info from PR #44825
// (2026-06-30), cudaMemGetInfo on CUDA either way. The unified-memory
// switch to psutil's MemAvailable (mem_utils.py:147-155, by compute
// capability from 2025-10-03, by is_integrated from PR #35356 of
// 2026-04-14) is MemorySnapshot's, the startup snapshot and the profile
// run's: the graph samples never took it. On an integrated GPU
// cudaMemGetInfo reports the host's free pages, the page cache counted as
// used (vLLM's own comment, mem_utils.py:115-122 before #35356), so each
// sample is what the capture pool takes of the shared memory plus what
// every process and the kernel took or gave back on the host meanwhile:
// the page cache filled or reclaimed, another engine loading or exiting,
// the worker's own heap.
//
// The extrapolation keeps the sign: a mode's estimate is its first sample,
// unclamped, plus (graphs - 1) x its second sample clamped below at 1 MiB
// (:6867-6874); the decoder's estimate is the largest first sample of the
// modes plus every mode's extrapolated part (:6919-6921). Only the encoder
// graphs' sample is clamped at 0 (:6890, PR #41714). The worker takes the
// estimate off the KV budget as it is, from 0.20.0 (PR #38284, 2026-04-21;
// VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on by default):
// available = requested - non_kv - estimate (gpu_worker.py:545-549 at
// d18bb7b, :421-425 at #38284), so a negative estimate adds to the KV
// cache; its "equivalent to --gpu-memory-utilization" line (:569-588) and
// the pool's "(estimated)" comparison (:720-735) are printed for a
// positive estimate alone. Up to 0.26.0 the captures ran inside the
// memory_profiling window, so on unified memory what they leave on the
// host also enters the non-torch increase (MemAvailable); PR #49208
// (2026-07-20, 0.26.1) moved them after it. The V2 runner's estimate is 0
// at d18bb7b (vllm/v1/worker/gpu/model_runner.py:835-837); 0.29.0's
// reservation (PR #53306) is read as V1's, not read on unified memory.
//
// The GB10 rows show the host's share, both ways (corpus/observed/
// vllm.csv): row 201 (0.20.1rc1, 51 PIECEWISE graphs) logs -4.74 GiB, so
// its first capture read at least 4.78 GiB more free after than before
// (-4.74 less 50 graphs of at least 1 MiB); row 209 (0.20.2,
// max_cudagraph_capture_size 1: at most one graph a mode, no second
// sample multiplied) logs -0.90 GiB, the larger of its modes' first
// captures; row 380 (0.20.2)
// logs util 0.8000 "equivalent to 0.7924 without CUDA graph memory
// profiling", (0.8000 - 0.7924) x 121.69 GiB = 0.92 GiB, where membudget
// charges 0.37 (unmetGates "0.20.2"); row 381's notes give 0.741 for
// 0.75, about 1.1 GiB against 0.73; row 331 (a 0.19.2 nightly) logs 0.93
// against 0.84 and row 208 (0.22.1) 0.19 against 0.36. No rule of the
// serve's settings gives the host's share: the same serve on the same box
// reads what its host did in those seconds. The source gives no clamp to
// model either (vLLM clamps nothing but the per-graph sample, and
// membudget's estimate, the graphs' own, is never below 0), so membudget
// charges the graphs' own pool, what a quiet host reads, and says the
// term is host-dependent: the report under "vLLM starts" and explain's
// notes ([unifiedGraphNote]).

// unifiedGraphRows is the evidence [writeUnifiedGraphs] and
// [unifiedGraphNote] cite (TestUnifiedGraphRows pins the logged figures).
const unifiedGraphRows = "corpus/observed/vllm.csv rows 201 and 209 (GB10, vLLM 0.20.1 and 0.20.2) log -4.74 and -0.90 GiB, which vLLM added to their KV cache; row 380 (GB10, 0.20.2) logs an equivalent util that puts it at 0.92 GiB, where membudget charges 0.37"

// hostGraphEstimate says the estimate r's vLLM takes off the KV budget is
// read from the host: a unified-memory class where graphSwing says the
// estimate sizes the KV cache (charged by the release and runner, graphs
// captured, the KV cache not pinned).
func hostGraphEstimate(r *Resolved, a *model.Arch) bool {
	if !r.unified {
		return false
	}
	_, _, ok := graphSwing(r, a)
	return ok
}

// v2Sampling is what the unified and graph-margin notes add on the V2
// runner, whose reservation (0.29.0, PR #53306) membudget reads as V1's
// estimate without having read how it samples.
func v2Sampling(r *Resolved, a *model.Arch) string {
	if !r.onV2Runner(a) {
		return ""
	}
	return "; the V2 runner's reservation (PR #53306) is taken to sample as V1's does, not read"
}

// unifiedGraphsJSON is the report's "graph_estimate_host_dependent":
// present where vLLM starts the serve on a unified-memory device whose
// release charges the CUDA-graph estimate.
type unifiedGraphsJSON struct {
	// EstimateBytes is the estimate charged: the graphs' own pool.
	EstimateBytes uint64 `json:"estimate_bytes"`
	// Evidence names the observed rows whose estimate moved with the host.
	Evidence string `json:"evidence"`
}

// unifiedGraphsField is the report's graph_estimate_host_dependent, where
// its text has the line ([Sizing.writeUnifiedGraphs]).
func (sz *Sizing) unifiedGraphsField(fp budget.Footprint) []engine.Field {
	if !sz.startsProfiled() || !hostGraphEstimate(sz.Serve, sz.Model.Arch) {
		return nil
	}
	return []engine.Field{{Key: "graph_estimate_host_dependent", Value: unifiedGraphsJSON{EstimateBytes: fp.Terms[budget.TermGraphPool], Evidence: unifiedGraphRows}}}
}

// writeUnifiedGraphs writes, under "vLLM starts" on a unified-memory
// device whose release charges the CUDA-graph estimate, that the estimate
// is read from the host (see the comment at the head of this file).
func (sz *Sizing) writeUnifiedGraphs(w io.Writer, graphBytes uint64) {
	if !hostGraphEstimate(sz.Serve, sz.Model.Arch) {
		return
	}
	fmt.Fprintf(w, "  host-dependent graph estimate: on this unified device vLLM reads its CUDA-graph estimate (%s charged: the graphs' own pool) as the driver's free memory before and after each capture, which here is the host's free pages, so what the host takes or frees meanwhile (page cache, other processes) enters it either way, unclamped, and vLLM takes it off the KV cache as it is: the KV cache moves by as much from one start to the next (%s%s)\n",
		engine.GiB(graphBytes), unifiedGraphRows, v2Sampling(sz.Serve, sz.Model.Arch))
}

// unifiedGraphNote is explain's note on a unified-memory device where the
// log states a CUDA-graph estimate or the release charges one: a negative
// logged estimate is the host's, added to the KV cache; otherwise the
// estimate is named host-dependent. "" off unified memory, or where there
// is neither.
func unifiedGraphNote(l *logs.Log, p Predicted, r *Resolved, a *model.Arch) string {
	if !r.unified {
		return ""
	}
	charged := hostGraphEstimate(r, a)
	est, logged := l.First(logs.KindCUDAGraphEstimate)
	b, ok := est.Bytes()
	if logged && ok && b < 0 {
		what := fmt.Sprintf("vLLM subtracts it as it is (gpu_worker.py:545-549 at d18bb7b), so its available KV memory is the requested memory less the non-KV memory plus %s, where membudget charges the graphs' own %s: %s of the available KV memory's gap is this term", engine.GiB(uint64(-b)), engine.GiB(p.GraphBytes), engine.GiB(budget.SatAdd(uint64(-b), p.GraphBytes)))
		if !charged {
			what = r.Profile.Describes + " does not take the estimate off the KV cache, so the KV cache is not moved by it"
		}
		return fmt.Sprintf("the log's CUDA-graph estimate is negative (line %d: %s): the free memory vLLM read rose across its captures, and on this unified device that reading is the host's free pages, so what the host gave back meanwhile entered it; %s (%s)", est.Line, est.Text, what, unifiedGraphRows)
	}
	if !charged {
		return ""
	}
	return fmt.Sprintf("host-dependent graph estimate: on this unified device vLLM reads its CUDA-graph estimate from the host's free pages, so what the host takes or frees during its captures enters it either way and moves the available KV memory by as much; membudget predicts the graphs' own %s (%s%s)", engine.GiB(p.GraphBytes), unifiedGraphRows, v2Sampling(r, a))
}
