package vllm

import (
	"fmt"

	"membudget/budget"
	"membudget/engine"
)

// What the V1 engine does with --no-enable-chunked-prefill for a generating
// model, by release (the V0 engine's rules are resolveV0Batch's).
//
// From PR #11061 (2024-12-10, "[V1][Bugfix] Always set
// enable_chunked_prefill = True for V1") the V1 engine set
// enable_chunked_prefill = True for every serve, and from PR #16188
// (2025-06-18) for every one but the pooling runner's
// (vllm/engine/arg_utils.py _set_default_args_v1, "V1 always uses chunked
// prefills"): the flag turned off changed nothing, as vllm issue #20914
// logs on 0.9.2 ("Chunked prefill is enabled with
// max_num_batched_tokens=4096" under --no-enable-chunked-prefill).
//
// PR #28665 (2025-11-14, "[Config] Clean up SchedulerConfig
// initialization") keeps the flag as given. At main d18bb7b:
// enable_chunked_prefill defaults to is_chunked_prefill_supported, true
// for a generating model (vllm/engine/arg_utils.py:2651-2683; turned off,
// vLLM warns that the model "does not officially support disabling chunked
// prefill"); without it a defaulted max_num_batched_tokens is raised to
// max(max_model_len, the device's default) (:2800-2809), and a given one
// below max_model_len is refused by verify_max_model_len ("max_num_batched_
// tokens (N) is smaller than max_model_len (L)", vllm/config/scheduler.py:
// 249-261). The profile run's dummy batch is max_num_batched_tokens tokens
// (gpu_model_runner.py profile_run), so the activation peak, the sampler's
// rows (min(max_num_seqs, max_num_batched_tokens)), the encoder budget and
// the graphs captured follow the raised batch as they follow a given one.
var (
	// chunkedForcedLast is the last release surely without PR #28665:
	// 0.11.0 was released 2025-10-02, before its merge.
	chunkedForcedLast = Version{0, 11, 0}
	// chunkedOffKept is the first release surely holding PR #28665 (merged
	// 2025-11-14): the first release version.go dates after it (0.14.0,
	// whose PR #27614 was merged 2025-12-29). Releases between the two are
	// in doubt.
	chunkedOffKept = v0_14_0
)

// chunkedNegSpelled is the first release whose argparse takes
// --no-enable-chunked-prefill: PR #16533 ("Improve configs -
// SchedulerConfig", merged 2025-04-14, the day 0.8.4 was released, after
// its commit dc1b4a6f1) built the flag from SchedulerConfig's bool field
// with BooleanOptionalAction (vllm/engine/arg_utils.py get_kwargs at
// e51929ebc). Before it the flag was a StoreBoolean taking an optional
// value (arg_utils.py:784-790 at e51929ebc^: nargs "?", const "True"),
// turned off as --enable-chunked-prefill False, and --no-enable-chunked-
// prefill is not a flag: the printed launch line spells it so there.
var chunkedNegSpelled = Version{0, 8, 5}

// chunkedOffV1 says a serve on the V1 engine prefills without chunking:
// --no-enable-chunked-prefill on a release that keeps it. On a release
// that forces chunking it says false (the flag changes nothing); on one in
// doubt it refuses the flag unless --max-num-batched-tokens given holds
// max_model_len, under which the footprint is the same either way.
func (r *Resolved) chunkedOffV1() (bool, error) {
	v := r.Profile.Release
	switch {
	case r.ChunkedPrefill != engine.Off:
		return false, nil
	case r.AutoMaxModelLen && !v.Less(chunkedOffKept):
		// The batch would follow a length fitted after profiling.
		return false, settingErr("no-enable-chunked-prefill", "", "with --max-model-len auto: the batched tokens would follow a length vLLM fits after its profile run, which membudget has not read; give --max-model-len a number")
	case !v.Less(chunkedOffKept):
		return true, nil
	case !chunkedForcedLast.Less(v):
		return false, nil
	case r.MaxNumBatchedTokens >= r.MaxModelLen:
		return false, nil
	}
	return false, settingErr("no-enable-chunked-prefill", "", "%s may force chunked prefill on, as vLLM did up to 0.11.0 (PR #11061), or keep it off, as from 0.14.0 (PR #28665, merged 2025-11-14, which membudget does not place among 0.11.1 to 0.13.x); kept off, its batched tokens would default to max_model_len %d: give --max-num-batched-tokens of at least %d, the same footprint either way", r.Profile.Describes, r.MaxModelLen, r.MaxModelLen)
}

