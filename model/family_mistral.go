package model

import (
	"fmt"

	"membudget/budget"
)

func init() {
	register("mistral", flat(readMistral), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
	register("ministral3", flat(readMistral), ckptFamily(mistral3Rename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}).skipping(pixtralTextOnly...))
	registerMultimodal("mistral3", wrapper("ministral3", readPixtral),
		ckptFamily(mistral3Rename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, pixtralVision))
	registerVisionTower("pixtral", (*weights).pixtral)
}

// readMistral reads Mistral and Ministral 3's language model: Llama's
// layers without biases, every one sliding when sliding_window is set.
func readMistral(o jsonObject, a *Arch) {
	readCommon(o, a)
	// Mistral applies sliding_window to every layer (v0.1: 4096; later: null).
	a.uniformLayers(o, o.uintOr("sliding_window", 0))
}

// readPixtral reads Mistral 3's Pixtral tower and projector
// (vllm/model_executor/models/pixtral.py, mistral3.py): vLLM builds the
// tower's layers up to the deepest vision_feature_layer.
func readPixtral(o jsonObject, a *Arch) {
	a.tree.rename = [][2]string{{"model.language_model.", "model."}, {"language_model.model.", "model."},
		{"model.vision_tower.", "vision_tower."}, {"model.multi_modal_projector.", "multi_modal_projector."}, {"language_model.lm_head", "lm_head"}}
	v, ok := o.object("vision_config")
	if !ok {
		o.fail("vision_config", "missing (required for model_type mistral3)")
		return
	}
	layers := v.uint("num_hidden_layers")
	feature := o.intOr("vision_feature_layer", -1)
	// llava.py get_layer_index: a negative index counts from the end.
	built := uint64(feature)
	if feature < 0 {
		if uint64(-feature) > layers+1 {
			o.fail("vision_feature_layer", "%d is beyond the %d vision layers", feature, layers)
			return
		}
		built = layers + 1 - uint64(-feature)
	}
	if built > layers {
		o.fail("vision_feature_layer", "%d is beyond the %d vision layers", feature, layers)
		return
	}
	a.Vision = &VisionTower{
		Kind:          "pixtral",
		Hidden:        v.uint("hidden_size"),
		Intermediate:  v.uint("intermediate_size"),
		Layers:        built,
		Heads:         v.uint("num_attention_heads"),
		PatchSize:     v.uint("patch_size"),
		ImageSize:     v.uint("image_size"),
		Channels:      v.uintOr("num_channels", 3),
		SpatialMerge:  o.uintOr("spatial_merge_size", 2),
		OutHidden:     a.Hidden,
		ProjectorBias: o.boolOr("multimodal_projector_bias", true),
		ConfigLayers:  v.uint("num_hidden_layers"),
		ConfigHidden:  v.uint("hidden_size"),
	}
}

// pixtral adds Mistral 3's Pixtral tower and projector (pixtral.py:
// 1147-1390, mistral3.py:75-170): a Conv2d patch embedding without bias,
// RMSNorms, attention and gated MLP without biases, the 2D rope's
// frequency table in float32 (transformers' PixtralRotaryEmbedding,
// [(image/patch)^2, head_dim]), the patch merger (an unquantized
// nn.Linear) and the two projector layers.
func (w *weights) pixtral(v *VisionTower) {
	w.pixtralTower(v)
	h := v.Hidden
	m := v.SpatialMerge
	w.add("multi_modal_projector.norm.weight", bytesOf(h, w.dt))
	w.unquantized("multi_modal_projector.patch_merger.merging_layer", h*m*m, h, replicated, false)
	w.towerLinear("multi_modal_projector.linear_1", h, v.OutHidden, column, v.ProjectorBias, true)
	w.towerLinear("multi_modal_projector.linear_2", v.OutHidden, v.OutHidden, row, v.ProjectorBias, true)
}

// pixtralTower adds the Pixtral tower alone (PixtralHFVisionModel), which
// Mistral 3 and LLaVA build alike.
func (w *weights) pixtralTower(v *VisionTower) {
	h := v.Hidden
	w.add("vision_tower.patch_conv.weight", bytesOf(h*v.Channels*v.PatchSize*v.PatchSize, w.dt))
	w.add("vision_tower.ln_pre.weight", bytesOf(h, w.dt))
	for i := range v.Layers {
		p := fmt.Sprintf("vision_tower.transformer.layers.%d.", i)
		w.add(p+"attention_norm.weight", bytesOf(h, w.dt))
		w.add(p+"ffn_norm.weight", bytesOf(h, w.dt))
		w.towerLinear(p+"attention.qkv_proj", h, 3*h, column, false, true)
		w.towerLinear(p+"attention.o_proj", h, h, row, false, true)
		w.towerLinear(p+"feed_forward.gate_up_proj", h, 2*v.Intermediate, column, false, true)
		w.towerLinear(p+"feed_forward.down_proj", v.Intermediate, h, row, false, true)
	}
	side := v.ImageSize / v.PatchSize
	w.add("rotary_emb.vision_tower.inv_freq", bytesOf(budget.SatMul(side*side, h/v.Heads), 4))
}

