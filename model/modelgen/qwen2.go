package modelgen

import "pgregory.net/rapid"

// qwen2 draws model_type qwen2: q, k and v biases, and sometimes a
// sliding window on every layer.
var qwen2 = family{types: []string{"qwen2"}, draw: drawQwen2}

func drawQwen2(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	if rapid.Bool().Draw(t, "qwen2_sliding") {
		c["use_sliding_window"] = true
		c["sliding_window"] = window(t)
		c["max_window_layers"] = 0 // every layer: vLLM refuses a partial window (qwen2.py:348-357)
	}
	quantize(t, c, quantDense)
	return c
}
