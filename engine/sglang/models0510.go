package sglang

import (
	"maps"
	"slices"

	"membudget/model"
)

// gemma3GetRope is v0.5.10's change of both Gemma 3 classes.
const gemma3GetRope = "Gemma 3's attention builds its rotary tables with get_rope, a cos/sin cache of max_position_embeddings rows per layer kind, in place of Gemma3RotaryEmbedding's inverse frequencies (models/gemma3_causal.py:204, the transformers 5 rope_parameters per layer type), which is not read"

// changed0510 says, by architecture, what v0.5.10's model-file changes of
// the families engine/sglang sizes change of what a rank holds, with the
// file and pull request, not read: a serve they touch is refused (git diff
// v0.5.9.post1 v0.5.10 -- python/sglang/srt/models/; docs/sglang.md lists
// every file read). Gemma 3n's AltUp and per-layer projections turn
// ReplicatedLinear (models/gemma3n_causal.py), but Gemma 3n is refused
// under every release for its layers that share another's KV cache.
var changed0510 = map[string]string{
	"Gemma3ForCausalLM":              gemma3GetRope,
	"Gemma3ForConditionalGeneration": gemma3GetRope,
	"Glm4MoeForCausalLM":             "GLM-4.5 MoE's router keeps a float32 copy of every MoE layer's gate, made at its first forward after the KV pool (Glm4MoeGate._weight_fp32, models/glm4_moe.py:366-373), which is not read",
}

// checkChangedModels refuses, by name, a serve whose model file the
// profile's release changed in a way membudget has not read (see
// [Profile.ChangedModels]).
func (r *Resolved) checkChangedModels(a *model.Arch) error {
	for _, arch := range a.Architectures {
		if !slices.Contains(r.Profile.ChangedModels, arch) {
			continue
		}
		why, ok := changed0513[arch]
		if !ok {
			why = changed0510[arch]
		}
		return settingErr("model", a.Source, "%s: %s; membudget refuses it rather than size weights its SGLang lays out otherwise", r.Profile.Describes, why)
	}
	return nil
}

// changedModels0510 is [changed0510]'s architectures, sorted.
var changedModels0510 = slices.Sorted(maps.Keys(changed0510))

// changed0513 are v0.5.13's model-file changes of the families engine/
// sglang sizes that change what a rank holds and are not modelled (git
// diff v0.5.12.post1 v0.5.13 -- python/sglang/srt/models/), by
// architecture.
var changed0513 = map[string]string{
	"Glm4MoeLiteForCausalLM": "GLM-4.7-Flash's own MLA model file keeps an fp32 copy of every MoE layer's router weight, made at its first forward after the KV pool (Glm4MoeLiteGate._weight_fp32, models/glm4_moe_lite.py:151-175, PR #26088: n_routed_experts x hidden x 4 bytes a layer), which is not modelled",
}

// changedModels0513 is v0.5.10's changed architectures and [changed0513]'s,
// sorted.
var changedModels0513 = slices.Sorted(slices.Values(slices.Concat(changedModels0510, slices.Collect(maps.Keys(changed0513)))))
