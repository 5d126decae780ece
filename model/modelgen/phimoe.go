package modelgen

import "pgregory.net/rapid"

// phiMoE draws model_type phimoe (Phi-3.5-MoE): biased attention,
// Mixtral's experts of intermediate_size on every layer, and sometimes a
// cache-wide sliding_window.
var phiMoE = family{types: []string{"phimoe"}, draw: drawPhiMoE}

func drawPhiMoE(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	m := drawMoE(t)
	c["num_local_experts"] = m.experts
	c["num_experts_per_tok"] = m.topK
	c["intermediate_size"] = m.inter
	c["tie_word_embeddings"] = false
	if rapid.Bool().Draw(t, "sliding") {
		c["sliding_window"] = window(t)
	}
	quantize(t, c, quantExperts)
	return c
}
