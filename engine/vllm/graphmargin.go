package vllm

import (
	"fmt"
	"io"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/torchalloc"
	"membudget/model"
)

// This file says when a "vLLM starts" or a "fits" rests on less margin
// than vLLM's own CUDA-graph estimate can move from one start to the next.
//
// vLLM's profile_cudagraph_memory (vllm/v1/worker/gpu_model_runner.py at
// d18bb7b, main of 2026-08-14: :6846-6874, :6919-6924) captures the first
// two sizes of each mode into a throwaway pool, reads each as a
// difference of free device memory, and extrapolates: max(the modes'
// first captures) + sum over the modes of (graphs - 1) x the mode's second
// capture (a mode of one graph multiplies its second sample by 0). A
// second capture's requests of 1-10 MiB come from PyTorch's caching
// allocator in segments of kLargeBuffer, 20 MiB
// (c10/cuda/CUDACachingAllocator.cpp, engine/torchalloc.LargeSegment): a
// sample that lands one new segment reads 20 MiB more, and the estimate
// moves by (graphs - 1) x 20 MiB. vLLM 0.19's logs show it: rows 148, 135
// and 179 of corpus/observed/vllm.csv carry a PIECEWISE sample 16-20 MiB
// above their twins' (rows 145, 138, 178), and their logged estimates are
// 0.87, 0.67 and 0.63 GiB above membudget's where the twins' are not
// (TestGraphEstimateSamples). Where the profile charges the estimate to
// the KV budget (GraphsCharged: 0.20.0 on, on the V1 model runner, and
// the V2 runner from 0.29.0, PR #53306), the KV memory vLLM gets is that
// much smaller on such a start: a serve whose margin is below the move is
// refused on some starts and not on others.
//
// membudget charges the estimate vLLM computes on a start whose samples
// land no new segment (graphBytes, within 0.1 GiB on 21 of 35 rows of
// 0.19), and keeps it: the move is a note beside the verdict, not a
// change of it (see [graphMargin]).

// graphSampleStep is what one new allocator segment adds to one second
// capture: PyTorch's kLargeBuffer, the segment its caching allocator
// serves requests of 1-10 MiB from (c10/cuda/CUDACachingAllocator.cpp).
const graphSampleStep = torchalloc.LargeSegment

// graphSampleRows are the observed rows whose logged estimate moved by
// one segment in one sample (TestGraphEstimateSamples pins them).
const graphSampleRows = "corpus/observed/vllm.csv rows 148, 135, 179 (vLLM 0.19): one PIECEWISE sample 16-20 MiB above its twin's, the logged estimate 0.63-0.87 GiB above membudget's"

// graphMode is one CUDA-graph mode vLLM's estimate samples: the graphs
// captured in it and how far a new segment in its second sample moves
// the estimate.
type graphMode struct {
	Mode   string `json:"mode"`
	Graphs uint64 `json:"graphs"`
	// SwingBytes is (Graphs - 1) x 20 MiB, 0 for a mode of one graph.
	SwingBytes uint64 `json:"swing_bytes"`
}

// graphSwing is how far vLLM's CUDA-graph estimate can move up on one
// start: per mode that samples a second size, (graphs - 1) x
// graphSampleStep. The modes and their graph counts are graphBytes':
// the mixed batches' graphs (PIECEWISE, or FULL under cudagraph_mode
// FULL) and the FULL decode graphs, each count times the LoRA cases
// (loraGraphCases), as vLLM's capture descriptors list them. ok is false
// where the estimate does not size the KV cache: graphs beside the budget
// (before 0.20.0, the V2 runner before 0.29.0), none captured
// (--enforce-eager, cudagraph_mode NONE), a KV cache pinned by
// --kv-cache-memory-bytes (vLLM profiles nothing: gpu_worker.py:474-495)
// or by --num-gpu-blocks-override (its startup check plans against the
// override: kv_cache_utils.py:2162-2182).
func graphSwing(r *Resolved, a *model.Arch) (modes []graphMode, total uint64, ok bool) {
	if r.Profile.graphsOn(r.onV2Runner(a)) != GraphsCharged || r.KVCacheMemoryBytes > 0 || r.NumGPUBlocksOverride > 0 {
		return nil, 0, false
	}
	mixed, decode := r.Graphs.counts()
	if mixed+decode == 0 {
		return nil, 0, false
	}
	cases := loraGraphCases(r)
	mixedMode := graphsPiecewise
	if r.Graphs.Mode == graphsFull && !r.Graphs.FullAsBoth {
		mixedMode = graphsFull
	}
	for _, m := range []struct {
		mode string
		n    uint64
	}{{mixedMode, mixed}, {"FULL decode", decode}} {
		if m.n == 0 {
			continue
		}
		g := budget.SatMul(cases, m.n)
		swing := budget.SatMul(g-1, graphSampleStep)
		modes = append(modes, graphMode{Mode: m.mode, Graphs: g, SwingBytes: swing})
		total = budget.SatAdd(total, swing)
	}
	return modes, total, true
}

