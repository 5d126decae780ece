package model

import (
	"encoding/json"
	"fmt"
	"slices"

	"membudget/budget"
)

func init() {
	// Gemma 4 builds the embedding, final norm and head on every stage
	// (gemma4.py:960-1045, Gemma4ForCausalLM); its vision tower and
	// embedder on the first (readGemma4Vision).
	registerMultimodal("gemma4", wrapper("gemma4_text", readGemma4Vision),
		ckptFamily(gemma4Rename, [][]moduleRule{gemma4Layer}, gemma4Towers, everyStageTop).skipping(gemma4Vestigial...))
	registerVisionTower("gemma4", (*weights).gemma4Vision)
	register("gemma4_text", flat(readGemma4Text), ckptFamily(gemma4Rename, [][]moduleRule{gemma4Layer}, everyStageTop).skipping(gemma4TextOnly...))
}

// readGemma4Text reads Gemma 4's language model (vllm/model_executor/models/
// gemma4.py, transformers_utils/configs/gemma4.py:10-34): sliding layers of
// head_dim and num_key_value_heads, global layers of global_head_dim and,
// with attention_k_eq_v, num_global_key_value_heads; the last
// num_kv_shared_layers layers read the KV of an earlier one; with
// enable_moe_block every layer also has a routed MoE beside its MLP; one
// rotary table per layer type, the global one head_size wide; the
// embedding, final norm and head on every pipeline stage.
func readGemma4Text(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.gemmaNorms()
	a.QKNorm = true
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	a.AttnBias = o.boolOr("attention_bias", false)
	a.OutBias = a.AttnBias
	if n := o.uintOr("hidden_size_per_layer_input", 0); n > 0 {
		o.fail("hidden_size_per_layer_input", "%d: Gemma 4's per-layer inputs are not supported", n)
		return
	}
	a.RotaryDim = a.HeadDim
	// Gemma4TextConfig.__post_init__: without layer_types, each 6th layer
	// full; and the last layer full whatever layer_types say.
	a.periodicLayers(o, 6)
	if n := len(a.layerTypes); n > 0 && a.layerTypes[n-1] != "full_attention" {
		a.layerTypes = append(slices.Clone(a.layerTypes[:n-1]), "full_attention")
	}
	a.uniformLayers(o, 0)
	globalDim := o.uintOr("global_head_dim", a.HeadDim)
	globalKV := a.KVHeads
	if o.boolOr("attention_k_eq_v", false) {
		globalKV = o.uintOr("num_global_key_value_heads", a.KVHeads)
	}
	if globalDim > 1<<14 || globalKV == 0 || globalKV > 1<<14 || (a.Heads > 0 && a.Heads%globalKV != 0) {
		o.fail("num_global_key_value_heads", "%d global KV heads of %d: want a divisor of num_attention_heads %d", globalKV, globalDim, a.Heads)
		return
	}
	for i := range a.Layers {
		if a.Layers[i].Kind == FullAttention && (globalDim != a.HeadDim || globalKV != a.KVHeads) {
			a.Layers[i].HeadDim, a.Layers[i].KVHeads = globalDim, globalKV
		}
	}
	shared := o.uintOr("num_kv_shared_layers", 0)
	if shared >= a.NumLayers && shared > 0 {
		o.fail("num_kv_shared_layers", "%d shared layers of %d", shared, a.NumLayers)
		return
	}
	for i := a.NumLayers - shared; i < a.NumLayers; i++ {
		a.Layers[i].SharesKV = true
	}
	if o.boolOr("enable_moe_block", false) {
		a.Experts = o.uint("num_experts")
		a.ExpertsPerToken = o.uintOr("top_k_experts", o.uintOr("num_experts_per_tok", 0))
		a.MoEIntermediate = o.uintOr("moe_intermediate_size", o.uintOr("expert_intermediate_size", 0))
		if a.ExpertsPerToken == 0 || a.MoEIntermediate == 0 {
			o.fail("moe_intermediate_size", "enable_moe_block needs moe_intermediate_size and top_k_experts")
		}
		for i := range a.Layers {
			a.Layers[i].MoE = true
		}
		a.tree.moeBesideMLP = true
		a.tree.router = "router.proj"
		a.tree.mlp = "moe"
	}
	a.tree.gemma4 = true
	// gemma4.py:966, 1043 and 1540: the embedding, final norm and head on
	// every stage.
	a.tree.onEveryStage()
	a.tree.rename = [][2]string{{"model.language_model.", "model."}, {"model.vision_tower.", "vision_tower."}, {"model.embed_vision.", "embed_vision."}}
	// One table per layer type (gemma4.py:446-493): the global layers'
	// proportional rope is head_size wide (gemma4_rope.py:40-55).
	a.Rotary = nil
	for _, kind := range []LayerKind{SlidingAttention, FullAttention} {
		dim := a.HeadDim
		if kind == FullAttention {
			dim = globalDim
		}
		for _, l := range a.Layers {
			if l.Kind == kind {
				a.Rotary = append(a.Rotary, RotaryTable{Name: "rotary_emb_" + kind.String(), Positions: a.MaxPosition, Dim: dim})
				break
			}
		}
	}
}

