package budget

import "math"

// Term names one line of the allocation ledger.
type Term int

// The ledger's terms, in report order.
const (
	TermWeights    Term = iota // parameters and buffers, per rank
	TermKVCache                // paged KV blocks and per-sequence state of the sequences
	TermActivation             // the profile run's activation peak
	TermGraphPool              // CUDA-graph memory pool
	TermSampler                // the sampler's logits and their copies
	TermNonTorch               // non-torch growth of the profile run (NCCL, kernels' workspaces)
	NumTerms
)

var termNames = [NumTerms]string{"weights", "kv_cache", "activation_peak", "cuda_graph_pool", "sampler", "non_torch"}

// String is the term's name as reports and JSON print it.
func (t Term) String() string {
	if t < 0 || t >= NumTerms {
		return "unknown"
	}
	return termNames[t]
}

// TermSet is a set of terms, one bit per [Term].
type TermSet uint8

// Has reports whether t is in the set.
func (s TermSet) Has(t Term) bool { return t >= 0 && t < NumTerms && s&(1<<t) != 0 }

// With returns the set with t added.
func (s TermSet) With(t Term) TermSet { return s | 1<<t }

// Condition says which condition of "fits" failed.
type Condition int

// The conditions of fits, in the order they are checked.
const (
	Fit             Condition = iota // every condition holds
	OverBudget                       // ledger > budget
	OverDriverSlice                  // budget + outside > device memory
	OverUtilCeiling                  // the budget is above the class's util_ceiling of device memory
)

// String says what failed, in the words reports print.
func (c Condition) String() string {
	switch c {
	case Fit:
		return "fits"
	case OverBudget:
		return "ledger exceeds the budget"
	case OverDriverSlice:
		return "driver share exceeds what the budget leaves of device memory"
	case OverUtilCeiling:
		return "budget is above the class's util_ceiling: the driver share fits beside it by the arithmetic, but no evidence shows the class running there"
	}
	return "unknown"
}

// Footprint is the memory of s sequences of t tokens on one device, term by
// term, against the budget and the device.
type Footprint struct {
	Seqs, Tokens uint64
	Terms        [NumTerms]uint64
	// Ledger is the sum of the terms charged to the budget; Beside the sum
	// of those the engine allocates beside it (see [Plan].Beside) and
	// BesideFixed, the stage's [Stage].BesideFixed, which no term holds.
	Ledger, Beside, BesideFixed uint64
	Slack                       uint64 // caching-allocator chunk slack, charged to the driver
	DriverFixed                 uint64
	DriverPerMille              uint64
	Host                        uint64 // unified devices: host caches in the same pool
	Budget                      uint64
	Device                      uint64
	// Ceiling is the largest budget the class runs at (0: not checked).
	Ceiling uint64
	// Stage is the pipeline stage this footprint is of: the one that binds.
	Stage  int
	Failed Condition
}

// Fits reports whether every condition holds.
func (f Footprint) Fits() bool { return f.Failed == Fit }

// Driver is the driver's whole share: fixed, per mille and slack.
func (f Footprint) Driver() uint64 {
	return SatAdd(SatAdd(f.DriverFixed, f.DriverPerMille), f.Slack)
}

// Outside is what must fit beside the budget: the driver's share, the host
// caches and the engine's terms charged beside the budget.
func (f Footprint) Outside() uint64 { return SatAdd(SatAdd(f.Driver(), f.Host), f.Beside) }

// Total is what the serve holds on the device: the ledger and everything
// outside the budget.
func (f Footprint) Total() uint64 { return SatAdd(f.Ledger, f.Outside()) }

// BudgetHeadroom is Budget - Ledger, or 0 when the ledger is over.
func (f Footprint) BudgetHeadroom() uint64 { return SatSub(f.Budget, f.Ledger) }

// BudgetShortfall is Ledger - Budget, or 0 when the ledger fits.
func (f Footprint) BudgetShortfall() uint64 { return SatSub(f.Ledger, f.Budget) }

// DriverHeadroom is Device - Budget - Outside, or 0 when over.
func (f Footprint) DriverHeadroom() uint64 {
	return SatSub(f.Device, SatAdd(f.Budget, f.Outside()))
}

// DriverShortfall is Budget + Outside - Device, or 0 when it fits.
func (f Footprint) DriverShortfall() uint64 {
	return SatSub(SatAdd(f.Budget, f.Outside()), f.Device)
}

