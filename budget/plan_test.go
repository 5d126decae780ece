package budget

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestPageGroupPages(t *testing.T) {
	tests := []struct {
		name string
		g    PageGroup
		t    uint64
		want uint64
	}{
		{"full attention", PageGroup{Count: 2, PageTokens: 16, CapTokens: NoCap}, 33, 2 * 3},
		{"sliding window below its cap", PageGroup{Count: 6, PageTokens: 16, CapTokens: 17407, ExtraPages: 1}, 100, 6 * (7 + 1)},
		{"sliding window past its cap", PageGroup{Count: 6, PageTokens: 16, CapTokens: 17407, ExtraPages: 1}, 131072, 6 * (1088 + 1)},
		{"state holds its pages at any length", StateGroup(3, 2), 0, 3 * 2},
		{"state at MaxUint64 tokens", StateGroup(3, 2), math.MaxUint64, 3 * 2},
		{"saturates", PageGroup{Count: math.MaxUint64, PageTokens: 1, CapTokens: NoCap}, 2, math.MaxUint64},
	}
	for _, tt := range tests {
		if got := tt.g.Pages(tt.t); got != tt.want {
			t.Errorf("%s: Pages(%d) = %d, want %d", tt.name, tt.t, got, tt.want)
		}
	}
}

// twoStages is a plan of two pipeline stages on an 80 GiB device with a
// 64 GiB budget: stage 0 holds 10 GiB of weights and 8 tensors of 1 MiB
// pages; stage 1 holds 2 GiB of weights, 4 tensors, and 4 GiB of CUDA
// graphs, charged beside the budget.
func twoStages() *Plan {
	pool := func(tensors uint64) PagedPool {
		return PagedPool{Tensors: tensors, PageBytes: 1 << 20, Groups: []PageGroup{{Count: 1, PageTokens: 16, CapTokens: NoCap}}}
	}
	return &Plan{
		Device: 80 << 30, Driver: DriverTerms{DriverFixedBytes: 1 << 30, UtilCeiling: 1},
		Beside: TermSet(0).With(TermGraphPool),
		Stages: []Stage{
			{Budget: 64 << 30, Fixed: [NumTerms]uint64{TermWeights: 10 << 30}, Pool: pool(8)},
			{Budget: 64 << 30, Fixed: [NumTerms]uint64{TermWeights: 2 << 30, TermGraphPool: 4 << 30}, Pool: pool(4)},
		},
		MaxSeqs: 1 << 20, MaxLen: 1 << 20,
	}
}