var (
	// gemma4Layer: Gemma 4 (transformers models/gemma4/modeling_gemma4.py
	// Gemma4TextRouter, Gemma4TextExperts; the layout gemma4.py:1605-1700
	// reads; gemma4.py:225-700): attention whose global layers under
	// attention_k_eq_v have no v_proj (k_proj loads into K and V), q and k
	// norms, the dense MLP, with enable_moe_block a router (proj, scale,
	// per_expert_scale) and experts beside it, stacked [E, 2I, H] and [E,
	// H, I] or one tensor per expert (quantized), under experts. or, in
	// the first checkpoints, moe.; seven norms and the layer scalar, on
	// every layer.
	gemma4Layer = slices.Concat([]moduleRule{
		gqaAttention[0],
		{module: "self_attn.k_proj", vllm: "self_attn.qkv_proj", split: column, heads: kvRows, follower: true, twiceWithout: "self_attn.v_proj"},
		gqaAttention[2], gqaAttention[3],
		{module: "post_feedforward_layernorm_1"},
		{module: "post_feedforward_layernorm_2"},
		{module: "pre_feedforward_layernorm_2"},
		{module: "layer_scalar"},
		{module: "router.proj"},
		{module: "router.scale"},
		{module: "router.per_expert_scale", vllm: "moe.per_expert_scale"},
		{module: "moe.per_expert_scale"},
		stackedAt("experts.gate_up_proj", "moe.experts.w13_weight", gateUpOutIn),
		stackedAt("experts.down_proj", "moe.experts.w2_weight", downOutIn),
		stackedAt("moe.gate_up_proj", "moe.experts.w13_weight", gateUpOutIn),
		stackedAt("moe.down_proj", "moe.experts.w2_weight", downOutIn),
	}, qkNorms, gatedMLP, twoNorms, gemmaNorms,
		perExpert("experts", "gate_proj", "up_proj", "down_proj"), perExpert("moe.experts", "gate_proj", "up_proj", "down_proj"))
	// gemma4Rename: the language model and the towers under model.
	// (gemma4_mm.py:1016-1026).
	gemma4Rename = [][2]string{
		{"model.language_model.", "model."}, {"language_model.model.", "model."}, {"language_model.lm_head.", "lm_head."},
		{"model.vision_tower.", "vision_tower."}, {"model.embed_vision.", "embed_vision."},
		{"model.audio_tower.", "audio_tower."}, {"model.embed_audio.", "embed_audio."},
	}
	// gemma4Towers: the vision and audio towers, transformers modules vLLM
	// builds whole (AutoModel.from_config) with their replicated
	// embedders, on the first stage (gemma4_mm.py:1060-1100).
	gemma4Towers = onFirstStage([]moduleRule{
		{module: "vision_tower"},
		{module: "embed_vision"},
		{module: "audio_tower"},
		{module: "embed_audio"},
	})
	gemma4Vestigial = [][2]string{{"embed_vision.embedding.", skipVestigial}, {"embed_audio.embedding.", skipVestigial}}
	gemma4TextOnly  = [][2]string{{"vision_tower.", skipTowers}, {"embed_vision.", skipTowers}, {"audio_tower.", skipTowers}, {"embed_audio.", skipTowers}}
)

