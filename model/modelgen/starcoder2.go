package modelgen

import "pgregory.net/rapid"

// starcoder2 draws model_type starcoder2 (served through vLLM's
// Transformers backend): biased or unbiased attention and ungated MLP,
// LayerNorms, every layer sliding when sliding_window is set.
var starcoder2 = family{types: []string{"starcoder2"}, draw: drawStarcoder2}

func drawStarcoder2(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	if rapid.Bool().Draw(t, "sliding") {
		c["sliding_window"] = window(t)
	}
	c["use_bias"] = rapid.Bool().Draw(t, "use_bias")
	quantize(t, c, quantDense)
	return c
}
