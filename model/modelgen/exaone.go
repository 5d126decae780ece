package modelgen

import "pgregory.net/rapid"

// exaone draws model_type exaone (EXAONE 3 and 3.5): Llama's layers,
// the layer count as num_layers (ExaoneConfig's name) or
// num_hidden_layers.
var exaone = family{types: []string{"exaone"}, draw: drawExaone}

func drawExaone(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	if rapid.Bool().Draw(t, "num_layers") {
		c["num_layers"] = c["num_hidden_layers"]
		delete(c, "num_hidden_layers")
	}
	quantize(t, c, quantDense)
	return c
}
