package sglang

import (
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model/explain"
	"membudget/model/hub"
	"membudget/model/logs"
)

// TestLogitsRendezvousCaveat: where SGLang's logits all-gather runs
// torch's symmetric-memory rendezvous on NVIDIA GPUs without peer access
// (sgl-project/sglang#40485: SIGFPE inside it on consumer PCIe GPUs), the
// serve is still sized but its capacity carries a caveat, which the
// report prints under "SGLang starts" and the warnings repeat; nowhere
// else. Llama 3.1 8B, bf16 by default: 128256 = 64 x 2004 rows, 64128 a
// rank at TP 2, a multiple of 8, so _build reaches create_state
// (triton_symm_mem_ag.py:517-536) at v0.5.15 to v0.5.18; v0.5.14 builds
// no gatherer (Profile.LogitsAllGather off).
func TestLogitsRendezvousCaveat(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	const startup, first = "at startup, in the decode CUDA graphs' warmup passes", "with --disable-cuda-graph, the first request"
	for _, tt := range []struct {
		name    string
		class   string
		release string
		s       Serve
		want    string // a phrase the caveat holds; "" for no caveat
	}{
		// GeForce cards on the stock driver: no peer access (interconnect
		// pcie), the rendezvous reached at every release with the gatherer.
		{"RTX 4090 TP 2 v0.5.15", "rtx-4090", "v0.5.15", Serve{TPSize: 2}, startup},
		{"RTX 4090 TP 2 v0.5.15.post1", "rtx-4090", "v0.5.15.post1", Serve{TPSize: 2}, startup},
		{"RTX 4090 TP 2 v0.5.16", "rtx-4090", "v0.5.16", Serve{TPSize: 2}, startup},
		{"RTX 4090 TP 2 v0.5.17", "rtx-4090", "v0.5.17", Serve{TPSize: 2}, startup},
		{"RTX 4090 TP 2 v0.5.18", "rtx-4090", "v0.5.18", Serve{TPSize: 2}, startup},
		{"RTX 5090 TP 4 v0.5.18", "rtx-5090", "v0.5.18", Serve{TPSize: 4}, startup},
		// No decode graphs: the first eager forward reaches it.
		{"RTX 4090 TP 2 v0.5.18 no graphs", "rtx-4090", "v0.5.18", Serve{TPSize: 2, DisableCudaGraph: true}, first},
		// float16 logits: _build returns before create_state (:518).
		{"RTX 4090 TP 2 v0.5.18 float16", "rtx-4090", "v0.5.18", Serve{TPSize: 2, Dtype: "float16"}, ""},
		// TP 1 gathers nothing.
		{"RTX 4090 TP 1 v0.5.18", "rtx-4090", "v0.5.18", Serve{TPSize: 1}, ""},
		// v0.5.14 has no MultimemAllGatherer.
		{"RTX 4090 TP 2 v0.5.14", "rtx-4090", "v0.5.14", Serve{TPSize: 2}, ""},
		// Peer access (PCIe data-centre cards, NVLink): the rendezvous maps
		// the peers and _build falls back on a zero multicast address
		// (:537-544), or keeps the buffer, which is charged.
		{"L40S TP 2 v0.5.18", "l40s", "v0.5.18", Serve{TPSize: 2}, ""},
		{"H100 PCIe TP 2 v0.5.18", "h100-pcie-80g", "v0.5.18", Serve{TPSize: 2}, ""},
		{"H100 SXM TP 2 v0.5.18", "h100-sxm-80g", "v0.5.18", Serve{TPSize: 2}, ""},
		{"A100 TP 2 v0.5.17", "a100-80g", "v0.5.17", Serve{TPSize: 2}, ""},
	} {
		tt.s.DisablePiecewiseCudaGraph = true
		r := ref(t, llama, tt.s, class(t, tt.class), mustProfile(tt.release))
		c := r.Capacity()
		if !c.Starts {
			t.Errorf("%s: does not start: %s", tt.name, c.Failure)
			continue
		}
		switch {
		case tt.want == "" && c.Caveat != "":
			t.Errorf("%s: caveat %q, want none", tt.name, c.Caveat)
		case tt.want != "" && !strings.Contains(c.Caveat, tt.want):
			t.Errorf("%s: caveat %q, want one saying %q", tt.name, c.Caveat, tt.want)
		case tt.want != "":
			for _, must := range []string{"but it may not serve", "no peer access", "sgl-project/sglang#40485", "SIGFPE", r.Serve.Profile.Describes, "before it checks for multicast"} {
				if !strings.Contains(c.Caveat, must) {
					t.Errorf("%s: caveat %q does not say %q", tt.name, c.Caveat, must)
				}
			}
		}
		// The caveat changes no figure: the buffer is not kept without
		// multicast, so nothing is charged for it either way.
		if got := logitsAllGatherBytes(llama, r.Class, r.Serve); got != 0 && tt.class == "rtx-4090" {
			t.Errorf("%s: all-gather buffer charged, %d B", tt.name, got)
		}
	}
}

