package model

import "fmt"

func init() {
	registerMultimodal("qwen2_5_vl", readQwen25VL, ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, qwen25Vision))
	registerVisionTower("qwen2_5_vl", (*weights).qwen25Vision)
}

// readQwen25VL reads Qwen2.5-VL: a Qwen2 language model at the top level
// (or under text_config, as transformers 4.5x re-saves it) and its vision
// tower (vllm/model_executor/models/qwen2_5_vl.py).
func readQwen25VL(o jsonObject, a *Arch) jsonObject {
	text := o
	if t, ok := o.object("text_config"); ok {
		inheritDtype(o, t)
		text = t
	} else {
		// Qwen2_5_VLConfig reads a config without text_config as its text
		// model's (for BC): the text class's defaults fill the root.
		fillClass("qwen2_5_vl_text", o, a)
	}
	readQwen2(text, a)
	a.tree.rename = [][2]string{{"model.language_model.", "model."}, {"model.visual.", "visual."}}
	v, ok := o.object("vision_config")
	if !ok {
		o.fail("vision_config", "missing (required for model_type qwen2_5_vl)")
		return text
	}
	a.Vision = &VisionTower{
		Kind:          "qwen2_5_vl",
		Hidden:        v.uint("hidden_size"),
		Intermediate:  v.uint("intermediate_size"),
		Layers:        v.uint("depth"),
		Heads:         v.uint("num_heads"),
		PatchSize:     v.uint("patch_size"),
		Channels:      v.uintOr("in_channels", v.uintOr("in_chans", 3)),
		TemporalPatch: v.uintOr("temporal_patch_size", 2),
		SpatialMerge:  v.uintOr("spatial_merge_size", 2),
		OutHidden:     v.uintOr("out_hidden_size", a.Hidden),
		ConfigHidden:  v.uint("hidden_size"),
	}
	return text
}

// qwen25Vision adds Qwen2.5-VL's tower (qwen2_5_vl.py:533-712): a Conv3d
// patch embedding without bias, blocks of RMSNorms, biased attention and a
// biased gated MLP, and the patch merger.
func (w *weights) qwen25Vision(v *VisionTower) {
	h := v.Hidden
	w.add("visual.patch_embed.proj.weight", bytesOf(h*v.Channels*v.TemporalPatch*v.PatchSize*v.PatchSize, w.dt))
	for i := range v.Layers {
		p := fmt.Sprintf("visual.blocks.%d.", i)
		w.add(p+"norm1.weight", bytesOf(h, w.dt))
		w.add(p+"norm2.weight", bytesOf(h, w.dt))
		w.towerLinear(p+"attn.qkv", h, 3*h, column, true, true)
		w.towerLinear(p+"attn.proj", h, h, row, true, true)
		w.towerLinear(p+"mlp.gate_up_proj", h, 2*v.Intermediate, column, true, true)
		w.towerLinear(p+"mlp.down_proj", v.Intermediate, h, row, true, true)
	}
	merged := h * v.SpatialMerge * v.SpatialMerge
	w.add("visual.merger.ln_q.weight", bytesOf(h, w.dt))
	w.towerLinear("visual.merger.mlp.0", merged, merged, column, true, true)
	w.towerLinear("visual.merger.mlp.2", merged, v.OutHidden, row, true, true)
	w.qwenVisionRope(v)
}

// qwen25Vision: Qwen2.5-VL's vision tower (transformers models/
// qwen2_5_vl/modeling_qwen2_5_vl.py; qwen2_5_vl.py:300-712): fused
// qkv and gate/up column-parallel, proj and down row-parallel, the
// merger's mlp.0 column- and mlp.2 row-parallel.
var qwen25Vision = onVisionTower(qwenVisionOuter, under("visual.blocks.*.", qwenVisionAttention, gatedMLPAt("mlp")))

// The classes of Qwen2.5-VL's configs: transformers Qwen2_5_VLConfig,
// Qwen2_5_VLTextConfig and Qwen2_5_VLVisionConfig, read at
// huggingface/transformers@018c8e0394
// (src/transformers/models/qwen2_5_vl/configuration_qwen2_5_vl.py). Its
// vision_config names model_type qwen2_5_vl, the wrapper's own: the vision
// class reads it.
var (
	qwen25VLClass = configClass{
		Name:   "Qwen2_5_VLConfig",
		Source: "src/transformers/models/qwen2_5_vl/configuration_qwen2_5_vl.py@018c8e0394",
		Nested: map[string]string{"text_config": "qwen2_5_vl_text", "vision_config": "qwen2_5_vl_vision"},
	}
	qwen25VLTextClass = configClass{
		Name:   "Qwen2_5_VLTextConfig",
		Source: "src/transformers/models/qwen2_5_vl/configuration_qwen2_5_vl.py@018c8e0394",
		Defaults: []classDefault{
			{"vocab_size", "152064"}, {"hidden_size", "8192"}, {"intermediate_size", "29568"},
			{"num_hidden_layers", "80"}, {"num_attention_heads", "64"}, {"num_key_value_heads", "8"},
			{"max_position_embeddings", "32768"}, {"tie_word_embeddings", "false"}, {"use_sliding_window", "false"},
			{"sliding_window", "4096"}, {"max_window_layers", "80"},
		},
	}
	qwen25VLVisionClass = configClass{
		Name:   "Qwen2_5_VLVisionConfig",
		Source: "src/transformers/models/qwen2_5_vl/configuration_qwen2_5_vl.py@018c8e0394",
		Defaults: []classDefault{
			{"depth", "32"}, {"hidden_size", "3584"}, {"intermediate_size", "3420"},
			{"num_heads", "16"}, {"in_channels", "3"}, {"patch_size", "14"},
			{"spatial_merge_size", "2"}, {"temporal_patch_size", "2"}, {"out_hidden_size", "3584"},
		},
	}
)

func init() {
	declareClass("qwen2_5_vl", qwen25VLClass)
	declareClass("qwen2_5_vl_text", qwen25VLTextClass)
	declareClass("qwen2_5_vl_vision", qwen25VLVisionClass)
}
