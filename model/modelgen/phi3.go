package modelgen

import "pgregory.net/rapid"

// phi3 draws model_type phi3: fused q/k/v and gate/up projections, an
// optional sliding window on every layer and partial rotary.
var phi3 = family{types: []string{"phi3"}, draw: drawPhi3}

func drawPhi3(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	if rapid.Bool().Draw(t, "sliding") {
		c["sliding_window"] = window(t)
	}
	if rapid.Bool().Draw(t, "partial") {
		c["partial_rotary_factor"] = partialRotary(t, 0.25, 0.5, 0.75)
	}
	quantize(t, c, quantDense)
	return c
}
