package budget

import (
	"errors"
	"fmt"
)

// ErrNotMonotone is wrapped by a *MonotonicityError.
var ErrNotMonotone = errors.New("evaluator is not monotone")

// MonotonicityError names two points at which the evaluator contradicts
// monotonicity: Low < High, Low does not fit and High does.
type MonotonicityError struct {
	Low, High uint64
}

// Error returns the two points that contradict monotonicity.
func (e *MonotonicityError) Error() string {
	return fmt.Sprintf("%v: %d does not fit but %d does", ErrNotMonotone, e.Low, e.High)
}

// Unwrap returns ErrNotMonotone.
func (e *MonotonicityError) Unwrap() error { return ErrNotMonotone }

// Answer is a verified inverse query: Value is the largest x in [lo, cap]
// that fits; At is the footprint there (it fits) and Next the footprint at
// Value+1 (it does not), unless Capped, when the cap itself fits and Next is
// the zero Footprint. When even lo does not fit, Fits is false, Value is 0
// and At is the footprint at lo, which shows why.
type Answer struct {
	Value  uint64
	Fits   bool
	Capped bool
	At     Footprint
	Next   Footprint
	Evals  int // evaluator calls the query made
}

// Evaluator gives the footprint at one value of the searched variable.
type Evaluator func(x uint64) (Footprint, error)

// Verified is one verified inverse query over eval on [lo, hi], started at
// guess (clamped into the range): the building block of MaxSequences and
// MaxLength, exported for harnesses that search their own footprints. It finds the boundary by galloping away
// from the guess and bisecting the last gap, then verifies the answer: it
// fits, the next value does not (unless it is hi), lo fits and hi does not
// (unless it is the answer) — and every evaluation agrees with every other
// that the evaluator is monotone, or the query is a *MonotonicityError.
func Verified(lo, hi, guess uint64, eval Evaluator) (Answer, error) {
	s := searcher{eval: eval, lo: lo, hi: hi}
	if err := s.verified(guess); err != nil {
		return Answer{}, err
	}
	return s.ans, nil
}

// verified runs the search s is set up for, its answer left in s.ans.
func (s *searcher) verified(guess uint64) error {
	lo, hi := s.lo, s.hi
	if lo > hi {
		return fmt.Errorf("%w: %d to %d", ErrEmptyRange, lo, hi)
	}
	guess = min(max(guess, lo), hi)
	// Gallop away from the guess until the boundary is bracketed: good
	// fits, bad does not.
	var good, bad uint64
	f, err := s.fits(guess)
	if err != nil {
		return err
	}
	if f {
		var capped bool
		if good, bad, capped, err = s.gallopUp(guess); err != nil {
			return err
		}
		if capped {
			return s.verify(s.hi)
		}
	} else {
		var ok bool
		if good, bad, ok, err = s.gallopDown(guess); err != nil {
			return err
		}
		if !ok {
			return s.nothingFits()
		}
	}
	// Bisect: good fits, bad does not, good < bad.
	for bad-good > 1 {
		mid := good + (bad-good)/2
		f, err := s.fits(mid)
		if err != nil {
			return err
		}
		if f {
			good = mid
		} else {
			bad = mid
		}
	}
	return s.verify(good)
}

// rememberedProbes is how many evaluations a search remembers to answer a
// repeated point without evaluating it again. A search started at the
// closed-form estimate makes 3 to 6; one that goes further evaluates a
// repeated point again, which costs time, not correctness: monotonicity is
// checked on the extremes of every evaluation (see consistent).
const rememberedProbes = 16

// searcher.seenFits holds a bit for each remembered probe: this does not
// compile when rememberedProbes outgrows it.
const _ = uint16(1 << (rememberedProbes - 1))

// searcher keeps what one search has evaluated in a small fixed array
// rather than a map, so that a query allocates nothing; it is zeroed at
// every query, so it is kept small.
type searcher struct {
	// The footprints come from the plan, along sequences (at other tokens)
	// or along tokens (at other sequences), or else from eval. The plan's
	// are written in place: a footprint handed to an unknown function
	// would have to live on the heap.
	plan   *Plan
	bySeqs bool
	other  uint64
	eval   Evaluator
	lo, hi uint64
	// seen holds the first n points evaluated, bit i of seenFits whether
	// seen[i] fits.
	seen     [rememberedProbes]uint64
	seenFits uint16
	n        int
	evals    int
	// The largest fitting and the smallest failing point evaluated: for a
	// monotone evaluator, the answer and the point after it. Their
	// footprints are kept where the answer holds them, ans.At and
	// ans.Next, so that the answer is not copied out of the search's own
	// state: a verified answer's At is its value's footprint and its Next
	// the footprint at value+1 (see verify).
	goodX, badX       uint64
	haveGood, haveBad bool
	ans               Answer
	// scratch holds an evaluation that is neither witness.
	scratch Footprint
}

