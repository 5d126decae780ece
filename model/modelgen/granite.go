package modelgen

import "pgregory.net/rapid"

// granite draws model_type granite (IBM Granite 3): Llama's layers with
// attention and MLP biases and the multipliers that take no memory.
var granite = family{types: []string{"granite"}, draw: drawGranite}

func drawGranite(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	c["mlp_bias"] = rapid.Bool().Draw(t, "mlp_bias")
	c["embedding_multiplier"] = 12.0
	c["residual_multiplier"] = 0.22
	c["attention_multiplier"] = 1 / float64(s.headDim)
	c["logits_scaling"] = rapid.SampledFrom([]float64{8, 16}).Draw(t, "logits_scaling")
	quantize(t, c, quantDense)
	return c
}
