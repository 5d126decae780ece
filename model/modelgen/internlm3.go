package modelgen

import "pgregory.net/rapid"

// internLM3 draws model_type internlm3 (InternLM3, Llama's layers): bias
// and qkv_bias as its remote-code config spells them.
var internLM3 = family{types: []string{"internlm3"}, draw: drawInternLM3}

func drawInternLM3(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["bias"] = rapid.Bool().Draw(t, "bias")
	c["qkv_bias"] = rapid.Bool().Draw(t, "qkv_bias")
	quantize(t, c, quantDense)
	return c
}