func TestStagesBind(t *testing.T) {
	p := twoStages()
	// One sequence of 16 tokens: stage 0 holds 10 GiB + 8 MiB (54 GiB - 8 MiB
	// of headroom), stage 1 holds 2 GiB + 4 MiB in the budget and 4 GiB of
	// graphs beside it: 80 - 64 - 1 - 4 = 11 GiB of driver headroom. Stage 1
	// binds, with the least headroom.
	f := p.Evaluate(1, 16)
	if f.Stage != 1 || !f.Fits() || f.Beside != 4<<30 || f.Ledger != 2<<30+4<<20 || f.DriverHeadroom() != 11<<30 {
		t.Errorf("Evaluate(1, 16) = stage %d, fits %v, beside %d, ledger %d, driver headroom %d; want stage 1 fitting, 4 GiB beside, 2 GiB + 4 MiB, 11 GiB",
			f.Stage, f.Fits(), f.Beside, f.Ledger, f.DriverHeadroom())
	}
	// 54 GiB of stage 0's budget hold 54 Ki blocks of 8 MiB ... of 16
	// tokens each: 6912 one-block sequences; stage 1 would hold 15552.
	// Stage 0 is the one that fails first.
	ans, err := MaxSequences(p, 16, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Value != 54<<30/(8<<20) || ans.Next.Stage != 0 || ans.Next.Failed != OverBudget {
		t.Errorf("MaxSequences(16) = %d (next fails on stage %d, %v), want %d failing on stage 0 over the budget",
			ans.Value, ans.Next.Stage, ans.Next.Failed, 54<<30/(8<<20))
	}
	if got, want := p.PoolBudget(1), uint64(62<<30); got != want {
		t.Errorf("PoolBudget(1) = %d, want %d: the graphs beside the budget do not come out of it", got, want)
	}
}

func TestClassifyConditions(t *testing.T) {
	base := Footprint{Ledger: 50, Budget: 60, Device: 100, DriverFixed: 30, Ceiling: 60}
	tests := []struct {
		name string
		edit func(f *Footprint)
		want Condition
	}{
		{"fits", func(f *Footprint) {}, Fit},
		{"ledger over the budget", func(f *Footprint) { f.Ledger = 61 }, OverBudget},
		{"driver over the slice", func(f *Footprint) { f.DriverFixed = 41 }, OverDriverSlice},
		{"terms beside the budget count with the driver", func(f *Footprint) { f.Beside = 11 }, OverDriverSlice},
		{"budget above the ceiling", func(f *Footprint) { f.Ceiling = 59 }, OverUtilCeiling},
		{"no ceiling", func(f *Footprint) { f.Ceiling = 0; f.Budget = 70 }, Fit},
		{"the driver's failure is named before the ceiling's", func(f *Footprint) { f.Ceiling = 59; f.DriverFixed = 41 }, OverDriverSlice},
	}
	for _, tt := range tests {
		f := base
		tt.edit(&f)
		if got := Classify(f); got != tt.want {
			t.Errorf("%s: Classify = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTermSet(t *testing.T) {
	s := TermSet(0).With(TermGraphPool).With(TermActivation)
	var got []Term
	for term := range NumTerms {
		if s.Has(term) {
			got = append(got, term)
		}
	}
	if diff := cmp.Diff([]Term{TermActivation, TermGraphPool}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if s.Has(-1) || s.Has(NumTerms) {
		t.Error("a set holds terms that do not exist")
	}
}

func TestNearest(t *testing.T) {
	names := []string{"h100-sxm-80g", "h100-pcie-80g", "h200", "h200-nvl", "rtx-4090", "rtx-4090-48g", "a100-80g"}
	tests := []struct {
		name string
		want []string
	}{
		{"h100-sxm-80", []string{"h100-sxm-80g"}},
		// Case does not count (distance 0); h100-pcie-80g is 4 edits away,
		// within a third of its 13 letters.
		{"H100-SXM-80G", []string{"h100-sxm-80g", "h100-pcie-80g"}},
		{"h100-smx-80g", []string{"h100-sxm-80g", "h100-pcie-80g"}},
		// rtx-4090-48g is 5 edits away, more than a third of 12.
		{"rtx4090", []string{"rtx-4090"}},
		{"h200", []string{"h200", "h200-nvl"}},
		// Issue 20: a name that begins a candidate ranks before a nearer
		// edit: h200 is 1 edit from "h100", h100-sxm-80g 8 and
		// h100-pcie-80g 9, but both begin with it.
		{"h100", []string{"h100-sxm-80g", "h100-pcie-80g", "h200"}},
		{"mi300x", nil},
		{"zz", nil},
	}
	for _, tt := range tests {
		got := Nearest(tt.name, names, 3)
		if diff := cmp.Diff(tt.want, got, cmpEmpty); diff != "" {
			t.Errorf("Nearest(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return cmp.Equal([]string(a), []string(b))
})

// TestHotPathEqualsMethods: the evaluator writes out PagedPool.Bytes
// (poolBytes) and Footprint.Outside (in classify) to spare the calls;
// both must agree with the methods, at the saturating extremes too.
func TestHotPathEqualsMethods(t *testing.T) {
	extreme := rapid.OneOf(rapid.Uint64Range(0, 1<<20), rapid.Uint64(), rapid.SampledFrom([]uint64{0, 1, NoCap - 1, NoCap}))
	rapid.Check(t, func(t *rapid.T) {
		var p PagedPool
		p.Tensors, p.PageBytes = extreme.Draw(t, "tensors"), extreme.Draw(t, "page bytes")
		for i := range rapid.IntRange(0, 4).Draw(t, "groups") {
			name := func(s string) string { return fmt.Sprintf("group %d %s", i, s) }
			if rapid.Bool().Draw(t, name("state")) {
				p.Groups = append(p.Groups, StateGroup(extreme.Draw(t, name("count")), extreme.Draw(t, name("pages"))))
				continue
			}
			p.Groups = append(p.Groups, PageGroup{Count: extreme.Draw(t, name("count")), PageTokens: extreme.Draw(t, name("page tokens")),
				CapTokens: extreme.Draw(t, name("cap")), ExtraPages: extreme.Draw(t, name("extra"))})
		}
		s, tok := extreme.Draw(t, "seqs"), extreme.Draw(t, "tokens")
		if got, want := poolBytes(&p, s, tok), p.Bytes(s, tok); got != want {
			t.Fatalf("poolBytes %d, Bytes %d", got, want)
		}
		// Each term of the sum nonzero, so that dropping it moves the edge;
		// one of them at the saturating extreme now and then.
		term := rapid.Uint64Range(1, 1000)
		f := Footprint{Budget: term.Draw(t, "budget"),
			DriverFixed: term.Draw(t, "fixed"), DriverPerMille: term.Draw(t, "per mille"), Slack: term.Draw(t, "slack"),
			Host: term.Draw(t, "host"), Beside: term.Draw(t, "beside")}
		sum := []*uint64{&f.Budget, &f.DriverFixed, &f.DriverPerMille, &f.Slack, &f.Host, &f.Beside}
		if rapid.Bool().Draw(t, "saturate") {
			*sum[rapid.IntRange(0, len(sum)-1).Draw(t, "saturated term")] = rapid.SampledFrom([]uint64{NoCap - 1, NoCap}).Draw(t, "extreme")
		}
		// The ledger within the budget or over it, by one byte at most
		// beyond.
		f.Ledger = rapid.Uint64Range(0, SatAdd(f.Budget, 1)).Draw(t, "ledger")
		// The device at the driver condition's edge (one byte either side
		// of budget + outside), where every term of the sum tips it.
		edge := SatAdd(f.Budget, SatAdd(SatAdd(SatAdd(SatAdd(f.DriverFixed, f.DriverPerMille), f.Slack), f.Host), f.Beside))
		switch rapid.IntRange(-1, 1).Draw(t, "device offset") {
		case -1:
			f.Device = SatSub(edge, 1)
		case 0:
			f.Device = edge
		default:
			f.Device = SatAdd(edge, 1)
		}
		over := f.Ledger <= f.Budget && SatAdd(f.Budget, f.Outside()) > f.Device
		if got := classify(&f); (got == OverDriverSlice) != over {
			t.Fatalf("classify %v; Outside says over the driver slice: %v (%+v)", got, over, f)
		}
	})
}

// TestBesideFixed: a stage's fixed bytes beside the budget take nothing
// off the ledger and count toward the driver's condition.
func TestBesideFixed(t *testing.T) {
	tests := []struct {
		name        string
		besideFixed uint64
		wantBeside  uint64
		wantFailed  Condition
	}{
		// Stage 1 of twoStages holds 4 GiB of graphs beside a 64 GiB budget
		// on an 80 GiB device with 1 GiB of driver: 11 GiB of headroom.
		{"none", 0, 4 << 30, Fit},
		// 0.6 GiB more beside: 4.6 GiB, 10.4 GiB of headroom, still fits.
		{"0.6 GiB", 6 << 30 / 10, 4<<30 + 6<<30/10, Fit},
		// 11 GiB more: 80 - 64 - 1 - 4 - 11 = 0: exactly fits.
		{"11 GiB, to the byte", 11 << 30, 15 << 30, Fit},
		// One byte more is over the device.
		{"11 GiB + 1 B", 11<<30 + 1, 15<<30 + 1, OverDriverSlice},
	}
	for _, tt := range tests {
		p := twoStages()
		p.Stages[1].BesideFixed = tt.besideFixed
		f := p.EvaluateStage(1, 1, 16)
		got := struct {
			Ledger, Beside, BesideFixed uint64
			Failed                      Condition
		}{f.Ledger, f.Beside, f.BesideFixed, f.Failed}
		// The ledger stays 2 GiB of weights + one 4 MiB block.
		want := struct {
			Ledger, Beside, BesideFixed uint64
			Failed                      Condition
		}{2<<30 + 4<<20, tt.wantBeside, tt.besideFixed, tt.wantFailed}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}
