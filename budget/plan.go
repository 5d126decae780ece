package budget

import "math"

// Term names one line of the allocation ledger.
type Term int

// The ledger's terms, in report order.
const (
	TermWeights    Term = iota // parameters and buffers, per rank
	TermKVCache                // paged KV blocks of the sequences
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

// Condition says which condition of "fits" failed.
type Condition int

// The conditions of fits, in the order they are checked.
const (
	Fit             Condition = iota // both hold
	OverBudget                       // ledger > util budget
	OverDriverSlice                  // budget + driver + host > device memory
)

func (c Condition) String() string {
	switch c {
	case Fit:
		return "fits"
	case OverBudget:
		return "ledger exceeds the util budget"
	case OverDriverSlice:
		return "driver share exceeds what the util budget leaves of device memory"
	}
	return "unknown"
}

// Footprint is the memory of s sequences of t tokens, term by term, against
// the util budget and the device.
type Footprint struct {
	Seqs, Tokens   uint64
	Terms          [NumTerms]uint64
	Ledger         uint64 // sum of Terms
	Slack          uint64 // caching-allocator chunk slack, charged to the driver
	DriverFixed    uint64
	DriverPerMille uint64
	Host           uint64 // unified devices: host caches in the same pool
	Budget         uint64
	Device         uint64
	Failed         Condition
}

// Fits reports whether both conditions hold.
func (f Footprint) Fits() bool { return f.Failed == Fit }

// Driver is the driver's whole share: fixed, per mille and slack.
func (f Footprint) Driver() uint64 {
	return SatAdd(SatAdd(f.DriverFixed, f.DriverPerMille), f.Slack)
}

// Outside is what must fit beside the budget: driver and host.
func (f Footprint) Outside() uint64 { return SatAdd(f.Driver(), f.Host) }

// BudgetHeadroom is Budget - Ledger, or 0 when the ledger is over.
func (f Footprint) BudgetHeadroom() uint64 { return SatSub(f.Budget, f.Ledger) }

// BudgetShortfall is Ledger - Budget, or 0 when the ledger fits.
func (f Footprint) BudgetShortfall() uint64 { return SatSub(f.Ledger, f.Budget) }

// DriverHeadroom is Device - Budget - Driver - Host, or 0 when over.
func (f Footprint) DriverHeadroom() uint64 {
	return SatSub(f.Device, SatAdd(f.Budget, f.Outside()))
}

// DriverShortfall is Budget + Driver + Host - Device, or 0 when it fits.
func (f Footprint) DriverShortfall() uint64 {
	return SatSub(SatAdd(f.Budget, f.Outside()), f.Device)
}

// PageGroup is Count alike groups of layers of a paged pool: a sequence of
// t tokens holds cdiv(min(t, CapTokens), PageTokens) + ExtraPages pages in
// each of them.
type PageGroup struct {
	Count      uint64 // groups of this kind
	PageTokens uint64 // tokens a page holds (the block size)
	CapTokens  uint64 // tokens a group keeps at most (NoCap: all)
	ExtraPages uint64 // pages held beyond the tokens' own
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

// TensorBytes is the size of one of the pool's tensors for s sequences of t
// tokens.
func (p PagedPool) TensorBytes(s, t uint64) uint64 {
	return SatMul(SatMul(s, p.PagesPerSeq(t)), p.PageBytes)
}

// Plan is a compiled footprint: plain coefficients whose Evaluate is O(1) in
// the number of layers and tensors and allocation-free. model.Compile builds
// it from an architecture, serve settings and a class; it must equal the
// model's reference ledger for every (seqs, tokens).
type Plan struct {
	Device uint64      // device memory bytes
	Budget uint64      // util budget
	Driver DriverTerms // the class's driver terms
	Fixed  [NumTerms]uint64
	// Pool is the paged KV cache: vLLM keeps one block pool, shared by
	// every KV cache group.
	Pool PagedPool
	// Slack is the caching allocator's chunk slack over what the engine
	// allocates: the weights and the KV cache tensors, which vLLM sizes from
	// the available memory once, whatever the sequences. It does not grow
	// with (seqs, tokens), so the driver's condition does not either.
	Slack uint64
	Host  uint64 // unified devices only
	// MaxSeqs and MaxLen are the serve's caps: max_num_seqs and max_model_len.
	MaxSeqs, MaxLen uint64
}

// Evaluate is the footprint of s sequences of t tokens.
func (p *Plan) Evaluate(s, t uint64) Footprint {
	f := Footprint{Seqs: s, Tokens: t, Terms: p.Fixed, Budget: p.Budget, Device: p.Device, Host: p.Host, Slack: p.Slack}
	f.Terms[TermKVCache] = SatAdd(f.Terms[TermKVCache], SatMul(p.Pool.TensorBytes(s, t), p.Pool.Tensors))
	for _, v := range f.Terms {
		f.Ledger = SatAdd(f.Ledger, v)
	}
	f.DriverFixed = p.Driver.DriverFixedBytes
	f.DriverPerMille = p.Driver.PerMilleBytes(p.Budget)
	f.Failed = Classify(f.Ledger, f.Budget, f.Outside(), f.Device)
	return f
}

// Classify applies the two conditions of fits: ledger <= budget, then
// budget + outside <= device.
func Classify(ledger, budget, outside, device uint64) Condition {
	switch {
	case ledger > budget:
		return OverBudget
	case SatAdd(budget, outside) > device:
		return OverDriverSlice
	}
	return Fit
}

// NoCap is the CapTokens of a group that keeps every token.
const NoCap = math.MaxUint64
