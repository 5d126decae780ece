package sglang

import (
	"slices"

	"membudget/budget"
)

// Plan compiles the reference's server into a budget.Plan: per stage the
// budget msf x F0, the weights and the static share the pool leaves
// unallocated (a hybrid's Mamba pool and, from v0.5.18, a multimodal
// model's runtime reservation among it) as fixed ledger terms, the token-granular pool (one group of
// page_size-token pages, page_size x what a held token takes each, the
// stage's cell or less where a smaller draft pool leaves part of it free,
// so that the budget holds exactly max_total_num_tokens tokens of
// sequences), and
// beside the budget the activations, CUDA graphs and, under
// TermNonTorch, distributed init's buffers, the req_to_token table and the
// KV tensors' padding rows. MaxSeqs is max_running_requests (at least 1, so
// that the queries can say nothing fits), MaxLen the context length.
func (ref *Reference) Plan() *budget.Plan {
	p := &budget.Plan{
		Device:  ref.Class.Device.MemoryBytes,
		Driver:  ref.Class.Memory,
		Ceiling: ref.Class.CeilingBytes(),
		Beside:  besideTerms,
		MaxSeqs: max(ref.maxRunning, 1),
		MaxLen:  ref.Serve.ContextLength,
	}
	for _, st := range ref.stages {
		stage := budget.Stage{Budget: ref.budget, Slack: st.slack,
			Pool: budget.PagedPool{Tensors: 1, PageBytes: budget.SatMul(st.pageTokens, st.held),
				Groups: []budget.PageGroup{{Count: 1, PageTokens: st.pageTokens, CapTokens: budget.NoCap}}}}
		stage.Fixed[budget.TermWeights] = st.loaded
		stage.Fixed[budget.TermKVCache] = st.unallocated
		for _, it := range slices.Concat(ref.budgetHeld(), st.beside) {
			stage.Fixed[it.Term] = budget.SatAdd(stage.Fixed[it.Term], it.Bytes)
		}
		p.Stages = append(p.Stages, stage)
	}
	return p
}
