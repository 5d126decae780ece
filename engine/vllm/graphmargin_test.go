package vllm

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/model/hub"
)

// TestGraphSampleStep pins the step of one second capture to PyTorch's
// kLargeBuffer, 20 MiB (c10/cuda/CUDACachingAllocator.cpp), the jump rows
// 148 and 135 show over their twins (TestGraphEstimateSamples): times
// 50 further graphs, 1,000 MiB = 0.98 GiB.
func TestGraphSampleStep(t *testing.T) {
	if graphSampleStep != 20<<20 {
		t.Fatalf("graphSampleStep = %d B, want kLargeBuffer's 20 MiB (20,971,520 B)", graphSampleStep)
	}
	if got := (51 - 1) * graphSampleStep; got != 1000<<20 {
		t.Errorf("50 further graphs x one segment = %d B, want 1,000 MiB", got)
	}
}

// TestGraphMargin: a serve vLLM starts on less margin than its CUDA-graph
// estimate can move gets the note where the profile charges the estimate,
// and not where the graphs stand beside the budget or none is captured.
//
// Llama-3.1-8B on the 80 GiB test class at util 0.35, max_num_seqs 16: a
// page is 16 tokens x 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 2
// MiB. The default capture sizes run to min(2 x 16, 512) = 32: 1, 2, 4,
// 8, 16, 24, 32, 7 PIECEWISE graphs; the FULL decode graphs are those up
// to max_num_seqs 16: 1, 2, 4, 8, 16, 5 graphs. The move is (7 - 1) x 20
// + (5 - 1) x 20 = 200 MiB; under -O1 (PIECEWISE alone) (7 - 1) x 20 =
// 120 MiB; with --cudagraph-capture-sizes 1, one graph a mode, 0.
//
// Each case sets --max-model-len to the blocks the serve holds less a
// margin of m blocks, so one request of it leaves m x 2 MiB (plus what
// the available memory holds beyond whole blocks, under 2 MiB) above
// vLLM's check, and the report's one sequence of that length the same
// below the util budget: 64 blocks are 128 MiB, under 200 and over 120;
// 128 blocks, 256 MiB, over 200.
func TestGraphMargin(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	m := &hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}
	base := Serve{GPUMemoryUtilization: 0.35, MaxModelLen: 4096, MaxNumSeqs: 16, MaxNumBatchedTokens: 8192}
	const mib = 1 << 20
	type want struct {
		Note         bool
		Swing        uint64
		Modes        []graphMode
		StartAtRisk  bool
		FitAtRisk    bool
		V2ReadAsV1   bool
		BlocksMargin uint64
	}
	both := []graphMode{{graphsPiecewise, 7, 120 * mib}, {"FULL decode", 5, 80 * mib}}
	cases := []struct {
		name    string
		prof    string
		edit    func(*Serve)
		margin  uint64 // blocks
		want    want
		noSwing bool // graphSwing says nothing
	}{
		{"0.20.0, 64 blocks", "0.20.0", func(*Serve) {}, 64, want{true, 200 * mib, both, true, true, false, 64}, false},
		{"0.21.0, 64 blocks", "0.21.0", func(*Serve) {}, 64, want{true, 200 * mib, both, true, true, false, 64}, false},
		{"0.20.0, 128 blocks", "0.20.0", func(*Serve) {}, 128, want{false, 200 * mib, both, false, false, false, 128}, false},
		// 0.19 captures its graphs beside the budget: the estimate takes
		// nothing off the KV cache.
		{"0.19.0, 64 blocks", "0.19.0", func(*Serve) {}, 64, want{BlocksMargin: 64}, true},
		{"0.20.0 --enforce-eager", "0.20.0", func(s *Serve) { s.EnforceEager = true }, 64, want{BlocksMargin: 64}, true},
		{"0.20.0 -O1, 64 blocks", "0.20.0", func(s *Serve) { s.Compilation.Level = "1" }, 64,
			want{false, 120 * mib, []graphMode{{graphsPiecewise, 7, 120 * mib}}, false, false, false, 64}, false},
		{"0.20.0 -O1, 32 blocks", "0.20.0", func(s *Serve) { s.Compilation.Level = "1" }, 32,
			want{true, 120 * mib, []graphMode{{graphsPiecewise, 7, 120 * mib}}, true, true, false, 32}, false},
		{"0.20.0 one capture size", "0.20.0", func(s *Serve) { s.Compilation.SizesFlag = "1" }, 1,
			want{false, 0, []graphMode{{graphsPiecewise, 1, 0}, {"FULL decode", 1, 0}}, false, false, false, 1}, false},
		// main serves Llama on the V2 runner, its graphs beside the budget;
		// 0.29.0 charges them (PR #53306), read as V1's estimate.
		{"main, 64 blocks", "main", func(*Serve) {}, 64, want{BlocksMargin: 64}, true},
		{"0.29.0, 64 blocks", "0.29.0", func(*Serve) {}, 64, want{true, 200 * mib, both, true, true, true, 64}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustProfile(tc.prof)
			s := base
			tc.edit(&s)
			sz, err := Size(m, testClass(false), s, p)
			if err != nil {
				t.Fatal(err)
			}
			s.MaxModelLen = (sz.capacity.Blocks - tc.margin) * 16
			if sz, err = Size(m, testClass(false), s, p); err != nil {
				t.Fatal(err)
			}
			c := sz.capacity
			if !c.Starts {
				t.Fatalf("%d tokens do not start: %+v", s.MaxModelLen, c)
			}
			// The margin by hand: the blocks held less those one request
			// takes, whole pages of 2 MiB, plus the available memory's
			// remainder under one page.
			start := c.StartMargin
			if lo := tc.want.BlocksMargin * 2 * mib; start < lo || start >= lo+2*mib || start != c.AvailableBytes-c.NeededBytes {
				t.Errorf("start margin %d B: want %d blocks of 2 MiB and under one page more, = available %d - needed %d", start, tc.want.BlocksMargin, c.AvailableBytes, c.NeededBytes)
			}
			modes, swing, ok := graphSwing(sz.Serve, a)
			if ok == tc.noSwing {
				t.Errorf("graphSwing ok = %v, want %v", ok, !tc.noSwing)
			}
			fp := sz.plan.Evaluate(1, s.MaxModelLen)
			if !fp.Fits() {
				t.Fatalf("one sequence of %d tokens does not fit: %+v", s.MaxModelLen, fp)
			}
			g, note := sz.graphMargin(fp)
			got := want{Note: note, Swing: swing, Modes: modes, StartAtRisk: g.StartAtRisk, FitAtRisk: g.FitAtRisk, BlocksMargin: tc.want.BlocksMargin}
			var w bytes.Buffer
			sz.writeGraphMargin(&w, fp)
			got.V2ReadAsV1 = strings.Contains(w.String(), "PR #53306")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// explain's note on the predicted start says the same.
			rf, err := NewReference(a, s, testClass(false), p)
			if err != nil {
				t.Fatal(err)
			}
			if n := graphMarginNote(rf.Predict(), &rf.Serve, a); (n != "") != tc.want.StartAtRisk {
				t.Errorf("explain's note %q: want one: %v", n, tc.want.StartAtRisk)
			}
			line, field := w.String(), sz.graphMarginField(fp)
			if (line != "") != tc.want.Note || (len(field) == 1) != tc.want.Note {
				t.Fatalf("note %q, fields %+v: want them: %v", line, field, tc.want.Note)
			}
			if !note {
				return
			}
			// The fit's margin is the start's: one sequence of max_model_len
			// is what the check needs.
			if g.FitMarginBytes != start || g.StartMarginBytes != start || g.EstimateBytes != fp.Terms[budget.TermGraphPool] {
				t.Errorf("margins %+v: want start and fit %d B, the estimate %d B", g, start, fp.Terms[budget.TermGraphPool])
			}
			for _, s := range []string{"graph-estimate margin: the start rests on", "and the fit on", "rows 148, 135, 179"} {
				if !strings.Contains(line, s) {
					t.Errorf("note %q lacks %q", line, s)
				}
			}
		})
	}
}

