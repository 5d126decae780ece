package model

import (
	"fmt"

	"membudget/budget"
)

func init() {
	registerMultimodal("qwen3_vl", wrapper("qwen3_vl_text", readQwen3VLVision),
		ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms}, qwen3Vision))
	register("qwen3_vl_text", flat(readQwen3), ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms}).skipping(qwenTextOnly))
	// Qwen3.5 builds Qwen3-VL's tower too.
	registerVisionTower("qwen3_vl", (*weights).qwen3Vision)
}

// readQwen3VLVision reads the vision tower of Qwen3-VL, which Qwen3.5 also
// uses (vllm/model_executor/models/qwen3_vl.py:370-670).
func readQwen3VLVision(o jsonObject, a *Arch) {
	if a.tree.rename == nil {
		a.tree.rename = [][2]string{{"model.language_model.", "model."}, {"model.visual.", "visual."}}
	}
	v, ok := o.object("vision_config")
	if !ok {
		return // a text-only checkpoint of the family
	}
	var deepstack []uint64
	if v.has("deepstack_visual_indexes") {
		deepstack = v.uints("deepstack_visual_indexes")
	}
	a.Vision = &VisionTower{
		Kind:               "qwen3_vl",
		Hidden:             v.uint("hidden_size"),
		Intermediate:       v.uint("intermediate_size"),
		Layers:             v.uint("depth"),
		Heads:              v.uint("num_heads"),
		PatchSize:          v.uint("patch_size"),
		Channels:           v.uintOr("in_channels", 3),
		TemporalPatch:      v.uintOr("temporal_patch_size", 2),
		SpatialMerge:       v.uintOr("spatial_merge_size", 2),
		OutHidden:          v.uintOr("out_hidden_size", a.Hidden),
		PositionEmbeddings: v.uint("num_position_embeddings"),
		Deepstack:          uint64(len(deepstack)),
		ConfigHidden:       v.uint("hidden_size"),
	}
}

// qwen3Vision adds Qwen3-VL's tower (qwen3_vl.py:370-670): a Conv3d patch
// embedding with bias, a learned position table, blocks of LayerNorms,
// biased attention and an ungated biased MLP, the merger and one deepstack
// merger per deepstack layer (normed over the merged width).
func (w *weights) qwen3Vision(v *VisionTower) {
	h := v.Hidden
	w.add("visual.patch_embed.proj.weight", bytesOf(h*v.Channels*v.TemporalPatch*v.PatchSize*v.PatchSize, w.dt))
	w.add("visual.patch_embed.proj.bias", bytesOf(h, w.dt))
	w.add("visual.pos_embed.weight", bytesOf(budget.SatMul(v.PositionEmbeddings, h), w.dt))
	for i := range v.Layers {
		p := fmt.Sprintf("visual.blocks.%d.", i)
		w.layerNorm(p+"norm1", h)
		w.layerNorm(p+"norm2", h)
		w.towerLinear(p+"attn.qkv", h, 3*h, column, true, true)
		w.towerLinear(p+"attn.proj", h, h, row, true, true)
		w.towerLinear(p+"mlp.linear_fc1", h, v.Intermediate, column, true, true)
		w.towerLinear(p+"mlp.linear_fc2", v.Intermediate, h, row, true, true)
	}
	merged := h * v.SpatialMerge * v.SpatialMerge
	merger := func(p string, normWidth uint64) {
		w.layerNorm(p+"norm", normWidth)
		w.towerLinear(p+"linear_fc1", merged, merged, column, true, true)
		w.towerLinear(p+"linear_fc2", merged, v.OutHidden, row, true, true)
	}
	merger("visual.merger.", h)
	for i := range v.Deepstack {
		merger(fmt.Sprintf("visual.deepstack_merger_list.%d.", i), merged)
	}
	w.qwenVisionRope(v)
}

