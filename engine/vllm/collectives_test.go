package vllm

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
)

func linkClass(name string, link budget.Interconnect) budget.Class {
	c := testClass(false)
	c.Name, c.Device.Interconnect = name, link
	return c
}

// TestResolveCollectives: vLLM's custom all-reduce runs where its checks
// pass (custom_all_reduce.py at d18bb7b): on NVLink and XGMI at every
// supported world size, over PCIe with peer access at TP 2 only, never
// without peer access or across nodes, never at TP 3, and never under
// --disable-custom-all-reduce.
func TestResolveCollectives(t *testing.T) {
	tests := []struct {
		link    budget.Interconnect
		tp      uint64
		disable bool
		want    bool
		why     string // a word the reason holds; "" for none
	}{
		{budget.NVLink, 1, false, false, ""},
		{budget.NVLink, 2, false, true, ""},
		{budget.NVLink, 4, false, true, ""},
		{budget.NVLink, 8, false, true, ""},
		{budget.NVLink, 3, false, false, "world sizes 2, 4, 6, 8 and 16, not 3"},
		{budget.NVLink, 2, true, false, "--disable-custom-all-reduce"},
		{budget.XGMI, 8, false, true, ""},
		{budget.PCIeP2P, 1, false, false, ""},
		{budget.PCIeP2P, 2, false, true, ""},
		{budget.PCIeP2P, 4, false, false, "PCIe-only"},
		{budget.PCIeP2P, 2, true, false, "--disable-custom-all-reduce"},
		{budget.PCIe, 2, false, false, "no peer-to-peer access"},
		{budget.PCIe, 4, false, false, "PCIe-only"},
		{budget.NoPeer, 2, false, false, "crosses nodes"},
	}
	// --interconnect nvlink on a GeForce class (an NVLink-bridged pair of
	// RTX 3090s, Ampere 8.6): the custom all-reduce runs at TP 2 and the
	// NVLink growth applies; no NVLink SHARP setup (no NVSwitch, no
	// Hopper): before the snapshot the custom all-reduce's 32 MiB alone.
	ampere := linkClass("rtx-3090", budget.PCIe)
	ampere.Device.Silicon = budget.Silicon{Vendor: budget.NVIDIA, Major: 8, Minor: 6}
	r := Resolved{Serve: Serve{TensorParallelSize: 2, Interconnect: budget.NVLink}, Profile: current}
	if err := r.resolveCollectives(ampere); err != nil {
		t.Fatal(err)
	}
	if want := (Collectives{Interconnect: budget.NVLink, CustomAllReduce: true}); r.Collectives != want || r.tpSetupBytes() != 32<<20 {
		t.Errorf("--interconnect nvlink on a pcie class: %+v, setup %d, want %+v and 32 MiB", r.Collectives, r.tpSetupBytes(), want)
	}
	// --interconnect pcie on an NVLink class: no peer access, no custom
	// all-reduce, and the reason names the flag.
	r = Resolved{Serve: Serve{TensorParallelSize: 2, Interconnect: budget.PCIe}, Profile: current}
	if err := r.resolveCollectives(linkClass("h100-sxm-80g", budget.NVLink)); err != nil {
		t.Fatal(err)
	}
	if r.Collectives.CustomAllReduce || !strings.Contains(r.Collectives.Why, "the serve's GPUs (--interconnect)") || r.tpNonTorch() != tpNonTorchPCIe {
		t.Errorf("--interconnect pcie on an nvlink class: %+v", r.Collectives)
	}
	for _, tt := range tests {
		r := Resolved{Serve: Serve{TensorParallelSize: tt.tp, DisableCustomAllReduce: tt.disable}, Profile: current}
		if err := r.resolveCollectives(linkClass("c", tt.link)); err != nil {
			t.Fatalf("%s TP %d: %v", tt.link, tt.tp, err)
		}
		got := r.Collectives
		if got.Interconnect != tt.link || got.CustomAllReduce != tt.want || (tt.why == "") != (got.Why == "") || !strings.Contains(got.Why, tt.why) {
			t.Errorf("%s TP %d disable %v: got %+v, want custom all-reduce %v, why holding %q", tt.link, tt.tp, tt.disable, got, tt.want, tt.why)
		}
	}
}

