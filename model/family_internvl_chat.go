package model

import (
	"fmt"
	"math"
	"slices"

	"membudget/budget"
)

func init() {
	registerMultimodal("internvl_chat", readInternVL,
		ckptFamily(internVLRename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms}, internViT))
	registerVisionTower("intern_vit", (*weights).internViT)
	registerArchitectures("internvl_chat", "InternVLChatModel")
}

// internVLTextTypes are the llm_config models an InternVL wrapper is read
// with: those whose checkpoints follow Llama's layer names, which the
// wrapper's checkpoint rules are (InternVL2.5 and 3 on Qwen2.5, InternVL3.5
// on Qwen3, InternVL2-Llama3). InternLM2's names (attention.wqkv,
// feed_forward.w1) and the MoE text models are refused by name.
var internVLTextTypes = []string{"qwen2", "llama", "qwen3"}

// readInternVL reads InternVLChatModel (vllm/model_executor/models/
// internvl.py at d18bb7b), a trust_remote_code model whose config class
// is the checkpoint's own (configuration_internvl_chat.py): no class
// defaults are known, so every key read is required. The language model is
// llm_config, which vLLM reads as text_config
// (transformers_utils/config.py:153), built as its model_type's family
// (internvl.py:594-598); the tower is InternViT to select_layer
// (:621-641) and mlp1 projects the pixel-shuffled features
// (:643-654).
func readInternVL(o jsonObject, a *Arch) jsonObject {
	text, ok := o.object("llm_config")
	if !ok {
		o.fail("llm_config", "missing (required for model_type internvl_chat)")
		return o
	}
	inheritDtype(o, text)
	if text.has("quantization_config") {
		// internvl.py:606-619 adds vision_model to an AWQ config's
		// modules_to_not_convert when llm_config carries one: not modelled.
		text.fail("quantization_config", "a quantization config under llm_config is not sized (vLLM then keeps an AWQ checkpoint's tower unquantized)")
		return text
	}
	named := text.str("model_type")
	if !slices.Contains(internVLTextTypes, named) {
		text.fail("model_type", "%q is not a text model membudget sizes under internvl_chat (sized: %v)", named, internVLTextTypes)
		return text
	}
	readFamily(named, text, a)
	if o.has("torch_dtype") || o.has("dtype") {
		// vLLM serves the root's dtype before the text model's
		// (transformers_utils/model_arch_config_convertor.py:228-234).
		a.Dtype = readDtype(o)
	}
	a.tree.rename = internVLRename
	v, ok := o.object("vision_config")
	if !ok {
		o.fail("vision_config", "missing (required for model_type internvl_chat)")
		return text
	}
	// InternViT-6B (qk_normalization, RMSNorm, 25 heads that vLLM runs
	// whole on every rank when they do not divide the ranks:
	// intern_vit.py:169-177) and the MoE towers are not sized.
	if v.boolOr("qk_normalization", false) {
		v.fail("qk_normalization", "true: InternViT-6B's normalized attention is not sized yet (only InternViT-300M's towers are)")
	}
	if nt := v.str("norm_type"); nt != "layer_norm" {
		v.fail("norm_type", "%q: only InternViT-300M's layer_norm towers are sized", nt)
	}
	if v.boolOr("use_moe", false) {
		v.fail("use_moe", "true: a mixture-of-experts vision tower is not sized")
	}
	if !v.has("qkv_bias") {
		v.fail("qkv_bias", "missing (required: the remote InternVisionConfig's default is not known)")
	}
	layers := v.uint("num_hidden_layers")
	if !o.has("select_layer") {
		o.fail("select_layer", "missing (required)")
		return text
	}
	// internvl.py:628-634: a negative select_layer counts from the end,
	// a non-negative one builds select_layer + 1 layers.
	sel := o.intOr("select_layer", -1)
	built := sel + 1
	if sel < 0 {
		built = int64(layers) + sel + 1
	}
	if built <= 0 || uint64(built) > layers {
		o.fail("select_layer", "%d selects no layer of the %d vision layers", sel, layers)
		return text
	}
	ratio, ok := o.number("downsample_ratio")
	if !ok {
		o.fail("downsample_ratio", "missing (required)")
		return text
	}
	if ratio <= 0 || ratio > 1 {
		o.fail("downsample_ratio", "%v: want a ratio in (0, 1]", ratio)
		return text
	}
	// internvl.py:648: int(1 / downsample_ratio) ** 2 patches become one
	// token, side by side.
	scale := uint64(math.Trunc(1 / ratio))
	hidden := v.uint("hidden_size")
	a.Vision = &VisionTower{
		Kind:          "intern_vit",
		Hidden:        hidden,
		Intermediate:  v.uint("intermediate_size"),
		Layers:        uint64(built),
		Heads:         v.uint("num_attention_heads"),
		PatchSize:     v.uint("patch_size"),
		ImageSize:     v.uint("image_size"),
		Channels:      3, // intern_vit.py:59-64: in_channels=3
		SpatialMerge:  scale,
		OutHidden:     a.Hidden,
		ProjectorBias: v.boolOr("qkv_bias", false),
		ConfigLayers:  v.uint("num_hidden_layers"),
		ConfigHidden:  hidden,
	}
	return text
}

