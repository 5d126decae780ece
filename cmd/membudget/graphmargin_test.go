package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReportGraphMargin: report --json carries graph_estimate_margin, in
// the schema, where vLLM charges its CUDA-graph estimate and the serve
// starts on less margin than the estimate can move, and not where the
// graphs stand beside the budget (0.19.0) or none is captured
// (--enforce-eager); the verdict stays "fits" (a note, not a state).
//
// Llama-3.1-8B on an RTX 4090 under 0.20.0 at --max-model-len 32768: the
// capture sizes run to min(2 x 256, 512) = 512, 51 PIECEWISE graphs (1,
// 2, 4, every 8 to 248, every 16 from 256 to 512: 3 + 31 + 17); the FULL
// decode graphs those up to max_num_seqs 256: 3 + 31 + 1 = 35. The move
// is (50 + 34) x 20 MiB = 1,680 MiB = 1,761,607,680 B.
func TestReportGraphMargin(t *testing.T) {
	args := []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "rtx-4090", "--max-model-len", "32768", "--json"}
	got := reportOK(t, append(args, "--vllm-version", "0.20.0")...)
	g := got.GraphEstimateMargin
	if g == nil || !got.Fits {
		t.Fatalf("graph_estimate_margin %+v, fits %v: want the note on a serve that fits", g, got.Fits)
	}
	want := []graphModeJSON{{"PIECEWISE", 51, 50 * 20 << 20}, {"FULL decode", 35, 34 * 20 << 20}}
	if diff := cmp.Diff(want, g.Modes); diff != "" {
		t.Errorf("modes (-want +got):\n%s", diff)
	}
	if g.SwingBytes != 1761607680 || !g.StartAtRisk || !g.FitAtRisk {
		t.Errorf("swing %d B, at risk %v/%v: want 1,761,607,680 B, both", g.SwingBytes, g.StartAtRisk, g.FitAtRisk)
	}
	// The start's margin is the available KV memory less one request of
	// 32,768 tokens: 2,048 pages of 2 MiB, 4 GiB.
	kv := got.KVCapacity
	if g.StartMarginBytes != kv.AvailableBytes-kv.NeededBytes || kv.NeededBytes != 4<<30 || g.FitMarginBytes != g.StartMarginBytes {
		t.Errorf("margins %d/%d B: want available %d - needed %d (4 GiB) for both", g.StartMarginBytes, g.FitMarginBytes, kv.AvailableBytes, kv.NeededBytes)
	}
	if fp := got.Footprint; g.EstimateBytes != fp.CUDAGraphPool || g.FitMarginBytes != fp.BudgetHeadroom {
		t.Errorf("estimate %d B, fit margin %d B: want the footprint's graph pool %d B and budget headroom %d B", g.EstimateBytes, g.FitMarginBytes, fp.CUDAGraphPool, fp.BudgetHeadroom)
	}
	for _, extra := range [][]string{{"--vllm-version", "0.19.0"}, {"--vllm-version", "0.20.0", "--enforce-eager"}} {
		if r := reportOK(t, append(args, extra...)...); r.GraphEstimateMargin != nil || !r.Fits {
			t.Errorf("%v: graph_estimate_margin %+v, fits %v: want none, fits", extra, r.GraphEstimateMargin, r.Fits)
		}
	}
}

// TestReportGraphEstimateHostDependent: report --json carries
// graph_estimate_host_dependent, in the schema, on a unified-memory class
// where vLLM takes its CUDA-graph estimate off the KV cache (GB10, vLLM
// 0.20.2, Llama-3.1-8B on the V1 runner), with the estimate the footprint
// charges, and not on a discrete class, before 0.20.0 (0.19.0: the graphs
// beside the budget) or with --enforce-eager (none captured); the verdict
// is the same either way.
func TestReportGraphEstimateHostDependent(t *testing.T) {
	args := []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "32768", "--gpu-memory-utilization", "0.5", "--json"}
	got := reportOK(t, append(args, "--class", "gb10", "--vllm-version", "0.20.2")...)
	g := got.GraphEstimateHostDependent
	if g == nil || !got.Fits {
		t.Fatalf("graph_estimate_host_dependent %+v, fits %v: want it on a serve that fits", g, got.Fits)
	}
	if g.EstimateBytes != got.Footprint.CUDAGraphPool || g.EstimateBytes == 0 || g.Evidence == "" {
		t.Errorf("%+v: want the footprint's graph pool %d B and the rows", g, got.Footprint.CUDAGraphPool)
	}
	for _, extra := range [][]string{{"--class", "h100-sxm-80g", "--vllm-version", "0.20.2"}, {"--class", "gb10", "--vllm-version", "0.19.0"}, {"--class", "gb10", "--vllm-version", "0.20.2", "--enforce-eager"}} {
		if r := reportOK(t, append(args, extra...)...); r.GraphEstimateHostDependent != nil || !r.Fits {
			t.Errorf("%v: graph_estimate_host_dependent %+v, fits %v: want none, fits", extra, r.GraphEstimateHostDependent, r.Fits)
		}
	}
}