// TestCollectivesNeedAnInterconnect: a class built in code without an
// interconnect is refused under tensor parallelism, naming the flag, and
// served at TP 1, where nothing depends on it.
func TestCollectivesNeedAnInterconnect(t *testing.T) {
	r := Resolved{Serve: Serve{TensorParallelSize: 2}, Profile: current}
	err := r.resolveCollectives(linkClass("bare", ""))
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "tensor-parallel-size" || !strings.Contains(err.Error(), "class bare names no interconnect") {
		t.Errorf("TP 2 on a class without an interconnect: %v", err)
	}
	r.TensorParallelSize = 1
	if err := r.resolveCollectives(linkClass("bare", "")); err != nil {
		t.Errorf("TP 1: %v", err)
	}
}

// TestCustomAllReduceBytes: the metadata buffer (8 MiB), the IPC buffer
// (8 MiB, 16 MiB from PR #50000 in 0.28.0) and rank_data (8 MiB).
func TestCustomAllReduceBytes(t *testing.T) {
	for _, tt := range []struct {
		profile string
		want    uint64
	}{
		{"0.19.0", (8 + 8 + 8) << 20},  // 25165824
		{"0.27.1", (8 + 8 + 8) << 20},  // before the release surely holding #50000
		{"0.28.0", (8 + 16 + 8) << 20}, // 33554432
		{"main", (8 + 16 + 8) << 20},
	} {
		if got := customAllReduceBytes(mustProfile(tt.profile)); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.profile, got, tt.want)
		}
	}
}

