package model

import (
	"encoding/json"
	"slices"

	"membudget/budget"
)

func init() {
	registerMultimodal("llava", readLlava,
		ckptFamily(llavaRename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, clipTower, llavaPixtralTower, llavaProjector).skipping(clipSkips...))
	registerVisionTower("clip", (*weights).clip)
	registerVisionTower("llava_pixtral", (*weights).llavaPixtral)
	registerVisionTower("llava_siglip", (*weights).llavaSiglip)
	registerArchitectures("llava", "LlavaForConditionalGeneration")
	declareClass("llava", llavaClass)
	declareClass("clip_vision_model", clipVisionClass)
}

// The classes of LLaVA's configs. transformers LlavaConfig (read at
// huggingface/transformers@053f59efe4,
// src/transformers/models/llava/configuration_llava.py) reads a text_config
// without a model_type as LlamaConfig's and a vision_config without one as
// CLIPVisionConfig's, and gives vision_feature_layer -2 and a biased
// projector. CLIPVisionConfig is read at @b5af059ac6
// (src/transformers/models/clip/configuration_clip.py): ViT-B/32's shape.
var (
	llavaClass = configClass{
		Name:   "LlavaConfig",
		Source: "src/transformers/models/llava/configuration_llava.py@053f59efe4",
		Defaults: []classDefault{
			{"vision_feature_layer", "-2"}, {"multimodal_projector_bias", "true"},
			{"vision_feature_select_strategy", `"default"`},
		},
		Nested: map[string]string{"text_config": "llama", "vision_config": "clip_vision_model"},
	}
	clipVisionClass = configClass{
		Name:   "CLIPVisionConfig",
		Source: "src/transformers/models/clip/configuration_clip.py@b5af059ac6",
		Defaults: []classDefault{
			{"hidden_size", "768"}, {"intermediate_size", "3072"}, {"num_hidden_layers", "12"},
			{"num_attention_heads", "12"}, {"num_channels", "3"}, {"image_size", "224"}, {"patch_size", "32"},
		},
	}
)

// llavaTextTypes are the text models a LLaVA wrapper is read with: those
// whose checkpoints follow Llama's layer names, which the wrapper's
// checkpoint rules are (llava-1.5 on Llama 2, BakLLaVA on Mistral,
// llava-interleave on Qwen2). vLLM builds any text model it knows
// (init_vllm_registered_model); another is refused by name.
var llavaTextTypes = []string{"llama", "mistral", "qwen2"}

// readLlava reads LlavaForConditionalGeneration
// (vllm/model_executor/models/llava.py at d18bb7b): the language model of
// text_config and the CLIP tower and two-layer projector of vision_config.
func readLlava(o jsonObject, a *Arch) jsonObject {
	return readLlavaLike(o, a, "llama", false)
}

// readLlavaLike reads LLaVA and LLaVA-NeXT, which differ in the projector's
// input width under a list of feature layers and in LLaVA-NeXT's
// image_newline (llava_next.py:251-292); textType is the text model of a
// text_config that names none (the wrapper class's default).
func readLlavaLike(o jsonObject, a *Arch, textType string, next bool) jsonObject {
	if text, ok := o.object("text_config"); ok {
		if named := text.str("model_type"); named != "" && !slices.Contains(llavaTextTypes, named) {
			text.fail("model_type", "%q is not a text model membudget sizes under %s (sized: %v)", named, a.ModelType, llavaTextTypes)
			return text
		}
	}
	text := wrapper(textType, nil)(o, a)
	if len(*o.errs) > 0 {
		return text
	}
	if o.has("torch_dtype") || o.has("dtype") {
		// vLLM serves the root's dtype before the text model's
		// (transformers_utils/model_arch_config_convertor.py:228-234):
		// llava-v1.6-mistral-7b-hf's root says float16, its text_config
		// bfloat16.
		a.Dtype = readDtype(o)
	}
	a.tree.rename = llavaRename
	v, ok := o.object("vision_config")
	if !ok {
		o.fail("vision_config", "missing (required for model_type %s)", a.ModelType)
		return text
	}
	kind := "clip"
	switch named := v.str("model_type"); named {
	case "", "clip_vision_model":
	case "siglip_vision_model":
		kind = "llava_siglip"
	case "pixtral":
		// mistral-community/pixtral-12b: LLaVA around Pixtral's tower
		// (llava.py:482-489, PixtralHFVisionModel).
		kind = "llava_pixtral"
	default:
		v.fail("model_type", "%q: only a CLIP (clip_vision_model), SigLIP (siglip_vision_model) or Pixtral (pixtral) tower is sized under %s", named, a.ModelType)
		return text
	}
	layers := v.uint("num_hidden_layers")
	built, features := llavaFeatureLayers(o, layers)
	hidden := v.uint("hidden_size")
	projIn := hidden
	if next && features > 1 {
		// llava_next.py:256-262: the selected layers are concatenated.
		projIn = budget.SatMul(hidden, features)
	}
	a.Vision = &VisionTower{
		Kind:          kind,
		Hidden:        hidden,
		Intermediate:  v.uint("intermediate_size"),
		Layers:        built,
		Heads:         v.uint("num_attention_heads"),
		PatchSize:     v.uint("patch_size"),
		ImageSize:     v.uint("image_size"),
		Channels:      v.uintOr("num_channels", 3),
		OutHidden:     a.Hidden,
		ProjectorIn:   projIn,
		ProjectorBias: o.boolOr("multimodal_projector_bias", true),
		ImageNewline:  next,
		ConfigLayers:  v.uint("num_hidden_layers"),
		ConfigHidden:  hidden,
	}
	a.Vision.TokensPerImage = llavaImageTokens(a.Vision, o.str("vision_feature_select_strategy"))
	if next {
		var pins [][]uint64
		if json.Unmarshal(o.m["image_grid_pinpoints"], &pins) != nil {
			pins = nil
		}
		a.Vision.TokensPerImage = llavaNextImageTokens(a.Vision, a.Vision.TokensPerImage, pins)
	}
	return text
}

