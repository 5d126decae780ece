package modelgen

import "pgregory.net/rapid"

// gemma2 draws model_type gemma2: four norms a layer, the even layers
// sliding.
var gemma2 = family{types: []string{"gemma2"}, draw: drawGemma2}

func drawGemma2(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["sliding_window"] = window(t)
	quantize(t, c, quantDense)
	return c
}
