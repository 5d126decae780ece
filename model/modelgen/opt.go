package modelgen

import "pgregory.net/rapid"

// opt draws model_type opt: multi-head attention (no num_key_value_heads),
// ffn_dim for the MLP, head_dim derived whatever the config says, and
// sometimes embeddings of word_embed_proj_dim projected in and out.
var opt = family{types: []string{"opt"}, draw: drawOPT}

func drawOPT(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	delete(c, "intermediate_size")
	delete(c, "num_key_value_heads")
	c["ffn_dim"] = 128 * rapid.Uint64Range(1, 160).Draw(t, "ffn_x128")
	if rapid.Bool().Draw(t, "projected") {
		c["word_embed_proj_dim"] = 128 * rapid.Uint64Range(1, 8).Draw(t, "word_embed_x128")
	}
	quantize(t, c, quantDense)
	return c
}