// llavaNextImageTokens is the embeddings of LLaVA-NeXT's largest image
// (llava_next.py:116-214 at d18bb7b): of each pinpoint (height, width), an
// image of that size is tiled into (height / image_size) x (width /
// image_size) tiles of image_size / patch_size patches a side, which
// unpad to the whole grid (the image fills its pinpoint), one newline a
// row of patches, and the base image's tokens; the most of them. 0 where
// a pinpoint is not a whole number of tiles (the unpadding's rounding is
// not modelled) or base is 0.
func llavaNextImageTokens(v *VisionTower, base uint64, pins [][]uint64) uint64 {
	tile := v.ImageSize
	if base == 0 || tile == 0 || len(pins) == 0 {
		return 0
	}
	side := tile / v.PatchSize
	var most uint64
	for _, p := range pins {
		if len(p) != 2 || p[0] == 0 || p[1] == 0 || p[0] > 1<<14 || p[1] > 1<<14 || p[0]%tile != 0 || p[1]%tile != 0 {
			return 0
		}
		h, w := side*(p[0]/tile), side*(p[1]/tile)
		most = max(most, h*w+h+base)
	}
	return most
}

// llavaImageTokens is the embeddings one image becomes under LLaVA's
// CLIP or SigLIP tower (llava.py:186-213 at d18bb7b: the encoder's tokens
// of an image_size square, (image_size / patch_size)^2 and CLIP's class
// token (clip.py:83-100, siglip.py:261-277), less the first under the
// "default" strategy, all under "full", vision.py:191-209); 0 where
// another tower or strategy decides it (Pixtral's tower counts rows and
// breaks; "class" or a callable).
func llavaImageTokens(v *VisionTower, strategy string) uint64 {
	if v.Kind != "clip" && v.Kind != "llava_siglip" || v.PatchSize == 0 {
		return 0
	}
	side := v.ImageSize / v.PatchSize
	n := side * side
	if v.Kind == "clip" {
		n++
	}
	switch strategy {
	case "default":
		return n - 1
	case "full":
		return n
	}
	return 0
}

// llavaFeatureLayers reads vision_feature_layer, an index or a list of
// them: the tower layers vLLM builds, up to the deepest selected
// (llava.py _get_num_hidden_layers; utils.py get_layer_index: -k is the
// k-th from the end, counting the embeddings' output), and how many layers
// are selected.
func llavaFeatureLayers(o jsonObject, layers uint64) (built, selected uint64) {
	if !o.has("vision_feature_layer") {
		o.fail("vision_feature_layer", "missing (required)")
		return 0, 0
	}
	raw := o.m["vision_feature_layer"]
	var idx []int64
	var one int64
	if err := json.Unmarshal(raw, &one); err == nil {
		idx = []int64{one}
	} else if err := json.Unmarshal(raw, &idx); err != nil || len(idx) == 0 {
		o.fail("vision_feature_layer", "must be an integer or a non-empty list of integers, got %s", short(raw))
		return 0, 0
	}
	for _, i := range idx {
		n := i
		if i < 0 {
			n = int64(layers) + i + 1
		}
		if n <= 0 || uint64(n) > layers {
			o.fail("vision_feature_layer", "%d selects no layer of the %d vision layers", i, layers)
			return 0, 0
		}
		built = max(built, uint64(n))
	}
	return built, uint64(len(idx))
}