// internViT adds InternViT-300M and mlp1 (intern_vit.py:49-350,
// internvl.py:643-654): the class embedding, a biased Conv2d patch
// embedding, the (image/patch)^2 + 1 position table, and per layer a
// fused qkv (biased by qkv_bias; column-parallel when the heads divide
// the ranks, else whole), a biased proj, a biased fc1 and fc2, two
// LayerNorms and the two layer scales ls1 and ls2; then mlp1, plain
// nn.LayerNorm and nn.Linear layers, unquantized and whole on every rank.
// The tower's linears take the quantization config. ProjectorBias holds
// qkv_bias.
func (w *weights) internViT(v *VisionTower) {
	p := "vision_model."
	h := v.Hidden
	side := v.ImageSize / v.PatchSize
	w.add(p+"embeddings.class_embedding", bytesOf(h, w.dt))
	w.add(p+"embeddings.patch_embedding.weight", bytesOf(budget.SatMul(h*v.Channels, v.PatchSize*v.PatchSize), w.dt))
	w.add(p+"embeddings.patch_embedding.bias", bytesOf(h, w.dt))
	w.add(p+"embeddings.position_embedding", bytesOf(budget.SatMul(budget.SatAdd(budget.SatMul(side, side), 1), h), w.dt))
	attn, attnOut := column, row
	if v.Heads%w.tp != 0 {
		attn, attnOut = replicated, replicated
	}
	for i := range v.Layers {
		lp := fmt.Sprintf("%sencoder.layers.%d.", p, i)
		w.towerLinear(lp+"attn.qkv", h, 3*h, attn, v.ProjectorBias, true)
		w.towerLinear(lp+"attn.proj", h, h, attnOut, true, true)
		w.towerLinear(lp+"mlp.fc1", h, v.Intermediate, column, true, true)
		w.towerLinear(lp+"mlp.fc2", v.Intermediate, h, row, true, true)
		w.layerNorm(lp+"norm1", h)
		w.layerNorm(lp+"norm2", h)
		w.add(lp+"ls1", bytesOf(h, w.dt))
		w.add(lp+"ls2", bytesOf(h, w.dt))
	}
	in := budget.SatMul(h, v.SpatialMerge*v.SpatialMerge)
	w.layerNorm("mlp1.0", in)
	w.unquantized("mlp1.1", in, v.OutHidden, replicated, true)
	w.unquantized("mlp1.3", v.OutHidden, v.OutHidden, replicated, true)
}

var (
	// internViT: InternViT and mlp1 in the checkpoint's names
	// (modeling_intern_vit.py, modeling_internvl_chat.py; loaded without
	// a mapper, internvl.py:867-884): qkv fused in the checkpoint and
	// column-parallel, proj and fc2 row-parallel, fc1 column-parallel;
	// vLLM builds the layers up to select_layer.
	internViT = onVisionTower(under("vision_model.", []moduleRule{
		{module: "embeddings.class_embedding"},
		{module: "embeddings.patch_embedding"},
		{module: "embeddings.position_embedding"},
	}, towerLayers(under("encoder.layers.*.", []moduleRule{
		{module: "attn.qkv", split: column},
		{module: "attn.proj", split: row},
		{module: "mlp.fc1", split: column},
		{module: "mlp.fc2", split: row},
		{module: "norm1"},
		{module: "norm2"},
		{module: "ls1"},
		{module: "ls2"},
	}))), []moduleRule{
		{module: "mlp1.0"},
		{module: "mlp1.1"},
		{module: "mlp1.3"},
	})
	// internVLRename: the language model under language_model., as
	// InternVLChatModel saves it.
	internVLRename = [][2]string{{"language_model.model.", "model."}, {"language_model.lm_head.", "lm_head."}}
)
