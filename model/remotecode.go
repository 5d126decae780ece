package model

import (
	"encoding/json"
	"fmt"
)

// remoteConfigTypes are the model_types membudget reads whose config class
// transformers does not ship: no entry of CONFIG_MAPPING_NAMES
// (src/transformers/models/auto/configuration_auto.py at
// huggingface/transformers@0011023), so AutoConfig builds them only from
// the checkpoint's own configuration file (auto_map) under
// trust_remote_code. exaone is EXAONE 3.x's (transformers ships exaone4
// alone), internvl_chat InternVL's original layout (transformers' is
// internvl), phi4mm Phi-4-multimodal's (transformers' is
// phi4_multimodal), new and nomic_bert the GTE and Nomic BERT encoders'.
// The engines decide what else their own config registries cover.
var remoteConfigTypes = map[string]bool{
	"chatglm": true, "deepseek": true, "deepseek_v4": true, "exaone": true, "hyperclovax": true, "internlm2": true, "internlm3": true,
	"internvl_chat": true, "kimi_k2": true, "kimi_k25": true, "mimo": true, "minicpm": true, "nemotron-nas": true, "new": true,
	"nomic_bert": true, "orion": true, "phi4mm": true, "solar": true, "stablelm_epoch": true, "step1": true, "telechat": true,
	"teleflm": true,
}

// RemoteConfig is a config whose class transformers does not ship: only
// the checkpoint's own code (trust_remote_code) reads it.
type RemoteConfig struct {
	// ModelType is the config's model_type as written.
	ModelType string
	// Class is the class its auto_map names for AutoConfig
	// ("configuration_decilm.DeciLMConfig"), "" when it names none.
	Class string
}

// String says what the config needs.
func (r RemoteConfig) String() string {
	s := fmt.Sprintf("model_type %q is no config class transformers ships", r.ModelType)
	if r.Class != "" {
		s += fmt.Sprintf("; its auto_map names %q, the checkpoint's own code", r.Class)
	}
	return s
}

// readRemoteConfig sets a.Remote when the config's model_type mt is one
// transformers does not ship: one of remoteConfigTypes, or a model_type
// membudget does not know (read as a known family, a.ReadAs, or as a
// generic decoder) whose auto_map names a class for AutoConfig.
func readRemoteConfig(o jsonObject, mt string, a *Arch) {
	class := ""
	if am, ok := o.object("auto_map"); ok {
		var v string
		if raw, has := am.m["AutoConfig"]; has && json.Unmarshal(raw, &v) == nil {
			class = v
		}
	}
	if remoteConfigTypes[mt] || (a.ReadAs != "" || a.Generic) && class != "" {
		a.Remote = &RemoteConfig{ModelType: mt, Class: class}
	}
}
