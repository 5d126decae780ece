package modelgen

import "pgregory.net/rapid"

// graniteMoE draws model_type granitemoe (IBM Granite 3 MoE): head_dim
// derived from hidden_size, MoE on every layer of num_local_experts
// experts of intermediate_size, the multipliers; unquantized.
var graniteMoE = family{types: []string{"granitemoe"}, draw: drawGraniteMoE}

func drawGraniteMoE(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, false)
	m := drawMoE(t)
	c["num_local_experts"] = m.experts
	c["num_experts_per_tok"] = m.topK
	c["intermediate_size"] = m.inter
	c["embedding_multiplier"] = 12.0
	c["residual_multiplier"] = 0.22
	c["attention_multiplier"] = 1 / float64(s.headDim)
	c["logits_scaling"] = rapid.SampledFrom([]float64{6, 8}).Draw(t, "logits_scaling")
	// Unquantized: the rules read the stacked input_linear and
	// output_linear of the bf16 checkpoints only.
	return c
}
