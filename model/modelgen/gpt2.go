package modelgen

import "pgregory.net/rapid"

// gpt2 draws model_type gpt2 (GPT-2): GPT2Config's names (n_embd, n_head,
// n_layer, n_positions) or the standard ones, multi-head attention of
// hidden_size / heads, n_inner or its null (4 x n_embd), tied or not. It
// draws no quantization: vLLM transposes every Conv1D .weight when it
// loads (gpt2.py:242-253), which a block-scaled checkpoint's scales would
// not follow.
var gpt2 = family{types: []string{"gpt2"}, draw: drawGPT2}

func drawGPT2(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	delete(c, "num_key_value_heads")
	if rapid.Bool().Draw(t, "n_inner_null") {
		c["n_inner"] = nil
	} else {
		c["n_inner"] = c["intermediate_size"]
	}
	delete(c, "intermediate_size")
	if rapid.Bool().Draw(t, "gpt2_names") {
		for _, k := range [][2]string{{"hidden_size", "n_embd"}, {"num_attention_heads", "n_head"}, {"num_hidden_layers", "n_layer"}, {"max_position_embeddings", "n_positions"}} {
			c[k[1]] = c[k[0]]
			delete(c, k[0])
		}
	}
	return c
}
