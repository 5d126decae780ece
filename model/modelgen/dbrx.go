package modelgen

import "pgregory.net/rapid"

// dbrx draws model_type dbrx (DBRX): DbrxConfig's names (d_model,
// n_heads, n_layers, max_seq_len) or the standard ones, attn_config's
// kv_n_heads (sometimes left to DbrxAttentionConfig's one head, or the
// whole attn_config left out), ffn_config's experts, top-k and
// ffn_hidden_size, untied, never quantized (a quantized DBRX is refused).
var dbrx = family{types: []string{"dbrx"}, draw: drawDbrx}

func drawDbrx(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, false)
	delete(c, "intermediate_size")
	delete(c, "num_key_value_heads")
	c["tie_word_embeddings"] = false
	m := drawMoE(t)
	c["ffn_config"] = map[string]any{"ffn_hidden_size": m.inter, "moe_num_experts": m.experts, "moe_top_k": m.topK}
	switch rapid.IntRange(0, 2).Draw(t, "attn_config") {
	case 0:
		c["attn_config"] = map[string]any{"kv_n_heads": s.kvHeads, "clip_qkv": 8, "rope_theta": 500000}
	case 1:
		c["attn_config"] = map[string]any{"clip_qkv": nil}
	}
	if rapid.Bool().Draw(t, "dbrx_names") {
		for _, k := range [][2]string{{"hidden_size", "d_model"}, {"num_attention_heads", "n_heads"}, {"num_hidden_layers", "n_layers"},
			{"max_position_embeddings", "max_seq_len"}} {
			c[k[1]] = c[k[0]]
			delete(c, k[0])
		}
	}
	return c
}
