package modelgen

import "pgregory.net/rapid"

// olmoe draws model_type olmoe (OLMoE): head_dim derived from hidden_size,
// MoE on every layer of intermediate_size experts, the expert count as
// num_experts or num_local_experts (OlmoeConfig's attribute_map), and
// sometimes multi-head attention by leaving num_key_value_heads out.
var olmoe = family{types: []string{"olmoe"}, draw: drawOlmoe}

func drawOlmoe(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	m := drawMoE(t)
	key := rapid.SampledFrom([]string{"num_experts", "num_local_experts"}).Draw(t, "experts_key")
	c[key] = m.experts
	c["num_experts_per_tok"] = m.topK
	c["intermediate_size"] = m.inter
	c["tie_word_embeddings"] = false
	if rapid.Bool().Draw(t, "multi_head") {
		delete(c, "num_key_value_heads")
	}
	quantize(t, c, quantExperts)
	return c
}
