package modelgen

import "pgregory.net/rapid"

// jais2 draws model_type jais2 (Jais 2): Llama's attention with biases, an
// ungated MLP, LayerNorms, and sometimes interleaved_sliding_window as an
// integer or a list of one window and nulls.
var jais2 = family{types: []string{"jais2"}, draw: drawJais2}

func drawJais2(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	c["mlp_bias"] = rapid.Bool().Draw(t, "mlp_bias")
	switch rapid.IntRange(0, 2).Draw(t, "window_kind") {
	case 1:
		c["interleaved_sliding_window"] = window(t)
	case 2:
		w := window(t)
		pattern := make([]any, rapid.IntRange(1, 4).Draw(t, "window_period"))
		for i := range pattern {
			if rapid.Bool().Draw(t, "slides") {
				pattern[i] = w
			}
		}
		c["interleaved_sliding_window"] = pattern
	}
	quantize(t, c, quantDense)
	return c
}
