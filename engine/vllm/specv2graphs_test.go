package vllm

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model/hub"
)

// TestSpecV2GraphSetsByHand: the graphs each of the V2 speculator's sets
// captures, for Llama-3.1-8B-Instruct with the shipped EAGLE-3 draft on
// main and 0.28, N = 256 sequences, on a Hopper GPU (the default largest
// size is min(2 x N x (k+1), 512), vllm/config/vllm.py:1932-1943).
//
// The default sizes up to 512 are 1, 2, 4, the 31 multiples of 8 from 8
// to 248 and the 17 multiples of 16 from 256 to 512: 51 sizes.
//
// k = 3 (query 4), FULL_AND_PIECEWISE (the default, -O2):
//   - prefill set, the target's candidates (cudagraph_utils.py:237-282):
//     51 PIECEWISE graphs, 1 to 512 tokens; FULL graphs at each size
//     rounded up to 4 and at most min(4 x 256, 512) = 512: 1, 2 and 4
//     give 4 (one graph), 8..248 themselves (31), 256..512 themselves
//     (17): 49, the largest 512 tokens (128 requests);
//   - decode set (k > 1, decode mode FULL: FULL_DECODE_ONLY at query 1,
//     speculator.py:133-145): the sizes up to 256: 1, 2, 4, 8..248 (31)
//     and 256: 35, the largest 256 requests.
//
// k = 1 (query 2): the largest is min(2 x 256 x 2, 512) = 512, the same
// 51 sizes; FULL prefill graphs at each size rounded up to 2, at most
// min(2 x 256, 512) = 512: 1 and 2 give 2 (one), 4, 8..248 (31),
// 256..512 (17): 50, the largest 512 tokens; no decode set
// (speculator.py:178-179).
//
// k = 3 under PIECEWISE: 51 PIECEWISE prefill graphs, no FULL graph in
// either set ("PIECEWISE cudagraphs are not supported for draft decodes",
// speculator.py:133-137).
//
// k = 3 under FULL_DECODE_ONLY: no mixed graph; the 49 FULL prefill
// graphs and the 35 FULL decode graphs of FULL_AND_PIECEWISE.
//
// The sets are the same on 0.27.0 and 0.27.1 (the same candidates,
// cudagraph_utils.py:177-290 at aeeb36b1f; 0.27 keeps 512 on Blackwell,
// not on this Hopper class); what a decode graph records differs: k-1 = 2
// draft steps fused on main, 0.28 and 0.27.1 (charged so, the upper
// reading), one step replayed k-1 times on 0.27.0 (_multi_step_decode,
// autoregressive/speculator.py:374-424 at aeeb36b1f).
func TestSpecV2GraphSetsByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	dir := WriteEagle3Draft(t)
	spec := func(k string) string {
		return `{"method": "eagle3", "model": "` + dir + `", "num_speculative_tokens": ` + k + `}`
	}
	cases := []struct {
		name string
		k    string
		mode string
		want specV2GraphSets
	}{
		{"k=3", "3", "", specV2GraphSets{prefillMixed: 51, prefillFull: 49, decode: 35, prefillMixedTop: 512, prefillFullTop: 512, decodeTop: 256}},
		{"k=1", "1", "", specV2GraphSets{prefillMixed: 51, prefillFull: 50, prefillMixedTop: 512, prefillFullTop: 512}},
		{"k=3 PIECEWISE", "3", graphsPiecewise, specV2GraphSets{prefillMixed: 51, prefillMixedTop: 512}},
		{"k=3 FULL_DECODE_ONLY", "3", graphsFullDecodeOnly, specV2GraphSets{prefillFull: 49, decode: 35, prefillFullTop: 512, decodeTop: 256}},
	}
	for _, pc := range []struct {
		p     Profile
		steps uint64 // draft steps a decode graph records at k = 3
	}{{current, 2}, {mustProfile("0.28.0"), 2}, {mustProfile("0.27.1"), 2}, {mustProfile("0.27.0"), 1}, {mustProfile("0.27.0rc1"), 1}} {
		p := pc.p
		for _, tc := range cases {
			if tc.want.decode > 0 {
				tc.want.decodeSteps = pc.steps
			}
			s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, Compilation: Compilation{GraphMode: tc.mode}, SpeculativeConfig: spec(tc.k)}
			r, err := Resolve(s, a, bigClass, p)
			if err != nil {
				t.Fatalf("%s %s: %v", p.Name, tc.name, err)
			}
			if !onV2Speculator(&r) {
				t.Fatalf("%s %s: the draft is not on the V2 speculator", p.Name, tc.name)
			}
			if diff := cmp.Diff(tc.want, specV2Graphs(&r), cmp.AllowUnexported(specV2GraphSets{})); diff != "" {
				t.Errorf("%s %s: graph sets (-want +got):\n%s", p.Name, tc.name, diff)
			}
		}
	}
	// --enforce-eager captures nothing.
	r, err := Resolve(Serve{MaxModelLen: 8192, MaxNumSeqs: 256, EnforceEager: true, SpeculativeConfig: spec("3")}, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(specV2GraphSets{}, specV2Graphs(&r), cmp.AllowUnexported(specV2GraphSets{})); diff != "" {
		t.Errorf("eager: graph sets (-want +got):\n%s", diff)
	}
}

