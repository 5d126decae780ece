package model

func init() {
	// allenai/OLMoE-1B-7B-0924's checkpoint: one tensor per expert and
	// projection under mlp.experts.N, the router at mlp.gate, whole-width
	// q_norm and k_norm (transformers models/olmoe/modeling_olmoe.py).
	declareClass("olmoe", olmoeDefaults)
	register("olmoe", flat(readOlmoe), ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, routedExperts, twoNorms}, everyStageTop))
	registerArchitectures("olmoe", "OlmoeForCausalLM")
}

// olmoeDefaults are OlmoeConfig's (transformers models/olmoe/
// configuration_olmoe.py at 008e574): OLMoE-1B-7B's shape, 64 experts
// top-8 of intermediate_size.
var olmoeDefaults = configClass{
	Name:   "OlmoeConfig",
	Source: "src/transformers/models/olmoe/configuration_olmoe.py@008e574",
	Defaults: []classDefault{
		{"vocab_size", "50304"}, {"hidden_size", "2048"}, {"intermediate_size", "2048"}, {"num_hidden_layers", "16"},
		{"num_attention_heads", "16"}, {"max_position_embeddings", "4096"}, {"num_experts_per_tok", "8"},
	},
}

// readOlmoe reads OLMoE (vllm/model_executor/models/olmoe.py at d18bb7b):
// unbiased q/k/v and o_proj of hidden_size / heads (:147-170), q_norm over
// every head and k_norm over every KV head, whole on every rank (:164-165),
// a MoE block on every layer (:230-237) of num_experts (or
// num_local_experts, OlmoeConfig's attribute_map; default 64) experts of
// intermediate_size, its router unquantized in the model dtype (:87-93);
// the embedding, final norm and head built on every pipeline stage and
// the head never tied (OlmoeModel and OlmoeForCausalLM have no
// PPMissingLayer and no tie_weights, :282-292, 371-376).
func readOlmoe(o jsonObject, a *Arch) {
	if !o.has("num_experts") {
		if o.has("num_local_experts") {
			o.m["num_experts"] = o.m["num_local_experts"]
		} else {
			setDefault(o, "num_experts", 64)
		}
	}
	readOlmoeLayers(o, a)
}

// readOlmoeLayers reads OLMoE's layers and stages, the class's defaults
// given (OLMoE's; FlexOlmo's config must give every key).
func readOlmoeLayers(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.derivedHeadDim(o)
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.Rotary[0].Dim = a.RotaryDim
	a.TiedEmbeddings = false
	a.QKNorm = true
	a.tree.qkNorm = qkNormFull
	a.tree.onEveryStage()
	a.Experts = o.uint("num_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = a.Intermediate
	a.layerTypes = nil // OlmoeAttention takes no window
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		a.Layers[i].MoE = true
	}
}
