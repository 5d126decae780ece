package modelgen

import "pgregory.net/rapid"

// deepseekV1 draws model_type deepseek (DeepSeek-MoE): head_dim derived
// from hidden_size, and sometimes DeepSeek's MoE from
// first_k_dense_replace on every moe_layer_freq-th layer with shared
// experts.
var deepseekV1 = family{types: []string{"deepseek"}, draw: drawDeepSeekV1}

func drawDeepSeekV1(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, false)
	if rapid.Bool().Draw(t, "moe") {
		m := drawMoE(t)
		c["n_routed_experts"] = m.experts
		c["num_experts_per_tok"] = m.topK
		c["moe_intermediate_size"] = m.inter
		c["n_shared_experts"] = rapid.Uint64Range(0, 2).Draw(t, "shared")
		c["first_k_dense_replace"] = rapid.Uint64Range(0, s.layers).Draw(t, "first_dense")
		c["moe_layer_freq"] = rapid.Uint64Range(1, 2).Draw(t, "moe_layer_freq")
		c["topk_method"] = rapid.SampledFrom([]string{"greedy", "noaux_tc"}).Draw(t, "topk_method")
	}
	quantize(t, c, quantExperts)
	return c
}
