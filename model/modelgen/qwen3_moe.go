package modelgen

import "pgregory.net/rapid"

// qwen3MoE draws model_type qwen3_moe: Qwen3's attention, MoE on the
// layers decoder_sparse_step and mlp_only_layers select.
var qwen3MoE = family{types: []string{"qwen3_moe"}, draw: drawQwen3MoE}

func drawQwen3MoE(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	m := drawMoE(t)
	c["num_experts"] = m.experts
	c["num_experts_per_tok"] = m.topK
	c["moe_intermediate_size"] = m.inter
	if rapid.Bool().Draw(t, "qwen3_moe_dense_layers") {
		c["decoder_sparse_step"] = rapid.Uint64Range(1, 2).Draw(t, "sparse_step")
		c["mlp_only_layers"] = denseLayers(t, s.layers)
	}
	quantize(t, c, quantExperts)
	return c
}
