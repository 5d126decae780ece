package modelgen

import "pgregory.net/rapid"

// hunyuanDense draws model_type hunyuan_v1_dense (Hunyuan dense): Llama's
// layers, biases, and per-head q and k norms with use_qk_norm.
var hunyuanDense = family{types: []string{"hunyuan_v1_dense"}, draw: drawHunyuanDense}

func drawHunyuanDense(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	c["mlp_bias"] = rapid.Bool().Draw(t, "mlp_bias")
	c["use_qk_norm"] = rapid.Bool().Draw(t, "use_qk_norm")
	c["use_cla"] = false
	quantize(t, c, quantDense)
	return c
}
