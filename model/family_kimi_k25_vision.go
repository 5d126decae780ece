package model

import (
	"encoding/json"
	"fmt"

	"membudget/budget"
)

func init() {
	registerVisionTower("moonvit", (*weights).moonViT)
	declareClass("kimi_k25_vision", kimiK25VisionClass)
}

// kimiK25VisionClass is vLLM's KimiK25VisionConfig
// (vllm/transformers_utils/configs/kimi_k25.py at d18bb7b), which vLLM
// reads Kimi-K2.5's vision_config with: MoonViT-so400m's shape. The
// published config writes the tower's shape as vt_hidden_size,
// vt_num_hidden_layers, vt_num_attention_heads and vt_intermediate_size,
// which the class keeps as extra attributes: vLLM builds hidden_size,
// num_hidden_layers, num_attention_heads and intermediate_size, these
// defaults unless the file writes them (readMoonViT refuses a vt_ key that
// disagrees). mm_hidden_size defaults to hidden_size, which KimiK25Config
// then replaces with the text model's width.
var kimiK25VisionClass = configClass{
	Name:   "KimiK25VisionConfig",
	Source: "vllm/transformers_utils/configs/kimi_k25.py@d18bb7b",
	Defaults: []classDefault{
		{"patch_size", "14"}, {"init_pos_emb_height", "64"}, {"init_pos_emb_width", "64"}, {"init_pos_emb_time", "4"},
		{"pos_emb_type", `"divided_fixed"`}, {"num_attention_heads", "16"}, {"num_hidden_layers", "27"},
		{"hidden_size", "1152"}, {"intermediate_size", "4304"}, {"merge_kernel_size", "[2, 2]"},
		{"mm_projector_type", `"patchmerger"`},
	},
}

// moonViTRopeSide is the side of MoonViT's 2D rotary grid: the encoder's
// Rope2DPosEmbRepeated(head_dim, 512, 512) (kimi_k25_vit.py:536-538).
const moonViTRopeSide = 512

// moonViTBuilt are the vision_config keys MoonViT3dPretrainedModel reads
// with getattr and a default (kimi_k25_vit.py:722-744,
// MoonVision3dPatchEmbed :189-232, MoonViTEncoderLayer :380-470) and the
// one value membudget sizes for each: the published checkpoints' (none of
// them writes these keys). Another value builds another tower, or makes
// vLLM raise (NotImplementedError for another pos_emb_type, norm or MLP
// type): refused by name.
var moonViTBuilt = []struct{ key, value string }{
	{"pos_emb_type", `"divided_fixed"`}, {"mm_projector_type", `"patchmerger"`}, {"norm_type", `"layernorm"`},
	{"mlp_type", `"mlp2"`}, {"attn_bias", "true"}, {"linear_bias", "true"}, {"patch_embed_proj_bias", "true"},
}

// readMoonViT reads Kimi-K2.5's vision_config as KimiK25ForConditionalGeneration
// builds its tower and projector (vllm/model_executor/models/kimi_k25.py
// at d18bb7b, :341-380): a vision_config the file leaves out is
// KimiK25VisionConfig's own (KimiK25Config builds it, configs/kimi_k25.py),
// so the tower is always built.
func readMoonViT(o jsonObject, a *Arch) {
	absent := !o.has("vision_config")
	if absent {
		o.m["vision_config"] = json.RawMessage("{}")
	}
	v, ok := o.object("vision_config")
	if !ok {
		return
	}
	before := len(a.Defaulted)
	if more := fillClass("kimi_k25_vision", v, a); len(more) > 0 {
		o.m["vision_config"] = appendMembers(v.raw, more)
		v, _ = o.object("vision_config")
	}
	if absent {
		// One default, the whole sub-config, as KimiK25Config builds it.
		a.Defaulted = append(a.Defaulted[:before], DefaultedKey{Key: o.prefix + "vision_config", Value: string(o.m["vision_config"]),
			Class: kimiK25Class.Name, Source: kimiK25VisionClass.Source})
	}
	for _, b := range moonViTBuilt {
		if raw, ok := v.m[b.key]; ok && !jsonEqual(raw, b.value) {
			v.fail(b.key, "%s: membudget sizes MoonViT as the published Kimi-K2.5 builds it (%s %s; kimi_k25_vit.py:189-232, 380-470, 722-744)", short(raw), b.key, b.value)
			return
		}
	}
	if v.has("qkv_hidden_size") {
		v.fail("qkv_hidden_size", "not sized: the published Kimi-K2.5 leaves it out (MoonViT's attention is hidden_size wide)")
		return
	}
	hidden := v.uint("hidden_size")
	for _, k := range []struct{ vt, built string }{
		{"vt_hidden_size", "hidden_size"}, {"vt_num_hidden_layers", "num_hidden_layers"},
		{"vt_num_attention_heads", "num_attention_heads"}, {"vt_intermediate_size", "intermediate_size"},
	} {
		if v.has(k.vt) && v.uint(k.vt) != v.uint(k.built) {
			v.fail(k.vt, "%d is not the %s %d vLLM builds (KimiK25VisionConfig reads %s, configs/kimi_k25.py): the checkpoint would not load", v.uint(k.vt), k.built, v.uint(k.built), k.built)
			return
		}
	}
	merge := v.uints("merge_kernel_size")
	if len(*o.errs) > 0 {
		return
	}
	if len(merge) != 2 || merge[0] == 0 || merge[1] == 0 || merge[0] > 16 || merge[1] > 16 {
		v.fail("merge_kernel_size", "want two sides from 1 to 16 (the patch merger's kernel), got %v", merge)
		return
	}
	// mm_hidden_size: the class's hidden_size when left out, then the text
	// model's width whenever it equals hidden_size (KimiK25Config).
	out := v.uintOr("mm_hidden_size", hidden)
	if out == hidden {
		out = a.Hidden
	}
	a.Vision = &VisionTower{
		Kind:               "moonvit",
		Hidden:             hidden,
		Intermediate:       v.uint("intermediate_size"),
		Layers:             v.uint("num_hidden_layers"),
		Heads:              v.uint("num_attention_heads"),
		PatchSize:          v.uint("patch_size"),
		Channels:           3, // MoonVision3dPatchEmbed's in_dim default (:195)
		OutHidden:          out,
		PositionEmbeddings: budget.SatMul(v.uint("init_pos_emb_height"), v.uint("init_pos_emb_width")),
		PositionFrames:     v.uint("init_pos_emb_time"),
		SpatialMerge:       squareMerge(merge),
		ProjectorIn:        budget.SatMul(hidden, merge[0]*merge[1]),
		ProjectorBias:      true,
		ConfigLayers:       v.uint("num_hidden_layers"),
		ConfigHidden:       hidden,
	}
	if len(*o.errs) == 0 && out != a.Hidden {
		v.fail("mm_hidden_size", "%d is not the text model's hidden_size %d: the projected image tokens would not fit its embedding", out, a.Hidden)
	}
}

