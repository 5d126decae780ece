package engine

// BatchBounder is the capability of a [Sizing] whose sequences at once and
// whose lengths are bounded by its forward batch rather than by memory
// that grows with them: a model that keeps no KV cache (an encoder-only
// pooling model), whose batch holds whole sequences. The queries cap their
// answers by it, so that a sequence count or a length the engine would
// never batch is not reported as fitting.
type BatchBounder interface {
	// SeqsAt returns the most sequences of length tokens one batch holds;
	// ok is false when the serve's sequences are bounded by memory.
	SeqsAt(length uint64) (b Bound, ok bool)
	// LenAt returns the longest sequence seqs of which one batch holds;
	// ok is false when the serve's lengths are bounded by memory.
	LenAt(seqs uint64) (b Bound, ok bool)
}