// PageGroup is Count alike groups of layers of a paged pool: a sequence of
// t tokens holds cdiv(min(t, CapTokens), PageTokens) + ExtraPages pages in
// each of them. A group with CapTokens 0 holds ExtraPages pages whatever the
// length: per-sequence state, such as a Mamba layer's, kept in the same
// pool as the paged KV blocks (as vLLM's hybrid allocator keeps it); its
// PageTokens then only says how many tokens a state page stands for.
type PageGroup struct {
	Count      uint64 // groups of this kind
	PageTokens uint64 // tokens a page holds (the block size)
	CapTokens  uint64 // tokens a group keeps at most (NoCap: all)
	ExtraPages uint64 // pages held beyond the tokens' own
}

// NoCap is the CapTokens of a group that keeps every token.
const NoCap = math.MaxUint64

// StateGroup returns count groups that hold pages pages per sequence
// whatever its length: per-sequence state that lives in the paged pool.
func StateGroup(count, pages uint64) PageGroup {
	return PageGroup{Count: count, PageTokens: 1, CapTokens: 0, ExtraPages: pages}
}

// Pages is the pages a sequence of t tokens holds in the Count groups.
func (g PageGroup) Pages(t uint64) uint64 {
	return SatMul(g.Count, SatAdd(CeilDiv(min(t, g.CapTokens), g.PageTokens), g.ExtraPages))
}

// PagedPool is memory that grows with sequences and tokens: Tensors tensors,
// each holding every sequence's pages of every group, PageBytes a page.
type PagedPool struct {
	Tensors   uint64
	PageBytes uint64
	Groups    []PageGroup
}

// PagesPerSeq is the pages a sequence of t tokens holds across the groups.
func (p PagedPool) PagesPerSeq(t uint64) uint64 {
	var n uint64
	for _, g := range p.Groups {
		n = SatAdd(n, g.Pages(t))
	}
	return n
}

// BlockBytes is one page in every tensor: what one block of the pool costs.
func (p PagedPool) BlockBytes() uint64 { return SatMul(p.PageBytes, p.Tensors) }

// Bytes is the pool's memory for s sequences of t tokens.
func (p PagedPool) Bytes(s, t uint64) uint64 {
	return SatMul(SatMul(s, p.PagesPerSeq(t)), p.BlockBytes())
}

// poolBytes is p.Bytes(s, t) for the evaluator's hot path, with
// PageGroup.Pages written out: Pages is too large to inline, and a call per
// group made Plan.Evaluate 12 % slower (benchstat, 8 runs).
// TestHotPathEqualsMethods keeps the two alike.
func poolBytes(p *PagedPool, s, t uint64) uint64 {
	var pages uint64
	for i := range p.Groups {
		g := &p.Groups[i]
		pages = SatAdd(pages, SatMul(g.Count, SatAdd(CeilDiv(min(t, g.CapTokens), g.PageTokens), g.ExtraPages)))
	}
	return SatMul(SatMul(s, pages), SatMul(p.PageBytes, p.Tensors))
}

// Stage is what one pipeline stage of a serve holds: its budget, its fixed
// terms, its paged pool and its caching-allocator slack. Every rank of a
// stage holds the same.
type Stage struct {
	// Budget is what the engine may allocate on each of the stage's
	// devices (vLLM: the requested memory, the same on every stage; or the
	// stage's fixed ledger plus --kv-cache-memory-bytes).
	Budget uint64
	Fixed  [NumTerms]uint64
	Pool   PagedPool
	// Slack is the caching allocator's chunk slack over what the engine
	// allocates on this stage. It does not grow with (seqs, tokens), so the
	// driver's condition does not either.
	Slack uint64
	// BesideFixed is what the engine allocates on each of the stage's
	// devices beside the budget that no term of the ledger holds: tensors
	// made after its memory snapshot that it never charges (vLLM's V2
	// model-runner request state before it charged consumed memory). It
	// does not grow with (seqs, tokens) and counts toward the driver's
	// condition as the terms in [Plan].Beside do.
	BesideFixed uint64
}

// FixedLedger is the stage's terms without the pool that are charged to
// the budget: what zero sequences need of it.
func (st *Stage) FixedLedger(beside TermSet) uint64 {
	var l uint64
	for t, v := range st.Fixed {
		if !beside.Has(Term(t)) {
			l = SatAdd(l, v)
		}
	}
	return l
}

