package vllm

import "fmt"

// v0_10_1 is the first release whose V1 engine lowers a defaulted
// max_num_seqs to max_num_batched_tokens: vLLM PR #21270 ("Support
// encoder-only models without KV-Cache", merged 2025-07-26, after 0.10.0
// was released) made _set_default_args_v1 take
// min(default_max_num_seqs, max_num_batched_tokens); main keeps it
// (vllm/engine/arg_utils.py:2842-2844 at d18bb7b, after PR #28665). The
// release is the later of the two the merge date allows, so that where it
// is in doubt membudget refuses a line rather than size one vLLM refuses.
var v0_10_1 = Version{0, 10, 1}

// lowersDefaultSeqs says the release lowers a defaulted max_num_seqs to
// the batched tokens. Earlier releases and the V0 engine keep the default
// and the scheduler's check (max_num_batched_tokens >= max_num_seqs,
// vllm/config/scheduler.py; vllm/config.py:1026-1030 at v0.6.0) refuses
// the line at startup.
func (r *Resolved) lowersDefaultSeqs() bool {
	return r.Profile.Era != V0 && r.Profile.Release.AtLeast(v0_10_1)
}

// lowerDefaultSeqs lowers the sequences just defaulted to the batched
// tokens where the release does, recording why.
func (r *Resolved) lowerDefaultSeqs(def func(string, string)) {
	if !r.lowersDefaultSeqs() || r.MaxNumBatchedTokens >= r.MaxNumSeqs {
		return
	}
	why := fmt.Sprintf("vLLM's default %d lowered to --max-num-batched-tokens %d (vllm/engine/arg_utils.py:2842-2844, from 0.10.1: PR #21270)", r.MaxNumSeqs, r.MaxNumBatchedTokens)
	if r.batchedDPMoE() {
		why = batchedDPSeqsWhy
	}
	r.MaxNumSeqs = r.MaxNumBatchedTokens
	def("max-num-seqs", why)
}

// seqsNotLoweredWhy is the reason a release that keeps the default
// max_num_seqs refuses batched tokens below it.
func (r *Resolved) seqsNotLoweredWhy() string {
	return fmt.Sprintf("below --max-num-seqs %d, the default of %s, which refuses it; pass --max-num-seqs of at most %d (vLLM lowers a defaulted --max-num-seqs to the batched tokens from 0.10.1 on the V1 engine, PR #21270)", r.MaxNumSeqs, r.Profile.Describes, r.MaxNumBatchedTokens)
}