// gemma4TextClass is transformers Gemma4TextConfig, read at
// huggingface/transformers@008e574391
// (src/transformers/models/gemma4/configuration_gemma4.py). global_head_dim
// 512 is __post_init__'s default for the full-attention layers. Its default
// layer_types (every 6th layer full) is not filled: a config without
// layer_types is read with every layer full.
var gemma4TextClass = configClass{
	Name:   "Gemma4TextConfig",
	Source: "src/transformers/models/gemma4/configuration_gemma4.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "262144"}, {"hidden_size", "2304"}, {"intermediate_size", "9216"},
		{"num_hidden_layers", "30"}, {"num_attention_heads", "8"}, {"num_key_value_heads", "4"},
		{"head_dim", "256"}, {"max_position_embeddings", "131072"}, {"tie_word_embeddings", "true"},
		{"attention_bias", "false"}, {"sliding_window", "512"}, {"hidden_size_per_layer_input", "256"},
		{"attention_k_eq_v", "false"}, {"num_kv_shared_layers", "0"}, {"enable_moe_block", "false"},
		{"global_head_dim", "512"},
	},
}

// gemma4Class is transformers Gemma4Config, same file: its text_config is a
// Gemma4TextConfig.
var gemma4Class = configClass{
	Name:   "Gemma4Config",
	Source: "src/transformers/models/gemma4/configuration_gemma4.py@008e574391",
	Nested: map[string]string{"text_config": "gemma4_text"},
}

func init() {
	declareClass("gemma4_text", gemma4TextClass)
	declareClass("gemma4", gemma4Class)
}

// readGemma4Vision reads Gemma 4's vision_config as
// Gemma4ForConditionalGeneration builds its tower (vLLM's gemma4_mm.py at
// jsboige/vllm ffd91ee, :1065-1078: transformers' Gemma4VisionModel through
// AutoModel.from_config, its nn.Linear layers replaced by ReplicatedLinear,
// and the Gemma4MultimodalEmbedder). Without a vision_config transformers
// builds no tower (configuration_gemma4.py, Gemma4Config.__post_init__):
// none is counted. The published 26B-A4B and 31B towers are all this
// reads; the clipped linears of the E2B and E4B checkpoints (whose
// per-layer inputs are refused anyway) are refused by name.
func readGemma4Vision(o jsonObject, a *Arch) {
	v, ok := o.object("vision_config")
	if !ok {
		return
	}
	heads, kv, headDim, hidden := v.uint("num_attention_heads"), v.uint("num_key_value_heads"), v.uint("head_dim"), v.uint("hidden_size")
	if len(*o.errs) > 0 {
		return
	}
	switch {
	case v.boolOr("use_clipped_linears", false):
		v.fail("use_clipped_linears", "true: the clipping buffers of Gemma4ClippableLinear are not sized (the published 26B-A4B and 31B towers write false)")
	case kv != heads || budget.SatMul(heads, headDim) != hidden:
		v.fail("num_key_value_heads", "%d KV heads and %d heads of %d over hidden_size %d: membudget sizes the tower whose heads fill its width, one KV head a head (the published Gemma 4 towers)", kv, heads, headDim, hidden)
	}
	bidirectional := false
	if t, ok := o.object("text_config"); ok {
		// vLLM compares the value with "vision" alone (==, so a bool or
		// null is not it): decode leniently rather than refuse a bool.
		var mode string
		if t.has("use_bidirectional_attention") && json.Unmarshal(t.m["use_bidirectional_attention"], &mode) == nil {
			bidirectional = mode == "vision"
		}
	}
	a.Vision = &VisionTower{
		Kind:                "gemma4",
		BidirectionalVision: bidirectional,
		AudioConfig:         o.has("audio_config"),
		Hidden:              hidden,
		Intermediate:        v.uint("intermediate_size"),
		Layers:              v.uint("num_hidden_layers"),
		Heads:               heads,
		PatchSize:           v.uint("patch_size"),
		Channels:            3, // Gemma4VisionPatchEmbedder's input_proj takes 3 x patch_size^2
		OutHidden:           a.Hidden,
		PositionEmbeddings:  v.uint("position_embedding_size"),
		Standardize:         v.boolOr("standardize", false),
		ConfigLayers:        v.uint("num_hidden_layers"),
		ConfigHidden:        hidden,
	}
}

