package modelgen

import "pgregory.net/rapid"

// qwen2MoE draws model_type qwen2_moe: a gated shared expert (of 0 to 4
// experts' size), MoE on the layers decoder_sparse_step and
// mlp_only_layers select.
var qwen2MoE = family{types: []string{"qwen2_moe"}, draw: drawQwen2MoE}

func drawQwen2MoE(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	m := drawMoE(t)
	c["num_experts"] = m.experts
	c["num_experts_per_tok"] = m.topK
	c["moe_intermediate_size"] = m.inter
	c["shared_expert_intermediate_size"] = m.inter * rapid.Uint64Range(0, 4).Draw(t, "shared_x")
	c["decoder_sparse_step"] = rapid.Uint64Range(1, 2).Draw(t, "sparse_step")
	c["mlp_only_layers"] = denseLayers(t, s.layers)
	quantize(t, c, quantExperts)
	return c
}
