package modelgen

import "pgregory.net/rapid"

// olmo3 draws model_type olmo3: head_dim derived from hidden_size, sliding
// and full layers by layer_types.
var olmo3 = family{types: []string{"olmo3"}, draw: drawOlmo3}

func drawOlmo3(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, false)
	c["layer_types"] = layerTypes(t, s.layers, "full_attention", "sliding_attention")
	if rapid.Bool().Draw(t, "derived_layer_types") {
		delete(c, "layer_types") // Olmo3Config derives them: each 4th full
	}
	c["sliding_window"] = window(t)
	quantize(t, c, quantDense)
	return c
}
