package budget

// Item is one allocation of an engine's itemised ledger: a tensor or a
// modelled peak, by name, charged to one term. An engine's reference lists
// them; its compiled [Plan] must give, term by term, the same sums.
type Item struct {
	Name  string
	Term  Term
	Bytes uint64
}

// ItemBytes returns the bytes of items, summed without wrapping.
func ItemBytes(items []Item) uint64 {
	var n uint64
	for _, it := range items {
		n = SatAdd(n, it.Bytes)
	}
	return n
}

// ItemTerms returns the bytes of items summed by term, without wrapping.
func ItemTerms(items []Item) (terms [NumTerms]uint64) {
	for _, it := range items {
		if it.Term >= 0 && it.Term < NumTerms {
			terms[it.Term] = SatAdd(terms[it.Term], it.Bytes)
		}
	}
	return terms
}
