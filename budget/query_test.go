package budget

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stepEval fits for x <= last.
func stepEval(last uint64) Evaluator {
	return func(x uint64) (Footprint, error) {
		f := Footprint{Seqs: x}
		if x > last {
			f.Failed = OverBudget
		}
		return f, nil
	}
}

func TestVerifiedSearch(t *testing.T) {
	const max = math.MaxUint64
	type result struct {
		Value        uint64
		Fits, Capped bool
	}
	tests := []struct {
		name          string
		lo, hi, guess uint64
		last          uint64
		want          result
		maxEvals      int
	}{
		{"exact guess", 1, 1000, 500, 500, result{500, true, false}, 4},
		{"guess high", 1, 1000, 900, 500, result{500, true, false}, 4 + 2*9},
		{"guess low", 1, 1000, 10, 500, result{500, true, false}, 4 + 2*9},
		{"nothing fits", 1, 1000, 500, 0, result{0, false, false}, 3 + 9},
		{"capped", 1, 1000, 500, 5000, result{1000, true, true}, 3 + 9},
		{"lo == hi fits", 7, 7, 7, 7, result{7, true, true}, 1},
		{"lo == hi does not fit", 7, 7, 7, 6, result{0, false, false}, 1},
		{"guess outside the range", 1, 100, 5000, 40, result{40, true, false}, 4 + 2*7},
		{"full range, step near the top", 0, max, 0, max - 1, result{max - 1, true, false}, 2 + 2*64},
		{"full range, all fit", 0, max, 12345, max, result{max, true, true}, 2 + 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans, err := Verified(tt.lo, tt.hi, tt.guess, stepEval(tt.last))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, result{ans.Value, ans.Fits, ans.Capped}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if ans.Evals > tt.maxEvals {
				t.Errorf("%d evaluations, want at most %d", ans.Evals, tt.maxEvals)
			}
			if ans.Fits && (!ans.At.Fits() || ans.At.Seqs != ans.Value) {
				t.Errorf("witness At = %+v does not show the answer fitting", ans.At)
			}
			if ans.Fits && !ans.Capped && (ans.Next.Fits() || ans.Next.Seqs != ans.Value+1) {
				t.Errorf("witness Next = %+v does not show answer+1 failing", ans.Next)
			}
			// A capped answer has no point after it, and an answer where
			// nothing fits shows lo failing and nothing else: the search
			// keeps its witnesses in the answer, so a stale one would show.
			if (ans.Capped || !ans.Fits) && ans.Next != (Footprint{}) {
				t.Errorf("Next = %+v, want the zero Footprint", ans.Next)
			}
			if !ans.Fits && (ans.At.Fits() || ans.At.Seqs != tt.lo) {
				t.Errorf("At = %+v, want lo = %d failing", ans.At, tt.lo)
			}
		})
	}
}

func TestVerifiedDetectsNonMonotone(t *testing.T) {
	tests := []struct {
		name      string
		fits      func(x uint64) bool
		low, high uint64
	}{
		{"fits again at the cap", func(x uint64) bool { return x <= 10 || x == 100 }, 11, 100},
		{"lo fails, later fits", func(x uint64) bool { return x >= 5 }, 1, 100},
		{"hole below the answer", func(x uint64) bool { return x != 1 && x <= 60 }, 1, 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eval := func(x uint64) (Footprint, error) {
				f := Footprint{}
				if !tt.fits(x) {
					f.Failed = OverDriverSlice
				}
				return f, nil
			}
			ans, err := Verified(1, 100, 50, eval)
			var me *MonotonicityError
			if !errors.As(err, &me) || !errors.Is(err, ErrNotMonotone) {
				t.Fatalf("answer %+v, err %v; want a MonotonicityError", ans, err)
			}
			if me.Low >= me.High || tt.fits(me.Low) || !tt.fits(me.High) {
				t.Errorf("error names %d and %d, which do not show the contradiction", me.Low, me.High)
			}
		})
	}
}

func TestVerifiedPassesEvaluatorErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, failAt := range []uint64{50, 51, 1, 100} { // the points an exact guess evaluates
		eval := func(x uint64) (Footprint, error) {
			if x == failAt {
				return Footprint{}, boom
			}
			return stepEval(50)(x)
		}
		if _, err := Verified(1, 100, 50, eval); !errors.Is(err, boom) {
			t.Errorf("failing at %d: err %v, want boom", failAt, err)
		}
	}
	if _, err := Verified(5, 4, 4, stepEval(9)); !errors.Is(err, ErrEmptyRange) {
		t.Errorf("empty range: %v", err)
	}
}