// squareMerge is the side of a square merge kernel, 0 for another shape:
// an engine sizes the tokens of a square one alone.
func squareMerge(merge []uint64) uint64 {
	if merge[0] != merge[1] {
		return 0
	}
	return merge[0]
}

// jsonEqual reports whether raw is the JSON value want.
func jsonEqual(raw json.RawMessage, want string) bool {
	var x, y any
	return json.Unmarshal(raw, &x) == nil && json.Unmarshal([]byte(want), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

// moonViT adds Kimi-K2.5's tower and projector (kimi_k25_vit.py at
// d18bb7b): a biased Conv2d patch embedding; the learned height x width x
// hidden position table and its time_weight buffer of init_pos_emb_time
// sin-cos rows (:127-151), float32 unless the tower is cast to the model
// dtype, which vLLM does when it drops the quantization config for it
// (none, or compressed-tensors: kimi_k25.py:356-368, 393-396); per block
// two LayerNorms, a biased QKVParallelLinear wqkv and row-parallel wo, a
// biased column-parallel fc0 and row-parallel fc1 (:334-470), whole on
// every rank when the heads do not divide the ranks (is_vit_use_data_parallel
// falls back to data parallelism, vision.py:144-161); final_layernorm; the
// 2D rope's freqs_cis buffer, 512 x 512 positions of head_dim / 2
// complex64, which vLLM registers at the tower's first forward, the
// profile run's (:279-315); and the projector (:887-945): pre_norm, a
// LayerNorm of the tower's width, and linear_1 and linear_2,
// ReplicatedLinear with bias, the tower's quantization either way.
func (w *weights) moonViT(v *VisionTower) {
	h := v.Hidden
	quantized := w.a.Quant.Method != "" && w.a.Quant.Method != "compressed-tensors"
	timeBytes := w.dt
	if quantized {
		timeBytes = 4
	}
	p := "vision_tower."
	w.add(p+"patch_embed.proj.weight", bytesOf(budget.SatMul(h*v.Channels, v.PatchSize*v.PatchSize), w.dt))
	w.add(p+"patch_embed.proj.bias", bytesOf(h, w.dt))
	w.add(p+"patch_embed.pos_emb.weight", bytesOf(budget.SatMul(v.PositionEmbeddings, h), w.dt))
	w.add(p+"patch_embed.pos_emb.time_weight", bytesOf(v.PositionFrames*h, timeBytes))
	attn, attnOut := column, row
	if v.Heads%w.tp != 0 {
		attn, attnOut = replicated, replicated
	}
	for i := range v.Layers {
		lp := fmt.Sprintf("%sencoder.blocks.%d.", p, i)
		w.layerNorm(lp+"norm0", h)
		w.layerNorm(lp+"norm1", h)
		w.towerLinear(lp+"wqkv", h, 3*h, attn, true, quantized)
		w.towerLinear(lp+"wo", h, h, attnOut, true, quantized)
		w.towerLinear(lp+"mlp.fc0", h, v.Intermediate, attn, true, quantized)
		w.towerLinear(lp+"mlp.fc1", v.Intermediate, h, attnOut, true, quantized)
	}
	w.layerNorm(p+"encoder.final_layernorm", h)
	w.add("rotary_emb.vision_tower.freqs_cis", bytesOf(budget.SatMul(moonViTRopeSide*moonViTRopeSide, h/v.Heads/2), 8))
	w.layerNorm("mm_projector.pre_norm", h)
	w.towerLinear("mm_projector.linear_1", v.ProjectorIn, v.ProjectorIn, replicated, true, quantized)
	w.towerLinear("mm_projector.linear_2", v.ProjectorIn, v.OutHidden, replicated, true, quantized)
}
