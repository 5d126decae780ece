package model

import (
	"fmt"

	"membudget/budget"
)

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
	}
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
	}
}

// readLlama4Vision reads Llama 4's vision tower and its pixel-shuffle
// adapter (vllm/model_executor/models/mllama4.py:431-552).
func readLlama4Vision(o jsonObject, a *Arch) {
	v, ok := o.object("vision_config")
	if !ok {
		return
	}
	a.Vision = &VisionTower{
		Kind:          "llama4",
		Hidden:        v.uint("hidden_size"),
		Intermediate:  v.uint("intermediate_size"),
		Layers:        v.uint("num_hidden_layers"),
		Heads:         v.uint("num_attention_heads"),
		PatchSize:     v.uint("patch_size"),
		ImageSize:     v.uint("image_size"),
		Channels:      v.uintOr("num_channels", 3),
		OutHidden:     v.uint("vision_output_dim"),
		ProjectorIn:   v.uint("projector_input_dim"),
		ProjectorOut:  v.uint("projector_output_dim"),
		ProjectorBias: v.boolOr("multi_modal_projector_bias", false),
	}
}

// checkVision reports a tower no model has.
func (v *VisionTower) check(o jsonObject) {
	bad := v.Hidden == 0 || v.Layers == 0 || v.PatchSize == 0 || v.Heads == 0 || v.Hidden%v.Heads != 0 ||
		v.Hidden > 1<<16 || v.Intermediate > 1<<18 || v.Layers > 1<<10 || v.PatchSize > 1<<10 || v.Channels > 16 ||
		v.TemporalPatch > 16 || v.SpatialMerge > 16 || v.OutHidden > 1<<20 || v.PositionEmbeddings > 1<<20 ||
		v.Deepstack > v.Layers || v.ProjectorIn > 1<<20 || v.ProjectorOut > 1<<20
	if (v.Kind == "siglip" || v.Kind == "pixtral" || v.Kind == "llama4") && (v.ImageSize < v.PatchSize || v.ImageSize > 1<<14) {
		bad = true
	}
	if bad {
		o.fail("vision_config", "implausible vision tower %+v", *v)
	}
}

// vision adds the vision tower and projector of a multimodal model on the
// first stage. vLLM divides their attention and MLPs among the ranks as it
// does the language model's; which ones take the quantization config is
// the family's (Qwen's and Pixtral's do, qwen2_5_vl.py:1362-1367,
// qwen3_vl.py:1803-1809, mistral3.py:420-436; SigLIP's and Llama 4's do
// not).
func (w *weights) vision(v *VisionTower) {
	switch v.Kind {
	case "siglip":
		w.siglip(v)
	case "qwen2_5_vl":
		w.qwen25Vision(v)
	case "qwen3_vl":
		w.qwen3Vision(v)
	case "pixtral":
		w.pixtral(v)
	case "llama4":
		w.llama4Vision(v)
	}
}

// towerLinear adds a tower's linear layer, quantized when quantized is.
func (w *weights) towerLinear(module string, in, out uint64, s split, bias, quantized bool) {
	if quantized {
		w.linear(module, in, out, s, bias, linearMod)
		return
	}
	w.unquantized(module, in, out, s, bias)
}

func (w *weights) layerNorm(name string, size uint64) {
	w.add(name+".weight", bytesOf(size, w.dt))
	w.add(name+".bias", bytesOf(size, w.dt))
}

// siglip adds Gemma 3's SigLIP tower and projector (siglip.py,
// gemma3_mm.py), unquantized.
func (w *weights) siglip(v *VisionTower) {
	p := "vision_tower.vision_model."
	h := v.Hidden
	patches := (v.ImageSize / v.PatchSize) * (v.ImageSize / v.PatchSize)
	w.add(p+"embeddings.patch_embedding.weight", bytesOf(h*v.Channels*v.PatchSize*v.PatchSize, w.dt))
	w.add(p+"embeddings.patch_embedding.bias", bytesOf(h, w.dt))
	w.add(p+"embeddings.position_embedding.weight", bytesOf(budget.SatMul(patches, h), w.dt))
	for i := range v.Layers {
		lp := fmt.Sprintf("%sencoder.layers.%d.", p, i)
		w.unquantized(lp+"self_attn.qkv_proj", h, 3*h, column, true)
		w.unquantized(lp+"self_attn.out_proj", h, h, row, true)
		w.unquantized(lp+"mlp.fc1", h, v.Intermediate, column, true)
		w.unquantized(lp+"mlp.fc2", v.Intermediate, h, row, true)
		w.layerNorm(lp+"layer_norm1", h)
		w.layerNorm(lp+"layer_norm2", h)
	}
	w.layerNorm(p+"post_layernorm", h)
	w.add("multi_modal_projector.mm_input_projection_weight", bytesOf(h*w.a.Hidden, w.dt))
	w.add("multi_modal_projector.mm_soft_emb_norm.weight", bytesOf(h, w.dt))
}