// toyPlan: 10 GiB device, 8 GiB budget, 1 GiB of weights, one pool of 4
// tensors with 16-token pages of 1 MiB.
func toyPlan() *Plan {
	return &Plan{
		Device: 10 << 30,
		Driver: DriverTerms{DriverFixedBytes: 256 << 20, UtilCeiling: 1},
		Stages: []Stage{{
			Budget: 8 << 30,
			Fixed:  [NumTerms]uint64{TermWeights: 1 << 30},
			Pool:   PagedPool{Tensors: 4, PageBytes: 1 << 20, Groups: []PageGroup{{Count: 1, PageTokens: 16, CapTokens: NoCap}}},
		}},
		MaxSeqs: 1 << 20, MaxLen: 1 << 20,
	}
}

func TestMaxSequencesAndLength(t *testing.T) {
	p := toyPlan()
	// 7 GiB for KV = 7168 MiB; a sequence of 1600 tokens holds 100 pages in
	// each of 4 tensors = 400 MiB: 17 sequences (6800 MiB), 18 do not.
	ans, err := MaxSequences(p, 1600, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Value != 17 || !ans.At.Fits() || ans.Next.Fits() || ans.Next.Failed != OverBudget {
		t.Errorf("MaxSequences(1600) = %d (next failed on %v), want 17 with 18 over the budget", ans.Value, ans.Next.Failed)
	}
	if ans.Evals > 4 {
		t.Errorf("%d evaluations from an exact estimate, want at most 4", ans.Evals)
	}
	// 3 sequences: 7168 MiB / (3 x 4 MiB per page) = 597 pages = 9552 tokens.
	ans, err = MaxLength(p, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Value != 597*16 {
		t.Errorf("MaxLength(3) = %d, want %d", ans.Value, 597*16)
	}
	// Capped: 1 sequence of at most 100 tokens fits.
	ans, err = MaxLength(p, 1, 100)
	if err != nil || !ans.Capped || ans.Value != 100 {
		t.Errorf("MaxLength(1, cap 100) = %+v, %v; want capped at 100", ans, err)
	}
	// Nothing fits: weights above the budget.
	p.Stages[0].Fixed[TermWeights] = 9 << 30
	ans, err = MaxSequences(p, 16, 0)
	if err != nil || ans.Fits || ans.At.BudgetShortfall() == 0 {
		t.Errorf("MaxSequences with 9 GiB of weights = %+v, %v; want nothing fits, with the shortfall", ans, err)
	}
	if _, err := MaxSequences(p, 0, 0); err == nil {
		t.Error("length 0 accepted")
	}
	if _, err := MaxLength(p, p.MaxSeqs+1, 0); err == nil {
		t.Error("more sequences than max_num_seqs accepted")
	}
}

// TestQueriesWithStateAndMixedBlocks: a pool as vLLM lays out a hybrid:
// five sliding groups of 16-token blocks keeping 1000 tokens and one more
// block, a full group whose blocks hold 32 tokens (page unification doubled
// them), and three state groups of two blocks a sequence whatever its
// length. The estimates start the search at the answer.
func TestQueriesWithStateAndMixedBlocks(t *testing.T) {
	p := toyPlan()
	p.Stages[0].Pool = PagedPool{Tensors: 5, PageBytes: 1 << 20, Groups: []PageGroup{
		{Count: 5, PageTokens: 16, CapTokens: 1000, ExtraPages: 1},
		{Count: 1, PageTokens: 32, CapTokens: NoCap},
		StateGroup(3, 2),
	}}
	// 7168 MiB for the pool, 5 MiB a block: 1433 blocks. From 1000 tokens
	// on, a sequence keeps 5 x (63 + 1) + 3 x 2 = 326 blocks and
	// cdiv(t, 32) more.
	if got := p.Stages[0].Pool.PagesPerSeq(1000); got != 326+32 {
		t.Fatalf("pages at 1000 tokens = %d, want 358", got)
	}
	// Two sequences: 2 x (326 + cdiv(t, 32)) <= 1433 up to cdiv(t, 32) =
	// 390, t = 12,480.
	ans, err := MaxLength(p, 2, 0)
	if err != nil || ans.Value != 12480 || ans.Evals > 4 {
		t.Errorf("MaxLength(2) = %d in %d evaluations, %v; want 12480 in at most 4", ans.Value, ans.Evals, err)
	}
	// 1000 tokens: 358 blocks a sequence, 4 in 1433.
	ans, err = MaxSequences(p, 1000, 0)
	if err != nil || ans.Value != 4 || ans.Evals > 4 {
		t.Errorf("MaxSequences(1000) = %d in %d evaluations, %v; want 4 in at most 4", ans.Value, ans.Evals, err)
	}
	// One token: 5 x 2 + 1 + 6 = 17 blocks, 84 sequences.
	ans, err = MaxSequences(p, 1, 0)
	if err != nil || ans.Value != 1433/17 {
		t.Errorf("MaxSequences(1) = %d, %v; want %d", ans.Value, err, 1433/17)
	}
}
