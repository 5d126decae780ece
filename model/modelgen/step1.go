package modelgen

import "pgregory.net/rapid"

// step1 draws model_type step1 (Step 1): Llama's layers with ALiBi, head_dim
// derived from hidden_size, the KV heads as num_attention_groups or
// num_key_value_heads, biases.
var step1 = family{types: []string{"step1"}, draw: drawStep1}

func drawStep1(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	if rapid.Bool().Draw(t, "num_attention_groups") {
		c["num_attention_groups"] = c["num_key_value_heads"]
		delete(c, "num_key_value_heads")
	}
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	c["mlp_bias"] = rapid.Bool().Draw(t, "mlp_bias")
	quantize(t, c, quantDense)
	return c
}
