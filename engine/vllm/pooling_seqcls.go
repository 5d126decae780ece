package vllm

import "membudget/model"

// convertedSeqCls says the model is a sequence classifier vLLM reaches
// through its suffix table and converts with as_seq_cls_model
// ([model.PoolerHead].Convert "classify"), not a class of its registry.
func convertedSeqCls(a *model.Arch) bool {
	return a.Pooler != nil && a.Pooler.Convert == "classify"
}

// poolingArchWhy is why --runner auto picks the pooling runner for a
// pooling architecture: its registry class is a pooling model, or, for a
// converted sequence classifier, its suffix.
func poolingArchWhy(a *model.Arch) string {
	if convertedSeqCls(a) {
		return "auto: " + configArch(a) + " is not a class of vLLM's registry, and its suffix ForSequenceClassification maps to the pooling runner (vllm/config/model.py _get_default_runner_type, _SUFFIX_TO_DEFAULTS)"
	}
	return "auto: " + configArch(a) + " is a pooling model of vLLM's registry (vllm/config/model.py _get_default_runner_type)"
}

// seqClsGenerateErr is what vLLM does with --runner generate for a
// converted sequence classifier at main d18bb7b: the convert type is then
// none (config/model.py _get_default_convert_type: no generating suffix
// matches), so the registry does not resolve it to its causal LM
// (registry.py _normalize_arch matches suffixes of the generate runner
// only) and falls back to its Transformers backend (_try_resolve_transformers,
// transformers' own class of that name), whose memory membudget does not
// model.
func seqClsGenerateErr(r *Resolved, a *model.Arch) error {
	return settingErr("runner", r.Runner, "%s is not a class of vLLM's registry: under --runner generate vLLM converts nothing (convert none) and falls back to its Transformers backend with transformers' own %s (vllm/model_executor/models/registry.py _try_resolve_transformers), whose memory is not modelled; use --runner pooling or auto, which serve it as its causal LM with a score head (as_seq_cls_model)", configArch(a), configArch(a))
}

// resolveSeqClsConvert applies --convert to a converted sequence
// classifier under the pooling runner: auto is classify
// (config/model.py _get_default_convert_type through the suffix table),
// none is vLLM's refusal (config/model.py:667-675), and embed finds no
// class (registry.py _normalize_arch matches no suffix of the embed
// conversion), so it is refused too. Any other model is left to
// resolveRunner.
func (r *Resolved) resolveSeqClsConvert(a *model.Arch, def func(string, string)) error {
	if !convertedSeqCls(a) || r.Runner != runnerPooling {
		return nil
	}
	switch r.Convert {
	case "", "auto":
		r.Convert = "classify"
		def("convert", "auto: "+configArch(a)+"'s suffix ForSequenceClassification maps to the classify conversion (vllm/config/model.py _get_default_convert_type, _SUFFIX_TO_DEFAULTS): its causal LM without the LM head, and a score head (vllm/model_executor/models/adapters.py as_seq_cls_model)")
	case "classify":
	case "none":
		return settingErr("convert", r.Convert, "vLLM refuses it: \"This model does not support `--runner pooling`. You can pass `--convert <embed|classify> to adapt it into a pooling model.\" (vllm/config/model.py:667-675): %s is not a pooling class of its registry", configArch(a))
	default:
		return settingErr("convert", r.Convert, "%s is a sequence classifier: vLLM resolves it to its causal LM only under --convert classify or auto (vllm/model_executor/models/registry.py _normalize_arch)", configArch(a))
	}
	return nil
}
