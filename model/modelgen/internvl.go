package modelgen

import "pgregory.net/rapid"

// internVL draws model_type internvl_chat: a Qwen2, Llama or Qwen3
// language model under llm_config, an InternViT-300M-style tower (layer
// norms, qkv biased or not) built to select_layer, and mlp1 over 1, 4 or
// 16 patches side by side (downsample_ratio 1, 0.5, 0.25). The
// quantization config is at the top.
var internVL = family{types: []string{"internvl_chat"}, draw: drawInternVL}

// internVLText are the language models an InternVL wrapper holds and
// their generators.
var internVLText = map[string]func(t *rapid.T, modelType string) map[string]any{
	"qwen2": drawQwen2, "llama": drawLlama, "qwen3": drawQwen3,
}

func drawInternVL(t *rapid.T, modelType string) map[string]any {
	textType := rapid.SampledFrom([]string{"qwen2", "llama", "qwen3"}).Draw(t, "text_model_type")
	text := internVLText[textType](t, textType)
	heads := rapid.SampledFrom([]uint64{1, 2, 4, 8, 16}).Draw(t, "vit_heads")
	patch := rapid.SampledFrom([]uint64{14, 16}).Draw(t, "vit_patch")
	layers := rapid.Uint64Range(1, 32).Draw(t, "vit_layers")
	vision := map[string]any{
		"hidden_size": heads * 16 * rapid.Uint64Range(1, 6).Draw(t, "vit_head_x16"), "intermediate_size": 16 * rapid.Uint64Range(1, 256).Draw(t, "vit_inter_x16"),
		"num_hidden_layers": layers, "num_attention_heads": heads, "patch_size": patch, "image_size": patch * rapid.Uint64Range(1, 32).Draw(t, "vit_patches_side"),
		"qkv_bias": rapid.Bool().Draw(t, "qkv_bias"), "norm_type": "layer_norm", "qk_normalization": false, "use_moe": false, "model_type": "intern_vit_6b",
	}
	// internvl.py:628-634: -k builds layers + 1 - k layers, k >= 0 builds
	// k + 1.
	sel := -rapid.Int64Range(1, int64(layers)).Draw(t, "select_layer_from_end")
	if rapid.Bool().Draw(t, "select_layer_positive") {
		sel = rapid.Int64Range(0, int64(layers)-1).Draw(t, "select_layer")
	}
	c := map[string]any{"model_type": modelType, "llm_config": text, "vision_config": vision, "torch_dtype": text["torch_dtype"],
		"select_layer": sel, "downsample_ratio": rapid.SampledFrom([]float64{0.5, 0.25, 1}).Draw(t, "downsample_ratio")}
	if q, ok := text["quantization_config"]; ok {
		delete(text, "quantization_config")
		c["quantization_config"] = q
	}
	if rapid.IntRange(0, 3).Draw(t, "text_inherits_dtype") == 0 {
		delete(text, "torch_dtype")
	}
	return c
}
