package model

func init() {
	ckpt := ckptFamily(idefics3Rename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, idefics3Tower)
	registerMultimodal("idefics3", readIdefics3, ckpt)
	registerMultimodal("smolvlm", readIdefics3, ckpt)
	registerVisionTower("idefics3", (*weights).idefics3Vision)
	registerArchitectures("idefics3", "Idefics3ForConditionalGeneration")
	registerArchitectures("smolvlm", "SmolVLMForConditionalGeneration")
	declareClass("idefics3", idefics3Class("Idefics3Config", "idefics3_vision", idefics3Source))
	declareClass("smolvlm", idefics3Class("SmolVLMConfig", "smolvlm_vision", smolVLMSource))
	declareClass("idefics3_vision", idefics3VisionClass("Idefics3VisionConfig", idefics3Source))
	declareClass("smolvlm_vision", idefics3VisionClass("SmolVLMVisionConfig", smolVLMSource))
}

// The transformers files of Idefics3's and SmolVLM's configs, whose
// classes give the same defaults (SmolVLM's is Idefics3's, renamed).
const (
	idefics3Source = "src/transformers/models/idefics3/configuration_idefics3.py@0025a6f508"
	smolVLMSource  = "src/transformers/models/smolvlm/configuration_smolvlm.py@9a3f708195"
)

// idefics3Class is Idefics3Config or SmolVLMConfig: scale_factor 2, a
// text_config without a model_type LlamaConfig's, the vision_config always
// the class's own vision config.
func idefics3Class(name, vision, source string) configClass {
	return configClass{
		Name:     name,
		Source:   source,
		Defaults: []classDefault{{"scale_factor", "2"}},
		Nested:   map[string]string{"text_config": "llama", "vision_config": vision},
	}
}

// idefics3VisionClass is Idefics3VisionConfig or SmolVLMVisionConfig:
// SigLIP-base's shape, 1152 wide (google/siglip-base-patch16-224, as its
// docstring says).
func idefics3VisionClass(name, source string) configClass {
	return configClass{
		Name:   name,
		Source: source,
		Defaults: []classDefault{
			{"hidden_size", "1152"}, {"intermediate_size", "3072"}, {"num_hidden_layers", "12"},
			{"num_attention_heads", "16"}, {"num_channels", "3"}, {"image_size", "224"}, {"patch_size", "32"},
		},
	}
}

// readIdefics3 reads Idefics3ForConditionalGeneration and its subclass
// SmolVLMForConditionalGeneration (vllm/model_executor/models/idefics3.py
// and smolvlm.py at d18bb7b): a LlamaModel of text_config whatever its
// model_type (idefics3.py:419-422; membudget reads only a llama one), an
// lm_head tied when text_config says so (:535-542), the whole
// Idefics2VisionTransformer of vision_config with its post_layernorm
// (idefics2_vision_model.py:355-402), and the connector's one ReplicatedLinear
// without bias from scale_factor^2 pixel-shuffled patches to the text
// width (idefics3.py:340-397), whole on every rank and quantized with the
// model.
func readIdefics3(o jsonObject, a *Arch) jsonObject {
	if text, ok := o.object("text_config"); ok {
		if named := text.str("model_type"); named != "" && named != "llama" {
			text.fail("model_type", "%q: vLLM builds %s's language model as LlamaModel whatever text_config names (idefics3.py:419-422); membudget sizes only a llama one", named, a.ModelType)
			return text
		}
	}
	text := wrapper("llama", nil)(o, a)
	if len(*o.errs) > 0 {
		return text
	}
	if o.has("torch_dtype") || o.has("dtype") {
		// vLLM serves the root's dtype before the text model's
		// (transformers_utils/model_arch_config_convertor.py:228-234).
		a.Dtype = readDtype(o)
	}
	a.tree.rename = idefics3Rename
	v, ok := o.object("vision_config")
	if !ok {
		o.fail("vision_config", "missing (required for model_type %s)", a.ModelType)
		return text
	}
	scale := o.uint("scale_factor")
	hidden := v.uint("hidden_size")
	a.Vision = &VisionTower{
		Kind:         "idefics3",
		Hidden:       hidden,
		Intermediate: v.uint("intermediate_size"),
		Layers:       v.uint("num_hidden_layers"),
		Heads:        v.uint("num_attention_heads"),
		PatchSize:    v.uint("patch_size"),
		ImageSize:    v.uint("image_size"),
		Channels:     v.uintOr("num_channels", 3),
		SpatialMerge: scale,
		OutHidden:    a.Hidden,
		ConfigLayers: v.uint("num_hidden_layers"),
		ConfigHidden: hidden,
	}
	if len(*o.errs) == 0 {
		if side := a.Vision.ImageSize / max(a.Vision.PatchSize, 1); scale == 0 || side%scale != 0 {
			// The pixel shuffle folds a side of patches by scale_factor
			// (idefics3.py:378-392).
			o.fail("scale_factor", "%d does not divide the tower's %d patches a side (image_size %d / patch_size %d)", scale, side, a.Vision.ImageSize, a.Vision.PatchSize)
		}
	}
	return text
}

// idefics3Vision adds Idefics3's tower and connector: a biased Conv2d
// patch embedding, a learned table of (image/patch)^2 positions and no
// position_ids buffer (idefics2_vision_model.py:47-76), every encoder
// layer (fused qkv_proj and out_proj, fc1 and fc2, all biased and
// quantized with the model; two LayerNorms), post_layernorm, and the
// connector's proj, hidden x scale_factor^2 to the text width, without
// bias, whole on every rank (ReplicatedLinear) and quantized.
func (w *weights) idefics3Vision(v *VisionTower) {
	p := "model.vision_model."
	h := v.Hidden
	w.idefics2Encoder(p, v, true, true)
	w.layerNorm(p+"post_layernorm", h)
	w.towerLinear("model.connector.modality_projection.proj", h*v.SpatialMerge*v.SpatialMerge, v.OutHidden, replicated, false, true)
}

var (
	// idefics3Tower: Idefics3's tower in the checkpoint's names
	// (transformers modeling_idefics3.py; loaded without a mapper,
	// idefics3.py:623-625): q, k and v fused column-parallel into
	// qkv_proj, out_proj and fc2 row-parallel, fc1 column-parallel; the
	// connector's proj whole.
	idefics3Tower = onVisionTower(under("model.vision_model.", []moduleRule{
		{module: "embeddings.patch_embedding"},
		{module: "embeddings.position_embedding"},
	}, under("encoder.layers.*.", clipLayer), []moduleRule{
		{module: "post_layernorm"},
	}), []moduleRule{
		{module: "model.connector.modality_projection.proj"},
	})
	// idefics3Rename: the language model under model.text_model.
	// (Idefics3Model.text_model, idefics3.py:419-422).
	idefics3Rename = [][2]string{{"model.text_model.", "model."}}
)
