package sglang

import (
	"errors"
	"flag"
	"io"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/logs"
)

// deepSeekV3TP8 is flashinfer 0.5.3's workspace for DeepSeek-V3 (hidden
// 7168, bf16) at TP 8, by hand: the IPC buffer 8 x 2048 x 7168 x 2 =
// 234881024 B (224 MiB, aligned), the flags 8 x 256 x 4 = 8192 B rounded
// up to 2 MiB, three lamport buffers 3 x 234881024 = 704643072 B: 941621248
// B in all (0.88 GiB).
const deepSeekV3TP8 = 234881024 + 2097152 + 704643072

// workspace is the fusion workspace in ref's ledger.
func workspace(r *Reference) uint64 {
	var got uint64
	for _, it := range r.Evaluate(1, 1).Items {
		if it.Name == "flashinfer_allreduce_fusion_workspace" {
			got += it.Bytes
		}
	}
	return got
}

// TestNodesFusionWorkspace: DeepSeek-V3 at TP 8 is charged the workspace
// at one node where the release turns the fusion on (B200 under
// v0.5.6.post2, H100 under v0.5.7) and not at two (every rule asks
// nnodes == 1); given by name it is charged where the release would not
// turn it on (H100 under v0.5.6.post2), and at TP 1 it makes none.
func TestNodesFusionWorkspace(t *testing.T) {
	ds := shipped(t)["deepseek-ai__DeepSeek-V3"]
	v057 := mustProfile("v0.5.7")
	tests := []struct {
		name string
		s    Serve
		on   string
		p    Profile
		want uint64
	}{
		{"B200 v0.5.6.post2 nnodes 1", Serve{TPSize: 8, JITDeepGEMM: engine.Off}, "b200", current, deepSeekV3TP8},
		{"B200 v0.5.6.post2 nnodes 2", Serve{TPSize: 8, JITDeepGEMM: engine.Off, Nodes: Nodes{NNodes: 2}}, "b200", current, 0},
		{"H100 v0.5.7 nnodes 1", Serve{TPSize: 8}, "h100-sxm-80g", v057, deepSeekV3TP8},
		{"H100 v0.5.7 nnodes 2", Serve{TPSize: 8, Nodes: Nodes{NNodes: 2}}, "h100-sxm-80g", v057, 0},
		{"H100 v0.5.6.post2, not by itself", Serve{TPSize: 8}, "h100-sxm-80g", current, 0},
		{"H100 v0.5.6.post2, given", Serve{TPSize: 8, Nodes: Nodes{EnableARFusion: true}}, "h100-sxm-80g", current, deepSeekV3TP8},
		{"B200 v0.5.6.post2, given and on by itself: one workspace", Serve{TPSize: 8, JITDeepGEMM: engine.Off, Nodes: Nodes{EnableARFusion: true}}, "b200", current, deepSeekV3TP8},
		{"H100 v0.5.7, given at TP 1: no world", Serve{TPSize: 1, Nodes: Nodes{EnableARFusion: true}}, "h100-sxm-80g", v057, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := workspace(ref(t, ds, tt.s, class(t, tt.on), tt.p)); got != tt.want {
				t.Errorf("workspace %d B, want %d", got, tt.want)
			}
		})
	}
}

// TestNodesFootprintDiffersByWorkspace: at two nodes DeepSeek-V3 TP 8 on
// B200 differs from one node by the workspace alone: the same KV pool, a
// footprint 941621248 B smaller.
func TestNodesFootprintDiffersByWorkspace(t *testing.T) {
	ds, b200 := shipped(t)["deepseek-ai__DeepSeek-V3"], class(t, "b200")
	one := ref(t, ds, Serve{TPSize: 8, JITDeepGEMM: engine.Off}, b200, current)
	two := ref(t, ds, Serve{TPSize: 8, JITDeepGEMM: engine.Off, Nodes: Nodes{NNodes: 2}}, b200, current)
	if one.Serve.DistInitBytes != two.Serve.DistInitBytes || one.Serve.F0Bytes != two.Serve.F0Bytes {
		t.Errorf("distributed init %d/%d B, want the same", one.Serve.DistInitBytes, two.Serve.DistInitBytes)
	}
	total := func(r *Reference) uint64 {
		var n uint64
		for _, it := range r.Evaluate(1, 1).Items {
			n += it.Bytes
		}
		return n
	}
	if got := total(one) - total(two); got != deepSeekV3TP8 {
		t.Errorf("one node less two: %d B, want %d", got, uint64(deepSeekV3TP8))
	}
}