// TestLogitsGatherRendezvousNodes: the gatherer is built disabled, with
// no rendezvous, where its TP group spans nodes (triton_symm_mem_ag.py:
// 478-487): --nnodes above --pp-size (a node holds tp x pp / nnodes
// ranks, fewer than tp); with a whole TP group on each node it is built.
func TestLogitsGatherRendezvousNodes(t *testing.T) {
	for _, tt := range []struct {
		tp, pp, nnodes uint64
		want           bool
	}{
		{2, 1, 1, true},
		{2, 1, 2, false}, // one rank a node: the group spans both
		{2, 2, 2, true},  // 2 ranks a node, a TP group each
		{4, 1, 2, false}, // 2 of a group's 4 ranks a node
		{4, 2, 2, true},
	} {
		r := Resolved{Serve: Serve{TPSize: tt.tp, PPSize: tt.pp, Dtype: "bfloat16"}, Profile: mustProfile("v0.5.18")}
		r.Nodes.NNodes = tt.nnodes
		// Llama 3's 128256 rows: 64128 a rank at TP 2, 32064 at TP 4,
		// both multiples of 8.
		if got := logitsGatherRendezvous(128256, r); got != tt.want {
			t.Errorf("TP %d PP %d on %d node(s): %v, want %v", tt.tp, tt.pp, tt.nnodes, got, tt.want)
		}
	}
}

// TestLogitsRendezvousCaveatProperty: over releases, classes, TP, PP,
// nodes and dtypes, the caveat is said exactly where the all-gather's
// rendezvous is reached (logitsGatherRendezvous) on an NVIDIA class
// without peer access, only at a release with the gatherer, and never
// where the buffer is charged (no multicast without peer access: the
// caveat and the charge exclude each other).
func TestLogitsRendezvousCaveatProperty(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	classes := []string{"rtx-4090", "rtx-5090", "rtx-3090", "l40s", "h100-pcie-80g", "h100-sxm-80g", "a100-80g", "mi300x", "jetson-agx-orin-64g"}
	rapid.Check(t, func(rt *rapid.T) {
		c := class(t, rapid.SampledFrom(classes).Draw(rt, "class"))
		r := Resolved{Serve: Serve{
			TPSize:           rapid.SampledFrom([]uint64{1, 2, 3, 4, 8}).Draw(rt, "tp"),
			PPSize:           rapid.SampledFrom([]uint64{1, 2}).Draw(rt, "pp"),
			Dtype:            rapid.SampledFrom([]string{"bfloat16", "float16"}).Draw(rt, "dtype"),
			DisableCudaGraph: rapid.Bool().Draw(rt, "disable_cuda_graph"),
		}, Profile: rapid.SampledFrom(Profiles()).Draw(rt, "profile")}
		r.Nodes.NNodes = rapid.SampledFrom([]uint64{1, 2}).Draw(rt, "nnodes")
		ref := &Reference{Arch: llama, Serve: r, Class: c}
		got := ref.logitsRendezvousCaveat()
		want := c.Device.Silicon.Vendor == budget.NVIDIA && c.Device.Interconnect == budget.PCIe && logitsGatherRendezvous(llama.Vocab, r)
		if (got != "") != want {
			rt.Fatalf("caveat %q; want one: %v", got, want)
		}
		if got != "" && !r.Profile.LogitsAllGather {
			rt.Fatalf("caveat at %s, which builds no gatherer", r.Profile.Name)
		}
		if got != "" && logitsAllGatherBytes(llama, c, r) != 0 {
			rt.Fatalf("caveat and a charged buffer together: %d B", logitsAllGatherBytes(llama, c, r))
		}
	})
}

