package model

func init() {
	registerMultimodal("llava_onevision", readLlavaOnevision,
		ckptFamily(llavaRename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, clipTower, llavaOnevisionProjector).skipping(clipSkips...))
	registerVisionTower("llava_onevision", (*weights).llavaOnevision)
	registerArchitectures("llava_onevision", "LlavaOnevisionForConditionalGeneration")
	declareClass("llava_onevision", llavaOnevisionClass)
}

// llavaOnevisionClass is transformers LlavaOnevisionConfig as the
// @strict dataclass of transformers 5 declares it
// (src/transformers/models/llava_onevision/configuration_llava_onevision.py;
// the earlier __init__ form, read at @44b004582d, lacks
// multimodal_projector_bias and gives the same other defaults): a
// text_config without a model_type is Qwen2Config's and a vision_config
// without one SiglipVisionConfig's; vision_feature_layer -1, a biased
// projector, untied.
var llavaOnevisionClass = configClass{
	Name:   "LlavaOnevisionConfig",
	Source: "src/transformers/models/llava_onevision/configuration_llava_onevision.py (transformers 5, @strict)",
	Defaults: []classDefault{
		{"vision_feature_layer", "-1"}, {"multimodal_projector_bias", "true"},
	},
	Nested: map[string]string{"text_config": "qwen2", "vision_config": "siglip_vision_model"},
}

// readLlavaOnevision reads LlavaOnevisionForConditionalGeneration
// (vllm/model_executor/models/llava_onevision.py at d18bb7b): LLaVA's
// text model and tower, built to the deepest vision_feature_layer
// (init_vision_tower_for_llava, :513-518), an image_newline of the text
// model's width (:519-521), and a projector of two plain nn.Linear layers
// (:453-466), which neither divide among the ranks nor take the
// quantization config. Its tower takes the last built layer's output
// whatever the list (:610-620), so linear_1's input is the tower's width.
// Every published checkpoint holds a SigLIP tower (the conversion script,
// convert_llava_onevision_weights_to_hf.py, builds SigLIP-so400m); a CLIP
// or Pixtral one, which vLLM would also build, is refused by name.
func readLlavaOnevision(o jsonObject, a *Arch) jsonObject {
	if v, ok := o.object("vision_config"); ok {
		if named := v.str("model_type"); named != "" && named != "siglip_vision_model" {
			v.fail("model_type", "%q: only a SigLIP (siglip_vision_model) tower, the one every published checkpoint holds, is sized under %s", named, a.ModelType)
			return o
		}
	}
	text := readLlavaLike(o, a, "qwen2", true)
	if len(*o.errs) > 0 || a.Vision == nil {
		return text
	}
	a.Vision.Kind = "llava_onevision"
	a.Vision.ProjectorIn = a.Vision.Hidden
	a.Vision.TokensPerImage = 0 // its processor counts an item otherwise
	return text
}

// llavaOnevision adds LLaVA-OneVision's SigLIP tower (siglipEncoder),
// image_newline and projector: linear_1 (tower width to the text model's)
// and linear_2, whole on every rank and unquantized (nn.Linear,
// llava_onevision.py:453-466).
func (w *weights) llavaOnevision(v *VisionTower) {
	w.siglipEncoder(v)
	w.add("image_newline", bytesOf(v.OutHidden, w.dt))
	w.towerLinear("multi_modal_projector.linear_1", v.ProjectorIn, v.OutHidden, replicated, v.ProjectorBias, false)
	w.towerLinear("multi_modal_projector.linear_2", v.OutHidden, v.OutHidden, replicated, v.ProjectorBias, false)
}

// llavaOnevisionProjector: LlavaOnevisionMultiModalProjector's two
// nn.Linear layers and image_newline, whole on every rank
// (llava_onevision.py:453-466, 519-522).
var llavaOnevisionProjector = onVisionTower([]moduleRule{
	{module: "multi_modal_projector.linear_1"},
	{module: "multi_modal_projector.linear_2"},
	{module: "image_newline"},
})