// TestTPTermsByInterconnect: the non-torch growth tensor parallelism adds
// and what it holds before vLLM's snapshot, by hand, over NVLink and PCIe
// at TP 1, 2 and 4.
func TestTPTermsByInterconnect(t *testing.T) {
	const mib = 1 << 20
	type terms struct{ NonTorch, Setup uint64 }
	tests := []struct {
		name    string
		profile string
		link    budget.Interconnect
		tp      uint64
		disable bool
		want    terms
	}{
		// One GPU: nothing, whatever the link.
		{"nvlink tp1", "main", budget.NVLink, 1, false, terms{0, 0}},
		{"pcie-p2p tp1", "main", budget.PCIeP2P, 1, false, terms{0, 0}},
		// NVLink from 0.19: the calibrated 1935 MiB growth; before the
		// snapshot the custom all-reduce's 32 MiB (main) and NCCL's
		// setup, 1031 MiB: 1063 MiB.
		{"nvlink tp2", "main", budget.NVLink, 2, false, terms{1935 * mib, 1063 * mib}},
		{"nvlink tp4", "main", budget.NVLink, 4, false, terms{1935 * mib, 1063 * mib}},
		// Without the custom all-reduce: NCCL's setup alone.
		{"nvlink tp2 disabled", "main", budget.NVLink, 2, true, terms{1935 * mib, 1031 * mib}},
		// 0.19.0: the custom all-reduce's 24 MiB + 1031 = 1055 MiB.
		{"nvlink tp2 0.19", "0.19.0", budget.NVLink, 2, false, terms{1935 * mib, 1055 * mib}},
		// 0.11.0: 0.11's growth, 420 MiB; no setup charged before 0.19,
		// the custom all-reduce's 24 MiB alone.
		{"nvlink tp2 0.11", "0.11.0", budget.NVLink, 2, false, terms{420 * mib, 24 * mib}},
		// PCIe with peer access: NCCL's PCIe growth, 82 MiB; the custom
		// all-reduce at TP 2 (32 MiB), not at TP 4; no NCCL setup.
		{"pcie-p2p tp2", "main", budget.PCIeP2P, 2, false, terms{82 * mib, 32 * mib}},
		{"pcie-p2p tp4", "main", budget.PCIeP2P, 4, false, terms{82 * mib, 0}},
		{"pcie-p2p tp2 disabled", "main", budget.PCIeP2P, 2, true, terms{82 * mib, 0}},
		// GeForce without peer access: 82 MiB, nothing before the snapshot.
		{"pcie tp2", "main", budget.PCIe, 2, false, terms{82 * mib, 0}},
		{"pcie tp4", "main", budget.PCIe, 4, false, terms{82 * mib, 0}},
		// Across nodes: as PCIe without the custom all-reduce.
		{"none tp2", "main", budget.NoPeer, 2, false, terms{82 * mib, 0}},
	}
	for _, tt := range tests {
		r := Resolved{Serve: Serve{TensorParallelSize: tt.tp, DisableCustomAllReduce: tt.disable}, Profile: mustProfile(tt.profile)}
		if err := r.resolveCollectives(linkClass("c", tt.link)); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := terms{r.tpNonTorch(), r.tpSetupBytes()}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestPCIeSetupOnBlackwellRTX: NCCL's setup before the snapshot over PCIe
// is charged on compute capability 12.x from 0.11 (PR #25359) on V1, by
// hand: 420 MiB with peer access (row 240), 635 MiB without (row 196), the
// custom all-reduce's buffers added at TP 2 with peer access; nothing on
// NVLink, across nodes, on Hopper or Ampere PCIe, at TP 1 or before 0.11.
func TestPCIeSetupOnBlackwellRTX(t *testing.T) {
	const mib = 1 << 20
	blackwellRTX := budget.Silicon{Vendor: budget.NVIDIA, Major: 12, Minor: 0}
	hopper := budget.Silicon{Vendor: budget.NVIDIA, Major: 9, Minor: 0}
	ampere := budget.Silicon{Vendor: budget.NVIDIA, Major: 8, Minor: 6}
	tests := []struct {
		name    string
		profile string
		link    budget.Interconnect
		silicon budget.Silicon
		tp      uint64
		disable bool
		want    uint64
	}{
		// Row 240's serve: TP 4 refuses the custom all-reduce (PCIe-only,
		// more than two), NCCL's 420 MiB alone.
		{"pcie-p2p tp4 0.27.1", "0.27.1", budget.PCIeP2P, blackwellRTX, 4, false, 420 * mib},
		// TP 2 runs the custom all-reduce: 8 + 8 + 8 MiB on 0.27.1, 8 + 16
		// + 8 on main (PR #50000): 420 + 24 = 444 and 420 + 32 = 452 MiB.
		{"pcie-p2p tp2 0.27.1", "0.27.1", budget.PCIeP2P, blackwellRTX, 2, false, 444 * mib},
		{"pcie-p2p tp2 main", "main", budget.PCIeP2P, blackwellRTX, 2, false, 452 * mib},
		{"pcie-p2p tp2 disabled", "main", budget.PCIeP2P, blackwellRTX, 2, true, 420 * mib},
		// Without peer access (RTX 5090): NCCL's 635 MiB, no custom
		// all-reduce.
		{"pcie tp2 main", "main", budget.PCIe, blackwellRTX, 2, false, 635 * mib},
		// 0.11.0 is the first release with NCCL set up before the
		// snapshot; 0.10.2 measured it in the profile run.
		{"pcie-p2p tp4 0.11.0", "0.11.0", budget.PCIeP2P, blackwellRTX, 4, false, 420 * mib},
		{"pcie-p2p tp4 0.10.2", "0.10.2", budget.PCIeP2P, blackwellRTX, 4, false, 0},
		{"pcie-p2p tp1", "main", budget.PCIeP2P, blackwellRTX, 1, false, 0},
		// No log measures it elsewhere.
		{"pcie-p2p tp4 hopper", "main", budget.PCIeP2P, hopper, 4, false, 0},
		{"pcie tp2 ampere", "main", budget.PCIe, ampere, 2, false, 0},
		{"none tp2", "main", budget.NoPeer, blackwellRTX, 2, false, 0},
	}
	for _, tt := range tests {
		c := linkClass("c", tt.link)
		c.Device.Silicon = tt.silicon
		r := Resolved{Serve: Serve{TensorParallelSize: tt.tp, DisableCustomAllReduce: tt.disable}, Profile: mustProfile(tt.profile)}
		if err := r.resolveCollectives(c); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := r.tpSetupBytes(); got != tt.want {
			t.Errorf("%s: setup %d B (%d MiB), want %d MiB", tt.name, got, got/mib, tt.want/mib)
		}
	}
}

// TestPipelineGroupSetup: the pipeline group's communicator before the
// snapshot, by hand: 968 MiB over NVLink on Hopper from 0.19 (rows 146 and
// 147: 0.92 and 0.97 GiB, the TP group's 1031 MiB less torch's 64 MiB of
// symmetric memory); over PCIe on a Blackwell RTX card the TP group's
// figure, 420 MiB with peer access; added to the TP group's where a rank
// is in both (H100 TP 2 x PP 2 on main: 32 + 1031 + 968 = 2031 MiB);
// nothing at PP 1, before 0.19 on NVLink, or on V0.
func TestPipelineGroupSetup(t *testing.T) {
	const mib = 1 << 20
	hopper := budget.Silicon{Vendor: budget.NVIDIA, Major: 9, Minor: 0}
	blackwellRTX := budget.Silicon{Vendor: budget.NVIDIA, Major: 12, Minor: 0}
	tests := []struct {
		name    string
		profile string
		link    budget.Interconnect
		silicon budget.Silicon
		tp, pp  uint64
		want    uint64
	}{
		{"nvlink pp2 0.19", "0.19.0", budget.NVLink, hopper, 1, 2, 968 * mib},
		{"nvlink pp4 main", "main", budget.NVLink, hopper, 1, 4, 968 * mib},
		{"nvlink tp2 pp2 main", "main", budget.NVLink, hopper, 2, 2, (32 + 1031 + 968) * mib},
		{"nvlink pp2 0.18", "0.18.0", budget.NVLink, hopper, 1, 2, 0},
		{"nvlink pp1", "main", budget.NVLink, hopper, 1, 1, 0},
		{"pcie-p2p pp2 0.27.1", "0.27.1", budget.PCIeP2P, blackwellRTX, 1, 2, 420 * mib},
		{"pcie-p2p pp2 hopper", "main", budget.PCIeP2P, hopper, 1, 2, 0},
		{"nvlink pp2 v0", "0.8.5:v0", budget.NVLink, hopper, 1, 2, 0},
	}
	for _, tt := range tests {
		c := linkClass("c", tt.link)
		c.Device.Silicon = tt.silicon
		r := Resolved{Serve: Serve{TensorParallelSize: tt.tp, PipelineParallelSize: tt.pp}, Profile: mustProfile(tt.profile)}
		if err := r.resolveCollectives(c); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := r.setupBytes(); got != tt.want {
			t.Errorf("%s: setup %d B (%d MiB), want %d MiB", tt.name, got, got/mib, tt.want/mib)
		}
	}
}

// TestRow240StartupFree: the shipped rtx-pro-6000 class at row 240's TP 4
// holds its 640 MiB context and NCCL's 420 MiB before the snapshot: 1060
// MiB, 1.04 GiB, where row 240 logs 0.96 GiB held (94.05 of 95.01 GiB
// free); the class rounds its context up to the next 64 MiB.
func TestRow240StartupFree(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-8B"]
	c := kernelClass(t, "rtx-pro-6000")
	_, plan, err := NewCompiler(a).Compile(Serve{TensorParallelSize: 4, MaxModelLen: 8192}, c, mustProfile("0.27.1"))
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(640+420) << 20; plan.Driver.DriverFixedBytes != want {
		t.Errorf("driver fixed %d, want %d", plan.Driver.DriverFixedBytes, want)
	}
}

// TestTPTermsInThePlan: the shipped classes carry the terms into the plan:
// Llama-3.1-8B at TP 2 on an H100 SXM holds the class's 576 MiB and 1063
// MiB of setup beside the budget (1639 MiB = 1718616064 B), and its
// non-torch growth is 0.18's 256 MiB + 1935 MiB; on four L40S it holds the
// class's 512 MiB alone, and grows 256 + 82 = 338 MiB. Beside the growth
// the non-torch term holds the V2 runner's request state (v2state.go): at
// the H100's 1024 sequences and 8192 batched tokens 576667652 B (by hand in
// TestSeventyBTP2LengthByHand: the same vocabulary); at the L40S's 256 and
// 2048, 144166916 B (output_bin_counts 256 x 128256 x 4 = 131334144,
// prompt_bin_mask and grammar_bitmask 256 x 4008 x 4 = 4104192 each, the
// logit-bias rows 3276800, bad words 1180672, logprob ids 131072,
// logits_indices 1024, and 34820 B of input buffers and request state).
func TestTPTermsInThePlan(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	for _, tt := range []struct {
		class              string
		tp                 uint64
		fixed, nonTorch    uint64
		customAllReduce    bool
		interconnectWanted budget.Interconnect
	}{
		{"h100-sxm-80g", 2, 1718616064, (256+1935)<<20 + 576667652, true, budget.NVLink},
		{"l40s", 4, 512 << 20, (256+82)<<20 + 144166916, false, budget.PCIeP2P},
	} {
		c := kernelClass(t, tt.class)
		r, plan, err := NewCompiler(a).Compile(Serve{TensorParallelSize: tt.tp, MaxModelLen: 8192}, c, current)
		if err != nil {
			t.Fatal(err)
		}
		if r.Collectives.Interconnect != tt.interconnectWanted || r.Collectives.CustomAllReduce != tt.customAllReduce {
			t.Errorf("%s TP %d: collectives %+v", tt.class, tt.tp, r.Collectives)
		}
		if plan.Driver.DriverFixedBytes != tt.fixed {
			t.Errorf("%s TP %d: driver fixed %d, want %d", tt.class, tt.tp, plan.Driver.DriverFixedBytes, tt.fixed)
		}
		if got := plan.Stages[0].Fixed[budget.TermNonTorch]; got != tt.nonTorch {
			t.Errorf("%s TP %d: non-torch %d, want %d", tt.class, tt.tp, got, tt.nonTorch)
		}
		ref, err := NewReference(a, Serve{TensorParallelSize: tt.tp, MaxModelLen: 8192}, c, current)
		if err != nil {
			t.Fatal(err)
		}
		if got := ref.Evaluate(1, 1).Footprint.DriverFixed; got != tt.fixed {
			t.Errorf("%s TP %d: the reference's driver fixed %d, want %d", tt.class, tt.tp, got, tt.fixed)
		}
	}
}

// TestStartupFreeCheck: vLLM's request_memory check by hand. GB10 (121.69
// GiB, 130664103936 B; the host holds 19.5 GiB, 20937965568 B) reads
// 109726138368 B (102.19 GiB) free: util 0.87 asks ceil(130664103936 x
// 0.87) = 113677770425 B (105.87 GiB), refused as
// MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#47 reports; 0.84 asks
// 109757847307 B, 31708939 B too many; 0.83 asks 108451206267 B and passes.
// An H100 SXM at TP 2 holds 576 MiB + 1063 MiB = 1718616064 B before the
// snapshot: 0.95 asks 80767614976 B of the 83299926016 B free, and passes.
// The V0 engine has no such check.
func TestStartupFreeCheck(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-8B"]
	for _, tt := range []struct {
		class     string
		profile   string
		util      float64
		tp        uint64
		requested uint64
		free      uint64
		over      bool
		says      string
	}{
		{"gb10", "main", 0.87, 1, 113677770425, 109726138368, true, "--gpu-memory-utilization 0.83 or less passes it"},
		{"gb10", "main", 0.84, 1, 109757847307, 109726138368, true, "MemAvailable"},
		{"gb10", "main", 0.83, 1, 108451206267, 109726138368, false, ""},
		{"h100-sxm-80g", "main", 0.95, 2, 80767614976, 83299926016, false, ""},
		{"gb10", "0.8.5:v0", 0.87, 1, 0, 0, false, ""},
	} {
		c := kernelClass(t, tt.class)
		k, plan, err := NewCompiler(a).compile(Serve{GPUMemoryUtilization: tt.util, TensorParallelSize: tt.tp, MaxModelLen: 4096}, c, mustProfile(tt.profile))
		if err != nil {
			t.Fatal(err)
		}
		capy := k.capacity(plan)
		name := fmt.Sprintf("%s %s util %v TP %d", tt.class, tt.profile, tt.util, tt.tp)
		if capy.Requested != tt.requested || capy.FreeAtStartup != tt.free || capy.OverFree != tt.over {
			t.Errorf("%s: requested %d free %d over %v, want %d %d %v", name, capy.Requested, capy.FreeAtStartup, capy.OverFree, tt.requested, tt.free, tt.over)
		}
		why := capy.Refusal(k.r.MaxModelLen, k.r.MaxNumSeqs)
		if tt.over && (capy.Starts || !strings.Contains(why, tt.says) || !strings.Contains(why, "Free memory on device (102.19/121.69 GiB)")) {
			t.Errorf("%s: starts %v, refusal %q, want one saying %q", name, capy.Starts, why, tt.says)
		}
		if !tt.over && why != "" {
			t.Errorf("%s: refused: %s", name, why)
		}
	}
}

// TestStartupLighterHost: on GB10 (130664103936 B; the class's host holds
// 19.5 GiB, util_ceiling 0.83, util_reached 0.95 from row 331) a util the
// class's host refuses says the host it needs, device - request, by hand:
// 0.87 asks 113677770425 B, so a host holding at most 16986333511 B (15.82
// GiB) passes; 0.95 asks 124130898740 B: at most 6533205196 B (6.08 GiB),
// which is util_reached's own bound; 0.97 asks 126744180818 B: at most
// 3919923118 B (3.65 GiB), above util_reached, so no log is named. Qwen3-8B
// at 4096 tokens fits every such budget, so a lighter host starts each. A
// discrete class (H100 SXM at TP 2) has no host bound.
func TestStartupLighterHost(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-8B"]
	for _, tt := range []struct {
		class       string
		util        float64
		tp          uint64
		hostBound   uint64
		lighter     bool
		reached     float64
		reachedHeld uint64
		says        string
	}{
		{"gb10", 0.87, 1, 16986333511, true, 0.95, 6533205196, "within what a lighter host reached (util_reached 0.95, on a host that held at most 6.08 GiB; the class's provenance names the log): vLLM starts util 0.87 where the host holds at most 15.82 GiB at its snapshot"},
		{"gb10", 0.95, 1, 6533205196, true, 0.95, 6533205196, "vLLM starts util 0.95 where the host holds at most 6.08 GiB at its snapshot (MemAvailable at least the 115.61 GiB requested)"},
		{"gb10", 0.97, 1, 3919923118, true, 0, 0, "vLLM starts util 0.97 where the host holds at most 3.65 GiB at its snapshot (MemAvailable at least the 118.04 GiB requested), and no log the class cites shows a host that light"},
		{"gb10", 0.83, 1, 22212897669, false, 0, 0, ""},
		{"h100-sxm-80g", 0.95, 2, 0, false, 0, 0, ""},
	} {
		c := kernelClass(t, tt.class)
		k, plan, err := NewCompiler(a).compile(Serve{GPUMemoryUtilization: tt.util, TensorParallelSize: tt.tp, MaxModelLen: 4096}, c, mustProfile("main"))
		if err != nil {
			t.Fatal(err)
		}
		capy := k.capacity(plan)
		got := [4]any{capy.HostBound, capy.StartsOnLighterHost, capy.UtilReached, capy.ReachedHeld}
		if diff := cmp.Diff([4]any{tt.hostBound, tt.lighter, tt.reached, tt.reachedHeld}, got); diff != "" {
			t.Errorf("%s util %v: host bound, lighter, reached, held (-want +got):\n%s", tt.class, tt.util, diff)
		}
		if why := capy.Refusal(k.r.MaxModelLen, k.r.MaxNumSeqs); !strings.Contains(why, tt.says) {
			t.Errorf("%s util %v: refusal %q, want one saying %q", tt.class, tt.util, why, tt.says)
		}
	}
}

// TestGrantedUtil: the largest util to the hundredth whose request fits
// the free memory: 102.19 of 121.69 GiB grants 0.83 (0.84 asks 102.22);
// all of it grants 1; none grants nothing.
func TestGrantedUtil(t *testing.T) {
	for _, tt := range []struct {
		total, free uint64
		want        float64
	}{
		{130664103936, 109726138368, 0.83},
		{80 << 30, 80 << 30, 1},
		{80 << 30, 0, 0},
		{0, 0, 0},
	} {
		if got := grantedUtil(tt.total, tt.free); got != tt.want {
			t.Errorf("grantedUtil(%d, %d) = %v, want %v", tt.total, tt.free, got, tt.want)
		}
	}
}
