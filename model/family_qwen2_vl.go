package model

import (
	"fmt"
	"math"

	"membudget/budget"
)

func init() {
	registerMultimodal("qwen2_vl", readQwen2VL, ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, qwen2Vision))
	registerVisionTower("qwen2_vl", (*weights).qwen2Vision)
	registerArchitectures("qwen2_vl", "Qwen2VLForConditionalGeneration")
	declareClass("qwen2_vl", qwen2VLClass)
	declareClass("qwen2_vl_text", qwen2VLTextClass)
	declareClass("qwen2_vl_vision", qwen2VLVisionClass)
}

// The classes of Qwen2-VL's configs, read at
// huggingface/transformers@4efabc6e58
// (src/transformers/models/qwen2_vl/configuration_qwen2_vl.py):
// Qwen2VLConfig keeps the language model's keys at the top (later
// releases nest them in text_config, Qwen2VLTextConfig, with the same
// defaults); Qwen2VLVisionConfig names model_type qwen2_vl, the wrapper's
// own, and ignores the published configs' in_chans (in_channels is 3).
var (
	qwen2VLClass = configClass{
		Name:   "Qwen2VLConfig",
		Source: "src/transformers/models/qwen2_vl/configuration_qwen2_vl.py@4efabc6e58",
		Nested: map[string]string{"text_config": "qwen2_vl_text", "vision_config": "qwen2_vl_vision"},
	}
	qwen2VLTextClass = configClass{
		Name:   "Qwen2VLConfig",
		Source: "src/transformers/models/qwen2_vl/configuration_qwen2_vl.py@4efabc6e58",
		Defaults: []classDefault{
			{"vocab_size", "152064"}, {"hidden_size", "8192"}, {"intermediate_size", "29568"},
			{"num_hidden_layers", "80"}, {"num_attention_heads", "64"}, {"num_key_value_heads", "8"},
			{"max_position_embeddings", "32768"}, {"tie_word_embeddings", "false"}, {"use_sliding_window", "false"},
			{"sliding_window", "4096"}, {"max_window_layers", "80"},
		},
	}
	qwen2VLVisionClass = configClass{
		Name:   "Qwen2VLVisionConfig",
		Source: "src/transformers/models/qwen2_vl/configuration_qwen2_vl.py@4efabc6e58",
		Defaults: []classDefault{
			{"depth", "32"}, {"embed_dim", "1280"}, {"hidden_size", "3584"}, {"mlp_ratio", "4"},
			{"num_heads", "16"}, {"in_channels", "3"}, {"patch_size", "14"},
			{"spatial_merge_size", "2"}, {"temporal_patch_size", "2"},
		},
	}
)

// readQwen2VL reads Qwen2VLForConditionalGeneration
// (vllm/model_executor/models/qwen2_vl.py at d18bb7b): a Qwen2 language
// model (:1303-1307, architectures Qwen2ForCausalLM) at the top level, or
// under text_config as later transformers save it, and its vision tower:
// embed_dim wide, an MLP of int(embed_dim x mlp_ratio), and a merger into
// vision_config.hidden_size, the language model's width.
func readQwen2VL(o jsonObject, a *Arch) jsonObject {
	text := o
	if t, ok := o.object("text_config"); ok {
		inheritDtype(o, t)
		text = t
	} else {
		fillClass("qwen2_vl_text", o, a)
	}
	readQwen2(text, a)
	a.tree.rename = qwenVLRename
	v, ok := o.object("vision_config")
	if !ok {
		o.fail("vision_config", "missing (required for model_type qwen2_vl)")
		return text
	}
	embed := v.uint("embed_dim")
	ratio, ok := v.number("mlp_ratio")
	if !ok || ratio <= 0 || ratio > 64 {
		v.fail("mlp_ratio", "must be a number in (0, 64], got %s", short(v.m["mlp_ratio"]))
		return text
	}
	a.Vision = &VisionTower{
		Kind: "qwen2_vl",
		// qwen2_vl.py:409: int(dim * mlp_ratio), truncated.
		Hidden:        embed,
		Intermediate:  uint64(math.Trunc(float64(embed) * ratio)),
		Layers:        v.uint("depth"),
		Heads:         v.uint("num_heads"),
		PatchSize:     v.uint("patch_size"),
		Channels:      v.uintOr("in_channels", 3),
		TemporalPatch: v.uintOr("temporal_patch_size", 2),
		SpatialMerge:  v.uintOr("spatial_merge_size", 2),
		OutHidden:     v.uint("hidden_size"),
		ConfigHidden:  v.uint("hidden_size"),
	}
	return text
}

// qwen2Vision adds Qwen2-VL's tower (qwen2_vl.py:243-600): a Conv3d patch
// embedding without bias, blocks of two LayerNorms, a biased qkv
// (column) and proj (row), a biased fc1 (column) and fc2 (row), the patch
// merger (ln_q, mlp.0 column, mlp.2 row, biased), and the rotary table of
// half a head. vLLM hands them the quantization config.
func (w *weights) qwen2Vision(v *VisionTower) {
	h := v.Hidden
	w.add("visual.patch_embed.proj.weight", bytesOf(budget.SatMul(h*v.Channels*v.TemporalPatch, v.PatchSize*v.PatchSize), w.dt))
	for i := range v.Layers {
		p := fmt.Sprintf("visual.blocks.%d.", i)
		w.layerNorm(p+"norm1", h)
		w.layerNorm(p+"norm2", h)
		w.towerLinear(p+"attn.qkv", h, 3*h, column, true, true)
		w.towerLinear(p+"attn.proj", h, h, row, true, true)
		w.towerLinear(p+"mlp.fc1", h, v.Intermediate, column, true, true)
		w.towerLinear(p+"mlp.fc2", v.Intermediate, h, row, true, true)
	}
	merged := h * v.SpatialMerge * v.SpatialMerge
	w.layerNorm("visual.merger.ln_q", h)
	w.towerLinear("visual.merger.mlp.0", merged, merged, column, true, true)
	w.towerLinear("visual.merger.mlp.2", merged, v.OutHidden, row, true, true)
	// qwen2_vl.py:568-574: get_rope(head_dim, max_position 8192,
	// partial_rotary_factor 0.5), Qwen2.5-VL's table.
	w.qwenVisionRope(v)
}

// qwen2Vision: Qwen2-VL's vision tower (transformers models/qwen2_vl/
// modeling_qwen2_vl.py; qwen2_vl.py:243-600): qkv fused in the checkpoint
// and column-parallel, proj and fc2 row-parallel, fc1 column-parallel,
// the merger's mlp.0 column- and mlp.2 row-parallel.
var qwen2Vision = onVisionTower(qwenVisionOuter, under("visual.blocks.*.", qwenVisionAttention, []moduleRule{
	{module: "mlp.fc1", split: column},
	{module: "mlp.fc2", split: row},
}))

// qwenVisionOuter and qwenVisionAttention are the rules Qwen2-VL's and
// Qwen2.5-VL's vision towers share: the patch embedding and the merger
// (ln_q, mlp.0 column- and mlp.2 row-parallel), and each block's norms,
// fused column-parallel qkv and row-parallel proj.
var (
	qwenVisionOuter = []moduleRule{
		{module: "visual.patch_embed.proj"},
		{module: "visual.merger.ln_q"},
		{module: "visual.merger.mlp.0", split: column},
		{module: "visual.merger.mlp.2", split: row},
	}
	qwenVisionAttention = []moduleRule{
		{module: "norm1"},
		{module: "norm2"},
		{module: "attn.qkv", split: column},
		{module: "attn.proj", split: row},
	}
)
