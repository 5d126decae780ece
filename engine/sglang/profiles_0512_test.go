package sglang

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
)

// TestProfile0512Rules: v0.5.12 is v0.5.11's rules but the custom
// all-reduce v2 and its native architectures; v0.5.12.post1 changes none.
func TestProfile0512Rules(t *testing.T) {
	p := mustProfile("v0.5.12")
	want := renamedAs(mustProfile("v0.5.11"), "v0.5.12", "127b9e3283f7c2a43234b852ff5c9f1796d53624", p)
	want.CustomARv2 = true // PR #24363
	want.Native = native0512
	want.UnreadModels = slices.Concat(new059, new0510, new0511, new0512)
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("v0.5.12 against v0.5.11's rules (-want +got):\n%s", diff)
	}
	// 7 classes new by the grep, less the three drafts: 4.
	checkNewNative(t, "v0.5.12", native0511, new0512, native0512, 4)
	post1 := mustProfile("v0.5.12.post1")
	want = renamedAs(p, "v0.5.12.post1", "5a15cde858ea09b77116212a39356f2fc51b8584", post1)
	if diff := cmp.Diff(want, post1); diff != "" {
		t.Errorf("v0.5.12.post1 against v0.5.12's rules (-want +got):\n%s", diff)
	}
}

// TestProfile0512DistInit: the estimate follows the class's link
// (DistInitBytes), and v0.5.11's CustomAllreduce adds its 3 x 8 MiB at TP 2
// over PCIe with peer access (L40S) where v0.5.12's v2 builds none: 399 +
// 24 = 423 MiB under v0.5.11, 399 under v0.5.12. Over NVLink (H100) the
// 1638 MiB fitted to row 4 holds both; a GeForce card without peer access
// (RTX 4090) builds neither, 215 MiB; above TP 2 on PCIe (L40S TP 4)
// neither builds one, 399 MiB. On two nodes v2 is off: with TP 2 x PP 2
// each TP group is on one node and the legacy class builds its buffers
// under both releases, 423 MiB; with TP 2 alone the group spans the nodes
// and builds none (custom_all_reduce_utils.py:430 at v0.5.11), 399 MiB
// under v0.5.12.post1, where v0.5.11 keeps its one-node 423 (high by the
// buffers, the node count changing nothing else; see
// TestMoreNodesChangeOnlyTheFusionWorkspace, whose draws put one rank on
// a node).
func TestProfile0512DistInit(t *testing.T) {
	p11, p12 := mustProfile("v0.5.11"), mustProfile("v0.5.12.post1")
	for _, tt := range []struct {
		class          string
		tp, pp, nnodes uint64
		want11         uint64
		want12         uint64
	}{
		{"l40s", 2, 1, 1, 423 * mib, 399 * mib},
		{"h100-sxm-80g", 2, 1, 1, 1638 * mib, 1638 * mib},
		{"rtx-4090", 2, 1, 1, 215 * mib, 215 * mib},
		{"l40s", 4, 1, 1, 399 * mib, 399 * mib},
		{"l40s", 2, 2, 2, 423 * mib, 423 * mib},
		{"l40s", 2, 1, 2, 423 * mib, 399 * mib},
		{"l40s", 2, 2, 4, 423 * mib, 399 * mib},
	} {
		c := class(t, tt.class)
		if got11, got12 := distInitFor(p11, c, tt.tp, tt.pp, tt.nnodes), distInitFor(p12, c, tt.tp, tt.pp, tt.nnodes); got11 != tt.want11 || got12 != tt.want12 {
			t.Errorf("%s TP %d PP %d on %d nodes: v0.5.11 %d MiB, v0.5.12.post1 %d MiB; want %d, %d", tt.class, tt.tp, tt.pp, tt.nnodes, got11/mib, got12/mib, tt.want11/mib, tt.want12/mib)
		}
	}
	// The same through the ledger: Llama 3.1 8B at TP 2 on L40S under
	// v0.5.12.post1, one rank a node, holds what it holds on one node.
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	one := ref(t, llama, Serve{TPSize: 2}, class(t, "l40s"), p12)
	nodesOnlyDropFusion(t, one, llama, Serve{TPSize: 2}, class(t, "l40s"), p12)
}

// TestDistInitBytesByLink pins each figure of DistInitBytes: one rank holds
// nothing; NVLink 1638 MiB (row 4) at 2-4 ranks and 2058 (PR #11716)
// above; PCIe with peer access 0.39 GiB = 399 MiB (#40558) and without it
// 0.21 GiB = 215 MiB (row 321) at any world; XGMI and none take the
// NVLink figures, no log measuring them.
func TestDistInitBytesByLink(t *testing.T) {
	for _, tt := range []struct {
		world uint64
		link  budget.Interconnect
		want  uint64
	}{
		{1, budget.NVLink, 0},
		{1, budget.PCIe, 0},
		{2, budget.NVLink, 1638 * mib},
		{4, budget.NVLink, 1638 * mib},
		{8, budget.NVLink, 2058 * mib},
		{2, budget.PCIeP2P, 399 * mib},
		{8, budget.PCIeP2P, 399 * mib},
		{4, budget.PCIe, 215 * mib},
		{4, budget.XGMI, 1638 * mib},
		{8, budget.NoPeer, 2058 * mib},
	} {
		if got := DistInitBytes(tt.world, tt.link); got != tt.want {
			t.Errorf("DistInitBytes(%d, %s) = %d MiB, want %d MiB", tt.world, tt.link, got/mib, tt.want/mib)
		}
	}
}

