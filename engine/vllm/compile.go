package vllm

import (
	"membudget/budget"
	"membudget/model"
)

// Compile turns an architecture, serve settings and a class into a
// budget.Plan under profile p: plain coefficients whose Evaluate gives
// exactly the Reference's footprint for every (seqs, tokens). To compile
// many serves of one architecture, a [Compiler] keeps their weights.
func Compile(a *model.Arch, s Serve, c budget.Class, p Profile) (*budget.Plan, error) {
	_, plan, err := NewCompiler(a).Compile(s, c, p)
	return plan, err
}

// Plan compiles the reference's serve into a budget.Plan.
func (ref *Reference) Plan() *budget.Plan {
	r := ref.Serve
	p := &budget.Plan{
		Device:  ref.Class.Device.MemoryBytes,
		Driver:  r.driverTerms(ref.Class),
		Ceiling: ref.Class.CeilingBytes(),
		Beside:  ref.beside(),
		Host:    ref.host,
		MaxSeqs: r.MaxNumSeqs,
		MaxLen:  r.MaxModelLen,
	}
	for _, st := range ref.stages {
		stage := budget.Stage{Budget: st.budget, Slack: st.slack, BesideFixed: st.besideFixed, Pool: ref.groups.pool(&r, st.sharding)}
		for _, it := range st.weights {
			stage.Fixed[budget.TermWeights] = budget.SatAdd(stage.Fixed[budget.TermWeights], it.Bytes)
		}
		for _, it := range st.peaks {
			stage.Fixed[it.Term] = budget.SatAdd(stage.Fixed[it.Term], it.Bytes)
		}
		p.Stages = append(p.Stages, stage)
	}
	return p
}
