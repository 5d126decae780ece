package modelgen

import "pgregory.net/rapid"

// mixtral draws model_type mixtral: every layer MoE (num_local_experts),
// sometimes every layer sliding.
var mixtral = family{types: []string{"mixtral"}, draw: drawMixtral}

func drawMixtral(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	m := drawMoE(t)
	c["num_local_experts"] = m.experts
	c["num_experts_per_tok"] = m.topK
	if rapid.Bool().Draw(t, "sliding") {
		c["sliding_window"] = window(t)
	}
	quantize(t, c, quantExperts)
	return c
}
