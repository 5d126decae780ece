package modelgen

import "pgregory.net/rapid"

// chatGLM draws model_type chatglm (ChatGLM 2/3, GLM-4): ChatGLMConfig's
// names (num_layers, padded_vocab_size, ffn_hidden_size, kv_channels,
// seq_length), multi_query_attention with multi_query_group_num KV heads
// or multi-head, add_qkv_bias and add_bias_linear, RMSNorms with or
// without the final one, tied or not.
var chatGLM = family{types: []string{"chatglm"}, draw: drawChatGLM}

func drawChatGLM(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, false)
	for _, k := range [][2]string{{"num_hidden_layers", "num_layers"}, {"vocab_size", "padded_vocab_size"}, {"intermediate_size", "ffn_hidden_size"},
		{"max_position_embeddings", "seq_length"}} {
		c[k[1]] = c[k[0]]
		delete(c, k[0])
	}
	delete(c, "num_key_value_heads")
	c["kv_channels"] = s.headDim
	if mq := rapid.Bool().Draw(t, "multi_query_attention"); mq {
		c["multi_query_attention"] = true
		c["multi_query_group_num"] = s.kvHeads
	}
	c["add_qkv_bias"] = rapid.Bool().Draw(t, "add_qkv_bias")
	c["add_bias_linear"] = rapid.Bool().Draw(t, "add_bias_linear")
	c["post_layer_norm"] = rapid.Bool().Draw(t, "post_layer_norm")
	c["rmsnorm"] = true
	quantize(t, c, quantDense)
	return c
}
