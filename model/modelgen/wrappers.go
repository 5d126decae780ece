package modelgen

import "pgregory.net/rapid"

// wrappers draws the multimodal wrappers, whose language model is a text
// model the other generators draw: gemma3 (Gemma 3 text with a SigLIP
// tower), gemma4 (Gemma 4 text without a vision_config, so no tower), llama4 (Llama 4
// text with its pixel-shuffle tower), qwen2_5_vl (Qwen2 at the top, or
// under text_config as transformers 4.5x re-saves it, with its tower),
// qwen3_vl, qwen3_5 and qwen3_5_moe (Qwen3, Qwen3.5 and Qwen3.5-MoE text
// with Qwen3-VL's tower, or text-only), mistral3 (Mistral or Ministral 3
// text with a Pixtral tower built to its vision_feature_layer) and
// kimi_k25 (Kimi-K2 text with a MoonViT tower, or KimiK25VisionConfig's
// own when vision_config is left out). The quantization
// config is at the top, as the published configs keep it, or sometimes
// under text_config; the text config sometimes inherits the wrapper's
// dtype.
var wrappers = family{
	types: []string{"gemma3", "gemma4", "llama4", "qwen2_5_vl", "qwen3_vl", "qwen3_5", "qwen3_5_moe", "mistral3", "kimi_k25"},
	draw:  drawWrapper,
}

// wrapped is each wrapper's text model: the model_types its text_config
// may name (the first when it names none) and their generator.
var wrapped = map[string]struct {
	types []string
	draw  func(t *rapid.T, modelType string) map[string]any
}{
	"gemma3":      {[]string{"gemma3_text"}, drawGemma3Text},
	"gemma4":      {[]string{"gemma4_text"}, drawGemma4Text},
	"llama4":      {[]string{"llama4_text"}, drawLlama4Text},
	"qwen2_5_vl":  {[]string{"qwen2"}, drawQwen2},
	"qwen3_vl":    {[]string{"qwen3_vl_text", "qwen3"}, drawQwen3},
	"qwen3_5":     {[]string{"qwen3_5_text"}, drawQwen35Text},
	"qwen3_5_moe": {[]string{"qwen3_5_moe_text"}, drawQwen35Text},
	"mistral3":    {[]string{"ministral3", "mistral"}, drawMistral},
	"kimi_k25":    {[]string{"kimi_k2"}, drawDeepSeek},
}

func drawWrapper(t *rapid.T, wrapper string) map[string]any {
	w := wrapped[wrapper]
	textType := rapid.SampledFrom(w.types).Draw(t, "text_model_type")
	text := w.draw(t, textType)
	vision := drawVision(t, wrapper, text["hidden_size"])
	if wrapper == "qwen2_5_vl" && rapid.Bool().Draw(t, "qwen2_5_vl_flat") {
		text["model_type"] = wrapper
		text["vision_config"] = vision
		return text
	}
	c := map[string]any{"model_type": wrapper, "text_config": text, "torch_dtype": text["torch_dtype"]}
	if vision != nil {
		c["vision_config"] = vision
	}
	if q, ok := text["quantization_config"]; ok && rapid.IntRange(0, 3).Draw(t, "quant_in_text") > 0 {
		delete(text, "quantization_config")
		c["quantization_config"] = q
	}
	if rapid.IntRange(0, 3).Draw(t, "text_inherits_dtype") == 0 {
		delete(text, "torch_dtype")
	}
	if textType == w.types[0] && wrapper != "qwen2_5_vl" && rapid.IntRange(0, 3).Draw(t, "text_model_type_left_out") == 0 {
		delete(text, "model_type") // the wrapper's own text model
	}
	switch wrapper {
	case "gemma3":
		c["mm_tokens_per_image"] = rapid.SampledFrom([]uint64{64, 256}).Draw(t, "mm_tokens")
	case "mistral3":
		c["spatial_merge_size"] = 2
		c["multimodal_projector_bias"] = rapid.Bool().Draw(t, "projector_bias")
		if layers := vision["num_hidden_layers"].(uint64); rapid.Bool().Draw(t, "feature_layer") {
			// llava.py get_layer_index: -k builds the tower's layers up to
			// the k-th from the end.
			c["vision_feature_layer"] = -rapid.Int64Range(1, int64(layers)).Draw(t, "vision_feature_layer")
		}
	}
	return c
}

