package modelgen

import "pgregory.net/rapid"

// olmo2 draws model_type olmo2 (served through vLLM's Transformers
// backend): a head_dim of its own or derived, every layer full unless a
// sliding_window slides them all, attention biases or none.
var olmo2 = family{types: []string{"olmo2"}, draw: drawOlmo2}

func drawOlmo2(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	if rapid.Bool().Draw(t, "sliding") {
		c["sliding_window"] = window(t)
	}
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	quantize(t, c, quantDense)
	return c
}