// TestExplainSaysRendezvousCaveat: explain, which compares a log's figures,
// names the caveat among its notes for the serve the log describes (two
// RTX 4090s at TP 2 under v0.5.18), and not for the same serve on H100s.
func TestExplainSaysRendezvousCaveat(t *testing.T) {
	text := "[2026-09-20 10:12:02 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=19.20 GB, mem usage=7.52 GB.\n"
	l, err := logs.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	for _, tt := range []struct {
		class string
		want  bool
	}{{"rtx-4090", true}, {"h100-sxm-80g", false}} {
		ex, err := explainLog(explainInput{
			Source:  &explain.Source{Name: "tp2.log", Text: text, Log: l},
			Model:   explain.Model{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: llama},
			Class:   explain.ClassChoice{Class: class(t, tt.class)},
			Profile: mustProfile("v0.5.18"),
			Serve:   loggedServe{Serve: Serve{TPSize: 2, ContextLength: 8192, DisablePiecewiseCudaGraph: true}, From: map[string]explain.SettingFrom{}},
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.class, err)
		}
		got := slices.ContainsFunc(ex.Notes, func(n string) bool { return strings.Contains(n, "sgl-project/sglang#40485") })
		if got != tt.want {
			t.Errorf("%s: notes %q; want the #40485 caveat: %v", tt.class, ex.Notes, tt.want)
		}
	}
}

// TestPlanCarriesRendezvousCaveat: a plan's deployment carries the
// caveat where its serve's capacity does (the plan prints it once as a
// note, the table having no column for it): Llama 3.1 8B on RTX 4090s
// under v0.5.18, 8 sequences of 8192 tokens (KV auto, but fp8_e4m3 at
// TP 1 alone, where auto does not hold them: the plan's rows). TP 2 runs the
// all-gather's rendezvous (64128 rows a rank, a multiple of 8, as in
// TestLogitsRendezvousCaveat) on cards without peer access; TP 1, alone
// or as two DP replicas, gathers nothing; TP 2 on H100 SXMs has peer
// access.
func TestPlanCarriesRendezvousCaveat(t *testing.T) {
	m := &hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]}
	p := mustProfile("v0.5.18")
	need := engine.Need{Length: 8192, Concurrency: 8}
	for _, tt := range []struct {
		class string
		l     engine.Layout
		kv    string
		want  bool
	}{
		{"rtx-4090", engine.Layout{TP: 2, PP: 1, DP: 1}, "auto", true},
		{"rtx-4090", engine.Layout{TP: 1, PP: 1, DP: 1}, "fp8_e4m3", false},
		{"rtx-4090", engine.Layout{TP: 1, PP: 1, DP: 2}, "auto", false},
		{"h100-sxm-80g", engine.Layout{TP: 2, PP: 1, DP: 1}, "auto", false},
	} {
		got := deploy(m, class(t, tt.class), p, need, tt.l, tt.kv, engine.Default, engine.Default)
		if !got.ok {
			t.Fatalf("%s %+v: not planned (%v)", tt.class, tt.l, got.refused)
		}
		if has := got.d.Caveat != ""; has != tt.want {
			t.Errorf("%s %+v: caveat %q, want one: %v", tt.class, tt.l, got.d.Caveat, tt.want)
		}
		if tt.want {
			for _, must := range []string{"SGLang starts, but it may not serve", "NVIDIA GeForce RTX 4090", "sgl-project/sglang#40485", p.Describes} {
				if !strings.Contains(got.d.Caveat, must) {
					t.Errorf("%s %+v: caveat %q does not say %q", tt.class, tt.l, got.d.Caveat, must)
				}
			}
		}
	}
}
