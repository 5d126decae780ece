package modelgen

import "pgregory.net/rapid"

// solar draws model_type solar (Solar): Llama's layers, biases by
// attention_bias or bias and mlp_bias.
var solar = family{types: []string{"solar"}, draw: drawSolar}

func drawSolar(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c[rapid.SampledFrom([]string{"attention_bias", "bias"}).Draw(t, "bias_key")] = rapid.Bool().Draw(t, "bias")
	c["mlp_bias"] = rapid.Bool().Draw(t, "mlp_bias")
	quantize(t, c, quantDense)
	return c
}
