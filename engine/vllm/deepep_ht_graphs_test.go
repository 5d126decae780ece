package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/model/hub"
)

// TestDeepEPHTGraphsOff: vLLM sets cudagraph_mode NONE for
// deepep_high_throughput with more than one data-parallel rank of a
// mixture-of-experts model, under compilation mode VLLM_COMPILE
// (vllm/config/compilation.py:1232-1248, vllm.py:1612-1621); every other
// serve keeps the graphs it resolved to.
func TestDeepEPHTGraphsOff(t *testing.T) {
	models := shipped(t)
	type want struct {
		Mode string
		Off  bool
	}
	ht := "deepep_high_throughput"
	cases := []struct {
		name    string
		model   string
		s       Serve
		profile Profile
		want    want
	}{
		{"EP, DP 2", "", Serve{DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: ht}, current, want{graphsNone, true}},
		{"EP, TP 2 x DP 2", "", Serve{TensorParallelSize: 2, DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: ht}, current, want{graphsNone, true}},
		{"EP, DP 2 on 0.28.0", "", Serve{DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: ht}, mustProfile("0.28.0"), want{graphsNone, true}},
		{"EP, DP 2 on 0.29.0", "", Serve{DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: ht}, mustProfile("0.29.0"), want{graphsNone, true}},
		// The rule reads the backend and the DP size, not expert
		// parallelism: no buffer (all2all.go) but no graphs either.
		{"no EP, DP 2", "", Serve{DataParallelSize: 2, All2AllBackend: ht}, current, want{graphsNone, true}},
		// -O1's PIECEWISE and an explicit FULL are turned off alike.
		{"-O1", "", Serve{DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: ht, Compilation: Compilation{Level: "1"}}, current, want{graphsNone, true}},
		{"FULL", "", Serve{DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: ht, Compilation: Compilation{GraphMode: graphsFull}}, current, want{graphsNone, true}},
		// One DP rank: the default FULL_AND_PIECEWISE stands.
		{"DP 1", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, All2AllBackend: ht}, current, want{graphsFullAndPiecewise, false}},
		// A dense model: vLLM passes data_parallel_size 1 (is_moe false).
		{"dense, DP 2", "meta-llama__Llama-3.1-8B-Instruct", Serve{DataParallelSize: 2, All2AllBackend: ht}, current, want{graphsFullAndPiecewise, false}},
		// Other backends keep the graphs.
		{"low latency", "", Serve{DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: "deepep_low_latency"}, current, want{graphsFullAndPiecewise, false}},
		{"allgather_reducescatter", "", Serve{DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: "allgather_reducescatter"}, current, want{graphsFullAndPiecewise, false}},
		// Graphs already off for another reason: NONE, and not for DeepEP.
		{"enforce eager", "", Serve{DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: ht, EnforceEager: true}, current, want{graphsNone, false}},
		{"-O0", "", Serve{DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: ht, Compilation: Compilation{Level: "0"}}, current, want{graphsNone, false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model
			if m == "" {
				m = "Qwen__Qwen3-30B-A3B"
			}
			r, err := Resolve(tc.s, models[m], bigClass, tc.profile)
			if err != nil {
				t.Fatal(err)
			}
			got := want{r.Graphs.Mode, r.Graphs.OffForDeepEPHT}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("graphs (-want +got):\n%s", diff)
			}
			if r.Graphs.OffForDeepEPHT && (len(r.Graphs.Sizes) != 0 || r.Graphs.FullAsBoth) {
				t.Errorf("graphs turned off keep sizes %v, FullAsBoth %v", r.Graphs.Sizes, r.Graphs.FullAsBoth)
			}
		})
	}
}

