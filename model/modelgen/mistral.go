package modelgen

import "pgregory.net/rapid"

// mistral draws model_type mistral or ministral3 (Mistral 3's language
// model, read as Mistral's): every layer sliding when sliding_window is
// set.
var mistral = family{types: []string{"mistral", "ministral3"}, draw: drawMistral}

func drawMistral(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	if rapid.Bool().Draw(t, "sliding") {
		c["sliding_window"] = window(t)
	}
	quantize(t, c, quantDense)
	return c
}
