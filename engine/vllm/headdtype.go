package vllm

import "membudget/model"

// resolveHeadDtype refuses a generative serve whose config sets a
// head_dtype other than the model's: PR #48390 (107a03ba6, merged
// 2026-07-13, after 0.25.0's cut of 07-10/11 and before 0.26.0's of
// 07-17..20) has vLLM honour it for generation models, where before it
// warned "`head_dtype` currently only supports pooling models" and kept
// the model dtype (vllm/config/model.py ModelConfig.head_dtype). The LM
// head then projects into that dtype (vllm/model_executor/layers/
// logits_processor.py _apply_head: torch.mm with out_dtype on CUDA, an
// upcast copy of the head's weight elsewhere), so the profile run's logits
// and the sampler's copies differ from those membudget charges in the
// model dtype. No shipped config sets it (RL trainers pass it through
// --hf-overrides, which membudget refuses); a config that does is refused
// by name rather than sized.
func (r *Resolved) resolveHeadDtype(a *model.Arch) error {
	switch {
	case a.HeadDtype == "" || a.HeadDtype == "model" || a.HeadDtype == r.Dtype:
		return nil
	case r.Runner == runnerPooling || r.Profile.Era != V1 || r.Profile.Release.Less(v0_26_0):
		return nil
	}
	return settingErr("model", a.Source, "its config sets head_dtype %q: from 0.26.0 vLLM runs a generative model's LM head in it (PR #48390, vllm/model_executor/layers/logits_processor.py _apply_head), so the logits are %s where membudget sizes them in the model dtype %s; not modelled, and membudget refuses the serve rather than size logits vLLM would contradict (vLLM before 0.26.0 keeps the model dtype)",
		a.HeadDtype, a.HeadDtype, r.Dtype)
}