// fitsAt is f.Fits() read through the pointer: Footprint's value
// receiver copies the whole footprint at every call on the search's path.
func fitsAt(f *Footprint) bool { return f.Failed == Fit }

// fits reports whether x fits: remembered, or evaluated (into scratch),
// remembered and kept as a witness when it is a better one.
func (s *searcher) fits(x uint64) (bool, error) {
	for i, p := range s.seen[:s.n] {
		if p == x {
			return s.seenFits&(1<<i) != 0, nil
		}
	}
	// The witnesses are remembered even past the first rememberedProbes.
	if s.haveGood && s.goodX == x {
		return true, nil
	}
	if s.haveBad && s.badX == x {
		return false, nil
	}
	f := &s.scratch
	var err error
	switch {
	case s.plan != nil && s.bySeqs:
		s.plan.evaluateInto(f, x, s.other)
	case s.plan != nil:
		s.plan.evaluateInto(f, s.other, x)
	default:
		*f, err = s.eval(x)
	}
	s.evals++
	if err != nil {
		return false, fmt.Errorf("evaluating %d: %w", x, err)
	}
	fits := fitsAt(f)
	if s.n < rememberedProbes {
		s.seen[s.n] = x
		if fits {
			s.seenFits |= 1 << s.n
		}
		s.n++
	}
	switch {
	case fits && (!s.haveGood || x > s.goodX):
		s.ans.At, s.goodX, s.haveGood = *f, x, true
	case !fits && (!s.haveBad || x < s.badX):
		s.ans.Next, s.badX, s.haveBad = *f, x, true
	}
	return fits, nil
}

// gallopUp probes from+1, from+2, from+4, ... up to hi and returns the last
// fitting and the first non-fitting point; capped when hi itself fits.
func (s *searcher) gallopUp(from uint64) (good, bad uint64, capped bool, err error) {
	good = from
	for step := uint64(1); good < s.hi; step = SatMul(step, 2) {
		probe := good + min(step, s.hi-good)
		f, err := s.fits(probe)
		if err != nil {
			return 0, 0, false, err
		}
		if !f {
			return good, probe, false, nil
		}
		good = probe
	}
	return good, 0, true, nil
}

// gallopDown probes from-1, from-2, from-4, ... down to lo and returns the
// first fitting and the last non-fitting point; ok is false when lo does
// not fit.
func (s *searcher) gallopDown(from uint64) (good, bad uint64, ok bool, err error) {
	bad = from
	for step := uint64(1); bad > s.lo; step = SatMul(step, 2) {
		probe := bad - min(step, bad-s.lo)
		f, err := s.fits(probe)
		if err != nil {
			return 0, 0, false, err
		}
		if f {
			return probe, bad, true, nil
		}
		bad = probe
	}
	return 0, 0, false, nil
}

// nothingFits answers a search in which lo does not fit: Fits false, At
// the footprint at lo.
func (s *searcher) nothingFits() error {
	if _, err := s.fits(s.lo); err != nil {
		return err
	}
	if err := s.consistent(); err != nil {
		return err
	}
	if s.hi != s.lo {
		f, err := s.fits(s.hi)
		if err != nil {
			return err
		}
		if f {
			return &MonotonicityError{Low: s.lo, High: s.hi}
		}
	}
	// Nothing fits, so no point is the good witness, and lo, the smallest
	// point there is, is the bad one.
	if s.haveGood || !s.haveBad || s.badX != s.lo {
		return fmt.Errorf("query found nothing fitting but kept %d as the smallest failing point, not %d", s.badX, s.lo)
	}
	s.ans = Answer{Value: 0, Fits: false, At: s.ans.Next, Evals: s.evals}
	return nil
}

// verify checks x as the answer and completes s.ans.
func (s *searcher) verify(x uint64) error {
	// The end points: lo must fit below a fitting answer, and hi must not
	// fit above a non-fitting x+1.
	if _, err := s.fits(s.lo); err != nil {
		return err
	}
	if _, err := s.fits(s.hi); err != nil {
		return err
	}
	capped := x == s.hi
	if !capped {
		if _, err := s.fits(x + 1); err != nil {
			return err
		}
	}
	if _, err := s.fits(x); err != nil {
		return err
	}
	if err := s.consistent(); err != nil {
		return err
	}
	// For a consistent evaluator the witnesses are x and x+1: x fits and
	// x+1 does not, so goodX >= x and badX <= x+1, and goodX < badX leaves
	// goodX = x and badX = x+1 (and no failing point at all when x is hi).
	// Checked rather than trusted to the search: the contract's last word.
	if !s.haveGood || s.goodX != x || !fitsAt(&s.ans.At) ||
		(!capped && (!s.haveBad || s.badX != x+1 || fitsAt(&s.ans.Next))) ||
		(capped && s.haveBad) {
		return fmt.Errorf("query answer %d failed verification", x)
	}
	s.ans.Value, s.ans.Fits, s.ans.Capped, s.ans.Evals = x, true, capped, s.evals
	return nil
}

