package modelgen

import "pgregory.net/rapid"

// orion draws model_type orion (Orion): head_dim derived from
// hidden_size, unbiased layers, LayerNorms.
var orion = family{types: []string{"orion"}, draw: drawOrion}

func drawOrion(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	quantize(t, c, quantDense)
	return c
}
