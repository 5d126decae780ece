package engine

import "membudget/budget"

// FootprintJSON is a footprint as membudget's JSON writes it: every
// byte count an integer, the failed condition named.
type FootprintJSON struct {
	Seqs            uint64   `json:"seqs"`
	Tokens          uint64   `json:"tokens"`
	Weights         uint64   `json:"weights_bytes"`
	KVCache         uint64   `json:"kv_cache_bytes"`
	ActivationPeak  uint64   `json:"activation_peak_bytes"`
	CUDAGraphPool   uint64   `json:"cuda_graph_pool_bytes"`
	Sampler         uint64   `json:"sampler_bytes"`
	NonTorch        uint64   `json:"non_torch_bytes"`
	Ledger          uint64   `json:"ledger_bytes"`
	Beside          uint64   `json:"beside_budget_bytes"`
	BesideTerms     []string `json:"beside_budget_terms,omitempty"`
	BesideFixed     uint64   `json:"beside_budget_fixed_bytes,omitempty"` // the part of Beside no term holds ([budget.Stage].BesideFixed)
	AllocatorSlack  uint64   `json:"allocator_slack_bytes"`
	DriverFixed     uint64   `json:"driver_fixed_bytes"`
	DriverPerMille  uint64   `json:"driver_per_mille_bytes"`
	Host            uint64   `json:"host_bytes"`
	Total           uint64   `json:"total_bytes"`
	UtilBudget      uint64   `json:"util_budget_bytes"`
	Device          uint64   `json:"device_bytes"`
	BudgetHeadroom  uint64   `json:"budget_headroom_bytes"`
	BudgetShortfall uint64   `json:"budget_shortfall_bytes"`
	DriverHeadroom  uint64   `json:"driver_headroom_bytes"`
	DriverShortfall uint64   `json:"driver_shortfall_bytes"`
	Stage           int      `json:"pipeline_stage"`
	Fits            bool     `json:"fits"`
	Failed          string   `json:"failed,omitempty"`
}

// FootprintOf returns f as JSON; beside is the terms its engine
// allocates beside the budget.
func FootprintOf(f budget.Footprint, beside budget.TermSet) FootprintJSON {
	j := FootprintJSON{
		Seqs: f.Seqs, Tokens: f.Tokens,
		Weights: f.Terms[budget.TermWeights], KVCache: f.Terms[budget.TermKVCache],
		ActivationPeak: f.Terms[budget.TermActivation], CUDAGraphPool: f.Terms[budget.TermGraphPool],
		Sampler: f.Terms[budget.TermSampler], NonTorch: f.Terms[budget.TermNonTorch],
		Ledger: f.Ledger, Beside: f.Beside, BesideFixed: f.BesideFixed, Stage: f.Stage, AllocatorSlack: f.Slack, DriverFixed: f.DriverFixed, DriverPerMille: f.DriverPerMille,
		Host: f.Host, Total: f.Total(), UtilBudget: f.Budget, Device: f.Device,
		BudgetHeadroom: f.BudgetHeadroom(), BudgetShortfall: f.BudgetShortfall(),
		DriverHeadroom: f.DriverHeadroom(), DriverShortfall: f.DriverShortfall(), Fits: f.Fits(),
	}
	for t := range budget.NumTerms {
		if beside.Has(t) {
			j.BesideTerms = append(j.BesideTerms, t.String())
		}
	}
	if !f.Fits() {
		j.Failed = f.Failed.String()
	}
	return j
}