// wholePromptBatch applies V1's batch without chunked prefill to the
// batched tokens: a defaulted max_num_batched_tokens raised to
// max_model_len (engine/arg_utils.py:2804-2809 at d18bb7b), a given one
// below it refused (config/scheduler.py:249-261). defaulted says the
// batched tokens are vLLM's default; def records the raise.
func (r *Resolved) wholePromptBatch(defaulted bool, def func(string, string)) error {
	if !defaulted {
		if r.MaxNumBatchedTokens < r.MaxModelLen {
			return settingErr("max-num-batched-tokens", r.MaxNumBatchedTokens, "vLLM refuses it: smaller than max_model_len %d under --no-enable-chunked-prefill, which needs a whole prompt in one batch (vllm/config/scheduler.py:249-261 verify_max_model_len)", r.MaxModelLen)
		}
		return nil
	}
	if r.MaxNumBatchedTokens < r.MaxModelLen {
		def("max-num-batched-tokens", fmt.Sprintf("max_model_len %d, above the device's default %d: under --no-enable-chunked-prefill a batch holds a whole prompt (vllm/engine/arg_utils.py:2804-2809)", r.MaxModelLen, r.MaxNumBatchedTokens))
		r.MaxNumBatchedTokens = r.MaxModelLen
	}
	return nil
}

// clampDefaultBatch applies PR #28665's cap on defaulted batched tokens,
// from the release that surely holds it: at most max_num_seqs x
// max_model_len, the sequences given or defaulted before they are lowered
// (vllm/engine/arg_utils.py:2828-2834 at d18bb7b: "Ensure
// max_num_batched_tokens does not exceed model limit").
func (r *Resolved) clampDefaultBatch(def func(string, string)) {
	if r.Profile.Release.Less(chunkedOffKept) {
		return
	}
	limit := budget.SatMul(r.MaxNumSeqs, r.MaxModelLen)
	if limit >= r.MaxNumBatchedTokens {
		return
	}
	def("max-num-batched-tokens", fmt.Sprintf("max_num_seqs %d x max_model_len %d, below the default %d (vllm/engine/arg_utils.py:2828-2834, PR #28665)", r.MaxNumSeqs, r.MaxModelLen, r.MaxNumBatchedTokens))
	r.MaxNumBatchedTokens = limit
}

// prefillLimitsChecked is the first release whose SchedulerConfig checks
// long_prefill_token_threshold against max_model_len whatever else is set
// (PR #49244, merged 2026-07-21, which removed max_num_partial_prefills;
// flagtable.go dates it to 0.28.0). Before it both checks ran only under
// max_num_partial_prefills > 1 (vllm/config/scheduler.py at 78077d5,
// from PR #10235 in 0.7.3).
var prefillLimitsChecked = v0_28_0

// checkPrefillLimits refuses what vLLM's SchedulerConfig refuses of the
// prefill limits, which change no memory: a long_prefill_token_threshold
// above max_model_len ("cannot be greater than the max_model_len",
// vllm/config/scheduler.py:278-283 at d18bb7b), and before 0.28.0 under
// max_num_partial_prefills > 1 that or chunked prefill off ("Chunked
// prefill must be enabled to set max_num_partial_prefills > 1").
func (r *Resolved) checkPrefillLimits() error {
	always := !r.Profile.Release.Less(prefillLimitsChecked)
	partial := r.MaxNumPartialPrefills > 1
	if !always && !partial {
		return nil
	}
	if partial && r.ChunkedOff {
		return settingErr("max-num-partial-prefills", r.MaxNumPartialPrefills, "vLLM refuses it: \"Chunked prefill must be enabled to set max_num_partial_prefills > 1\" (vllm/config/scheduler.py, PR #10235), and this serve prefills without chunking")
	}
	t := r.LongPrefillTokenThreshold
	switch {
	case t == 0:
		// Before 0.28.0 a zero threshold under partial prefills becomes
		// 4% of max_model_len, within it.
		return nil
	case r.AutoMaxModelLen:
		return settingErr("long-prefill-token-threshold", t, "with --max-model-len auto: vLLM refuses a threshold above max_model_len, and membudget has not read how it checks one against a length fitted after profiling; give --max-model-len a number")
	case t > r.MaxModelLen:
		return settingErr("long-prefill-token-threshold", t, "vLLM refuses it: \"long_prefill_token_threshold (%d) cannot be greater than the max_model_len (%d)\" (vllm/config/scheduler.py:278-283)", t, r.MaxModelLen)
	}
	return nil
}

// refuseAlignWithoutChunks refuses what vLLM refuses: a model with state
// layers under prefix caching keeps its state in mamba_cache_mode align,
// which asserts chunked prefill ("Chunked prefill is required for mamba
// cache mode 'align'.", vllm/model_executor/models/config.py:621-624 at
// d18bb7b).
func (r *Resolved) refuseAlignWithoutChunks() error {
	if !r.ChunkedOff || r.MambaCacheMode != "align" {
		return nil
	}
	return settingErr("no-enable-chunked-prefill", "", "vLLM refuses it: prefix caching keeps this model's state in mamba_cache_mode align, which asserts chunked prefill (\"Chunked prefill is required for mamba cache mode 'align'.\", vllm/model_executor/models/config.py:621-624); add --no-enable-prefix-caching (mode none) to serve it without chunking")
}
