package modelgen

import "pgregory.net/rapid"

// bloom draws model_type bloom (BLOOM): BloomConfig's names (n_layer,
// n_head) or the standard ones, multi-head ALiBi attention of hidden_size
// / heads, the MLP 4 x hidden_size (n_inner null, as published), tied; no
// length key (vLLM's 2048), or seq_length now and then.
var bloom = family{types: []string{"bloom"}, draw: drawBloom}

func drawBloom(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	delete(c, "num_key_value_heads")
	delete(c, "intermediate_size")
	c["n_inner"] = nil
	c["tie_word_embeddings"] = true
	if rapid.Bool().Draw(t, "seq_length") {
		c["seq_length"] = c["max_position_embeddings"]
	}
	delete(c, "max_position_embeddings")
	if rapid.Bool().Draw(t, "bloom_names") {
		for _, k := range [][2]string{{"num_hidden_layers", "n_layer"}, {"num_attention_heads", "n_head"}} {
			c[k[1]] = c[k[0]]
			delete(c, k[0])
		}
	}
	quantize(t, c, quantDense)
	return c
}
