package modelgen

import "pgregory.net/rapid"

// mpt draws model_type mpt (MPT): MptConfig's names (d_model, n_heads,
// n_layers) or the standard ones, max_seq_len, an expansion_ratio,
// attn_config with ALiBi, sometimes kv_n_heads and (multi-head) qk_ln,
// no_bias either way, tied.
var mpt = family{types: []string{"mpt"}, draw: drawMPT}

func drawMPT(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, false)
	delete(c, "intermediate_size")
	delete(c, "num_key_value_heads")
	c["expansion_ratio"] = rapid.SampledFrom([]uint64{2, 4}).Draw(t, "expansion_ratio")
	c["tie_word_embeddings"] = true
	c["no_bias"] = rapid.Bool().Draw(t, "no_bias")
	attn := map[string]any{"alibi": true, "prefix_lm": false, "qk_ln": false}
	if s.kvHeads != s.heads {
		attn["kv_n_heads"] = s.kvHeads
	} else {
		attn["qk_ln"] = rapid.Bool().Draw(t, "qk_ln")
	}
	c["attn_config"] = attn
	// max_seq_len is MptConfig's own length key, always set (default
	// 2048): vLLM derives the length from it.
	c["max_seq_len"] = c["max_position_embeddings"]
	delete(c, "max_position_embeddings")
	if rapid.Bool().Draw(t, "mpt_names") {
		for _, k := range [][2]string{{"hidden_size", "d_model"}, {"num_attention_heads", "n_heads"}, {"num_hidden_layers", "n_layers"}} {
			c[k[1]] = c[k[0]]
			delete(c, k[0])
		}
	}
	quantize(t, c, quantDense)
	return c
}
