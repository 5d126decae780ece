package modelgen

import "pgregory.net/rapid"

// glm draws model_types glm (GLM-4) and glm4 (GLM-4-0414): attention_bias,
// sometimes a partial_rotary_factor (glm4 honours it, glm halves a head
// whatever it says), and sometimes the keys GlmConfig and Glm4Config fill
// left out.
var glm = family{types: []string{"glm", "glm4"}, draw: drawGlm}

func drawGlm(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	if rapid.Bool().Draw(t, "partial_rotary") {
		c["partial_rotary_factor"] = rapid.SampledFrom([]float64{0.25, 0.5, 1}).Draw(t, "partial_rotary_factor")
	}
	for _, k := range []string{"vocab_size", "max_position_embeddings", "tie_word_embeddings"} {
		if rapid.Bool().Draw(t, "omit_"+k) {
			delete(c, k)
		}
	}
	quantize(t, c, quantDense)
	return c
}
