package modelgen

import "pgregory.net/rapid"

// cohere draws model_types cohere (Command R, R+) and cohere2 (Command
// R7B, A): head_dim derived from hidden_size, tied, use_qk_norm; cohere2's
// sliding layers by layer_types or sliding_window_pattern.
var cohere = family{types: []string{"cohere", "cohere2"}, draw: drawCohere}

func drawCohere(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, false)
	c["tie_word_embeddings"] = true
	c["use_qk_norm"] = rapid.Bool().Draw(t, "use_qk_norm")
	c["logit_scale"] = 0.0625
	if modelType == "cohere2" {
		c["sliding_window"] = window(t)
		if rapid.Bool().Draw(t, "layer_types") {
			c["layer_types"] = layerTypes(t, s.layers, "full_attention", "sliding_attention")
		} else {
			c["sliding_window_pattern"] = rapid.Uint64Range(1, 6).Draw(t, "sliding_window_pattern")
		}
	}
	quantize(t, c, quantDense)
	return c
}
