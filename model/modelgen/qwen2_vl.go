package modelgen

import "pgregory.net/rapid"

// qwen2VL draws model_type qwen2_vl: a Qwen2 language model at the top
// (as transformers 4.4x saves it) or under text_config, and Qwen2-VL's
// tower of embed_dim with an MLP of mlp_ratio (an integer or not) merged
// into the language model's width.
var qwen2VL = family{types: []string{"qwen2_vl"}, draw: drawQwen2VL}

func drawQwen2VL(t *rapid.T, modelType string) map[string]any {
	text := drawQwen2(t, "qwen2")
	heads := rapid.SampledFrom([]uint64{1, 2, 4, 8, 16}).Draw(t, "vision_heads")
	vision := map[string]any{
		"depth": rapid.Uint64Range(1, 32).Draw(t, "vision_depth"), "embed_dim": heads * 16 * rapid.Uint64Range(1, 6).Draw(t, "vision_head_x16"),
		"num_heads": heads, "hidden_size": text["hidden_size"], "patch_size": rapid.SampledFrom([]uint64{14, 16}).Draw(t, "patch"),
		"mlp_ratio": rapid.SampledFrom([]any{4, 2, 2.5, 4.0}).Draw(t, "mlp_ratio"), "spatial_merge_size": 2, "temporal_patch_size": 2, "in_chans": 3,
	}
	if rapid.Bool().Draw(t, "qwen2_vl_flat") {
		text["model_type"] = modelType
		text["vision_config"] = vision
		return text
	}
	c := map[string]any{"model_type": modelType, "text_config": text, "vision_config": vision, "torch_dtype": text["torch_dtype"]}
	if q, ok := text["quantization_config"]; ok && rapid.IntRange(0, 3).Draw(t, "quant_in_text") > 0 {
		delete(text, "quantization_config")
		c["quantization_config"] = q
	}
	return c
}