// TestSpecV2GraphBytesByHand: what the V2 speculator's graphs add to the
// graph term, by hand, for the serves of TestSpecV2GraphSetsByHand under
// FULL_AND_PIECEWISE (bf16, TP 1; the per-layer-graph constant is 153 KiB
// = 156672 B, peaks.go).
//
// EAGLE-3, k = 3: one draft layer; 51 + 49 prefill graphs of one pass and
// 35 fused decode graphs of k-1 = 2 passes: 170 passes, 169 after the
// first, 169 x 156672 = 26477568 B. The first capture: the drafter's
// forward pass is 126976 B a token (TestSpecV2ByHand), 512 x 126976 =
// 65011712 at the largest size; the largest FULL prefill graph holds 512
// x 4096 x 2 = 4194304 of hidden states and the logits of 128 requests
// (128 x 4096 x 2 = 1048576 sampled rows, 128 x 32000 x 2 = 8192000 draft
// logits, 2 x 31960 x 8 = 511360 of arange and targets, 128 x 128256 x 2
// = 32833536 of logits_new): 46779776; the largest FULL decode graph,
// 256 x 4096 x 2 = 2097152 and the logits of 256 requests (2097152 +
// 16384000 + 511360 + 65667072 = 84659584): 86756736, the largest. The
// target's FULL graphs keep three auxiliary states of 512 tokens: 3 x 512
// x 4096 x 2 = 12582912. In all 86756736 + 26477568 + 12582912 =
// 125817216 B.
//
// EAGLE-1, k = 1: 51 + 50 prefill passes, 100 after the first: 15667200
// B. The forward pass, 118784 B a token (TestSpecV2EagleByHand), 512 x
// 118784 = 60817408; the largest FULL prefill graph, 512 tokens of 256
// requests: 4194304 of hidden states, 256 x 4096 x 2 = 2097152 sampled
// rows and 256 x 128256 x 2 = 65667072 of the target head's logits:
// 71958528, the largest. No auxiliary states. In all 71958528 + 15667200
// = 87625728 B.
//
// On 0.27.0 each of the 35 decode graphs records one draft step: 51 + 49
// + 35 = 135 passes, 134 after the first, 134 x 156672 = 20994048 B (35
// x 156672 = 5483520 fewer than main's 169); the first capture and the
// auxiliary states are main's: 86756736 + 20994048 + 12582912 =
// 120333696 B. 0.27.1 is charged main's fused graphs, 125817216 B. The
// EAGLE-1 serve at k = 1 has no decode set: 87625728 B on each.
func TestSpecV2GraphBytesByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	eagle3, eagle1 := eagle3Spec(WriteEagle3Draft(t)), `{"method": "eagle", "model": "`+WriteEagleDraft(t)+`", "num_speculative_tokens": 1}`
	cases := []struct {
		name, spec string
		p          Profile
		want       uint64
	}{
		{"EAGLE-3 k=3", eagle3, current, 125817216},
		{"EAGLE-1 k=1", eagle1, current, 87625728},
		{"EAGLE-3 k=3 on 0.28.0", eagle3, mustProfile("0.28.0"), 125817216},
		{"EAGLE-3 k=3 on 0.27.1, fused", eagle3, mustProfile("0.27.1"), 125817216},
		{"EAGLE-3 k=3 on 0.27.0, one step a decode graph", eagle3, mustProfile("0.27.0"), 120333696},
		{"EAGLE-1 k=1 on 0.27.0", eagle1, mustProfile("0.27.0"), 87625728},
	}
	for _, tc := range cases {
		s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, SpeculativeConfig: tc.spec}
		r, err := Resolve(s, a, bigClass, tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := draftGraphBytes(a, &r, stageOf(&r, 0)); got != tc.want {
			t.Errorf("%s: the drafter's graphs are %d B, want %d", tc.name, got, tc.want)
		}
	}

	// The report: the graph line splits into the target's and the
	// drafter's, both beside the budget (main's V2 runner captures its
	// graphs after the KV cache is sized), so the KV cache is the eager
	// serve's.
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, SpeculativeConfig: cases[0].spec}
	sz, err := Size(&hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}, bigClass, s, current)
	if err != nil {
		t.Fatal(err)
	}
	fp := sz.Plan().Evaluate(1, 4096)
	var got []engine.FootprintLine
	for _, l := range sz.Section().Lines(fp) {
		if l.Label == termLabels[budget.TermGraphPool] || l.Label == draftGraphsLabel {
			got = append(got, l)
		}
	}
	want := []engine.FootprintLine{
		{Label: termLabels[budget.TermGraphPool], Bytes: fp.Terms[budget.TermGraphPool] - 125817216, Beside: true},
		{Label: draftGraphsLabel, Bytes: 125817216, Beside: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("graph lines (-want +got):\n%s", diff)
	}
	if j := sz.specJSON(); j == nil || j.DraftGraphBytes != 125817216 {
		t.Errorf("the report's draft_graph_bytes is %+v, want 125817216", j)
	}
	line := sz.specSettings()[0]
	for _, w := range []string{"51 PIECEWISE prefill graphs up to 512 tokens", "49 FULL prefill graphs up to 512 tokens", "35 FULL decode graphs up to 256 requests (2 draft steps each at most)", "beside the KV budget"} {
		if !strings.Contains(line, w) {
			t.Errorf("the speculative-decoding line %q does not say %q", line, w)
		}
	}
	old, err := Size(&hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}, bigClass, s, mustProfile("0.27.0"))
	if err != nil {
		t.Fatal(err)
	}
	if line, w := old.specSettings()[0], "35 FULL decode graphs up to 256 requests (one draft step each, replayed 2 times)"; !strings.Contains(line, w) {
		t.Errorf("0.27.0: the speculative-decoding line %q does not say %q", line, w)
	}
	if j := old.specJSON(); j == nil || j.DraftGraphBytes != 120333696 {
		t.Errorf("0.27.0: the report's draft_graph_bytes is %+v, want 120333696", j)
	}
	s.EnforceEager = true
	eager, err := Size(&hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}, bigClass, s, current)
	if err != nil {
		t.Fatal(err)
	}
	if g, e := sz.Plan().PoolBudget(0), eager.Plan().PoolBudget(0); g != e {
		t.Errorf("the KV cache memory is %d B with graphs and %d B eager; the V2 graphs are beside the budget up to 0.28", g, e)
	}
}

