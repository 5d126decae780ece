package modelgen

import "pgregory.net/rapid"

// teleChat2 draws model_type telechat (TeleChat2ForCausalLM): its own
// names n_layer, n_head and ffn_hidden_size or the standard ones, often no
// max_position_embeddings (no TeleChat config writes one) but seq_length,
// and sometimes the keys Telechat2Config fills left out.
var teleChat2 = family{types: []string{"telechat"}, draw: drawTeleChat2}

func drawTeleChat2(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	if rapid.Bool().Draw(t, "telechat_names") {
		for _, k := range [][2]string{{"num_hidden_layers", "n_layer"}, {"num_attention_heads", "n_head"}, {"intermediate_size", "ffn_hidden_size"}} {
			c[k[1]] = c[k[0]]
			delete(c, k[0])
		}
	}
	if rapid.Bool().Draw(t, "seq_length") {
		c["seq_length"] = c["max_position_embeddings"]
		delete(c, "max_position_embeddings")
	}
	for _, k := range []string{"vocab_size", "tie_word_embeddings"} {
		if rapid.Bool().Draw(t, "omit_"+k) {
			delete(c, k)
		}
	}
	return c
}
