package properties

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
)

func propPlanEqualsReference(t *rapid.T) {
	c := genServeCase(1024, 1<<17).Draw(t, "serve")
	plan := c.Ref.Plan()
	for range 4 {
		s, tok := genPoint(t, c)
		want := c.Ref.Evaluate(s, tok).Footprint
		got := plan.Evaluate(s, tok)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Plan != Reference at (%d, %d) (-reference +plan):\n%s", s, tok, diff)
		}
	}
}

func TestPlanEqualsReference(t *testing.T) {
	rapid.Check(t, propPlanEqualsReference)
}

// propFootprintNeverShrinks: more sequences or more tokens never need less
// memory, term by term, and never fit where fewer did not: fits is monotone,
// which the queries' bisection relies on.
func propFootprintNeverShrinks(t *rapid.T) {
	c := genServeCase(1024, 1<<17).Draw(t, "serve")
	plan := c.Ref.Plan()
	s1, t1 := genPoint(t, c)
	s2 := s1 + rapid.Uint64Range(0, 64).Draw(t, "more_seqs")
	t2 := t1 + rapid.OneOf(rapid.Uint64Range(0, 3), rapid.Uint64Range(0, 1<<16)).Draw(t, "more_tokens")
	// Each pipeline stage's footprint grows term by term; which stage binds
	// may change, so the stages are compared one by one.
	for i := range plan.Stages {
		a, b := plan.EvaluateStage(i, s1, t1), plan.EvaluateStage(i, s2, t2)
		for term := range budget.NumTerms {
			if a.Terms[term] > b.Terms[term] {
				t.Fatalf("stage %d: %v shrinks from %d at (%d, %d) to %d at (%d, %d)", i, budget.Term(term), a.Terms[term], s1, t1, b.Terms[term], s2, t2)
			}
		}
		if a.Ledger > b.Ledger {
			t.Fatalf("stage %d: ledger shrinks from %d to %d", i, a.Ledger, b.Ledger)
		}
		if a.BudgetShortfall() > b.BudgetShortfall() || (b.Failed != budget.OverBudget && a.Failed == budget.OverBudget) {
			t.Fatalf("stage %d: the budget condition holds at (%d, %d) but not at (%d, %d)", i, s2, t2, s1, t1)
		}
		if a.Outside() > b.Outside() {
			t.Fatalf("stage %d: the driver's share shrinks from %d at (%d, %d) to %d at (%d, %d)", i, a.Outside(), s1, t1, b.Outside(), s2, t2)
		}
	}
	a, b := plan.Evaluate(s1, t1), plan.Evaluate(s2, t2)
	if b.Fits() && !a.Fits() {
		t.Fatalf("(%d, %d) fits but (%d, %d) does not (%v)", s2, t2, s1, t1, a.Failed)
	}
}

func TestFootprintNeverShrinks(t *testing.T) {
	rapid.Check(t, propFootprintNeverShrinks)
}

// bruteLargest scans [lo, hi] for the largest fitting value; monotone is
// false when a fitting value lies above a failing one.
func bruteLargest(lo, hi uint64, fits func(uint64) bool) (x uint64, ok, monotone bool) {
	monotone = true
	seenFail := false
	for v := lo; v <= hi; v++ {
		if fits(v) {
			if seenFail {
				monotone = false
			}
			x, ok = v, true
		} else {
			seenFail = true
		}
	}
	return x, ok, monotone
}

// propQueriesMatchBruteForce: on small caps, MaxSequences and MaxLength give
// the brute-force scan's answer, and the scan finds the footprint monotone.
func propQueriesMatchBruteForce(t *rapid.T) {
	c := genServeCase(48, 600).Draw(t, "serve")
	plan := c.Ref.Plan()
	r := c.Ref.Serve
	length := rapid.Uint64Range(1, r.MaxModelLen).Draw(t, "length")
	seqs := rapid.Uint64Range(1, r.MaxNumSeqs).Draw(t, "seqs")
	for _, q := range []struct {
		name string
		run  func() (budget.Answer, error)
		fits func(uint64) bool
		cap  uint64
	}{
		{"MaxSequences", func() (budget.Answer, error) { return budget.MaxSequences(plan, length, 0) },
			func(s uint64) bool { return plan.Evaluate(s, length).Fits() }, r.MaxNumSeqs},
		{"MaxLength", func() (budget.Answer, error) { return budget.MaxLength(plan, seqs, 0) },
			func(l uint64) bool { return plan.Evaluate(seqs, l).Fits() }, r.MaxModelLen},
	} {
		ans, err := q.run()
		want, ok, monotone := bruteLargest(1, q.cap, q.fits)
		if !monotone {
			t.Fatalf("%s: the footprint is not monotone on [1, %d]", q.name, q.cap)
		}
		if err != nil {
			t.Fatalf("%s: %v (brute force: %d, fits %v)", q.name, err, want, ok)
		}
		if ans.Fits != ok || (ok && ans.Value != want) {
			t.Fatalf("%s = %d (fits %v), brute force %d (fits %v, monotone %v)", q.name, ans.Value, ans.Fits, want, ok, monotone)
		}
	}
}

func TestQueriesMatchBruteForce(t *testing.T) {
	rapid.Check(t, propQueriesMatchBruteForce)
}

// propReportAtAnswerFits: the reference ledger — the forward report's
// evaluator — at a query's answer fits, and at answer+1 does not.
func propReportAtAnswerFits(t *rapid.T) {
	c := genServeCase(1024, 1<<17).Draw(t, "serve")
	plan := c.Ref.Plan()
	length := rapid.Uint64Range(1, c.Ref.Serve.MaxModelLen).Draw(t, "length")
	ans, err := budget.MaxSequences(plan, length, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Fits {
		if c.Ref.Evaluate(1, length).Footprint.Fits() {
			t.Fatalf("nothing fits, yet 1 sequence of %d tokens does", length)
		}
		return
	}
	if !c.Ref.Evaluate(ans.Value, length).Footprint.Fits() {
		t.Fatalf("report at the answer %d does not fit", ans.Value)
	}
	if !ans.Capped && c.Ref.Evaluate(ans.Value+1, length).Footprint.Fits() {
		t.Fatalf("report at answer+1 = %d fits", ans.Value+1)
	}
}

func TestReportAtAnswerFits(t *testing.T) {
	rapid.Check(t, propReportAtAnswerFits)
}
