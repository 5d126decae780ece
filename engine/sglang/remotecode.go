package sglang

import "membudget/model"

// sglangConfigClasses are the model_types of [model.Arch].Remote configs
// that SGLang reads with its own config class: _CONFIG_REGISTRY, which
// hf_transformers_utils registers with AutoConfig at import (ChatGLMConfig,
// ExaoneConfig and InternVLChatConfig in both modelled releases:
// python/sglang/srt/utils/hf_transformers_utils.py:72-101 at 5c8bd8b,
// python/sglang/srt/hf_transformers_utils.py:49-61 at eb118d8).
var sglangConfigClasses = map[string]bool{"chatglm": true, "exaone": true, "internvl_chat": true}

// resolveRemoteCode refuses, as SGLang's startup does, a serve of a config
// only the checkpoint's own code reads without --trust-remote-code:
// get_config calls AutoConfig.from_pretrained with the flag's value and
// passes its ValueError on (hf_transformers_utils.py:236-270 at 5c8bd8b):
// transformers' resolve_trust_remote_code says the repository "contains
// custom code which must be executed to correctly load the model" and asks
// for trust_remote_code=True.
func (r *Resolved) resolveRemoteCode(a *model.Arch) error {
	if a.Remote == nil || r.TrustRemoteCode || sglangConfigClasses[a.Remote.ModelType] {
		return nil
	}
	return settingErr("trust-remote-code", "", "not given, and SGLang stops at startup: AutoConfig refuses to run the checkpoint's code (transformers: the repository \"contains custom code which must be executed to correctly load the model\"; get_config, hf_transformers_utils.py:256-270): %s; pass --trust-remote-code", a.Remote)
}
