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
var qwen25Vision = onFirstStage([]moduleRule{
	{module: "visual.patch_embed.proj"},
	{module: "visual.merger.ln_q"},
	{module: "visual.merger.mlp.0", split: column},
	{module: "visual.merger.mlp.2", split: row},
}, under("visual.blocks.*.", []moduleRule{
	{module: "norm1"},
	{module: "norm2"},
	{module: "attn.qkv", split: column},
	{module: "attn.proj", split: row},
}, gatedMLPAt("mlp")))
