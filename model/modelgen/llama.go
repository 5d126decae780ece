package modelgen

import "pgregory.net/rapid"

// llama draws model_type llama: GQA, attention and MLP biases, and
// sometimes layer_types mixing full, sliding and chunked attention.
var llama = family{types: []string{"llama"}, draw: drawLlama}

func drawLlama(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	if rapid.Bool().Draw(t, "layer_types") {
		c["layer_types"] = layerTypes(t, s.layers, "full_attention", "sliding_attention", "chunked_attention")
		c["sliding_window"] = window(t)
		c["attention_chunk_size"] = chunk(t)
	}
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	c["mlp_bias"] = rapid.Bool().Draw(t, "mlp_bias")
	quantize(t, c, quantDense)
	return c
}
