package modelgen

import "pgregory.net/rapid"

// idefics3 draws model_type idefics3 or smolvlm: a Llama text_config
// (sometimes without its model_type, the classes' default) with a whole
// SigLIP-style tower whose patches a side fold by scale_factor (sometimes
// left to the classes' 2), and the connector's one linear layer. The
// quantization config is at the top or under text_config.
var idefics3 = family{types: []string{"idefics3", "smolvlm"}, draw: drawIdefics3}

func drawIdefics3(t *rapid.T, modelType string) map[string]any {
	text := drawLlama(t, "llama")
	heads := rapid.SampledFrom([]uint64{1, 2, 4, 8, 16}).Draw(t, "vit_heads")
	patch := rapid.SampledFrom([]uint64{14, 16}).Draw(t, "vit_patch")
	scale := rapid.SampledFrom([]uint64{1, 2, 3, 4}).Draw(t, "scale_factor")
	// idefics3.py:378-392: the pixel shuffle folds a side of patches by
	// scale_factor.
	side := scale * rapid.Uint64Range(1, 16).Draw(t, "vit_folds_side")
	vision := map[string]any{
		"hidden_size": heads * 16 * rapid.Uint64Range(1, 6).Draw(t, "vit_head_x16"), "intermediate_size": 16 * rapid.Uint64Range(1, 256).Draw(t, "vit_inter_x16"),
		"num_hidden_layers": rapid.Uint64Range(1, 27).Draw(t, "vit_layers"), "num_attention_heads": heads,
		"patch_size": patch, "image_size": patch * side,
	}
	if rapid.Bool().Draw(t, "vision_model_type") {
		vision["model_type"] = modelType + "_vision"
	}
	c := map[string]any{"model_type": modelType, "text_config": text, "vision_config": vision, "torch_dtype": text["torch_dtype"],
		"scale_factor": scale}
	if scale == 2 && rapid.Bool().Draw(t, "scale_factor_left_out") {
		delete(c, "scale_factor") // the classes' 2
	}
	if q, ok := text["quantization_config"]; ok && rapid.IntRange(0, 3).Draw(t, "quant_in_text") > 0 {
		delete(text, "quantization_config")
		c["quantization_config"] = q
	}
	if rapid.IntRange(0, 3).Draw(t, "text_inherits_dtype") == 0 {
		delete(text, "torch_dtype")
	}
	if rapid.IntRange(0, 3).Draw(t, "text_model_type_left_out") == 0 {
		delete(text, "model_type") // the classes' default text model
	}
	return c
}
