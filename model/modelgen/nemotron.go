package modelgen

import "pgregory.net/rapid"

// nemotron draws model_type nemotron (Nemotron-4, Minitron): an ungated
// MLP, LayerNorms, biases by attention_bias and mlp_bias, and a
// partial_rotary_factor or NemotronConfig's half of a head.
var nemotron = family{types: []string{"nemotron"}, draw: drawNemotron}

func drawNemotron(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	c["mlp_bias"] = rapid.Bool().Draw(t, "mlp_bias")
	if rapid.Bool().Draw(t, "partial_rotary") {
		c["partial_rotary_factor"] = rapid.SampledFrom([]float64{0.25, 0.5, 1}).Draw(t, "partial_rotary_factor")
	}
	quantize(t, c, quantDense)
	return c
}
