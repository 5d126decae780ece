package modelgen

import "pgregory.net/rapid"

// glm4MoE draws model_type glm4_moe (GLM-4.5): MoE from
// first_k_dense_replace on with up to one shared expert, optional qk
// norms, partial rotary by default, an MTP layer.
var glm4MoE = family{types: []string{"glm4_moe"}, draw: drawGlm4MoE}

func drawGlm4MoE(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	m := drawMoE(t)
	c["n_routed_experts"] = m.experts
	c["num_experts_per_tok"] = m.topK
	c["moe_intermediate_size"] = m.inter
	c["n_shared_experts"] = rapid.Uint64Range(0, 1).Draw(t, "shared")
	c["first_k_dense_replace"] = rapid.Uint64Range(0, s.layers).Draw(t, "first_dense")
	c["use_qk_norm"] = rapid.Bool().Draw(t, "qk_norm")
	c["num_nextn_predict_layers"] = rapid.Uint64Range(0, 1).Draw(t, "mtp")
	quantize(t, c, quantExperts)
	return c
}
