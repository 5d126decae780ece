package engine

import "membudget/internal/jsonw"

// AppendJSON appends j as encoding/json writes it (see [jsonw.Appender]):
// a batch writes two footprints an answer.
func (j FootprintJSON) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"seqs":`...)
	b = jsonw.Uint(b, j.Seqs)
	b = append(b, `,"tokens":`...)
	b = jsonw.Uint(b, j.Tokens)
	b = append(b, `,"weights_bytes":`...)
	b = jsonw.Uint(b, j.Weights)
	b = append(b, `,"kv_cache_bytes":`...)
	b = jsonw.Uint(b, j.KVCache)
	b = append(b, `,"activation_peak_bytes":`...)
	b = jsonw.Uint(b, j.ActivationPeak)
	b = append(b, `,"cuda_graph_pool_bytes":`...)
	b = jsonw.Uint(b, j.CUDAGraphPool)
	b = append(b, `,"sampler_bytes":`...)
	b = jsonw.Uint(b, j.Sampler)
	b = append(b, `,"non_torch_bytes":`...)
	b = jsonw.Uint(b, j.NonTorch)
	b = append(b, `,"ledger_bytes":`...)
	b = jsonw.Uint(b, j.Ledger)
	b = append(b, `,"beside_budget_bytes":`...)
	b = jsonw.Uint(b, j.Beside)
	if len(j.BesideTerms) > 0 {
		b = append(b, `,"beside_budget_terms":`...)
		b = jsonw.Strings(b, j.BesideTerms)
	}
	if j.BesideFixed > 0 {
		b = append(b, `,"beside_budget_fixed_bytes":`...)
		b = jsonw.Uint(b, j.BesideFixed)
	}
	b = append(b, `,"allocator_slack_bytes":`...)
	b = jsonw.Uint(b, j.AllocatorSlack)
	b = append(b, `,"driver_fixed_bytes":`...)
	b = jsonw.Uint(b, j.DriverFixed)
	b = append(b, `,"driver_per_mille_bytes":`...)
	b = jsonw.Uint(b, j.DriverPerMille)
	b = append(b, `,"host_bytes":`...)
	b = jsonw.Uint(b, j.Host)
	b = append(b, `,"total_bytes":`...)
	b = jsonw.Uint(b, j.Total)
	b = append(b, `,"util_budget_bytes":`...)
	b = jsonw.Uint(b, j.UtilBudget)
	b = append(b, `,"device_bytes":`...)
	b = jsonw.Uint(b, j.Device)
	b = append(b, `,"budget_headroom_bytes":`...)
	b = jsonw.Uint(b, j.BudgetHeadroom)
	b = append(b, `,"budget_shortfall_bytes":`...)
	b = jsonw.Uint(b, j.BudgetShortfall)
	b = append(b, `,"driver_headroom_bytes":`...)
	b = jsonw.Uint(b, j.DriverHeadroom)
	b = append(b, `,"driver_shortfall_bytes":`...)
	b = jsonw.Uint(b, j.DriverShortfall)
	b = append(b, `,"pipeline_stage":`...)
	b = jsonw.Int(b, int64(j.Stage))
	b = append(b, `,"fits":`...)
	b = jsonw.Bool(b, j.Fits)
	if j.Failed != "" {
		b = append(b, `,"failed":`...)
		b = jsonw.String(b, j.Failed)
	}
	return append(b, '}'), nil
}
