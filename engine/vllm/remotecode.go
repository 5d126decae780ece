package vllm

import "membudget/model"

// vllmConfigClasses are the model_types of [model.Arch].Remote configs
// that vLLM reads with its own config class (_CONFIG_REGISTRY,
// vllm/transformers_utils/config.py:72-140 at d18bb7b), registered with
// AutoConfig before it loads them, so that no checkpoint code runs
// (trust_remote_code is set False there, :298-314).
var vllmConfigClasses = map[string]bool{
	"chatglm": true, "deepseek_v4": true, "hyperclovax": true, "kimi_k2": true, "kimi_k25": true,
}

// remoteCodeRefusal is what vLLM says when AutoConfig needs the
// checkpoint's code and --trust-remote-code is not given
// (HFConfigParser.parse, vllm/transformers_utils/config.py:323-338 at
// d18bb7b; newer transformers raise their own ValueError, "... contains
// custom code which must be executed to correctly load the model ...
// Please pass the argument `trust_remote_code=True`", which vLLM passes
// on). Either way the engine stops before it sizes anything.
const remoteCodeRefusal = "Failed to load the model config. If the model is a custom model not yet available in the HuggingFace transformers library, consider setting `trust_remote_code=True` in LLM or using the `--trust-remote-code` flag in the CLI."

// resolveRemoteCode refuses, as vLLM's startup does, a serve of a config
// only the checkpoint's own code reads without --trust-remote-code, and
// says whether the printed line carries the flag: when it is given.
func (r *Resolved) resolveRemoteCode(a *model.Arch) error {
	if a.Remote == nil || r.TrustRemoteCode || vllmConfigClasses[a.Remote.ModelType] {
		return nil
	}
	return settingErr("trust-remote-code", "", "not given, and vLLM stops at startup: %q (vllm/transformers_utils/config.py:323-338): %s; pass --trust-remote-code", remoteCodeRefusal, a.Remote)
}
