package model

import (
	"fmt"
	"slices"

	"membudget/budget"
)

func init() {
	registerMultimodal("llama4", wrapper("llama4_text", readLlama4Vision), ckptFamily(llama4Rename, [][]moduleRule{llama4Layer}, llama4Vision))
	register("llama4_text", flat(readLlama4Text), ckptFamily(llama4Rename, [][]moduleRule{llama4Layer}).skipping(llama4TextOnly...))
	registerVisionTower("llama4", (*weights).llama4Vision)
}

// readLlama4Text reads Llama 4's language model (vllm/model_executor/models/
// llama4.py): chunked local attention (attention_chunk_size) on the rope
// layers and global attention on the no-rope layers (no_rope_layers, by
// default every no_rope_layer_interval-th), MoE every
// interleave_moe_layer_step-th layer with a shared expert of
// intermediate_size, dense layers of intermediate_size_mlp.
func readLlama4Text(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false)
	a.MoEIntermediate = a.Intermediate
	if o.has("intermediate_size_mlp") {
		a.Intermediate = o.uint("intermediate_size_mlp")
	}
	a.Experts = o.uint("num_local_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.SharedExperts, a.SharedIntermediate = 1, a.MoEIntermediate
	step := o.uintOr("interleave_moe_layer_step", 1)
	chunk := o.uintOr("attention_chunk_size", 0)
	t := &a.tree
	t.mlp, t.router, t.shared = "feed_forward", "router", "shared_expert"
	t.llama4QKNorm = o.boolOr("use_qk_norm", false)
	t.rename = [][2]string{{"language_model.model.", "model."}, {"language_model.lm_head", "lm_head"}}
	a.uniformLayers(o, 0)
	nope := o.uints("no_rope_layers")
	if len(nope) != 0 && uint64(len(nope)) != a.NumLayers {
		o.fail("no_rope_layers", "has %d entries for %d layers", len(nope), a.NumLayers)
		return
	}
	interval := o.uintOr("no_rope_layer_interval", 4)
	for i := range a.Layers {
		l := &a.Layers[i]
		if len(nope) > 0 {
			l.NoRoPE = nope[i] == 0
		} else {
			// transformers Llama4TextConfig: layer i uses rope unless
			// (i+1) % no_rope_layer_interval == 0.
			l.NoRoPE = interval > 0 && (uint64(i)+1)%interval == 0
		}
		if !l.NoRoPE && chunk > 0 {
			l.Kind = ChunkedAttention
		}
		l.MoE = a.Experts > 0 && step > 0 && (uint64(i)+1)%step == 0
	}
	a.AttentionChunkSize = chunk
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
		ConfigLayers:  v.uint("num_hidden_layers"),
		ConfigHidden:  v.uint("hidden_size"),
	}
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
	// The projector is divided even where the tower is whole (data mode:
	// mllama4.py:172-179 builds it without disable_tp).
	tp := w.tp
	w.tp = max(w.sh.TP, 1)
	w.unquantized("multi_modal_projector.linear_1", v.OutHidden, w.a.Hidden, column, false)
	w.tp = tp
}

