package modelgen

import "pgregory.net/rapid"

// Gemma2 draws model_type gemma2: four norms a layer, the even layers
// sliding.
func Gemma2() *rapid.Generator[map[string]any] { return gemma2.generator() }

var gemma2 = family{types: []string{"gemma2"}, draw: drawGemma2}

func drawGemma2(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["sliding_window"] = window(t)
	quantize(t, c, quantDense)
	return c
}
