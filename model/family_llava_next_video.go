package model

func init() {
	registerMultimodal("llava_next_video", readLlavaNextVideo,
		ckptFamily(llavaRename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, clipTower, llavaNextVideoProjector).
			skipping(clipSkips...).skipping([2]string{"image_newline", skipVideoNewline}))
	registerVisionTower("llava_next_video", (*weights).llavaNextVideo)
	registerArchitectures("llava_next_video", "LlavaNextVideoForConditionalGeneration")
	declareClass("llava_next_video", llavaNextVideoClass)
}

// llavaNextVideoClass is transformers LlavaNextVideoConfig, read at
// huggingface/transformers@0ff79f4073
// (src/transformers/models/llava_next_video/configuration_llava_next_video.py):
// as LlavaNextConfig, a text_config without a model_type is LlamaConfig's
// and a vision_config without one CLIPVisionConfig's; vision_feature_layer
// -2 and a biased projector.
var llavaNextVideoClass = configClass{
	Name:   "LlavaNextVideoConfig",
	Source: "src/transformers/models/llava_next_video/configuration_llava_next_video.py@0ff79f4073",
	Defaults: []classDefault{
		{"vision_feature_layer", "-2"}, {"multimodal_projector_bias", "true"},
	},
	Nested: map[string]string{"text_config": "llama", "vision_config": "clip_vision_model"},
}

// skipVideoNewline: llava_next_video.py:476-480 loads with
// ignore_unexpected_prefixes=["image_newline"]: the model serves videos
// only and builds no image_newline, which the checkpoints hold.
const skipVideoNewline = "LLaVA-NeXT-Video's image_newline, which vLLM does not build (videos only)"

// readLlavaNextVideo reads LlavaNextVideoForConditionalGeneration
// (vllm/model_executor/models/llava_next_video.py at d18bb7b): LLaVA's
// text model and tower built to the deepest vision_feature_layer
// (init_vision_tower_for_llava, :351-356), a pooler without weights
// (:242-275), and a projector of two plain nn.Linear from the tower's
// width (:277-293, 358-364), which neither divide among the ranks nor take
// the quantization config. Every published checkpoint holds a CLIP tower;
// a SigLIP or Pixtral one, which vLLM would also build, is refused by name.
func readLlavaNextVideo(o jsonObject, a *Arch) jsonObject {
	if v, ok := o.object("vision_config"); ok {
		if named := v.str("model_type"); named != "" && named != "clip_vision_model" {
			v.fail("model_type", "%q: only a CLIP (clip_vision_model) tower, the one every published checkpoint holds, is sized under %s", named, a.ModelType)
			return o
		}
	}
	text := readLlavaLike(o, a, "llama", false)
	if len(*o.errs) > 0 || a.Vision == nil {
		return text
	}
	a.Vision.Kind = "llava_next_video"
	a.Vision.ProjectorIn = a.Vision.Hidden
	a.Vision.TokensPerImage = 0 // its processor counts an item otherwise
	return text
}

// llavaNextVideo adds LLaVA-NeXT-Video's CLIP tower (clipEncoder) and its
// projector's linear_1 and linear_2, whole on every rank and unquantized
// (nn.Linear, llava_next_video.py:277-293).
func (w *weights) llavaNextVideo(v *VisionTower) {
	w.clipEncoder(v)
	w.towerLinear("multi_modal_projector.linear_1", v.ProjectorIn, v.OutHidden, replicated, v.ProjectorBias, false)
	w.towerLinear("multi_modal_projector.linear_2", v.OutHidden, v.OutHidden, replicated, v.ProjectorBias, false)
}

// llavaNextVideoProjector: LlavaNextMultiModalProjector's two nn.Linear
// layers of llava_next_video.py, whole on every rank.
var llavaNextVideoProjector = onVisionTower([]moduleRule{
	{module: "multi_modal_projector.linear_1"},
	{module: "multi_modal_projector.linear_2"},
})