// TestDeepEPHTGraphsOffByHand: DeepSeek-V2-Lite on an H100 SXM at DP 2
// with expert parallelism and deepep_high_throughput, 8192 tokens (the
// serve the dbo helper charged a 0.76 GiB graph pool). With the graphs
// off there is no pool, and under 0.29.0, whose V2 runner charges its
// graph estimate to the KV budget (PR #53306), the KV cache gains the
// estimate back: it holds what 0.28.0 gives, which charges none.
func TestDeepEPHTGraphsOffByHand(t *testing.T) {
	a := parseShippedConfig(t, "deepseek-ai__DeepSeek-V2-Lite")
	c := kernelClass(t, "h100-sxm-80g")
	size := func(backend, release string) *Sizing {
		t.Helper()
		s := Serve{DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: backend, MaxModelLen: 8192}
		sz, err := Size(&hub.Loaded{Name: "deepseek-ai/DeepSeek-V2-Lite", Arch: a}, c, s, mustProfile(release))
		if err != nil {
			t.Fatal(err)
		}
		return sz
	}
	ht, ag := size("deepep_high_throughput", "0.29.0"), size("allgather_reducescatter", "0.29.0")
	htPool := ht.plan.Evaluate(1, 8192).Terms[budget.TermGraphPool]
	agPool := ag.plan.Evaluate(1, 8192).Terms[budget.TermGraphPool]
	// allgather_reducescatter keeps the graphs: the 0.76 GiB pool,
	// 818327552 B, the figure the report charged before this rule.
	const estimate = 818327552
	if htPool != 0 || agPool != estimate {
		t.Errorf("graph pool %d B with DeepEP HT, %d with allgather_reducescatter: want 0 and %d", htPool, agPool, uint64(estimate))
	}
	// The KV budget: the util budget, ceil(85018542080 B x 0.92) =
	// 78217058714 B, less every charge but the KV cache. Beside the graph
	// estimate, DeepEP changes one charge: its buffers, 1109393408 B
	// (deepepHTGPU). So DeepEP's KV budget is allgather_reducescatter's
	// plus the estimate it no longer pays, less the buffers.
	if got, want := ht.capacity.AvailableBytes, ag.capacity.AvailableBytes+estimate-deepepHTGPU; got != want {
		t.Errorf("KV budget %d B with DeepEP HT, want %d (allgather_reducescatter's %d + the estimate %d - the buffers %d)", got, want, ag.capacity.AvailableBytes, uint64(estimate), uint64(deepepHTGPU))
	}
	// The charges but the KV cache, as the report lists them: weights
	// 17039088640, activation peak 943718400, sampler 0, non-torch growth
	// 268435456, V2 request state 464142340, DeepEP's buffers 1109393408:
	// 19824778244 B, leaving 78217058714 - 19824778244 = 58392280470 B, or
	// 117332 blocks of 497664 B (117332 x 497664 = 58391912448, 368022 B
	// over). Before the rule, 0.29.0 took the estimate too: 57573952918 B,
	// 115688 blocks, 1644 fewer.
	if got, want := ht.capacity.Blocks, uint64(117332); got != want {
		t.Errorf("KV blocks %d with DeepEP HT on 0.29.0, want %d", got, want)
	}
	// 0.28.0 charges no V2 graph estimate: the same blocks.
	if got := size("deepep_high_throughput", "0.28.0").capacity.Blocks; got != ht.capacity.Blocks {
		t.Errorf("KV blocks %d on 0.28.0, %d on 0.29.0: want the same, no estimate charged in either", got, ht.capacity.Blocks)
	}
	if j := ht.a2aJSON(); j == nil || j.GraphsOff != ht.Serve.deepepHTGraphsWhy() || j.GraphsOff == "" {
		t.Errorf("serve.all2all %+v: want cuda_graphs_off naming the rule", j)
	}
	if j := ag.a2aJSON(); j == nil || j.GraphsOff != "" {
		t.Errorf("serve.all2all %+v with allgather_reducescatter: want no cuda_graphs_off", j)
	}
	settings := strings.Join(ht.a2aSettings(), "\n")
	if !strings.Contains(settings, "vLLM sets cudagraph_mode NONE for --all2all-backend deepep_high_throughput at --data-parallel-size 2") || !strings.Contains(settings, "vllm/config/compilation.py:1232-1248") {
		t.Errorf("settings %q: want the line naming the rule and its source", settings)
	}
}