// drawVision draws the wrapper's vision tower, nil for a wrapper whose
// tower the model does not count (or a Qwen3-VL-style text-only
// checkpoint); its output is the text model's hidden size.
func drawVision(t *rapid.T, wrapper string, hidden any) map[string]any {
	heads := rapid.SampledFrom([]uint64{1, 2, 4, 8, 16}).Draw(t, "vision_heads")
	vh := heads * 16 * rapid.Uint64Range(1, 6).Draw(t, "vision_head_x16")
	vinter := 16 * rapid.Uint64Range(1, 256).Draw(t, "vision_inter_x16")
	vlayers := rapid.Uint64Range(1, 32).Draw(t, "vision_layers")
	patch := rapid.SampledFrom([]uint64{14, 16}).Draw(t, "patch")
	switch wrapper {
	case "gemma3":
		// SigLIP: any divisor of the width's 16ths as heads.
		vh := 16 * rapid.Uint64Range(1, 72).Draw(t, "siglip_hidden_x16")
		return map[string]any{"hidden_size": vh, "intermediate_size": 16 * rapid.Uint64Range(1, 300).Draw(t, "siglip_inter_x16"),
			"num_hidden_layers": rapid.Uint64Range(1, 27).Draw(t, "siglip_layers"), "num_attention_heads": rapid.SampledFrom(divisors(vh/16)).Draw(t, "siglip_heads"),
			"patch_size": patch, "image_size": patch * rapid.Uint64Range(1, 64).Draw(t, "patches_side")}
	case "qwen3_vl", "qwen3_5", "qwen3_5_moe", "qwen3_vl_moe":
		if rapid.IntRange(0, 5).Draw(t, "text_only") == 0 {
			return nil
		}
		fallthrough
	case "qwen2_5_vl":
		v := map[string]any{"depth": vlayers, "hidden_size": vh, "intermediate_size": vinter, "num_heads": heads,
			"in_channels": 3, "out_hidden_size": hidden, "patch_size": patch, "spatial_merge_size": 2, "temporal_patch_size": 2}
		if wrapper != "qwen2_5_vl" {
			v["num_position_embeddings"] = rapid.SampledFrom([]uint64{576, 2304}).Draw(t, "vision_positions")
			v["deepstack_visual_indexes"] = []uint64{0}[:rapid.IntRange(0, 1).Draw(t, "deepstack")]
		}
		return v
	case "mistral3":
		return map[string]any{"hidden_size": vh, "intermediate_size": vinter, "num_hidden_layers": vlayers, "num_attention_heads": heads,
			"patch_size": patch, "image_size": patch * rapid.Uint64Range(1, 110).Draw(t, "patches_side"), "num_channels": 3}
	case "llama4":
		return map[string]any{"hidden_size": vh, "intermediate_size": 4 * vh, "num_hidden_layers": vlayers, "num_attention_heads": heads,
			"patch_size": patch, "image_size": patch * rapid.Uint64Range(1, 24).Draw(t, "patches_side"), "num_channels": 3,
			"vision_output_dim": 16 * rapid.Uint64Range(1, 256).Draw(t, "vision_out_x16"), "projector_input_dim": 16 * rapid.Uint64Range(1, 256).Draw(t, "proj_in_x16"),
			"projector_output_dim": 16 * rapid.Uint64Range(1, 256).Draw(t, "proj_out_x16"), "pixel_shuffle_ratio": 0.5}
	case "kimi_k25":
		if rapid.Bool().Draw(t, "moonvit_class_tower") {
			return nil // KimiK25Config builds KimiK25VisionConfig's own
		}
		merge := rapid.Uint64Range(1, 2).Draw(t, "moonvit_merge")
		v := map[string]any{"hidden_size": vh, "intermediate_size": vinter, "num_hidden_layers": vlayers, "num_attention_heads": heads,
			"patch_size": patch, "init_pos_emb_height": rapid.Uint64Range(1, 64).Draw(t, "moonvit_pos_h"),
			"init_pos_emb_width": rapid.Uint64Range(1, 64).Draw(t, "moonvit_pos_w"), "init_pos_emb_time": rapid.Uint64Range(1, 4).Draw(t, "moonvit_time"),
			"merge_kernel_size": []uint64{merge, merge}, "mm_hidden_size": rapid.SampledFrom([]any{vh, hidden}).Draw(t, "mm_hidden_size")}
		if rapid.Bool().Draw(t, "moonvit_vt_keys") {
			// The published config's spelling, kept beside the keys vLLM
			// builds from.
			v["vt_hidden_size"], v["vt_num_attention_heads"] = vh, heads
		}
		return v
	}
	return nil // gemma4
}
