package model

import "slices"

func init() {
	register("glm4_moe", flat(readGlm4MoE), ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, glmMoE, twoNorms}))
}

// readGlm4MoE reads GLM-4.5 (vllm/model_executor/models/glm4_moe.py): MoE
// from first_k_dense_replace on, a float32 router with its routing bias,
// shared experts, biased q/k/v, optional qk norms, partial rotary (0.5 by
// default), MTP layers past num_hidden_layers.
func readGlm4MoE(o jsonObject, a *Arch) {
	if !o.has("partial_rotary_factor") {
		o.m["partial_rotary_factor"] = []byte("0.5") // glm4_moe.py:279
	}
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false)
	a.QKNorm = o.boolOr("use_qk_norm", false)
	a.Experts = o.uint("n_routed_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = o.uint("moe_intermediate_size")
	a.SharedExperts = o.uintOr("n_shared_experts", 0)
	a.SharedIntermediate = a.SharedExperts * a.MoEIntermediate
	a.ScoreCorrectionBias = true
	a.tree.routerDtype = routerFP32
	a.MTPLayers = o.uintOr("num_nextn_predict_layers", 0)
	first := o.uintOr("first_k_dense_replace", 0)
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		a.Layers[i].MoE = a.Experts > 0 && uint64(i) >= first
	}
}

// glmMoE: zai-org/GLM-4.5 (transformers models/glm4_moe/
// modeling_glm4_moe.py Glm4MoeMoE; glm4_moe.py:140-150): an nn.Linear
// router in float32 and its float32 routing bias, routed and shared
// experts.
var glmMoE = slices.Concat(expertsRouted("mlp", "gate", "gate_proj", "up_proj", "down_proj", moduleRule{fp32: true}),
	[]moduleRule{{module: "mlp.gate.e_score_correction_bias", fp32: true}},
	gatedMLPAt("mlp.shared_experts"))

// glm4MoeClass is transformers Glm4MoeConfig, read at huggingface/transformers@008c726d16. That release counts the routed experts in num_experts, which the published configs and vLLM call n_routed_experts: it is not filled.
var glm4MoeClass = configClass{
	Name:   "Glm4MoeConfig",
	Source: "src/transformers/models/glm4_moe/configuration_glm4_moe.py@008c726d16",
	Defaults: []classDefault{
		{"vocab_size", "151552"}, {"hidden_size", "4096"}, {"intermediate_size", "10944"},
		{"num_hidden_layers", "46"}, {"num_attention_heads", "96"}, {"partial_rotary_factor", "0.5"},
		{"num_key_value_heads", "8"}, {"max_position_embeddings", "131072"}, {"tie_word_embeddings", "false"},
		{"attention_bias", "false"}, {"moe_intermediate_size", "1408"}, {"num_experts_per_tok", "8"},
	},
}

func init() { declareClass("glm4_moe", glm4MoeClass) }
