package model

func init() {
	registerMultimodal("llava_next", readLlavaNext,
		ckptFamily(llavaRename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, clipTower, llavaPixtralTower, llavaProjector).skipping(clipSkips...))
	registerArchitectures("llava_next", "LlavaNextForConditionalGeneration")
	declareClass("llava_next", llavaNextClass)
}

// llavaNextClass is transformers LlavaNextConfig, read at
// huggingface/transformers@28873fde8c
// (src/transformers/models/llava_next/configuration_llava_next.py): as
// LlavaConfig, a text_config without a model_type is LlamaConfig's and a
// vision_config without one CLIPVisionConfig's; vision_feature_layer -2
// and a biased projector.
var llavaNextClass = configClass{
	Name:   "LlavaNextConfig",
	Source: "src/transformers/models/llava_next/configuration_llava_next.py@28873fde8c",
	Defaults: []classDefault{
		{"vision_feature_layer", "-2"}, {"multimodal_projector_bias", "true"},
		// vision_feature_select_strategy and image_grid_pinpoints: the
		// class's defaults (read at 063b32f679).
		{"vision_feature_select_strategy", `"default"`},
		{"image_grid_pinpoints", "[[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]]"},
	},
	Nested: map[string]string{"text_config": "llama", "vision_config": "clip_vision_model"},
}

// readLlavaNext reads LlavaNextForConditionalGeneration
// (vllm/model_executor/models/llava_next.py at d18bb7b): LLaVA's text
// model, CLIP tower and projector (readLlavaLike), the projector's input
// the selected layers' features side by side when vision_feature_layer is
// a list (:251-262), and the image_newline vector (:283-285). Its
// any-resolution tiling changes an image's tokens, not the weights.
func readLlavaNext(o jsonObject, a *Arch) jsonObject {
	return readLlavaLike(o, a, "llama", true)
}
