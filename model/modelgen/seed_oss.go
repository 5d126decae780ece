package modelgen

import "pgregory.net/rapid"

// seedOss draws model_type seed_oss (Seed-OSS): Llama's layers with q/k/v
// biases, head_dim given or SeedOssConfig's 128, and sometimes a
// cache-wide sliding_window, on or off by use_sliding_window.
var seedOss = family{types: []string{"seed_oss"}, draw: drawSeedOss}

func drawSeedOss(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["attention_bias"] = true
	c["attention_out_bias"] = false
	if rapid.Bool().Draw(t, "sliding_window") {
		c["sliding_window"] = window(t)
		c["use_sliding_window"] = rapid.Bool().Draw(t, "use_sliding_window")
	}
	quantize(t, c, quantDense)
	return c
}
