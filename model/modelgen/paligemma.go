package modelgen

import "pgregory.net/rapid"

// paliGemma draws model_type paligemma: a Gemma or Gemma 2 text_config
// (Gemma's sometimes without its model_type, PaliGemmaConfig's default)
// with a whole SigLIP tower and the one-layer projector to projection_dim,
// the text model's width (sometimes left to PaliGemmaConfig's 2048 when
// it is). The quantization config is at the top or under text_config.
var paliGemma = family{types: []string{"paligemma"}, draw: drawPaliGemma}

func drawPaliGemma(t *rapid.T, modelType string) map[string]any {
	textType := rapid.SampledFrom([]string{"gemma", "gemma2"}).Draw(t, "text_model_type")
	var text map[string]any
	if textType == "gemma" {
		text = drawGemma(t, textType)
	} else {
		text = drawGemma2(t, textType)
	}
	patch := rapid.SampledFrom([]uint64{14, 16}).Draw(t, "siglip_patch")
	vh := 16 * rapid.Uint64Range(1, 72).Draw(t, "siglip_hidden_x16")
	vision := map[string]any{
		"model_type": "siglip_vision_model", "hidden_size": vh, "intermediate_size": 16 * rapid.Uint64Range(1, 300).Draw(t, "siglip_inter_x16"),
		"num_hidden_layers": rapid.Uint64Range(1, 27).Draw(t, "siglip_layers"), "num_attention_heads": rapid.SampledFrom(divisors(vh/16)).Draw(t, "siglip_heads"),
		"patch_size": patch, "image_size": patch * rapid.Uint64Range(1, 64).Draw(t, "patches_side"),
	}
	c := map[string]any{"model_type": modelType, "text_config": text, "vision_config": vision, "torch_dtype": text["torch_dtype"],
		"projection_dim": text["hidden_size"]}
	if text["hidden_size"] == uint64(2048) && rapid.Bool().Draw(t, "projection_dim_left_out") {
		delete(c, "projection_dim") // PaliGemmaConfig's 2048
	}
	if q, ok := text["quantization_config"]; ok && rapid.IntRange(0, 3).Draw(t, "quant_in_text") > 0 {
		delete(text, "quantization_config")
		c["quantization_config"] = q
	}
	if rapid.IntRange(0, 3).Draw(t, "text_inherits_dtype") == 0 {
		delete(text, "torch_dtype")
	}
	if textType == "gemma" && rapid.IntRange(0, 3).Draw(t, "text_model_type_left_out") == 0 {
		delete(text, "model_type") // PaliGemmaConfig's default text model
	}
	return c
}