// TestNodesRefusals pins each refusal's flag and wording.
func TestNodesRefusals(t *testing.T) {
	archs := shipped(t)
	ds, llama := archs["deepseek-ai__DeepSeek-V3"], archs["meta-llama__Llama-3.1-8B-Instruct"]
	b200, h100 := class(t, "b200"), class(t, "h100-sxm-80g")
	v058 := mustProfile("v0.5.8")
	tests := []struct {
		name string
		s    Serve
		a    string
		c    budget.Class
		p    Profile
		want engine.SettingError
	}{
		{"nnodes does not divide tp x pp", Serve{TPSize: 8, Nodes: Nodes{NNodes: 3}}, "ds", b200, current,
			engine.SettingError{Flag: "nnodes", Value: "3", Reason: current.Describes + ` asserts "tp_size must be divisible by number of nodes" (server_args.py:4082-4084): tp-size x pp-size is 8`}},
		{"nnodes at v0.4.9.post2's lines", Serve{TPSize: 8, Nodes: Nodes{NNodes: 16}}, "ds", h100, r049,
			engine.SettingError{Flag: "nnodes", Value: "16", Reason: r049.Describes + ` asserts "tp_size must be divisible by number of nodes" (server_args.py:1700-1702): tp-size x pp-size is 8`}},
		{"multi-node data parallel", Serve{TPSize: 2, DPSize: 2, Nodes: Nodes{NNodes: 2}}, "llama", h100, current,
			engine.SettingError{Flag: "nnodes", Value: "2", Reason: current.Describes + ` asserts "multi-node data parallel is not supported unless dp attention!" (server_args.py:4093-4095) with --dp-size 2`}},
		// v0.5.13's check_server_args, the same assert at
		// server_args.py:7428-7430 (tag v0.5.13, and .post1's file).
		{"multi-node data parallel at v0.5.13.post1's lines", Serve{TPSize: 2, DPSize: 2, Nodes: Nodes{NNodes: 2}}, "llama", h100, mustProfile("v0.5.13.post1"),
			engine.SettingError{Flag: "nnodes", Value: "2", Reason: mustProfile("v0.5.13.post1").Describes + ` asserts "multi-node data parallel is not supported unless dp attention!" (server_args.py:7428-7430) with --dp-size 2`}},
		// v0.5.18's check_server_args: the same asserts at
		// server_args.py:9139-9141 and 9168-9170 (tag 71de97b).
		{"nnodes at v0.5.18's lines", Serve{TPSize: 8, DisablePiecewiseCudaGraph: true, Nodes: Nodes{NNodes: 3}}, "llama", h100, mustProfile("v0.5.18"),
			engine.SettingError{Flag: "nnodes", Value: "3", Reason: mustProfile("v0.5.18").Describes + ` asserts "tp_size must be divisible by number of nodes" (server_args.py:9139-9141): tp-size x pp-size is 8`}},
		{"multi-node data parallel at v0.5.18's lines", Serve{TPSize: 2, DPSize: 2, DisablePiecewiseCudaGraph: true, Nodes: Nodes{NNodes: 2}}, "llama", h100, mustProfile("v0.5.18"),
			engine.SettingError{Flag: "nnodes", Value: "2", Reason: mustProfile("v0.5.18").Describes + ` asserts "multi-node data parallel is not supported unless dp attention!" (server_args.py:9168-9170) with --dp-size 2`}},
		{"fusion given across nodes", Serve{TPSize: 8, Nodes: Nodes{NNodes: 2, EnableARFusion: true}}, "ds", b200, current,
			engine.SettingError{Flag: "enable-flashinfer-allreduce-fusion", Reason: "with --nnodes 2: " + current.Describes + " turns the fusion on only on one node (flashinfer#2006), and its IPC workspace across nodes is not modelled"}},
		{"fusion given for Llama", Serve{TPSize: 2, Nodes: Nodes{EnableARFusion: true}}, "llama", h100, current,
			engine.SettingError{Flag: "enable-flashinfer-allreduce-fusion", Reason: "not modelled for LlamaForCausalLM on " + h100.Device.Name + " under " + current.Describes + ": membudget sizes its workspace only for the architectures the release turns it on for by itself, on SM90 or SM100 (layers/communicator.py:770-777), and has not read whether this model's layers take the fused path"}},
		// 941621248 B is 0.88 GiB.
		// v0.5.8 is read now (FlashInfer 0.6.1): across two nodes the flag
		// is refused for the nodes, as under v0.5.6.post2.
		{"fusion given under v0.5.8 across nodes", Serve{TPSize: 8, Nodes: Nodes{NNodes: 2, EnableARFusion: true}}, "ds", h100, v058,
			engine.SettingError{Flag: "enable-flashinfer-allreduce-fusion", Reason: "with --nnodes 2: " + v058.Describes + " turns the fusion on only on one node (flashinfer#2006), and its IPC workspace across nodes is not modelled"}},
		{"fusion given under v0.4.9.post2, not read", Serve{TPSize: 8, Nodes: Nodes{EnableARFusion: true}}, "ds", h100, r049,
			engine.SettingError{Flag: "enable-flashinfer-allreduce-fusion", Reason: "FlashInfer's all-reduce fusion (its workspace, 0.88 GiB a GPU here as v0.5.6.post2 makes it) is not modelled for " + r049.Describes + ", whose rule and FlashInfer membudget has not read; membudget refuses it rather than size a server it would get wrong"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arch := ds
			if tt.a == "llama" {
				arch = llama
			}
			_, err := Resolve(tt.s, arch, tt.c, tt.p)
			var se *engine.SettingError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *engine.SettingError", err)
			}
			if diff := cmp.Diff(tt.want, *se); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestNodesCitesEveryProfile: every profile names where its
// check_server_args asserts on --nnodes; one without falls back to the
// function's bare name (v0.5.18 did, until its lines were read).
func TestNodesCitesEveryProfile(t *testing.T) {
	for _, p := range Profiles() {
		if c := nodesCites[p.Name]; c[0] == "" || c[1] == "" {
			t.Errorf("%s: no nodesCites entry", p.Name)
		}
	}
}

// TestNodesV058FusionByNodes: v0.5.8 turns the fusion on for DeepSeek-V3 TP
// 8 on the H100 at one node and not at two (its rule asks nnodes == 1,
// server_args.py:1622): the workspace, 8 x 2048 x 7168 x 2 = 224 MiB, 2 MiB
// of flags and 3 x 224 MiB of lamport (FlashInfer 0.6.1's formula), is
// charged at one node only.
func TestNodesV058FusionByNodes(t *testing.T) {
	ds, h100 := shipped(t)["deepseek-ai__DeepSeek-V3"], class(t, "h100-sxm-80g")
	v058 := mustProfile("v0.5.8")
	for _, tt := range []struct {
		nodes uint64
		want  uint64
	}{{1, 234881024 + 2097152 + 704643072}, {2, 0}} {
		l := ref(t, ds, Serve{TPSize: 8, Nodes: Nodes{NNodes: tt.nodes}}, h100, v058).Evaluate(1, 1)
		var got uint64
		for _, it := range l.Items {
			if it.Name == "flashinfer_allreduce_fusion_workspace" {
				got += it.Bytes
			}
		}
		if got != tt.want {
			t.Errorf("%d node(s): workspace %d B, want %d", tt.nodes, got, tt.want)
		}
	}
}

// TestNodesLaunchLine: the line carries --nnodes above 1 and the fusion
// given, and neither at SGLang's defaults.
func TestNodesLaunchLine(t *testing.T) {
	ds, h100 := shipped(t)["deepseek-ai__DeepSeek-V3"], class(t, "h100-sxm-80g")
	tests := []struct {
		s        Serve
		has, not []string
	}{
		{Serve{TPSize: 8}, nil, []string{"--nnodes", "--enable-flashinfer-allreduce-fusion"}},
		{Serve{TPSize: 8, Nodes: Nodes{NNodes: 2}}, []string{" --nnodes 2"}, []string{"--enable-flashinfer-allreduce-fusion"}},
		{Serve{TPSize: 8, Nodes: Nodes{EnableARFusion: true}}, []string{" --enable-flashinfer-allreduce-fusion"}, []string{"--nnodes"}},
	}
	for _, tt := range tests {
		r, err := Resolve(tt.s, ds, h100, current)
		if err != nil {
			t.Fatal(err)
		}
		line := Command("deepseek-ai/DeepSeek-V3", "", r)
		for _, w := range tt.has {
			if !strings.Contains(line, w) {
				t.Errorf("%+v: %q lacks %q", tt.s.Nodes, line, w)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(line, w) {
				t.Errorf("%+v: %q has %q", tt.s.Nodes, line, w)
			}
		}
	}
}

// TestNodesFlagsParse: --nnodes and --enable-flashinfer-allreduce-fusion
// set the serve, --node-rank is listed as not changing memory, and
// --nnodes 0 is refused as SGLang's integer flags are.
func TestNodesFlagsParse(t *testing.T) {
	s := Engine{}.NewServe().(*flagServe)
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var model string
	s.Register(fs, &model)
	if err := fs.Parse([]string{"--nnodes", "2", "--node-rank", "1", "--enable-flashinfer-allreduce-fusion"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Nodes{NNodes: 2, EnableARFusion: true}, s.s.Nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"--node-rank 1"}, s.Listed); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	if err := fs.Parse([]string{"--nnodes", "0"}); err == nil {
		t.Error("--nnodes 0 parsed, want an error")
	}
}

// TestNodesGivenWhereOnByItself: on SM120, where membudget does not size
// the flag given, it passes where the release turns the fusion on by
// itself (gpt-oss under v0.5.6.post2, in bfloat16: SGLang does not load
// its MXFP4 experts on SM12x, see mxfp4OffSM100), one workspace: 2 x 2048
// x 2880 x 2 = 23592960 B rounded up to 24 MiB, 2 MiB of flags, 3 x
// 23592960 = 70778880 B rounded up to 68 MiB; and is refused for
// DeepSeek-V3, which that rule holds to SM100.
func TestNodesGivenWhereOnByItself(t *testing.T) {
	archs := shipped(t)
	pro := class(t, "rtx-pro-6000")
	given := Serve{TPSize: 2, AttentionBackend: "triton", Nodes: Nodes{EnableARFusion: true}}
	bf16 := *archs["openai__gpt-oss-120b"]
	bf16.Quant = model.Quant{}
	if got, want := workspace(ref(t, &bf16, given, pro, current)), uint64(25165824+2097152+71303168); got != want {
		t.Errorf("gpt-oss: workspace %d B, want %d", got, want)
	}
	var se *engine.SettingError
	if _, err := Resolve(Serve{TPSize: 8, AttentionBackend: "triton", Nodes: Nodes{EnableARFusion: true}}, archs["deepseek-ai__DeepSeek-V3"], pro, current); !errors.As(err, &se) || se.Flag != "enable-flashinfer-allreduce-fusion" {
		t.Errorf("DeepSeek-V3: %v, want the flag's refusal", err)
	}
}

// TestMoreNodesChangeOnlyTheFusionWorkspace: a server spread over tp x
// pp nodes has the ledger of the same server on one node less the
// FlashInfer fusion workspace, where one node had it, and from v0.5.16
// the custom all-reduce v2's workspace, and from v0.5.15 the logits
// all-gather buffers (see [nodesOnlyDropFusion]): nothing else a GPU holds
// depends on --nnodes. Drawn servers seldom reach the workspace
// (about 1 in 100 multi-rank draws: the releases turn it on for a few
// architectures on SM90 to SM120 only), so the servers where one node has
// it are checked every run first, and must have it.
func TestMoreNodesChangeOnlyTheFusionWorkspace(t *testing.T) {
	archs := maps.Clone(shipped(t))
	// gpt-oss in bfloat16 (an unquantized checkpoint of the same config):
	// SGLang does not load the MXFP4 one on SM12x (see mxfp4OffSM100).
	bf16 := *archs["openai__gpt-oss-120b"]
	bf16.Quant = model.Quant{}
	archs["gpt-oss-120b-bf16"] = &bf16
	v057 := mustProfile("v0.5.7")
	edges := []struct {
		name  string
		arch  string
		s     Serve
		class string
		p     Profile
	}{
		{"DeepSeek-V3 TP 8 on B200, v0.5.6.post2", "deepseek-ai__DeepSeek-V3", Serve{TPSize: 8, JITDeepGEMM: engine.Off}, "b200", current},
		{"DeepSeek-V3 TP 8 on H100, v0.5.7", "deepseek-ai__DeepSeek-V3", Serve{TPSize: 8}, "h100-sxm-80g", v057},
		{"gpt-oss-120b in bfloat16 TP 2 on RTX PRO 6000, v0.5.6.post2", "gpt-oss-120b-bf16", Serve{TPSize: 2, AttentionBackend: "triton"}, "rtx-pro-6000", current},
	}
	for _, e := range edges {
		one := ref(t, archs[e.arch], e.s, class(t, e.class), e.p)
		if !nodesOnlyDropFusion(t, one, archs[e.arch], e.s, class(t, e.class), e.p) {
			t.Errorf("%s: one node has no fusion workspace: the case no longer reaches the edge", e.name)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(8192, 64, 1<<20).Draw(t, "case")
		s := c.Ref.Serve.Serve
		if c.Ref.Serve.TPSize*c.Ref.Serve.PPSize < 2 || s.DPSize > 1 {
			t.Skip("one rank, or data parallel: one node only")
		}
		nodesOnlyDropFusion(t, c.Ref, c.Arch, s, c.Class, c.Ref.Serve.Profile)
	})
}

// nodesOnlyDropFusion checks that s spread over tp x pp nodes has, on every
// stage, one node's ledger less the fusion workspace, and reports whether
// one node had it.
//
// From v0.5.16 the custom all-reduce v2's workspace (see
// [Profile.CustomARv2Symm]) is charged on one node only: SGLang turns v2
// off across nodes (server_args.py:6655-6662). The one-node ledger is then
// taken without it, which is what the nodes change besides the fusion.
// From v0.5.15 the logits all-gather buffers go too where the TP group
// spans nodes, as it does at one rank a node (see [logitsAllGatherKept]).
func nodesOnlyDropFusion(t tb, one *Reference, a *model.Arch, s Serve, c budget.Class, p Profile) bool {
	t.Helper()
	if p.CustomARv2Symm {
		q := p
		q.CustomARv2Symm = false
		var err error
		if one, err = NewReference(a, s, c, q); err != nil {
			t.Fatalf("one node without v0.5.16's custom all-reduce workspace: %v", err)
		}
	}
	s.Nodes.NNodes = one.Serve.TPSize * one.Serve.PPSize
	multi, err := NewReference(a, s, c, p)
	if err != nil {
		t.Fatalf("one node sizes, %d nodes refused: %v", s.Nodes.NNodes, err)
	}
	// Stage by stage, not the binding stage's ledger alone: the stages'
	// pools all but fill their budgets, so which stage binds can turn on
	// bytes, and dropping the workspace may hand it to another stage.
	if len(multi.stages) != len(one.stages) {
		t.Fatalf("%d nodes: %d stages, one node %d", s.Nodes.NNodes, len(multi.stages), len(one.stages))
	}
	had := false
	for i := range one.stages {
		var want []budget.Item
		for _, it := range one.EvaluateStage(i, 1, 1).Items {
			if it.Name == "flashinfer_allreduce_fusion_workspace" {
				had = had || it.Bytes > 0
				continue
			}
			if it.Name == "logits_all_gather" || it.Name == "spec_draft.logits_all_gather" {
				// One rank a node: a TP group above 1 spans nodes, and
				// v0.5.15's multimem gatherers are built disabled
				// (see [logitsAllGatherKept]).
				continue
			}
			want = append(want, it)
		}
		if diff := cmp.Diff(want, multi.EvaluateStage(i, 1, 1).Items); diff != "" {
			t.Errorf("%d nodes' ledger of stage %d (-want +got):\n%s", s.Nodes.NNodes, i, diff)
		}
	}
	return had
}

// TestNodesFromLog: explain reads server_args' nnodes=2 from a log, and a
// --nnodes given on membudget's command line overrides it.
func TestNodesFromLog(t *testing.T) {
	l := &logs.Log{Settings: []logs.Setting{
		{Key: "nnodes", Value: "2", Literal: logs.LiteralNumber, Source: logs.SourceServerArgs},
		{Key: "tp_size", Value: "8", Literal: logs.LiteralNumber, Source: logs.SourceServerArgs},
	}}
	ss, err := buildServe(l, Serve{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ss.Serve.Nodes.NNodes != 2 || ss.Serve.TPSize != 8 {
		t.Errorf("nnodes %d, tp %d: want 2, 8", ss.Serve.Nodes.NNodes, ss.Serve.TPSize)
	}
	ss, err = buildServe(l, Serve{Nodes: Nodes{NNodes: 4}}, map[string]bool{"nnodes": true})
	if err != nil {
		t.Fatal(err)
	}
	if ss.Serve.Nodes.NNodes != 4 {
		t.Errorf("nnodes %d given 4", ss.Serve.Nodes.NNodes)
	}
}
