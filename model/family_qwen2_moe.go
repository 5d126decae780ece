package model

func init() {
	// Qwen1.5-MoE and Qwen2-MoE: Qwen3-Next's MoE block (transformers
	// models/qwen2_moe/modeling_qwen2_moe.py Qwen2MoeSparseMoeBlock:
	// gate, experts.N, shared_expert, shared_expert_gate), a dense MLP on
	// mlp_only_layers.
	register("qwen2_moe", flat(readQwen2MoE), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, qwenNextMoE, twoNorms}))
}

// readQwen2MoE reads Qwen1.5-MoE and Qwen2-MoE (vllm/model_executor/models/
// qwen2_moe.py): Qwen2's attention with biased q/k/v and no window
// (qwen2_moe.py:228-266); MoE on the layers decoder_sparse_step selects and
// mlp_only_layers leaves out (qwen2_moe.py:310-325), each with an
// unquantized router, a shared expert of shared_expert_intermediate_size
// and its sigmoid gate, a [1, hidden] linear built even without a shared
// expert (qwen2_moe.py:137-164); the other layers a dense MLP of
// intermediate_size.
func readQwen2MoE(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = true
	a.Experts = o.uint("num_experts")
	a.TPWithinExperts = "qwen2_moe.py:131-135"
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = o.uint("moe_intermediate_size")
	a.SharedIntermediate = o.uint("shared_expert_intermediate_size")
	if a.SharedIntermediate > 0 {
		a.SharedExperts = 1
	}
	a.tree.shared, a.tree.sharedGate = "shared_expert", true
	a.uniformLayers(o, 0)
	a.sparseLayers(o)
}

// qwen2MoeClass is transformers Qwen2MoeConfig, read at huggingface/transformers@008e574391.
var qwen2MoeClass = configClass{
	Name:   "Qwen2MoeConfig",
	Source: "src/transformers/models/qwen2_moe/configuration_qwen2_moe.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "151936"}, {"hidden_size", "2048"}, {"intermediate_size", "5632"},
		{"num_hidden_layers", "24"}, {"num_attention_heads", "16"}, {"num_key_value_heads", "16"},
		{"max_position_embeddings", "32768"}, {"tie_word_embeddings", "false"}, {"decoder_sparse_step", "1"},
		{"moe_intermediate_size", "1408"}, {"shared_expert_intermediate_size", "5632"}, {"num_experts_per_tok", "4"},
		{"num_experts", "60"},
	},
}

func init() { declareClass("qwen2_moe", qwen2MoeClass) }
