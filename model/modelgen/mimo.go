package modelgen

import "pgregory.net/rapid"

// mimo draws model_type mimo (MiMo): Qwen2's keys as qwen2 draws them,
// and up to one MTP layer.
var mimo = family{types: []string{"mimo"}, draw: drawMiMo}

func drawMiMo(t *rapid.T, modelType string) map[string]any {
	c := drawQwen2(t, modelType)
	c["num_nextn_predict_layers"] = rapid.Uint64Range(0, 1).Draw(t, "mtp_layers")
	return c
}