// TestProfile0512PoolByHand walks Llama 3.1 8B at TP 2 on L40S under both
// releases: the same fraction (v0.5.11's text), F0 24 MiB larger under
// v0.5.12 (no custom all-reduce buffers), and T = int(rest x 2^30) //
// cell with rest = F1 - F0 x (1 - msf) in GiB: the cell is 8 KV heads /
// 2 ranks x 256 x 32 layers x 2 B = 65536 B, and 24 MiB x msf more of
// rest is 24 x msf x 16 tokens more, within one of the floors.
func TestProfile0512PoolByHand(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	l40s := class(t, "l40s")
	c11 := ref(t, llama, Serve{TPSize: 2}, l40s, mustProfile("v0.5.11")).Capacity()
	c12 := ref(t, llama, Serve{TPSize: 2}, l40s, mustProfile("v0.5.12")).Capacity()
	if c11.MemFractionStatic != c12.MemFractionStatic || c12.F0Bytes != c11.F0Bytes+24*mib || c12.CellBytes != 65536 {
		t.Fatalf("msf %v / %v, F0 %d / %d, cell %d; want the same fraction, F0 24 MiB more, cell 65536", c11.MemFractionStatic, c12.MemFractionStatic, c11.F0Bytes, c12.F0Bytes, c12.CellBytes)
	}
	msf := c12.MemFractionStatic
	for _, c := range []struct {
		name string
		cap  Capacity
	}{{"v0.5.11", c11}, {"v0.5.12", c12}} {
		wantT := poolTokensByHand(c.cap, msf, 65536, false)
		if c.cap.MaxTotalNumTokens != wantT {
			t.Errorf("%s: T %d, want %d", c.name, c.cap.MaxTotalNumTokens, wantT)
		}
	}
	if d, x := c12.MaxTotalNumTokens-c11.MaxTotalNumTokens, int64(24*msf*16); d < x-1 || d > x+1 {
		t.Errorf("v0.5.12 holds %d tokens more than v0.5.11; want about 24 MiB x %v / 64 KiB = %.0f", d, msf, 24*msf*16)
	}
}

// TestProfile0512RefusedByName: DeepSeek-V4 and the other new
// architectures by name, EAGLE (the spec v2 worker), the fusion workspace
// and the new flags that allocate; the others taken.
func TestProfile0512RefusedByName(t *testing.T) {
	archs := shipped(t)
	h100 := class(t, "h100-sxm-80g")
	p := mustProfile("v0.5.12.post1")
	laguna := *archs["meta-llama__Llama-3.1-8B-Instruct"]
	laguna.Architectures = []string{"LagunaForCausalLM"}
	if _, err := Resolve(Serve{}, &laguna, h100, p); err == nil || !strings.Contains(err.Error(), "implements LagunaForCausalLM natively, new in this release") {
		t.Errorf("LagunaForCausalLM under v0.5.12.post1: %v; want it refused as a new native architecture", err)
	}
	var se *engine.SettingError
	if _, err := Resolve(Serve{DisableCudaGraph: true, DisablePiecewiseCudaGraph: true, Spec: Spec{Algorithm: "EAGLE"}}, archs["meta-llama__Llama-3.1-8B-Instruct"], h100, p); !errors.As(err, &se) || !strings.Contains(se.Reason, "#21062") {
		t.Errorf("EAGLE under v0.5.12.post1: %v; want the spec v2 worker named", err)
	}
	if _, err := Resolve(Serve{TPSize: 2}, archs["Qwen__Qwen3-30B-A3B"], h100, p); !errors.As(err, &se) || se.Flag != "enable-flashinfer-allreduce-fusion" {
		t.Errorf("Qwen3-MoE TP2 on H100 under v0.5.12.post1: %v; want the fusion workspace refused", err)
	}
	for _, tt := range []struct {
		args []string
		want string // "" for taken
	}{
		{[]string{"--sglang-version", "v0.5.12", "--prefill-only-disable-kv-cache"}, "without a KV cache"},
		{[]string{"--sglang-version", "v0.5.12", "--model-config-parser", "auto"}, ""},
		{[]string{"--sglang-version", "v0.5.12", "--model-config-parser", "mistral"}, "a model config other than"},
		{[]string{"--sglang-version", "v0.5.12.post1", "--hierarchical-sparse-attention-extra-config", "x"}, "hierarchical sparse attention"},
		{[]string{"--sglang-version", "v0.5.12", "--speculative-draft-window-size", "4"}, "speculative decoding"},
		{[]string{"--sglang-version", "v0.5.12", "--detokenizer-worker-num", "2"}, ""},
		{[]string{"--sglang-version", "v0.5.11", "--detokenizer-worker-num", "2"}, "--detokenizer-worker-num"},
	} {
		err := (&flagServe{}).Judge(tt.args, 2)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Judge(%q): %v; want it taken", tt.args, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Judge(%q): %v; want %q", tt.args, err, tt.want)
		}
	}
}
