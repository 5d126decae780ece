package model

func init() {
	register("mixtral", flat(readMixtral), ckptFamily(nil, [][]moduleRule{gqaAttention, mixtralExperts, twoNorms}))
}

// readMixtral reads Mixtral: every layer MoE under block_sparse_moe, its
// experts of intermediate_size; every layer slides when sliding_window is
// set.
func readMixtral(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.Experts = o.uint("num_local_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = a.Intermediate
	a.tree.mlp = "block_sparse_moe"
	a.uniformLayers(o, o.uintOr("sliding_window", 0))
	for i := range a.Layers {
		a.Layers[i].MoE = true
	}
}

// mixtralExperts: Mixtral's checkpoint names the experts' projections
// w1 (gate), w3 (up), w2 (down) (vllm/model_executor/models/mixtral.py).
var mixtralExperts = expertsAt("block_sparse_moe", "w1", "w3", "w2")

// mixtralClass is transformers MixtralConfig, read at huggingface/transformers@008e574391. attribute_map: num_experts is num_local_experts.
var mixtralClass = configClass{
	Name:   "MixtralConfig",
	Source: "src/transformers/models/mixtral/configuration_mixtral.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "32000"}, {"hidden_size", "4096"}, {"intermediate_size", "14336"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"num_key_value_heads", "8"},
		{"max_position_embeddings", "131072"}, {"tie_word_embeddings", "false"}, {"num_experts_per_tok", "2"},
		{"num_local_experts", "8"},
	},
	Aliases: []classAlias{{From: "num_experts", To: "num_local_experts"}},
}

func init() { declareClass("mixtral", mixtralClass) }
