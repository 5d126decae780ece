package modelgen

import "pgregory.net/rapid"

// internLM2 draws model_type internlm2 (InternLM2, 2.5): head_dim derived
// from hidden_size, no biases.
var internLM2 = family{types: []string{"internlm2"}, draw: drawInternLM2}

func drawInternLM2(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	c["bias"] = false
	quantize(t, c, quantDense)
	return c
}