var (
	// qwen3Vision: Qwen3-VL's vision tower, which Qwen3.5 also uses
	// (transformers models/qwen3_vl/modeling_qwen3_vl.py; names as
	// pytorch/torchtitan torchtitan/models/qwen3_5/state_dict_adapter.py
	// maps them; qwen3_vl.py:370-670): a learned position table, an
	// ungated MLP, the merger and one deepstack merger per deepstack layer.
	qwen3Vision = onVisionTower([]moduleRule{
		{module: "visual.patch_embed.proj"},
		{module: "visual.pos_embed"},
	}, under("visual.blocks.*.", []moduleRule{
		{module: "norm1"},
		{module: "norm2"},
		{module: "attn.qkv", split: column},
		{module: "attn.proj", split: row},
		{module: "mlp.linear_fc1", split: column},
		{module: "mlp.linear_fc2", split: row},
	}), under("visual.merger.", qwen3Merger), under("visual.deepstack_merger_list.*.", qwen3Merger))
	qwen3Merger = []moduleRule{
		{module: "norm"},
		{module: "linear_fc1", split: column},
		{module: "linear_fc2", split: row},
	}
	// qwenVLRename: the Qwen VL and Qwen3.5 checkpoints nest the language
	// model under model.language_model. and the vision tower under
	// model.visual. (transformers 4.52 and later), or the language model
	// under language_model.model. (qwen3_5.py:311-313;
	// qwen3_vl.py:1762-1768; qwen2_5_vl.py:1246-1255).
	qwenVLRename = [][2]string{
		{"model.language_model.", "model."},
		{"model.visual.", "visual."},
		{"language_model.model.", "model."},
		{"language_model.lm_head.", "lm_head."},
	}
	// qwenTextOnly: a text-only load of a Qwen VL checkpoint skips its
	// tower.
	qwenTextOnly = [2]string{"visual.", skipTowers}
)

// The classes of Qwen3-VL's configs: transformers Qwen3VLConfig,
// Qwen3VLTextConfig and Qwen3VLVisionConfig, read at
// huggingface/transformers@000c33fdfd
// (src/transformers/models/qwen3_vl/configuration_qwen3_vl.py). Its
// vision_config names model_type qwen3_vl, the wrapper's own: the vision
// class reads it.
var (
	qwen3VLClass = configClass{
		Name:   "Qwen3VLConfig",
		Source: "src/transformers/models/qwen3_vl/configuration_qwen3_vl.py@000c33fdfd",
		Nested: map[string]string{"text_config": "qwen3_vl_text", "vision_config": "qwen3_vl_vision"},
	}
	qwen3VLTextClass = configClass{
		Name:   "Qwen3VLTextConfig",
		Source: "src/transformers/models/qwen3_vl/configuration_qwen3_vl.py@000c33fdfd",
		Defaults: []classDefault{
			{"vocab_size", "151936"}, {"hidden_size", "4096"}, {"intermediate_size", "22016"},
			{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"num_key_value_heads", "32"},
			{"head_dim", "128"}, {"max_position_embeddings", "128000"}, {"tie_word_embeddings", "false"},
			{"attention_bias", "false"},
		},
	}
	qwen3VLVisionClass = configClass{
		Name:   "Qwen3VLVisionConfig",
		Source: "src/transformers/models/qwen3_vl/configuration_qwen3_vl.py@000c33fdfd",
		Defaults: []classDefault{
			{"depth", "27"}, {"hidden_size", "1152"}, {"intermediate_size", "4304"},
			{"num_heads", "16"}, {"in_channels", "3"}, {"patch_size", "16"},
			{"spatial_merge_size", "2"}, {"temporal_patch_size", "2"}, {"out_hidden_size", "3584"},
			{"num_position_embeddings", "2304"}, {"deepstack_visual_indexes", "[8, 16, 24]"},
		},
	}
)

func init() {
	declareClass("qwen3_vl", qwen3VLClass)
	declareClass("qwen3_vl_text", qwen3VLTextClass)
	declareClass("qwen3_vl_vision", qwen3VLVisionClass)
}