// TestGraphMarginFitOnly: a serve that starts with room to spare but
// whose sized sequences leave less than the move below the util budget
// gets the note on the fit alone. At --max-model-len 4096 one request
// takes 256 pages (512 MiB), far under the serve's memory; the sized
// sequences are single-block ones (16 tokens, 2 MiB each), as many as
// leave 64 blocks (128 MiB) free, under the 200 MiB move.
func TestGraphMarginFitOnly(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	m := &hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}
	s := Serve{GPUMemoryUtilization: 0.35, MaxModelLen: 4096, MaxNumSeqs: 16, MaxNumBatchedTokens: 8192}
	sz, err := Size(m, testClass(false), s, mustProfile("0.20.0"))
	if err != nil {
		t.Fatal(err)
	}
	fp := sz.plan.Evaluate(sz.capacity.Blocks-64, 16)
	if !fp.Fits() {
		t.Fatalf("%d sequences of one block do not fit", sz.capacity.Blocks-64)
	}
	g, ok := sz.graphMargin(fp)
	if !ok || g.StartAtRisk || !g.FitAtRisk {
		t.Fatalf("graph margin %+v (%v): want the fit alone at risk", g, ok)
	}
	if lo := uint64(128 << 20); g.FitMarginBytes < lo || g.FitMarginBytes >= lo+2<<20 {
		t.Errorf("fit margin %d B, want 64 blocks of 2 MiB and under one page more", g.FitMarginBytes)
	}
	var w bytes.Buffer
	sz.writeGraphMargin(&w, fp)
	if line := w.String(); !strings.Contains(line, "graph-estimate margin: the fit on") || strings.Contains(line, "the start rests") {
		t.Errorf("note %q: want the fit alone", line)
	}
}