// Plan is a compiled footprint: plain coefficients whose Evaluate is
// allocation-free and O(stages), independent of the number of layers and
// tensors. An engine package builds it from an architecture, serve settings
// and a class; it must equal that engine's reference ledger for every
// (seqs, tokens).
type Plan struct {
	Device uint64      // device memory bytes
	Driver DriverTerms // the class's driver terms
	// Ceiling is the largest budget the class is known to run at (its
	// util_ceiling of Device); 0 leaves it unchecked.
	Ceiling uint64
	// Beside is the terms the engine allocates beside the budget rather
	// than out of it (vLLM before v0.21: CUDA graphs captured after the KV
	// cache is sized); they count toward the driver's condition.
	Beside TermSet
	Host   uint64 // unified devices only
	// Stages is one entry per pipeline stage; a serve fits when every stage
	// fits. A serve without pipeline parallelism has one.
	Stages []Stage
	// MaxSeqs and MaxLen are the serve's caps: max_num_seqs and max_model_len.
	MaxSeqs, MaxLen uint64
}

// Evaluate is the footprint of s sequences of t tokens on the stage that
// binds: the first that does not fit, or else the one with the least
// headroom.
func (p *Plan) Evaluate(s, t uint64) (f Footprint) {
	p.evaluateInto(&f, s, t)
	return f
}

// evaluateInto is Evaluate writing into f: the queries keep footprints
// without copying them through returns.
func (p *Plan) evaluateInto(f *Footprint, s, t uint64) {
	p.stageInto(f, 0, s, t)
	if len(p.Stages) == 1 {
		return
	}
	var other Footprint
	for i := 1; i < len(p.Stages); i++ {
		p.stageInto(&other, i, s, t)
		if tighter(&other, f) {
			*f = other
		}
	}
}

// Tighter reports whether footprint f binds before g: it fails where g
// fits, or both fit and f leaves less headroom, or both fail and f misses by
// more. Among a serve's pipeline stages the tightest is the one reported.
func Tighter(f, g Footprint) bool { return tighter(&f, &g) }

func tighter(f, g *Footprint) bool {
	switch {
	case fitsAt(f) != fitsAt(g):
		return !fitsAt(f)
	case fitsAt(f):
		return min(f.BudgetHeadroom(), f.DriverHeadroom()) < min(g.BudgetHeadroom(), g.DriverHeadroom())
	}
	return max(f.BudgetShortfall(), f.DriverShortfall()) > max(g.BudgetShortfall(), g.DriverShortfall())
}

// EvaluateStage is the footprint of s sequences of t tokens on stage i.
func (p *Plan) EvaluateStage(i int, s, t uint64) (f Footprint) {
	p.stageInto(&f, i, s, t)
	return f
}

// stageInto is EvaluateStage writing into f, every field set. Beside starts
// at the stage's BesideFixed: saturating sums of these terms come out the
// same in any order.
func (p *Plan) stageInto(f *Footprint, i int, s, t uint64) {
	st := &p.Stages[i]
	*f = Footprint{Seqs: s, Tokens: t, Terms: st.Fixed, Budget: st.Budget, Device: p.Device, Ceiling: p.Ceiling,
		Host: p.Host, Slack: st.Slack, Beside: st.BesideFixed, BesideFixed: st.BesideFixed, Stage: i, DriverFixed: p.Driver.DriverFixedBytes, DriverPerMille: p.Driver.PerMilleBytes(st.Budget)}
	f.Terms[TermKVCache] = SatAdd(f.Terms[TermKVCache], poolBytes(&st.Pool, s, t))
	for term := range NumTerms {
		if p.Beside&(1<<term) != 0 {
			f.Beside = SatAdd(f.Beside, f.Terms[term])
		} else {
			f.Ledger = SatAdd(f.Ledger, f.Terms[term])
		}
	}
	f.Failed = classify(f)
}

// Classify applies the conditions of fits to a footprint whose terms are
// filled in: ledger <= budget, then budget + outside <= device, then budget
// <= ceiling (when there is one).
func Classify(f Footprint) Condition { return classify(&f) }

func classify(f *Footprint) Condition {
	// Outside(), spelled out: the call is not inlined, and costs
	// Plan.Evaluate 7 % (TestHotPathEqualsMethods keeps them alike).
	outside := SatAdd(SatAdd(SatAdd(SatAdd(f.DriverFixed, f.DriverPerMille), f.Slack), f.Host), f.Beside)
	switch {
	case f.Ledger > f.Budget:
		return OverBudget
	case SatAdd(f.Budget, outside) > f.Device:
		return OverDriverSlice
	case f.Ceiling != 0 && f.Budget > f.Ceiling:
		return OverUtilCeiling
	}
	return Fit
}

// PoolBudget is what the budget leaves for stage i's pool once its other
// terms are paid (0 when they are already over): vLLM's "Available KV cache
// memory".
func (p *Plan) PoolBudget(i int) uint64 {
	return SatSub(p.Stages[i].Budget, p.Stages[i].FixedLedger(p.Beside))
}
