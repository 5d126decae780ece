package modelgen

import "pgregory.net/rapid"

// graniteMoEShared draws model_type granitemoeshared: Granite MoE as
// graniteMoE draws it with a shared MLP of shared_intermediate_size (0:
// none); unquantized.
var graniteMoEShared = family{types: []string{"granitemoeshared"}, draw: drawGraniteMoEShared}

func drawGraniteMoEShared(t *rapid.T, modelType string) map[string]any {
	c := drawGraniteMoE(t, modelType)
	c["shared_intermediate_size"] = 128 * rapid.Uint64Range(0, 8).Draw(t, "shared_x128")
	return c
}