// TestGraphMarginIsTheRefusal: the note's "at risk" is exactly what the
// move would do. The serve sized again with every stage's graph estimate
// raised by the move (what a start whose samples each land one more
// segment charges) is refused by vLLM's startup check iff the start was
// at risk, and the sized sequences' footprint stops fitting iff the fit
// was; no note where the profile does not charge the estimate.
func TestGraphMarginIsTheRefusal(t *testing.T) {
	models := shipped(t)
	// Full-attention models of 16-token pages, so that a length of whole
	// blocks sets the start's margin in blocks.
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B"}
	profiles := []string{"0.19.0", "0.20.0", "0.21.0", "main", "0.29.0"}
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom(names).Draw(t, "model")]
		p := mustProfile(rapid.SampledFrom(profiles).Draw(t, "profile"))
		s := Serve{
			GPUMemoryUtilization: rapid.SampledFrom([]float64{0.25, 0.28, 0.3}).Draw(t, "util"),
			PipelineParallelSize: rapid.SampledFrom([]uint64{1, 2}).Draw(t, "pp"),
			MaxModelLen:          4096,
			MaxNumSeqs:           rapid.Uint64Range(1, 256).Draw(t, "max seqs"),
			EnforceEager:         rapid.Bool().Draw(t, "eager"),
		}
		m := &hub.Loaded{Name: a.Source, Arch: a}
		sz, err := Size(m, testClass(false), s, p)
		if err != nil {
			t.Skip(err)
		}
		// A margin of 0 to 1,200 blocks (2.25 MiB or less each): around
		// the moves of these serves, 0 to 1.64 GiB.
		k := rapid.Uint64Range(0, min(1200, sz.capacity.Blocks-1)).Draw(t, "margin blocks")
		s.MaxModelLen = (sz.capacity.Blocks - k) * 16
		if sz, err = Size(m, testClass(false), s, p); err != nil {
			t.Skip(err)
		}
		if !sz.capacity.Starts || sz.capacity.SeqsOverStateBlocks {
			t.Skip("not started")
		}
		// One sized sequence up to 1,200 blocks shorter: the fit's margin
		// at or above the start's.
		j := rapid.Uint64Range(0, min(1200, sz.Serve.MaxModelLen/16-1)).Draw(t, "shorter by blocks")
		fp := sz.plan.Evaluate(1, sz.Serve.MaxModelLen-j*16)
		g, note := sz.graphMargin(fp)
		_, swing, charged := graphSwing(sz.Serve, a)
		if !charged {
			if note {
				t.Fatalf("a note where the estimate is not charged: %+v", g)
			}
			return
		}
		moved := *sz.plan
		moved.Stages = slices.Clone(sz.plan.Stages)
		for i := range moved.Stages {
			f := &moved.Stages[i].Fixed[budget.TermGraphPool]
			*f = budget.SatAdd(*f, swing)
		}
		refused := !sz.check.capacity(&moved).Starts
		if refused != g.StartAtRisk {
			t.Fatalf("moved by %d B: refused %v, start at risk %v (margin %d B)", swing, refused, g.StartAtRisk, sz.capacity.StartMargin)
		}
		if fp.Fits() {
			mf := moved.Evaluate(fp.Seqs, fp.Tokens)
			if mf.Fits() == g.FitAtRisk {
				t.Fatalf("moved by %d B: fits %v, fit at risk %v (headroom %d B)", swing, mf.Fits(), g.FitAtRisk, fp.BudgetHeadroom())
			}
		}
		if note != (g.StartAtRisk || g.FitAtRisk) {
			t.Fatalf("note %v, at risk %+v", note, g)
		}
	})
}
