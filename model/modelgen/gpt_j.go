package modelgen

import "pgregory.net/rapid"

// gptJ draws model_type gptj (GPT-J): GPTJConfig's names (n_embd, n_head,
// n_layer, n_positions) or the standard ones, multi-head, an even
// rotary_dim of at most a head, n_inner or its null (4 x n_embd), untied.
var gptJ = family{types: []string{"gptj"}, draw: drawGPTJ}

func drawGPTJ(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, false)
	delete(c, "num_key_value_heads")
	c["rotary_dim"] = 2 * rapid.Uint64Range(1, s.headDim/2).Draw(t, "rotary_dim_half")
	if rapid.Bool().Draw(t, "n_inner_null") {
		c["n_inner"] = nil
	} else {
		c["n_inner"] = c["intermediate_size"]
	}
	delete(c, "intermediate_size")
	c["tie_word_embeddings"] = false
	if rapid.Bool().Draw(t, "gptj_names") {
		for _, k := range [][2]string{{"hidden_size", "n_embd"}, {"num_attention_heads", "n_head"}, {"num_hidden_layers", "n_layer"}, {"max_position_embeddings", "n_positions"}} {
			c[k[1]] = c[k[0]]
			delete(c, k[0])
		}
	}
	quantize(t, c, quantDense)
	return c
}