// qwenVisionRope is the Qwen towers' rotary table: 8192 positions of half
// a head (qwen2_5_vl.py:669-674, qwen3_vl.py:615-620).
func (w *weights) qwenVisionRope(v *VisionTower) {
	hd := v.Hidden / v.Heads
	w.add("rotary_emb.visual.cos_sin_cache", bytesOf(budget.SatMul(8192, hd/2), w.dt))
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

// pixtral adds Mistral 3's Pixtral tower and projector (pixtral.py:
// 1147-1390, mistral3.py:75-170): a Conv2d patch embedding without bias,
// RMSNorms, attention and gated MLP without biases, the 2D rope's
// frequency table in float32 (transformers' PixtralRotaryEmbedding,
// [(image/patch)^2, head_dim]), the patch merger (an unquantized
// nn.Linear) and the two projector layers.
func (w *weights) pixtral(v *VisionTower) {
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
	m := v.SpatialMerge
	w.add("multi_modal_projector.norm.weight", bytesOf(h, w.dt))
	w.unquantized("multi_modal_projector.patch_merger.merging_layer", h*m*m, h, replicated, false)
	w.towerLinear("multi_modal_projector.linear_1", h, v.OutHidden, column, v.ProjectorBias, true)
	w.towerLinear("multi_modal_projector.linear_2", v.OutHidden, v.OutHidden, row, v.ProjectorBias, true)
}

// llama4Vision adds Llama 4's vision tower, pixel-shuffle adapter and
// projector (mllama4.py:95-552), unquantized: an unfold-convolution patch
// embedding (a column-parallel linear without bias), a class embedding, a
// position table of (image/patch)^2 + 1 rows, LayerNorms, biased attention
// and MLP, its complex64 rope table (llama4_vision_rope.py), the adapter's
// MLP and the projector.
func (w *weights) llama4Vision(v *VisionTower) {
	h := v.Hidden
	side := v.ImageSize / v.PatchSize
	patches := side*side + 1
	w.unquantized("vision_model.patch_embedding.linear", v.Channels*v.PatchSize*v.PatchSize, h, column, false)
	w.add("vision_model.class_embedding", bytesOf(h, w.dt))
	w.add("vision_model.positional_embedding_vlm", bytesOf(budget.SatMul(patches, h), w.dt))
	w.layerNorm("vision_model.layernorm_pre", h)
	w.layerNorm("vision_model.layernorm_post", h)
	for i := range v.Layers {
		p := fmt.Sprintf("vision_model.model.layers.%d.", i)
		w.unquantized(p+"self_attn.qkv_proj", h, 3*h, column, true)
		w.unquantized(p+"self_attn.o_proj", h, h, row, true)
		w.unquantized(p+"mlp.fc1", h, v.Intermediate, column, true)
		w.unquantized(p+"mlp.fc2", v.Intermediate, h, row, true)
		w.layerNorm(p+"input_layernorm", h)
		w.layerNorm(p+"post_attention_layernorm", h)
	}
	// mllama4.py:302-314: half of each head turns, over the patches and
	// the class token, one complex64 per pair.
	w.add("rotary_emb.vision_model.cos_sin_cache", bytesOf(budget.SatMul(patches, h/v.Heads/2), 8))
	w.unquantized("vision_model.vision_adapter.mlp.fc1", v.Intermediate, v.ProjectorIn, column, v.ProjectorBias)
	w.unquantized("vision_model.vision_adapter.mlp.fc2", v.ProjectorIn, v.ProjectorOut, row, v.ProjectorBias)
	w.unquantized("multi_modal_projector.linear_1", v.OutHidden, w.a.Hidden, column, false)
}
