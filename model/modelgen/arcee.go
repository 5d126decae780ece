package modelgen

import "pgregory.net/rapid"

// arcee draws model_type arcee (Arcee AFM): Llama's attention with its
// biases, an ungated MLP, sometimes a biased head.
var arcee = family{types: []string{"arcee"}, draw: drawArcee}

func drawArcee(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	c["mlp_bias"] = rapid.Bool().Draw(t, "mlp_bias")
	c["lm_head_bias"] = rapid.Bool().Draw(t, "lm_head_bias")
	quantize(t, c, quantDense)
	return c
}