// TestSpecV2GraphRefusalsSizeEager: the V2 speculator's graphs that stay
// refused (cudagraph_mode FULL, LoRA) name their flag, and the same serve
// with --enforce-eager is sized, its drafter without graphs.
func TestSpecV2GraphRefusalsSizeEager(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	dir := WriteEagle3Draft(t)
	for _, p := range []Profile{current, mustProfile("0.28.0"), mustProfile("0.27.0")} {
		for _, tc := range []struct {
			name       string
			s          Serve
			flag, says string
		}{
			{"FULL", Serve{Compilation: Compilation{GraphMode: graphsFull}}, "compilation-config", "on the V2 model runner under cudagraph_mode FULL"},
			{"LoRA", Serve{LoRA: LoRA{Enable: true}}, "enable-lora", "on the V2 model runner with LoRA"},
		} {
			tc.s.MaxModelLen, tc.s.SpeculativeConfig = 8192, eagle3Spec(dir)
			_, err := Resolve(tc.s, a, bigClass, p)
			wantRefusal(t, err, tc.flag, tc.says)
			tc.s.EnforceEager = true
			r, err := Resolve(tc.s, a, bigClass, p)
			if err != nil {
				t.Fatalf("%s %s with --enforce-eager: %v, want it sized", p.Name, tc.name, err)
			}
			if n := draftGraphBytes(a, &r, stageOf(&r, 0)); n != 0 {
				t.Errorf("%s %s: eager, yet the drafter's graphs are %d B", p.Name, tc.name, n)
			}
		}
	}
}