// consistent checks every pair of evaluations: no point that does not fit
// lies below one that does. The smallest failing and the largest fitting
// point evaluated are the only pair that can contradict it.
func (s *searcher) consistent() error {
	if s.haveBad && s.haveGood && s.badX < s.goodX {
		return &MonotonicityError{Low: s.badX, High: s.goodX}
	}
	return nil
}

// MaxSequences is the most sequences of length tokens each that fit, in
// [1, cap] (cap 0 means the plan's MaxSeqs), verified. The search starts at
// the plan's closed-form estimate: what the budget leaves after the ledger's
// fixed terms, divided by one sequence's KV pages.
func MaxSequences(p *Plan, length, cap uint64) (Answer, error) {
	if cap == 0 {
		cap = p.MaxSeqs
	}
	if length == 0 || length > p.MaxLen {
		return Answer{}, fmt.Errorf("length %d: want 1 to the plan's longest length, %d tokens", length, p.MaxLen)
	}
	s := searcher{plan: p, bySeqs: true, other: length, lo: 1, hi: cap}
	if err := s.verified(p.estimateSeqs(length)); err != nil {
		return Answer{}, err
	}
	return s.ans, nil
}

// MaxLength is the longest length in tokens at which seqs sequences fit, in
// [1, cap] (cap 0 means the plan's MaxLen), verified. The search starts at the
// plan's closed-form estimate.
func MaxLength(p *Plan, seqs, cap uint64) (Answer, error) {
	if cap == 0 {
		cap = p.MaxLen
	}
	if seqs == 0 || seqs > p.MaxSeqs {
		return Answer{}, fmt.Errorf("sequences %d: want 1 to the plan's most sequences, %d", seqs, p.MaxSeqs)
	}
	s := searcher{plan: p, other: seqs, lo: 1, hi: cap}
	if err := s.verified(p.estimateLen(seqs)); err != nil {
		return Answer{}, err
	}
	return s.ans, nil
}

// estimateSeqs is the closed-form start of MaxSequences: on each stage,
// what the budget leaves after its fixed terms divided by one sequence's
// pool bytes; the smallest over the stages.
func (p *Plan) estimateSeqs(t uint64) uint64 {
	est := p.MaxSeqs
	for i := range p.Stages {
		if per := p.Stages[i].Pool.Bytes(1, t); per > 0 {
			est = min(est, p.PoolBudget(i)/per)
		}
	}
	return est
}

// estimateLen is the closed-form start of MaxLength: the smallest over the
// stages of estimateStageLen.
func (p *Plan) estimateLen(s uint64) uint64 {
	est := p.MaxLen
	for i := range p.Stages {
		est = min(est, estimateStageLen(p.Stages[i].Pool, p.PoolBudget(i), s))
	}
	return est
}

// estimateStageLen inverts a pool's pages for s sequences within avail
// bytes: first as if every group that holds tokens still grew with the
// length (below the capped groups' caps), then, when that lands past a cap,
// with the capped groups full and the uncapped ones getting what is left.
// Groups of different block sizes grow at count/PageTokens pages a token,
// measured in units of the largest block; state groups (CapTokens 0) only
// take their pages off the top.
func estimateStageLen(pool PagedPool, avail, s uint64) uint64 {
	unit := SatMul(s, pool.BlockBytes())
	if unit == 0 || len(pool.Groups) == 0 {
		return NoCap
	}
	pages := avail / unit
	var extra, span uint64
	minCap := uint64(NoCap)
	for _, g := range pool.Groups {
		extra = SatAdd(extra, SatMul(g.Count, g.ExtraPages))
		if g.CapTokens == 0 || g.PageTokens == 0 {
			continue // state: no pages per token
		}
		span = max(span, g.PageTokens)
		if g.CapTokens != NoCap {
			minCap = min(minCap, g.CapTokens)
		}
	}
	// rate is the pages a sequence gains over span tokens, in the groups
	// that keep (open) or all that hold tokens (all).
	var all, open uint64
	for _, g := range pool.Groups {
		if g.CapTokens == 0 || g.PageTokens == 0 {
			continue
		}
		r := SatMul(g.Count, span/g.PageTokens)
		all = SatAdd(all, r)
		if g.CapTokens == NoCap {
			open = SatAdd(open, r)
		}
	}
	if all == 0 {
		return NoCap
	}
	if t := SatMul(SatSub(pages, extra)/all, span); t <= minCap || open == 0 {
		return t
	}
	for _, g := range pool.Groups {
		if g.CapTokens == NoCap {
			pages = SatSub(pages, SatMul(g.Count, g.ExtraPages))
		} else {
			pages = SatSub(pages, g.Pages(NoCap))
		}
	}
	return SatMul(pages/open, span)
}
