package modelgen

import "pgregory.net/rapid"

// exaone4 draws model_type exaone4 (EXAONE 4): sliding and full layers by
// layer_types.
var exaone4 = family{types: []string{"exaone4"}, draw: drawExaone4}

func drawExaone4(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	c["layer_types"] = layerTypes(t, s.layers, "full_attention", "sliding_attention")
	if rapid.Bool().Draw(t, "derived_layer_types") {
		// Exaone4Config derives them from sliding_window_pattern (its 4
		// when left out).
		delete(c, "layer_types")
		if rapid.Bool().Draw(t, "pattern") {
			c["sliding_window_pattern"] = rapid.Uint64Range(1, 6).Draw(t, "sliding_window_pattern")
		}
	}
	c["sliding_window"] = window(t)
	quantize(t, c, quantDense)
	return c
}
