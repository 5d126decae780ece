package modelgen

import "pgregory.net/rapid"

// phi draws model_type phi (Phi-2): biased attention and MLP, partial
// rotary (the default 0.5 where the config leaves it out).
var phi = family{types: []string{"phi"}, draw: drawPhi}

func drawPhi(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	if rapid.IntRange(0, 4).Draw(t, "default_partial") > 0 {
		c["partial_rotary_factor"] = partialRotary(t, 0.25, 0.4, 0.5, 1)
	}
	quantize(t, c, quantDense)
	return c
}
