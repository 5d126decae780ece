package model

import (
	"membudget/budget"
)

// Compile turns an architecture, serve settings and a class into a
// budget.Plan: plain coefficients whose Evaluate gives exactly the
// Reference's footprint for every (seqs, tokens), in O(1).
func Compile(a *Arch, s Serve, c budget.Class) (*budget.Plan, error) {
	ref, err := NewReference(a, s, c)
	if err != nil {
		return nil, err
	}
	return ref.Plan(), nil
}

// Plan compiles the reference's serve into a budget.Plan.
func (ref *Reference) Plan() *budget.Plan {
	a, r := ref.Arch, ref.Serve
	p := &budget.Plan{
		Device:  ref.Class.Device.MemoryBytes,
		Budget:  ref.Budget,
		Driver:  ref.Class.Memory,
		MaxSeqs: r.MaxNumSeqs,
		MaxLen:  r.MaxModelLen,
	}
	for _, it := range ref.weights {
		p.Fixed[budget.TermWeights] = budget.SatAdd(p.Fixed[budget.TermWeights], it.Bytes)
	}
	for _, it := range ref.peaks {
		p.Fixed[it.Term] = budget.SatAdd(p.Fixed[it.Term], it.Bytes)
	}
	if ref.Class.Memory.Unified {
		p.Host = ref.hostByte
	}
	// The KV pool in closed form: one tensor per slot of the group size;
	// each full-attention group holds cdiv(t, block) pages of a sequence,
	// each sliding group at most the window's pages plus one.
	var nFull, nSliding uint64
	for _, l := range a.Layers {
		if l.Sliding {
			nSliding++
		} else {
			nFull++
		}
	}
	pool := budget.PagedPool{PageBytes: pageBytes(a, r)}
	full := budget.PageGroup{Count: 1, PageTokens: r.BlockSize, CapTokens: budget.NoCap}
	sliding := budget.PageGroup{Count: 1, PageTokens: r.BlockSize, CapTokens: slidingTokens(a, r), ExtraPages: 1}
	switch {
	case nSliding == 0:
		pool.Tensors = nFull
		pool.Groups = []budget.PageGroup{full}
	case nFull == 0:
		pool.Tensors = nSliding
		pool.Groups = []budget.PageGroup{sliding}
	default:
		lo, hi := min(nFull, nSliding), max(nFull, nSliding)
		size := lo
		if 2*hi < 3*lo {
			size = hi
		}
		pool.Tensors = size
		full.Count = budget.CeilDiv(nFull, size)
		sliding.Count = budget.CeilDiv(nSliding, size)
		pool.Groups = []budget.PageGroup{full, sliding}
	}
	p.Pool = pool
	p.Slack = ref.slackBytes
	return p
}
