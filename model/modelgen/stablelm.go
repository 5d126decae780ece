package modelgen

import "pgregory.net/rapid"

// stableLM draws model_type stablelm (StableLM 2): head_dim derived from
// hidden_size, use_qkv_bias, a partial_rotary_factor or StableLmConfig's
// quarter of a head.
var stableLM = family{types: []string{"stablelm"}, draw: drawStableLM}

func drawStableLM(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	c["use_qkv_bias"] = rapid.Bool().Draw(t, "use_qkv_bias")
	if rapid.Bool().Draw(t, "partial_rotary") {
		c["partial_rotary_factor"] = rapid.SampledFrom([]float64{0.25, 0.5, 1}).Draw(t, "partial_rotary_factor")
	}
	quantize(t, c, quantDense)
	return c
}
