package main

import (
	"fmt"
	"io"

	"membudget/budget"
)

// footprintJSON is a footprint in the JSON schema: every byte count an
// integer.
type footprintJSON struct {
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

func toJSON(f budget.Footprint, beside budget.TermSet) footprintJSON {
	j := footprintJSON{
		Seqs: f.Seqs, Tokens: f.Tokens,
		Weights: f.Terms[budget.TermWeights], KVCache: f.Terms[budget.TermKVCache],
		ActivationPeak: f.Terms[budget.TermActivation], CUDAGraphPool: f.Terms[budget.TermGraphPool],
		Sampler: f.Terms[budget.TermSampler], NonTorch: f.Terms[budget.TermNonTorch],
		Ledger: f.Ledger, Beside: f.Beside, Stage: f.Stage, AllocatorSlack: f.Slack, DriverFixed: f.DriverFixed, DriverPerMille: f.DriverPerMille,
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

var termLabels = [budget.NumTerms]string{"weights", "KV cache", "activation peak", "CUDA graph pool", "sampler", "non-torch growth"}

// writeFootprint prints a footprint term by term, in GiB and bytes: the
// terms charged to the budget and their sum, then what stands beside it.
func writeFootprint(w io.Writer, f budget.Footprint, beside budget.TermSet) {
	row := func(label string, v uint64) { fmt.Fprintf(w, "  %-26s %12s  %15d B\n", label, gibString(v), v) }
	for t := range budget.NumTerms {
		if !beside.Has(t) {
			row(termLabels[t], f.Terms[t])
		}
	}
	row("= ledger", f.Ledger)
	for t := range budget.NumTerms {
		if beside.Has(t) {
			row(termLabels[t]+" (beside)", f.Terms[t])
		}
	}
	writeOutside(w, row, f, vllmWords)
}

// budgetWords is how an engine names its budget and the two conditions
// in the footprint's last lines.
type budgetWords struct {
	budgetRow                                  string
	budgetOver, budgetHeadroom                 string // formats of one GiB string
	outsideOver, outsideHeadroom, ceilingAbove string
}

// vllmWords names vLLM's util budget and the driver's side.
var vllmWords = budgetWords{
	budgetRow:       "util budget",
	budgetOver:      "  budget: the ledger is %s over the util budget\n",
	budgetHeadroom:  "  budget: %s of headroom (util budget - ledger)\n",
	outsideOver:     "  driver: util budget + what stands beside it is %s over device memory\n",
	outsideHeadroom: "  driver: %s of headroom (device - util budget - what stands beside it)\n",
	ceilingAbove:    "  ceiling: the util budget is %s above the class's util_ceiling (%s of device memory)\n",
}

// writeOutside prints what stands beside the ledger, the totals against
// the budget and the device, and the conditions, in the engine's words.
func writeOutside(w io.Writer, row func(string, uint64), f budget.Footprint, words budgetWords) {
	row("allocator slack", f.Slack)
	row("driver fixed", f.DriverFixed)
	row("driver per-mille", f.DriverPerMille)
	if f.Host > 0 {
		row("host caches (unified)", f.Host)
	}
	row("= total on the device", f.Total())
	row(words.budgetRow, f.Budget)
	row("device memory", f.Device)
	if sh := f.BudgetShortfall(); sh > 0 {
		fmt.Fprintf(w, words.budgetOver, gibString(sh))
	} else {
		fmt.Fprintf(w, words.budgetHeadroom, gibString(f.BudgetHeadroom()))
	}
	if sh := f.DriverShortfall(); sh > 0 {
		fmt.Fprintf(w, words.outsideOver, gibString(sh))
	} else {
		fmt.Fprintf(w, words.outsideHeadroom, gibString(f.DriverHeadroom()))
	}
	if f.Failed == budget.OverUtilCeiling {
		fmt.Fprintf(w, words.ceilingAbove, gibString(f.Budget-f.Ceiling), gibString(f.Ceiling))
	}
}

// tippingTerm names what grows most from a fitting footprint to the next,
// failing one: the term that tips it over. (Only the ledger grows with the
// sequences and tokens: the driver's share and the slack are fixed per
// serve.)
func tippingTerm(at, next budget.Footprint) string {
	best, name := uint64(0), ""
	for t := range budget.NumTerms {
		if d := budget.SatSub(next.Terms[t], at.Terms[t]); d > best {
			best, name = d, budget.Term(t).String()
		}
	}
	return name
}
