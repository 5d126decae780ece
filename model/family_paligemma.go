package model

import "slices"

func init() {
	registerMultimodal("paligemma", readPaliGemma,
		ckptFamily(llavaRename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms, gemmaNorms}, clipTower, paliGemmaTop).skipping(
			[2]string{"vision_tower.vision_model.embeddings.position_ids", skipClipPositionIDs},
			[2]string{"vision_tower.vision_model.head.", skipPaliGemmaHead}))
	registerVisionTower("paligemma", (*weights).paliGemma)
	registerArchitectures("paligemma", "PaliGemmaForConditionalGeneration")
	declareClass("paligemma", paliGemmaClass)
}

// paliGemmaClass is transformers PaliGemmaConfig, read at
// huggingface/transformers@2c63e49241
// (src/transformers/models/paligemma/configuration_paligemma.py): a
// text_config without a model_type is GemmaConfig's and a vision_config
// without one SiglipVisionConfig's; projection_dim 2048, which the class
// writes into vision_config.projection_dim whatever the vision_config says.
var paliGemmaClass = configClass{
	Name:     "PaliGemmaConfig",
	Source:   "src/transformers/models/paligemma/configuration_paligemma.py@2c63e49241",
	Defaults: []classDefault{{"projection_dim", "2048"}},
	Nested:   map[string]string{"text_config": "gemma", "vision_config": "siglip_vision_model"},
}

// skipPaliGemmaHead: paligemma.py:296-300 builds SiglipVisionModel with
// use_head left False (siglip.py:680-700, 798-805).
const skipPaliGemmaHead = "SigLIP's pooling head, which PaliGemma does not build"

// paliGemmaTextTypes are the text models PaliGemma builds: Gemma for a
// text_config of model_type gemma, Gemma 2 for any other
// (paligemma.py:306-309); membudget reads Gemma 2 only where the config
// says gemma2.
var paliGemmaTextTypes = []string{"gemma", "gemma2"}

// readPaliGemma reads PaliGemmaForConditionalGeneration
// (vllm/model_executor/models/paligemma.py at d18bb7b): the Gemma or
// Gemma 2 language model of text_config, the whole SigLIP tower of
// vision_config with its post_layernorm and no pooling head
// (SiglipVisionModel, :296-300; siglip.py:700-712 builds post_layernorm
// when every layer is), and one biased nn.Linear from the tower's width to
// projection_dim (:88-97, 301-304), whole on every rank and unquantized.
// The projector's output is the image tokens' embedding, so projection_dim
// must be the text model's width.
func readPaliGemma(o jsonObject, a *Arch) jsonObject {
	if text, ok := o.object("text_config"); ok {
		if named := text.str("model_type"); named != "" && !slices.Contains(paliGemmaTextTypes, named) {
			text.fail("model_type", "%q is not a text model membudget sizes under paligemma (sized: %v; vLLM builds any other as Gemma 2, paligemma.py:306-309)", named, paliGemmaTextTypes)
			return text
		}
	}
	text := wrapper("gemma", nil)(o, a)
	if len(*o.errs) > 0 {
		return text
	}
	if o.has("torch_dtype") || o.has("dtype") {
		// vLLM serves the root's dtype before the text model's
		// (transformers_utils/model_arch_config_convertor.py:228-234).
		a.Dtype = readDtype(o)
	}
	a.tree.rename = llavaRename
	v, ok := o.object("vision_config")
	if !ok {
		o.fail("vision_config", "missing (required for model_type paligemma)")
		return text
	}
	if named := v.str("model_type"); named != "" && named != "siglip_vision_model" {
		v.fail("model_type", "%q: PaliGemma builds a SigLIP tower (siglip_vision_model)", named)
		return text
	}
	proj := o.uint("projection_dim")
	if proj != a.Hidden && len(*o.errs) == 0 {
		o.fail("projection_dim", "%d is not the text model's hidden_size %d: the projected image tokens would not fit its embedding", proj, a.Hidden)
		return text
	}
	hidden := v.uint("hidden_size")
	a.Vision = &VisionTower{
		Kind:          "paligemma",
		Hidden:        hidden,
		Intermediate:  v.uint("intermediate_size"),
		Layers:        v.uint("num_hidden_layers"),
		Heads:         v.uint("num_attention_heads"),
		PatchSize:     v.uint("patch_size"),
		ImageSize:     v.uint("image_size"),
		Channels:      v.uintOr("num_channels", 3),
		OutHidden:     proj,
		ProjectorIn:   hidden,
		ProjectorBias: true,
		ConfigLayers:  v.uint("num_hidden_layers"),
		ConfigHidden:  hidden,
	}
	side := a.Vision.ImageSize / max(a.Vision.PatchSize, 1)
	a.Vision.TokensPerImage = side * side
	return text
}

// paliGemma adds PaliGemma's SigLIP tower (siglipEncoder, every layer),
// its post_layernorm and the projector's one biased nn.Linear, whole and
// unquantized (paligemma.py:88-97).
func (w *weights) paliGemma(v *VisionTower) {
	w.siglipEncoder(v)
	w.layerNorm("vision_tower.vision_model.post_layernorm", v.Hidden)
	w.towerLinear("multi_modal_projector.linear", v.ProjectorIn, v.OutHidden, replicated, true, false)
}

// paliGemmaTop: the tower's post_layernorm and PaliGemmaMultiModalProjector's
// nn.Linear, whole on every rank.
var paliGemmaTop = onVisionTower([]moduleRule{
	{module: "vision_tower.vision_model.post_layernorm"},
	{module: "multi_modal_projector.linear"},
})
