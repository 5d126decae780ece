package model

func init() {
	register("qwen3_moe", flat(readQwen3MoE), ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, routedExperts, twoNorms}))
}

// readQwen3MoE reads Qwen3-MoE: Qwen3's attention, MoE with a quantized
// router on the layers sparseLayers selects.
func readQwen3MoE(o jsonObject, a *Arch) {
	readQwen3(o, a)
	a.Experts = o.uint("num_experts")
	// Qwen3-VL-MoE's text model builds the same block (qwen3_vl_moe.py:68-74).
	a.TPWithinExperts = "qwen3_moe.py:151-155"
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = o.uint("moe_intermediate_size")
	// qwen3_moe.py:167-173: the router takes the quantization config.
	a.tree.routerQuantized = true
	a.sparseLayers(o)
}

// qwen3MoeClass is transformers Qwen3MoeConfig, read at huggingface/transformers@008e574391. attribute_map: num_local_experts is num_experts.
var qwen3MoeClass = configClass{
	Name:   "Qwen3MoeConfig",
	Source: "src/transformers/models/qwen3_moe/configuration_qwen3_moe.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "151936"}, {"hidden_size", "2048"}, {"intermediate_size", "6144"},
		{"num_hidden_layers", "24"}, {"num_attention_heads", "32"}, {"num_key_value_heads", "4"},
		{"max_position_embeddings", "32768"}, {"tie_word_embeddings", "false"}, {"attention_bias", "false"},
		{"decoder_sparse_step", "1"}, {"moe_intermediate_size", "768"}, {"num_experts_per_tok", "8"},
		{"num_experts", "128"},
	},
	Aliases: []classAlias{{From: "num_local_experts", To: "num_experts"}},
}

func init() { declareClass("qwen3_moe", qwen3MoeClass) }
