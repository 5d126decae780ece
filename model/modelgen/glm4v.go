package modelgen

import "pgregory.net/rapid"

// glm4v draws model_types glm4v (GLM-4.1V: GLM-4-0414 text under
// text_config) and glm4v_moe (GLM-4.5V: GLM-4.5 text), each with its
// vision tower, and their text models glm4v_text and glm4v_moe_text at the
// top, the wrappers sometimes flat (the text keys at the root). The
// tower's out_hidden_size is the text model's width, as vLLM's
// merger needs (glm4_1v.py:688-694); its other keys are sometimes left to
// the classes' defaults where those fit (in_channels 3, temporal and
// spatial merge 2).
var glm4v = family{types: []string{"glm4v", "glm4v_text", "glm4v_moe", "glm4v_moe_text"}, draw: drawGlm4v}

func drawGlm4v(t *rapid.T, modelType string) map[string]any {
	switch modelType {
	case "glm4v_text":
		return drawGlm(t, modelType)
	case "glm4v_moe_text":
		return drawGlm4MoE(t, modelType)
	}
	textType := modelType + "_text"
	var text map[string]any
	if modelType == "glm4v" {
		text = drawGlm(t, textType)
	} else {
		text = drawGlm4MoE(t, textType)
	}
	heads := rapid.SampledFrom([]uint64{1, 2, 3, 4, 6, 12, 16}).Draw(t, "vit_heads")
	patch := rapid.SampledFrom([]uint64{14, 16}).Draw(t, "vit_patch")
	vision := map[string]any{
		"hidden_size": heads * 16 * rapid.Uint64Range(1, 8).Draw(t, "vit_head_x16"), "intermediate_size": 16 * rapid.Uint64Range(1, 900).Draw(t, "vit_inter_x16"),
		"depth": rapid.Uint64Range(1, 24).Draw(t, "vit_depth"), "num_heads": heads,
		"patch_size": patch, "image_size": patch * rapid.Uint64Range(1, 32).Draw(t, "vit_side"),
		"out_hidden_size": text["hidden_size"],
	}
	for _, k := range []struct {
		key      string
		fallback uint64
	}{{"in_channels", 3}, {"temporal_patch_size", 2}, {"spatial_merge_size", 2}} {
		if rapid.Bool().Draw(t, "omit_"+k.key) {
			continue // the vision class's default
		}
		vision[k.key] = rapid.SampledFrom([]uint64{1, k.fallback}).Draw(t, k.key)
	}
	if rapid.Bool().Draw(t, "vision_model_type") {
		vision["model_type"] = modelType
	}
	if rapid.IntRange(0, 3).Draw(t, "glm4v_flat") == 0 {
		// The flat form: the text model's keys at the root (Glm4vConfig
		// builds its text config from them).
		text["model_type"] = modelType
		text["vision_config"] = vision
		return text
	}
	c := map[string]any{"model_type": modelType, "text_config": text, "vision_config": vision, "torch_dtype": text["torch_dtype"]}
	if q, ok := text["quantization_config"]; ok && rapid.IntRange(0, 3).Draw(t, "quant_in_text") > 0 {
		delete(text, "quantization_config")
		c["quantization_config"] = q
	}
	if rapid.IntRange(0, 3).Draw(t, "text_inherits_dtype") == 0 {
		delete(text, "torch_dtype")
	}
	if rapid.IntRange(0, 3).Draw(t, "text_model_type_left_out") == 0 {
		delete(text, "model_type") // the class's own text model
	}
	return c
}