var (
	// llama4Layer: Llama 4 (names as huggingface/transformers
	// src/transformers/models/llama4/convert_llama4_weights_to_hf.py writes
	// them; llama4.py:86-166, 330-700): the router, the experts stacked
	// ([E, H, 2I] and [E, I, H]; one tensor per expert in the FP8
	// checkpoints), the shared expert, or a dense MLP.
	llama4Layer = slices.Concat(gqaAttention, twoNorms, gatedMLPAt("feed_forward"), gatedMLPAt("feed_forward.shared_expert"),
		expertsRouted("feed_forward", "router", "gate_proj", "up_proj", "down_proj", moduleRule{}),
		[]moduleRule{
			stackedAt("feed_forward.experts.gate_up_proj", "feed_forward.experts.w13_weight", gateUpInOut),
			stackedAt("feed_forward.experts.down_proj", "feed_forward.experts.w2_weight", downInOut),
		})
	// llama4Rename: the language model under language_model.
	llama4Rename = [][2]string{{"language_model.model.", "model."}, {"language_model.lm_head.", "lm_head."}}
	// llama4Vision: Llama 4's vision tower, pixel-shuffle adapter and
	// projector (the same converter; mllama4.py:95-552), unquantized: q, k
	// and v fused into one column-parallel qkv_proj.
	llama4Vision = onVisionTower([]moduleRule{
		{module: "vision_model.patch_embedding.linear", split: column},
		{module: "vision_model.class_embedding"},
		{module: "vision_model.positional_embedding_vlm"},
		{module: "vision_model.layernorm_pre"},
		{module: "vision_model.layernorm_post"},
		{module: "vision_model.vision_adapter.mlp.fc1", split: column},
		{module: "vision_model.vision_adapter.mlp.fc2", split: row},
		{module: "multi_modal_projector.linear_1", split: column, dividedWhole: true},
	}, under("vision_model.model.layers.*.", []moduleRule{
		{module: "self_attn.q_proj", vllm: "self_attn.qkv_proj", split: column},
		{module: "self_attn.k_proj", vllm: "self_attn.qkv_proj", split: column, follower: true},
		{module: "self_attn.v_proj", vllm: "self_attn.qkv_proj", split: column, follower: true},
		{module: "self_attn.o_proj", split: row},
		{module: "mlp.fc1", split: column},
		{module: "mlp.fc2", split: row},
	}, twoNorms))
	// llama4TextOnly: the text-only load of a Llama 4 checkpoint skips the
	// tower and the projector.
	llama4TextOnly = [][2]string{{"vision_model.", skipTowers}, {"multi_modal_projector.", skipTowers}}
)

// llama4TextClass is transformers Llama4TextConfig, read at huggingface/transformers@008e574391. A config that leaves attention_chunk_size out attends in chunks of 8192.
var llama4TextClass = configClass{
	Name:   "Llama4TextConfig",
	Source: "src/transformers/models/llama4/configuration_llama4.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "202048"}, {"hidden_size", "5120"}, {"intermediate_size", "8192"},
		{"intermediate_size_mlp", "16384"}, {"num_hidden_layers", "48"}, {"num_attention_heads", "40"},
		{"num_key_value_heads", "8"}, {"head_dim", "128"}, {"max_position_embeddings", "131072"},
		{"tie_word_embeddings", "false"}, {"num_experts_per_tok", "1"}, {"num_local_experts", "16"},
		{"interleave_moe_layer_step", "1"}, {"use_qk_norm", "true"}, {"no_rope_layer_interval", "4"},
		{"attention_chunk_size", "8192"}, {"attention_bias", "false"},
	},
}

func init() { declareClass("llama4_text", llama4TextClass) }

// llama4VisionModelClass is transformers Llama4VisionConfig, read at huggingface/transformers@008e574391.
var llama4VisionModelClass = configClass{
	Name:   "Llama4VisionConfig",
	Source: "src/transformers/models/llama4/configuration_llama4.py@008e574391",
	Defaults: []classDefault{
		{"hidden_size", "768"}, {"num_hidden_layers", "34"}, {"num_attention_heads", "16"},
		{"num_channels", "3"}, {"intermediate_size", "5632"}, {"vision_output_dim", "7680"},
		{"image_size", "448"}, {"patch_size", "14"}, {"projector_input_dim", "4096"},
		{"projector_output_dim", "4096"}, {"multi_modal_projector_bias", "false"},
	},
}

func init() { declareClass("llama4_vision_model", llama4VisionModelClass) }

// llama4Class is transformers Llama4Config, read at huggingface/transformers@008e574391.
var llama4Class = configClass{
	Name:   "Llama4Config",
	Source: "src/transformers/models/llama4/configuration_llama4.py@008e574391",
	Nested: map[string]string{"text_config": "llama4_text", "vision_config": "llama4_vision_model"},
}

func init() { declareClass("llama4", llama4Class) }