// graphMarginJSON is the report's "graph_estimate_margin": present where
// vLLM starts the serve (or the footprint fits) on less margin than its
// CUDA-graph estimate can move.
type graphMarginJSON struct {
	// EstimateBytes is the CUDA-graph estimate charged (membudget's).
	EstimateBytes uint64 `json:"estimate_bytes"`
	// SwingBytes is how far vLLM's estimate can move up on one start: the
	// modes' SwingBytes summed.
	SwingBytes uint64      `json:"swing_bytes"`
	Modes      []graphMode `json:"modes"`
	// StartMarginBytes is the available KV memory less what vLLM's startup
	// check needs, the least over the stages (and, for a model vLLM
	// checks Mamba cache blocks for, less max_num_seqs blocks).
	StartMarginBytes uint64 `json:"start_margin_bytes"`
	// StartAtRisk says StartMarginBytes is below SwingBytes.
	StartAtRisk bool `json:"start_at_risk"`
	// FitMarginBytes is the util budget less the ledger of the sized
	// sequences (the budget's headroom); FitAtRisk says it is below
	// SwingBytes where the footprint fits.
	FitMarginBytes uint64 `json:"fit_margin_bytes"`
	FitAtRisk      bool   `json:"fit_at_risk"`
	// Evidence names the observed rows the move was seen on.
	Evidence string `json:"evidence"`
}

// graphMargin is what the report says of the graph estimate's move at fp,
// ok false where it says nothing: vLLM does not start the serve, the
// estimate sizes no KV cache (graphSwing), or both margins hold the move.
//
// The verdict is kept: membudget's report has two states, fits or not
// (the JSON's "fits", check's FITS/FAILS, the exit status), and the
// charged estimate is the one vLLM computes on a start whose samples land
// no new segment, which most starts are (11 of the 14 sampled rows of
// 0.19). Saying "does not fit" would contradict vLLM on most starts of the
// same serve, and charging the move would shift every figure the observed
// table checks; the note says on what the verdict rests instead, as the
// cold-compile note does for a first start.
func (sz *Sizing) graphMargin(fp budget.Footprint) (graphMarginJSON, bool) {
	if !sz.startsProfiled() || sz.plan == nil {
		return graphMarginJSON{}, false
	}
	modes, swing, ok := graphSwing(sz.Serve, sz.Model.Arch)
	if !ok {
		return graphMarginJSON{}, false
	}
	g := graphMarginJSON{EstimateBytes: fp.Terms[budget.TermGraphPool], SwingBytes: swing, Modes: modes,
		StartMarginBytes: sz.capacity.StartMargin, FitMarginBytes: fp.BudgetHeadroom(), Evidence: graphSampleRows}
	g.StartAtRisk = g.StartMarginBytes < swing
	g.FitAtRisk = fp.Fits() && g.FitMarginBytes < swing
	return g, g.StartAtRisk || g.FitAtRisk
}

// graphMarginField is the report's graph_estimate_margin, where its text
// has the note.
func (sz *Sizing) graphMarginField(fp budget.Footprint) []engine.Field {
	g, ok := sz.graphMargin(fp)
	if !ok {
		return nil
	}
	return []engine.Field{{Key: "graph_estimate_margin", Value: g}}
}

// writeGraphMargin writes the note under "vLLM starts" where the start or
// the fit rests on less margin than vLLM's graph estimate can move.
func (sz *Sizing) writeGraphMargin(w io.Writer, fp budget.Footprint) {
	g, ok := sz.graphMargin(fp)
	if !ok {
		return
	}
	var rests []string
	if g.StartAtRisk {
		rests = append(rests, fmt.Sprintf("the start rests on %s of KV memory above what vLLM's startup check needs", engine.GiB(g.StartMarginBytes)))
	}
	if g.FitAtRisk {
		rests = append(rests, fmt.Sprintf("the fit on %s of util budget above the sized sequences' ledger", engine.GiB(g.FitMarginBytes)))
	}
	var per []string
	for _, m := range g.Modes {
		per = append(per, fmt.Sprintf("%s %d graphs: %s", m.Mode, m.Graphs, engine.GiB(m.SwingBytes)))
	}
	fmt.Fprintf(w, "  graph-estimate margin: %s; vLLM's CUDA-graph estimate (%s charged) can come out up to %s higher on a given start, and take that much off the KV cache: it multiplies each mode's second capture by the graphs after the first, so one more 20 MiB allocator segment in that sample adds (graphs - 1) x 20 MiB (%s; %s%s)\n",
		strings.Join(rests, ", and "), engine.GiB(g.EstimateBytes), engine.GiB(g.SwingBytes), strings.Join(per, ", "), graphSampleRows, v2Sampling(sz.Serve, sz.Model.Arch))
}

// graphMarginNote is explain's note where membudget predicts vLLM starts
// the logged serve on less margin than vLLM's CUDA-graph estimate can
// move (graphSwing): the predicted start's margin is the report's,
// [Capacity.StartMargin]; "" otherwise.
func graphMarginNote(p Predicted, r *Resolved, a *model.Arch) string {
	c := p.Capacity
	if !c.Starts || c.SeqsOverStateBlocks {
		return ""
	}
	_, swing, ok := graphSwing(r, a)
	if !ok {
		return ""
	}
	margin := c.StartMargin
	if margin >= swing {
		return ""
	}
	return fmt.Sprintf("graph-estimate margin: membudget predicts vLLM starts on %s of KV memory above what its startup check needs, less than the %s by which vLLM's CUDA-graph estimate (%s predicted) can come out higher on a given start (one more 20 MiB allocator segment in a mode's second capture, times the graphs after the first; %s): a start of the same serve can be refused",
		engine.GiB(margin), engine.GiB(swing), engine.GiB(p.GraphBytes), graphSampleRows)
}
