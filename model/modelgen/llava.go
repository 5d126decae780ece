package modelgen

import "pgregory.net/rapid"

// llava draws model_type llava or llava_next (LLaVA-NeXT: the same, with
// image_newline and a projector as wide as the selected layers): a Llama, Mistral or Qwen2 language model
// under text_config (its model_type sometimes left to LlavaConfig's
// default, llama) with a CLIP, SigLIP or Pixtral tower built to vision_feature_layer (an
// index from either end, a list, or LlavaConfig's -2 left out) and the
// two-layer projector, biased or not. The quantization config is at the
// top, as the published configs keep it, or under text_config.
var llava = family{types: []string{"llava", "llava_next"}, draw: drawLlava}

// llavaText are the text models a LLaVA wrapper holds and their
// generators.
var llavaText = map[string]func(t *rapid.T, modelType string) map[string]any{
	"llama": drawLlama, "mistral": drawMistral, "qwen2": drawQwen2,
}

func drawLlava(t *rapid.T, modelType string) map[string]any {
	textType := rapid.SampledFrom([]string{"llama", "mistral", "qwen2"}).Draw(t, "text_model_type")
	text := llavaText[textType](t, textType)
	heads := rapid.SampledFrom([]uint64{1, 2, 4, 8, 16}).Draw(t, "clip_heads")
	patch := rapid.SampledFrom([]uint64{14, 16}).Draw(t, "clip_patch")
	layers := rapid.Uint64Range(1, 32).Draw(t, "clip_layers")
	tower := rapid.SampledFrom([]string{"clip_vision_model", "siglip_vision_model", "pixtral"}).Draw(t, "tower")
	vision := map[string]any{
		"model_type": tower, "hidden_size": heads * 16 * rapid.Uint64Range(1, 6).Draw(t, "clip_head_x16"),
		"intermediate_size": 16 * rapid.Uint64Range(1, 256).Draw(t, "clip_inter_x16"), "num_hidden_layers": layers,
		"num_attention_heads": heads, "patch_size": patch, "image_size": patch * rapid.Uint64Range(1, 48).Draw(t, "clip_patches_side"),
	}
	if tower == "pixtral" {
		vision["num_channels"] = 3 // PixtralVisionConfig has no class here: every key given
	}
	c := map[string]any{"model_type": modelType, "text_config": text,
		"vision_config": vision, "torch_dtype": text["torch_dtype"], "multimodal_projector_bias": rapid.Bool().Draw(t, "projector_bias")}
	switch rapid.IntRange(0, 3).Draw(t, "feature_layer_form") {
	case 0: // LlavaConfig's default, -2, where the tower has two layers
		if layers < 2 {
			c["vision_feature_layer"] = -1
		}
	case 1: // llava.py get_layer_index: -k builds layers + 1 - k layers
		c["vision_feature_layer"] = -rapid.Int64Range(1, int64(layers)).Draw(t, "vision_feature_layer")
	case 2:
		c["vision_feature_layer"] = rapid.Int64Range(1, int64(layers)).Draw(t, "vision_feature_layer")
	case 3:
		c["vision_feature_layer"] = []int64{-1, -rapid.Int64Range(1, int64(layers)).Draw(t, "vision_feature_layer")}
	}
	if q, ok := text["quantization_config"]; ok && rapid.IntRange(0, 3).Draw(t, "quant_in_text") > 0 {
		delete(text, "quantization_config")
		c["quantization_config"] = q
	}
	switch rapid.IntRange(0, 3).Draw(t, "dtype_form") {
	case 0:
		delete(text, "torch_dtype")
	case 1: // the root's dtype is served (llava-v1.6-mistral-7b-hf: float16 over bfloat16)
		c["torch_dtype"] = rapid.SampledFrom([]string{"bfloat16", "float16", "float32"}).Draw(t, "root_dtype")
	}
	if textType == "llama" && rapid.IntRange(0, 3).Draw(t, "text_model_type_left_out") == 0 {
		delete(text, "model_type") // LlavaConfig's default text model
	}
	return c
}
