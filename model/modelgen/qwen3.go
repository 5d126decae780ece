package modelgen

import "pgregory.net/rapid"

// qwen3 draws model_type qwen3 or qwen3_vl_text (Qwen3-VL's language
// model, read as Qwen3's): per-head q and k norms, optional q, k and v
// biases.
var qwen3 = family{types: []string{"qwen3", "qwen3_vl_text"}, draw: drawQwen3}

func drawQwen3(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	quantize(t, c, quantDense)
	return c
}