// clip adds a LLaVA CLIP tower and its projector (clip.py:311-500,
// 620-725; llava.py:126-158): the class embedding, a Conv2d patch
// embedding without bias, a learned table of (image/patch)^2 + 1
// positions and its int64 position_ids buffer, pre_layrnorm, the encoder
// layers vLLM builds (fused qkv_proj, out_proj, fc1 and fc2, all biased,
// two LayerNorms), no post_layernorm (LLaVA passes require_post_norm=
// False), LLaVA-NeXT's image_newline, and the projector's linear_1
// (column) and linear_2 (row). vLLM hands the tower and the projector the
// model's quantization config.
func (w *weights) clip(v *VisionTower) {
	w.clipEncoder(v)
	w.llavaProjector(v)
}

// clipEncoder adds a LLaVA-style CLIP tower without its projector (clip).
func (w *weights) clipEncoder(v *VisionTower) {
	p := "vision_tower.vision_model."
	h := v.Hidden
	side := v.ImageSize / v.PatchSize
	positions := budget.SatAdd(budget.SatMul(side, side), 1)
	w.add(p+"embeddings.class_embedding", bytesOf(h, w.dt))
	w.add(p+"embeddings.patch_embedding.weight", bytesOf(budget.SatMul(h*v.Channels, v.PatchSize*v.PatchSize), w.dt))
	w.add(p+"embeddings.position_embedding.weight", bytesOf(budget.SatMul(positions, h), w.dt))
	// torch.arange's int64, 8 bytes a position (clip.py:333-337).
	w.add(p+"embeddings.position_ids", bytesOf(positions, 8))
	w.layerNorm(p+"pre_layrnorm", h)
	w.clipLayers(p, v, true, true)
}

// llavaSiglip adds a LLaVA SigLIP tower (siglipEncoder) and its
// projector (llava.py:126-158).
func (w *weights) llavaSiglip(v *VisionTower) {
	w.siglipEncoder(v)
	w.llavaProjector(v)
}

// siglipEncoder adds a LLaVA-style SigLIP tower (siglip.py:281-520,
// 666-818): a biased Conv2d patch embedding,
// a learned table of (image/patch)^2 positions and its int64 position_ids
// buffer, the encoder layers vLLM builds (fused qkv_proj and out_proj,
// fc1 and fc2, all biased; two LayerNorms), no post_layernorm and no
// pooling head (LLaVA passes require_post_norm=False; use_head defaults
// to False). SigLIP's MLP takes the quantization config only where both
// its widths are multiples of 64, or under bitsandbytes
// (siglip.py:442-450).
func (w *weights) siglipEncoder(v *VisionTower) {
	h := v.Hidden
	quantMLP := h%64 == 0 && v.Intermediate%64 == 0 || w.sh.Quant.Method == "bitsandbytes"
	positions := w.idefics2Encoder("vision_tower.vision_model.", v, true, quantMLP)
	// torch.arange(dtype=torch.int64): 8 bytes a position (siglip.py:300-304).
	w.add("vision_tower.vision_model.embeddings.position_ids", bytesOf(positions, 8))
}

// llavaPixtral adds a LLaVA Pixtral tower (pixtralTower: the layers vLLM
// builds to vision_feature_layer, their 2D rope table) and LLaVA's
// projector, without Mistral 3's patch merger.
func (w *weights) llavaPixtral(v *VisionTower) {
	w.pixtralTower(v)
	w.llavaProjector(v)
}

// llavaProjector adds LLaVA-NeXT's image_newline and the projector's
// linear_1 (column) and linear_2 (row), quantized with the model.
func (w *weights) llavaProjector(v *VisionTower) {
	if v.ImageNewline {
		w.add("image_newline", bytesOf(v.OutHidden, w.dt))
	}
	w.towerLinear("multi_modal_projector.linear_1", v.ProjectorIn, v.OutHidden, column, v.ProjectorBias, true)
	w.towerLinear("multi_modal_projector.linear_2", v.OutHidden, v.OutHidden, row, v.ProjectorBias, true)
}