// gemma4Vision adds Gemma 4's vision tower and embedder, replicated on
// every rank (transformers models/gemma4/modeling_gemma4.py, vLLM's
// gemma4_mm.py:921-966, 1065-1078): the patch embedder's bias-free
// input_proj from 3 x patch_size^2 pixels and its learned table of 2 x
// position_embedding_size positions; with standardize, std_bias and
// std_scale; per layer four RMSNorms, the bias-free q, k, v and o
// projections and gated MLP (each a Gemma4ClippableLinear's .linear), q
// and k norms of a head (v_norm has no weight); the 2D rope's inv_freq,
// head_dim / 4 float32 (Gemma4VisionRotaryEmbedding); and the embedder's
// bias-free projection to the text width (its norms have no weight). The
// tower takes the quantization config only for bitsandbytes or
// compressed-tensors, or when its width and MLP are multiples of 64
// (gemma4_mm.py:1050-1063).
func (w *weights) gemma4Vision(v *VisionTower) {
	h, hd := v.Hidden, v.Hidden/v.Heads
	m := w.a.Quant.Method
	quantized := m != "" && (m == "bitsandbytes" || m == "compressed-tensors" || (h%64 == 0 && v.Intermediate%64 == 0))
	p := "vision_tower."
	w.towerLinear(p+"patch_embedder.input_proj", v.Channels*v.PatchSize*v.PatchSize, h, replicated, false, quantized)
	w.add(p+"patch_embedder.position_embedding_table", bytesOf(budget.SatMul(2*v.PositionEmbeddings, h), w.dt))
	if v.Standardize {
		w.add(p+"std_bias", bytesOf(h, w.dt))
		w.add(p+"std_scale", bytesOf(h, w.dt))
	}
	for i := range v.Layers {
		lp := fmt.Sprintf("%sencoder.layers.%d.", p, i)
		for _, n := range []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"} {
			w.add(lp+n+".weight", bytesOf(h, w.dt))
		}
		for _, n := range []string{"q_proj", "k_proj", "v_proj", "o_proj"} {
			w.towerLinear(lp+"self_attn."+n+".linear", h, h, replicated, false, quantized)
		}
		w.add(lp+"self_attn.q_norm.weight", bytesOf(hd, w.dt))
		w.add(lp+"self_attn.k_norm.weight", bytesOf(hd, w.dt))
		w.towerLinear(lp+"mlp.gate_proj.linear", h, v.Intermediate, replicated, false, quantized)
		w.towerLinear(lp+"mlp.up_proj.linear", h, v.Intermediate, replicated, false, quantized)
		w.towerLinear(lp+"mlp.down_proj.linear", v.Intermediate, h, replicated, false, quantized)
	}
	w.add("rotary_emb.vision_tower.inv_freq", bytesOf(hd/4, 4))
	w.towerLinear("embed_vision.embedding_projection", h, v.OutHidden, replicated, false, quantized)
}