var (
	// pixtralVision: Mistral 3's Pixtral tower and projector in the
	// transformers layout (models/pixtral/modeling_pixtral.py,
	// models/mistral3/modeling_mistral3.py; pixtral.py:1147-1390,
	// mistral3.py:75-170): q, k and v fused column-parallel, gate and up
	// fused, o_proj and down row-parallel; vLLM builds the layers up to
	// vision_feature_layer only.
	pixtralVision = onVisionTower([]moduleRule{
		{module: "vision_tower.patch_conv"},
		{module: "vision_tower.ln_pre"},
		{module: "multi_modal_projector.norm"},
		{module: "multi_modal_projector.patch_merger.merging_layer"},
		{module: "multi_modal_projector.linear_1", split: column},
		{module: "multi_modal_projector.linear_2", split: row},
	}, towerLayers(under("vision_tower.transformer.layers.*.", []moduleRule{
		{module: "attention.q_proj", vllm: "attention.qkv_proj", split: column},
		{module: "attention.k_proj", vllm: "attention.qkv_proj", split: column, follower: true},
		{module: "attention.v_proj", vllm: "attention.qkv_proj", split: column, follower: true},
		{module: "attention.o_proj", split: row},
		{module: "attention_norm"},
		{module: "ffn_norm"},
	}, gatedMLPAt("feed_forward"))))
	// mistral3Rename: readPixtral's (mistral3.py's hf_to_vllm_mapper).
	mistral3Rename = [][2]string{
		{"model.language_model.", "model."}, {"language_model.model.", "model."},
		{"model.vision_tower.", "vision_tower."}, {"model.multi_modal_projector.", "multi_modal_projector."},
		{"language_model.lm_head.", "lm_head."},
	}
	// pixtralTextOnly: the text-only load of a Mistral 3 checkpoint
	// (ministral3) skips the tower and the projector.
	pixtralTextOnly = [][2]string{{"vision_tower.", skipTowers}, {"multi_modal_projector.", skipTowers}}
)

// mistralClass is transformers MistralConfig, read at huggingface/transformers@001f85b38f. A config that leaves sliding_window out slides at 4096; one that writes null does not.
var mistralClass = configClass{
	Name:   "MistralConfig",
	Source: "src/transformers/models/mistral/configuration_mistral.py@001f85b38f",
	Defaults: []classDefault{
		{"vocab_size", "32000"}, {"hidden_size", "4096"}, {"intermediate_size", "14336"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"num_key_value_heads", "8"},
		{"max_position_embeddings", "131072"}, {"tie_word_embeddings", "false"}, {"sliding_window", "4096"},
	},
}

func init() { declareClass("mistral", mistralClass) }

// The classes of Mistral 3's configs. transformers Mistral3Config (read at
// huggingface/transformers@0db25542f2,
// src/transformers/models/mistral3/configuration_mistral3.py) reads a
// text_config without a model_type as MistralConfig's, and gives
// vision_feature_layer -1, spatial_merge_size 2 and no projector bias.
// Ministral3Config is read at @008e574391
// (src/transformers/models/ministral3/configuration_ministral3.py); its
// default yarn rope_parameters are not filled.
var (
	mistral3Class = configClass{
		Name:   "Mistral3Config",
		Source: "src/transformers/models/mistral3/configuration_mistral3.py@0db25542f2",
		Defaults: []classDefault{
			{"vision_feature_layer", "-1"}, {"multimodal_projector_bias", "false"}, {"spatial_merge_size", "2"},
		},
		Nested: map[string]string{"text_config": "mistral"},
	}
	ministral3Class = configClass{
		Name:   "Ministral3Config",
		Source: "src/transformers/models/ministral3/configuration_ministral3.py@008e574391",
		Defaults: []classDefault{
			{"vocab_size", "131072"}, {"hidden_size", "4096"}, {"intermediate_size", "14336"},
			{"num_hidden_layers", "34"}, {"num_attention_heads", "32"}, {"num_key_value_heads", "8"},
			{"head_dim", "128"}, {"max_position_embeddings", "262144"}, {"tie_word_embeddings", "false"},
		},
	}
)

func init() {
	declareClass("mistral3", mistral3Class)
	declareClass("ministral3", ministral3Class)
}
