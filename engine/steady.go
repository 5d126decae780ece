package engine

// SteadyStater is the capability of a [Sizing] whose engine guarantees a
// concurrency by charging each sequence more than it holds once its
// prefill is done (a sliding window's or a chunk's tokens in flight, a
// block for alignment): the concurrency at steady state, beside the
// guarantee the queries bisect.
type SteadyStater interface {
	// SteadyState returns the sequences of tokens tokens the serve holds
	// once their prefills are done; ok is false when the two figures are
	// the same by construction (no windowed layer) or the engine does not
	// start the serve.
	SteadyState(tokens uint64) (s Steady, ok bool)
}

// Steady is a serve's concurrency at steady state: every sequence of
// Tokens tokens decoding, none prefilling, no batch in flight.
type Steady struct {
	Tokens uint64
	// Seqs is the sequences the pool's Blocks hold at PagesPerSeq blocks
	// each; Capped says the serve's cap on sequences is lower, and Seqs is
	// the cap.
	Seqs   uint64
	Capped bool
	Blocks uint64
	// PagesPerSeq is the blocks a sequence holds at steady state;
	// GuaranteedPagesPerSeq those the engine's guarantee charges it.
	PagesPerSeq, GuaranteedPagesPerSeq uint64
	// Charged says in the engine's words how a sequence is charged.
	Charged string
}
