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
	// The KV pool in closed form: vLLM's groups (kvGroups) share one tensor
	// per slot; a sequence holds cdiv(t, block) pages in each full-attention
	// group and at most the window's pages plus one in each sliding group.
	groups := kvGroups(a)
	var nFull, nSliding uint64
	for _, g := range groups {
		if g.sliding {
			nSliding++
		} else {
			nFull++
		}
	}
	pool := budget.PagedPool{PageBytes: pageBytes(a, r), Tensors: uint64(len(groups[0].layers))}
	if nFull > 0 {
		pool.Groups = append(pool.Groups, budget.PageGroup{Count: nFull, PageTokens: r.BlockSize, CapTokens: budget.NoCap})
	}
	if nSliding > 0 {
		pool.Groups = append(pool.Groups, budget.PageGroup{Count: nSliding, PageTokens: r.BlockSize, CapTokens: slidingTokens(a, r), ExtraPages: 1})
	}
	p.Pool = pool
	p.Slack = ref.slackBytes
	return p
}