// TestSpecV2DecodeStepsProperty: 0.27.0 and 0.27.1 capture the same graph
// sets, and differ only in the draft steps a decode graph records (one on
// 0.27.0, k-1 fused on 0.27.1, the upper reading): the drafter's graphs
// on 0.27.0 are 0.27.1's less decode x (k-2) passes of its layers at the
// per-layer-graph constant, the same where k <= 2 or there is no decode
// set (PIECEWISE), never more.
func TestSpecV2DecodeStepsProperty(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	dir := WriteEagle3Draft(t)
	early, late := mustProfile("0.27.0"), mustProfile("0.27.1")
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.Uint64Range(1, 6).Draw(t, "k")
		s := Serve{
			MaxModelLen:       rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:        rapid.Uint64Range(1, 512).Draw(t, "seqs"),
			Compilation:       Compilation{GraphMode: rapid.SampledFrom([]string{"", graphsPiecewise, graphsFullDecodeOnly, graphsFullAndPiecewise}).Draw(t, "mode")},
			SpeculativeConfig: `{"method": "eagle3", "model": "` + dir + `", "num_speculative_tokens": ` + strconv.FormatUint(k, 10) + `}`,
		}
		re, err := Resolve(s, a, bigClass, early)
		if err != nil {
			t.Skip(err)
		}
		rl, err := Resolve(s, a, bigClass, late)
		if err != nil {
			t.Fatalf("sized on 0.27.0 but not on 0.27.1: %v", err)
		}
		se, sl := specV2Graphs(&re), specV2Graphs(&rl)
		if se.decode != sl.decode || se.prefillMixed != sl.prefillMixed || se.prefillFull != sl.prefillFull || se.decodeTop != sl.decodeTop {
			t.Fatalf("the graph sets differ: 0.27.0 %+v, 0.27.1 %+v", se, sl)
		}
		ge, gl := draftGraphBytes(a, &re, stageOf(&re, 0)), draftGraphBytes(a, &rl, stageOf(&rl, 0))
		var fewer uint64 // the decode graphs' passes 0.27.1 charges beyond 0.27.0's
		// k-2 would wrap at k = 1, where both record one step.
		if se.decode > 0 && k > 2 {
			fewer = se.decode * (k - 2) * re.Spec.Draft.Layers * graphBytesPerLayerGraph
		}
		if ge+fewer != gl {
			t.Fatalf("k=%d, %d decode graphs: 0.27.0's drafter graphs are %d B, 0.27.1's %d B; want them %d B apart", k, se.decode, ge, gl, fewer)
		}
	})
}