// The reasons a LLaVA checkpoint's CLIP tensors are not loaded.
const (
	// skipClipPostNorm: llava.py:561-566 and llava_next.py:277-281 build
	// the tower with require_post_norm=False; clip.py:709-712 skips it.
	skipClipPostNorm = "the vision tower's post_layernorm, which LLaVA does not build"
	// skipClipPositionIDs: a checkpoint saved before the buffer became
	// non-persistent holds it; vLLM builds its own (clip.py:333-337).
	skipClipPositionIDs = "CLIP's position_ids buffer, which vLLM builds itself"
	// skipSiglipHead: siglip.py:729-737, 802-803: SiglipVisionModel
	// builds no pooling head unless use_head, which LLaVA does not pass.
	skipSiglipHead = "SigLIP's pooling head, which LLaVA does not build"
)

var (
	// clipTower: the CLIP tower in the transformers layout
	// (models/clip/modeling_clip.py; clip.py:620-725): q, k and v fused
	// column-parallel into qkv_proj, out_proj and fc2 row-parallel, fc1
	// column-parallel; vLLM builds the layers up to vision_feature_layer.
	clipTower = onVisionTower(under("vision_tower.vision_model.", []moduleRule{
		{module: "embeddings.class_embedding"},
		{module: "embeddings.patch_embedding"},
		{module: "embeddings.position_embedding"},
		{module: "pre_layrnorm"},
	}, towerLayers(under("encoder.layers.*.", clipLayer))))
	// clipLayer: a CLIP or SigLIP encoder layer in the transformers
	// layout (clip.py, siglip.py), the tower of LLaVA's CLIP, Gemma 3's
	// SigLIP and Idefics3's SigLIP alike: q, k and v fused column-parallel
	// into qkv_proj, out_proj and fc2 row-parallel, fc1 column-parallel,
	// two LayerNorms.
	clipLayer = []moduleRule{
		{module: "self_attn.q_proj", vllm: "self_attn.qkv_proj", split: column},
		{module: "self_attn.k_proj", vllm: "self_attn.qkv_proj", split: column, follower: true},
		{module: "self_attn.v_proj", vllm: "self_attn.qkv_proj", split: column, follower: true},
		{module: "self_attn.out_proj", split: row},
		{module: "mlp.fc1", split: column},
		{module: "mlp.fc2", split: row},
		{module: "layer_norm1"},
		{module: "layer_norm2"},
	}
	// llavaPixtralTower: the Pixtral tower in the transformers layout
	// (models/pixtral/modeling_pixtral.py; pixtral.py:1147-1390), as
	// Mistral 3's (pixtralVision) without its patch merger.
	llavaPixtralTower = onVisionTower([]moduleRule{
		{module: "vision_tower.patch_conv"},
		{module: "vision_tower.ln_pre"},
	}, towerLayers(under("vision_tower.transformer.layers.*.", []moduleRule{
		{module: "attention.q_proj", vllm: "attention.qkv_proj", split: column},
		{module: "attention.k_proj", vllm: "attention.qkv_proj", split: column, follower: true},
		{module: "attention.v_proj", vllm: "attention.qkv_proj", split: column, follower: true},
		{module: "attention.o_proj", split: row},
		{module: "attention_norm"},
		{module: "ffn_norm"},
	}, gatedMLPAt("feed_forward"))))
	// llavaProjector: LlavaMultiModalProjector (llava.py:126-158) and
	// LLaVA-NeXT's image_newline.
	llavaProjector = onVisionTower([]moduleRule{
		{module: "multi_modal_projector.linear_1", split: column},
		{module: "multi_modal_projector.linear_2", split: row},
		{module: "image_newline"},
	})
	clipSkips = [][2]string{
		{"vision_tower.vision_model.post_layernorm.", skipClipPostNorm},
		{"vision_tower.vision_model.embeddings.position_ids", skipClipPositionIDs},
		{"vision_tower.vision_model.head.", skipSiglipHead},
	}
	// llavaRename: llava.py's and llava_next.py's hf_to_vllm_mapper, in
	// the rules' form: the language model's checkpoint names before
	// transformers 4.52 (language_model.model.) and after
	// (model.language_model.).
	llavaRename = [][2]string{
		{"model.language_model.", "model."}, {"language_model.model.", "model."},
		{"model.vision_tower.", "vision_tower."}, {"model.multi_modal_projector.", "multi_modal_projector."},
		{"model.image_newline", "image_newline"}, {"language_model.lm_head.", "lm_head."},
	}
)
