package vllm

import (
	"slices"

	"membudget/model"
)

// refuseCachelessStage refuses a pipeline split that leaves a stage no
// layer keeping a KV cache (or Mamba state) in a model that has some:
// vLLM projects the model's KV cache groups onto each stage's layers and
// keeps a group with none of them, whose per-stage config then asserts
// "group_size must be greater than 0" at startup (get_kv_cache_configs
// and get_kv_cache_config_from_groups, vllm/v1/core/kv_cache_utils.py:
// 2040-2079, 1386-1388 at d18bb7b; the assertion since PR #23974,
// 2025-09-14). DeciLM's no-op attention blocks run together for up to 18
// layers (Llama-3.3-Nemotron-Super-49B-v1's 53-70), as Nemotron-H's
// MoE-only ones may. The releases before that PR were not read: membudget
// refuses the split for them too rather than size a serve vLLM may
// contradict.
func refuseCachelessStage(a *model.Arch, stages []model.Sharding, pp uint64) error {
	keeps := func(l model.Layer) bool {
		return !l.SharesKV && l.Kind != model.NoMixer && l.Kind != model.EncoderOnly
	}
	if len(stages) < 2 || !slices.ContainsFunc(a.Layers, keeps) {
		return nil
	}
	for i, st := range stages {
		if st.EndLayer > st.FirstLayer && !slices.ContainsFunc(a.Layers[st.FirstLayer:st.EndLayer], keeps) {
			return settingErr("pipeline-parallel-size", pp, "vLLM fails at startup: stage %d of %d holds layers %d-%d of %s, none of which keeps a KV cache, and vLLM asserts each stage's KV cache groups hold a layer (\"group_size must be greater than 0\", vllm/v1/core/kv_cache_utils.py:1386-1388 at main d18bb7b; releases before PR #23974 not read)",
				i+1, len(stages), st.FirstLayer, st.EndLayer-1, a.Source)
		}
	}
	return nil
}
