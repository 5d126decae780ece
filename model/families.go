package model

import (
	"slices"
	"strings"
)

// readOPT reads facebook/opt (vllm/model_executor/models/opt.py):
// multi-head attention with biases, an ungated ReLU MLP (ffn_dim), learned
// positions, LayerNorms, and embeddings of word_embed_proj_dim projected in
// and out; everything outside the layers is built on every pipeline stage.
func readOPT(o jsonObject, a *Arch) {
	a.Dtype = readDtype(o)
	a.Hidden = o.uint("hidden_size")
	a.NumLayers = o.uint("num_hidden_layers")
	a.Heads = o.uint("num_attention_heads")
	a.KVHeads = a.Heads
	a.Intermediate = o.uint("ffn_dim")
	a.Vocab = o.uint("vocab_size")
	a.MaxPosition = o.uint("max_position_embeddings")
	a.MaxLenKeys = readMaxLenKeys(o)
	a.derivedHeadDim(o) // opt.py:87 ignores any head_dim
	// transformers' PretrainedConfig ties embeddings unless told otherwise.
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	bias := o.boolOr("enable_bias", true)
	a.AttnBias, a.OutBias, a.MLPBias = bias, bias, bias
	a.NormsPerLayer = 2
	a.tree = llamaTree()
	t := &a.tree
	t.attnOut, t.mlpNames, t.ungated = "out_proj", [2]string{"fc1", "fc2"}, true
	t.embed, t.norm, t.norms = "model.decoder.embed_tokens", "model.decoder.final_layer_norm", []string{"self_attn_layer_norm", "final_layer_norm"}
	t.layerNorm = true
	// opt.py:205-253 and OPTForCausalLM build everything outside the
	// layers on every stage.
	t.onEveryStage()
	t.positions = a.MaxPosition + 2 // OPTLearnedPositionalEmbedding's offset of 2 (opt.py:59-68)
	if d := o.uintOr("word_embed_proj_dim", a.Hidden); d != a.Hidden {
		t.embedDim = d
	}
	if !o.boolOr("do_layer_norm_before", true) || o.boolOr("_remove_final_layer_norm", false) {
		t.norm = "" // opt.py:247-253
	}
	// opt.py's mapper puts decoder. under model.; the layers are named
	// model.layers.N here, as every family's.
	t.rename = [][2]string{{"model.decoder.layers.", "model.layers."}, {"decoder.layers.", "model.layers."}, {"decoder.", "model.decoder."}}
	a.Rotary = nil // learned absolute positions
	a.uniformLayers(o, 0)
}

// readPhi reads microsoft/phi-2 (vllm/model_executor/models/phi.py):
// biased attention and MLP (fc1/fc2, ungated), one LayerNorm per layer, a
// head with a bias, partial rotary (partial_rotary_factor, default 0.5);
// everything outside the layers on every pipeline stage.
func readPhi(o jsonObject, a *Arch) {
	if !o.has("partial_rotary_factor") {
		o.m["partial_rotary_factor"] = []byte("0.5") // transformers PhiConfig's default
	}
	readCommon(o, a)
	a.AttnBias, a.OutBias, a.MLPBias = true, true, true
	a.NormsPerLayer = 1
	t := &a.tree
	t.attnOut, t.mlpNames, t.ungated = "dense", [2]string{"fc1", "fc2"}, true
	t.norm, t.norms, t.layerNorm, t.lmHeadBias = "model.final_layernorm", []string{"input_layernorm"}, true, true
	// phi.py:216-226, 288-294: the embedding, final LayerNorm and head
	// are built on every stage.
	t.onEveryStage()
	a.uniformLayers(o, 0)
}

// readGptOss reads openai/gpt-oss (vllm/model_executor/models/gpt_oss.py):
// every layer MoE with a biased router and biased experts, biased attention
// with per-head sinks, sliding-window attention on the even layers (vLLM
// reads the layer index, not layer_types: gpt_oss.py:157), a YaRN rope
// table in float32, and the embedding, norm and head on every stage.
func readGptOss(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias, a.OutBias = true, true
	a.Experts = o.uint("num_local_experts")
	a.ExpertsPerToken = o.uintOr("num_experts_per_tok", o.uintOr("experts_per_token", 0))
	if a.ExpertsPerToken == 0 {
		o.fail("num_experts_per_tok", "missing (required)")
	}
	a.MoEIntermediate = a.Intermediate
	t := &a.tree
	t.attn, t.embed, t.sinks = "attn", "model.embedding", true
	t.router, t.routerBias, t.expertBias = "router", true, true
	t.onEveryStage()
	window := o.uint("sliding_window")
	a.layerTypes = nil
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		a.Layers[i].MoE = true
		if i%2 == 0 {
			a.Layers[i].Kind = SlidingAttention
		}
	}
	a.SlidingWindow = window
	a.Rotary[0].Dtype = "float32" // gpt_oss.py:91-107 builds its rope in float32
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

// readQwen3Next reads Qwen3-Next (vllm/model_executor/models/qwen3_next.py):
// gated-delta-net layers with full attention every full_attention_interval
// (or layer_types), attention with an output gate and partial rotary, MoE
// with a gated shared expert on the layers num_experts,
// decoder_sparse_step and mlp_only_layers select (qwen3_next.py:405-412);
// the embedding and head on every stage, the final norm on the last.
func readQwen3Next(o jsonObject, a *Arch) {
	if !o.has("partial_rotary_factor") {
		o.m["partial_rotary_factor"] = []byte("0.25") // transformers Qwen3NextConfig's default
	}
	readCommon(o, a)
	a.qwenHybrid(o)
	if o.has("num_experts") && o.uintOr("num_experts", 0) > 0 {
		a.qwenMoE(o.uint("num_experts"), o.uint("num_experts_per_tok"), o.uint("moe_intermediate_size"),
			o.uintOr("shared_expert_intermediate_size", 0))
		a.sparseLayers(o)
	}
	// qwen3_next.py:603-606 and 794-798 build the embedding and the head on
	// every stage; :622-625 the final norm on the last only.
	a.tree.embedEveryStage, a.tree.headEveryStage = true, true
	a.tree.packed = map[string][]string{"qkv_proj": {"q_proj", "k_proj", "v_proj"}, "gate_up_proj": {"gate_proj", "up_proj"}}
}

// readQwen35Text reads Qwen3.5's dense language model (vllm/model_executor/
// models/qwen3_5.py): Qwen3-Next's layers with a dense MLP on every layer,
// whatever MoE keys the config holds, as vLLM decides by model_type
// (qwen3_5.py:162-177); the recurrent state in mamba_ssm_dtype; the
// embedding on every pipeline stage (qwen3_5.py:244-247), the norm and
// head on the last. Its checkpoint splits in_proj_qkvz and in_proj_ba in
// two.
func readQwen35Text(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.qwenHybrid(o)
	if d := o.str("mamba_ssm_dtype"); d != "" {
		if _, ok := dtypeBytes[d]; !ok {
			o.fail("mamba_ssm_dtype", "unsupported dtype %q; want bfloat16, float16 or float32", d)
		}
		a.StateDtype = d
	}
	a.tree.embedEveryStage = true
	a.tree.rename = [][2]string{{"model.language_model.", "model."}, {"model.visual.", "visual."}}
	a.tree.packed = map[string][]string{
		"qkv_proj": {"q_proj", "k_proj", "v_proj"}, "gate_up_proj": {"gate_proj", "up_proj"},
		"in_proj_qkvz": {"in_proj_qkv", "in_proj_z"}, "in_proj_ba": {"in_proj_b", "in_proj_a"},
	}
	a.tree.baWholeUnderPackedInt = true
}

// readQwen35MoEText reads Qwen3.5-MoE's language model (qwen3_5.py:162-168):
// Qwen3.5's layers with Qwen3-Next's MoE block on every layer, whatever
// decoder_sparse_step or mlp_only_layers say; the MoE sizes default as
// vLLM's Qwen3_5MoeTextConfig has them
// (vllm/transformers_utils/configs/qwen3_5_moe.py:46-50).
func readQwen35MoEText(o jsonObject, a *Arch) {
	readQwen35Text(o, a)
	a.qwenMoE(o.uintOr("num_experts", 256), o.uintOr("num_experts_per_tok", 8), o.uintOr("moe_intermediate_size", 512),
		o.uintOr("shared_expert_intermediate_size", 512))
	for i := range a.Layers {
		a.Layers[i].MoE = a.Experts > 0
	}
}

// qwenHybrid reads what Qwen3-Next and Qwen3.5 share: the layer pattern,
// the delta net, the gated attention and the MTP layers.
func (a *Arch) qwenHybrid(o jsonObject) {
	a.QKNorm = true
	a.AttnOutputGate = o.boolOr("attn_output_gate", true)
	a.AttnBias = o.boolOr("qkv_bias", false)
	a.DeltaNet = readDeltaNet(o)
	if a.layerTypes == nil {
		interval := o.uintOr("full_attention_interval", 4)
		if interval == 0 {
			o.fail("full_attention_interval", "must be above 0")
			interval = 1
		}
		a.layerTypes = make([]string, a.NumLayers)
		for i := range a.layerTypes {
			a.layerTypes[i] = "linear_attention"
			if (uint64(i)+1)%interval == 0 {
				a.layerTypes[i] = "full_attention"
			}
		}
	}
	a.uniformLayers(o, 0)
	a.MTPLayers = o.uintOr("mtp_num_hidden_layers", o.uintOr("num_nextn_predict_layers", 0))
}

// qwenMoE gives the model Qwen3-Next's MoE block (qwen3_next.py:100-190):
// experts of inter each, a gated shared expert of shared (none for 0);
// the caller says which layers have it.
func (a *Arch) qwenMoE(experts, topK, inter, shared uint64) {
	a.Experts, a.ExpertsPerToken, a.MoEIntermediate, a.SharedIntermediate = experts, topK, inter, shared
	if shared > 0 {
		a.SharedExperts = 1
	}
	a.tree.shared, a.tree.sharedGate = "shared_expert", true
}

// readDeltaNet reads the gated delta net's shape (linear_* keys).
func readDeltaNet(o jsonObject) *DeltaNetShape {
	d := &DeltaNetShape{
		NumKeyHeads:   o.uint("linear_num_key_heads"),
		NumValueHeads: o.uint("linear_num_value_heads"),
		KeyHeadDim:    o.uint("linear_key_head_dim"),
		ValueHeadDim:  o.uint("linear_value_head_dim"),
		ConvKernel:    o.uint("linear_conv_kernel_dim"),
	}
	for _, f := range []struct {
		key string
		v   uint64
	}{{"linear_num_key_heads", d.NumKeyHeads}, {"linear_num_value_heads", d.NumValueHeads}, {"linear_key_head_dim", d.KeyHeadDim},
		{"linear_value_head_dim", d.ValueHeadDim}, {"linear_conv_kernel_dim", d.ConvKernel}} {
		if f.v > 1<<14 {
			o.fail(f.key, "%d is beyond any real model (at most %d)", f.v, 1<<14)
		}
	}
	if d.NumKeyHeads > 0 && d.NumValueHeads%d.NumKeyHeads != 0 {
		o.fail("linear_num_value_heads", "%d is not a multiple of linear_num_key_heads %d", d.NumValueHeads, d.NumKeyHeads)
	}
	return d
}

// nemotronBlocks are hybrid_override_pattern's characters
// (vllm/model_executor/models/nemotron_h.py:526-529).
var nemotronBlocks = map[rune]Layer{
	'M': {Kind: Mamba},
	'*': {Kind: FullAttention, NoRoPE: true},
	'-': {Kind: NoMixer},
	'E': {Kind: NoMixer, MoE: true},
}

// readNemotronH reads Nemotron-H (nemotron_h.py): one block per layer as
// hybrid_override_pattern says (M Mamba2, * attention without rotary, -
// ungated relu2 MLP, E MoE), the SSM state in mamba_ssm_cache_dtype.
func readNemotronH(o jsonObject, a *Arch) {
	if !o.has("head_dim") && o.has("attention_head_dim") {
		o.m["head_dim"] = o.m["attention_head_dim"]
	}
	if o.has("intermediate_size") && strings.HasPrefix(strings.TrimSpace(string(o.m["intermediate_size"])), "[") {
		o.fail("intermediate_size", "a list of per-layer sizes is not supported; one integer")
		return
	}
	readCommon(o, a)
	a.Rotary = nil // nemotron_h.py: attention without rotary embeddings
	t := &a.tree
	t.attn, t.mlp, t.mlpNames, t.ungated, t.mixerOnly = "mixer", "mixer", [2]string{"up_proj", "down_proj"}, true, true
	t.norm, t.norms = "model.norm_f", []string{"norm"}
	// nemotron_h.py:561, 595 and 814: the embedding, norm_f and head on
	// every stage.
	t.onEveryStage()
	t.routerDtype = routerFP32Fallback
	t.mambaConvBias, t.mambaProjBias = o.boolOr("use_conv_bias", true), o.boolOr("use_bias", false)
	t.rename = [][2]string{{"backbone.", "model."}}
	a.MLPBias = o.boolOr("mlp_bias", false)
	a.NormsPerLayer = 1
	pattern := o.str("hybrid_override_pattern")
	if uint64(len(pattern)) != a.NumLayers {
		o.fail("hybrid_override_pattern", "has %d blocks for %d layers", len(pattern), a.NumLayers)
		return
	}
	if a.NumLayers > 1<<16 {
		o.fail("num_hidden_layers", "%d is not a plausible layer count", a.NumLayers)
		return
	}
	a.Layers = make([]Layer, 0, a.NumLayers)
	for i, c := range pattern {
		l, ok := nemotronBlocks[c]
		if !ok {
			o.fail("hybrid_override_pattern", "block %d: %q is not M, *, - or E", i, c)
			return
		}
		a.Layers = append(a.Layers, l)
	}
	if strings.Contains(pattern, "M") {
		heads, dim := o.uint("mamba_num_heads"), o.uint("mamba_head_dim")
		a.Mamba = &MambaShape{Version: 2, NumHeads: heads, HeadDim: dim, StateSize: o.uint("ssm_state_size"),
			NGroups: o.uint("n_groups"), ConvKernel: o.uint("conv_kernel"), Intermediate: heads * dim, ChunkSize: o.uintOr("chunk_size", 0)}
		for _, f := range []struct {
			key string
			v   uint64
		}{{"mamba_num_heads", heads}, {"mamba_head_dim", dim}, {"ssm_state_size", a.Mamba.StateSize}, {"n_groups", a.Mamba.NGroups}, {"conv_kernel", a.Mamba.ConvKernel}} {
			if f.v == 0 || f.v > 1<<14 {
				o.fail(f.key, "%d: want a size in [1, %d]", f.v, 1<<14)
			}
		}
		if a.Mamba.NGroups > 0 && heads%a.Mamba.NGroups != 0 {
			o.fail("n_groups", "%d does not divide mamba_num_heads %d", a.Mamba.NGroups, heads)
		}
	}
	if d := o.str("mamba_ssm_cache_dtype"); d != "" {
		if _, ok := dtypeBytes[d]; !ok {
			o.fail("mamba_ssm_cache_dtype", "unsupported dtype %q; want bfloat16, float16 or float32", d)
		}
		a.StateDtype = d
	}
	if strings.Contains(pattern, "E") {
		if o.has("moe_latent_size") {
			o.fail("moe_latent_size", "latent MoE (fc1_latent_proj, fc2_latent_proj) is not supported")
			return
		}
		a.Experts = o.uint("n_routed_experts")
		a.ExpertsPerToken = o.uint("num_experts_per_tok")
		a.MoEIntermediate = o.uint("moe_intermediate_size")
		a.SharedExperts = o.uintOr("n_shared_experts", 0)
		a.SharedIntermediate = a.SharedExperts * o.uintOr("moe_shared_expert_intermediate_size", 0)
		a.ScoreCorrectionBias = true // nemotron_h.py:157-160
	}
	a.MTPLayers = o.uintOr("num_nextn_predict_layers", o.uintOr("mtp_num_hidden_layers", 0))
}

// readGlm4MoE reads GLM-4.5 (vllm/model_executor/models/glm4_moe.py): MoE
// from first_k_dense_replace on, a float32 router with its routing bias,
// shared experts, biased q/k/v, optional qk norms, partial rotary (0.5 by
// default), MTP layers past num_hidden_layers.
func readGlm4MoE(o jsonObject, a *Arch) {
	if !o.has("partial_rotary_factor") {
		o.m["partial_rotary_factor"] = []byte("0.5") // glm4_moe.py:279
	}
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false)
	a.QKNorm = o.boolOr("use_qk_norm", false)
	a.Experts = o.uint("n_routed_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = o.uint("moe_intermediate_size")
	a.SharedExperts = o.uintOr("n_shared_experts", 0)
	a.SharedIntermediate = a.SharedExperts * a.MoEIntermediate
	a.ScoreCorrectionBias = true
	a.tree.routerDtype = routerFP32
	a.MTPLayers = o.uintOr("num_nextn_predict_layers", 0)
	first := o.uintOr("first_k_dense_replace", 0)
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		a.Layers[i].MoE = a.Experts > 0 && uint64(i) >= first
	}
}

// readMiniMaxM2 reads MiniMax-M2 (vllm/model_executor/models/minimax_m2.py):
// every layer MoE under block_sparse_moe with a float32 router and routing
// bias, q and k norms over the whole projection divided among the ranks,
// rotary over rotary_dim, num_mtp_modules MTP layers.
func readMiniMaxM2(o jsonObject, a *Arch) {
	readCommon(o, a)
	if o.has("rotary_dim") {
		a.RotaryDim = o.uint("rotary_dim")
		if a.RotaryDim == 0 || a.RotaryDim > a.HeadDim {
			o.fail("rotary_dim", "%d: want a width in [1, head_dim %d]", a.RotaryDim, a.HeadDim)
		}
		a.Rotary[0].Dim = a.RotaryDim
	}
	a.AttnBias = o.boolOr("qkv_bias", false)
	a.QKNorm = o.boolOr("use_qk_norm", false)
	a.tree.qkNorm = qkNormSharded
	a.Experts = o.uint("num_local_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = a.Intermediate
	a.ScoreCorrectionBias = o.boolOr("use_routing_bias", false)
	if s := o.uintOr("shared_intermediate_size", 0); s > 0 {
		o.fail("shared_intermediate_size", "%d: MiniMax-M2 shared experts are not supported", s)
	}
	a.tree.mlp, a.tree.routerDtype = "block_sparse_moe", routerFP32
	a.MTPLayers = o.uintOr("num_mtp_modules", 0)
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		a.Layers[i].MoE = true
	}
}

// readOlmo3 reads OLMo 3 (vllm/model_executor/models/olmo3.py): head_dim
// from hidden_size / heads, whole-width q and k norms, a norm after the
// attention and one after the MLP, sliding layers by layer_types; the
// embedding, final norm and head on every pipeline stage.
func readOlmo3(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.derivedHeadDim(o) // olmo3.py:95-96 ignores any head_dim
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.Rotary[0].Dim = a.RotaryDim
	a.AttnBias = o.boolOr("attention_bias", false)
	a.QKNorm = true
	a.tree.qkNorm = qkNormFull
	a.tree.norms = []string{"post_attention_layernorm", "post_feedforward_layernorm"}
	a.tree.onEveryStage() // olmo3.py:285-300, 372-379
	a.uniformLayers(o, 0)
}

// readExaone4 reads EXAONE 4 (vllm/model_executor/models/exaone4.py):
// per-head q and k norms, a norm after the attention and one after the
// MLP, sliding layers by layer_types.
func readExaone4(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false)
	a.OutBias = a.AttnBias
	a.MLPBias = o.boolOr("mlp_bias", false)
	a.QKNorm = true
	a.tree.norms = []string{"post_attention_layernorm", "post_feedforward_layernorm"}
	a.uniformLayers(o, 0)
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

// readDeepSeek reads DeepSeek V2/V3/V3.2, Kimi-K2 and GLM-MoE-DSA
// (vllm/model_executor/models/deepseek_v2.py): multi-head latent attention,
// MoE from first_k_dense_replace on every moe_layer_freq-th layer with
// shared experts, V3.2's lightning indexer (index_topk), MTP layers past
// num_hidden_layers.
func readDeepSeek(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.MLA = true
	a.KVLoraRank = o.uint("kv_lora_rank")
	a.QLoraRank = o.uintOr("q_lora_rank", 0)
	a.QKNopeHeadDim = o.uint("qk_nope_head_dim")
	a.QKRopeHeadDim = o.uint("qk_rope_head_dim")
	a.VHeadDim = o.uint("v_head_dim")
	a.HeadDim = a.QKNopeHeadDim + a.QKRopeHeadDim
	a.RotaryDim = a.QKRopeHeadDim
	a.Rotary[0].Dim = a.RotaryDim
	a.KVHeads = a.Heads // MLA: every head reads the one latent
	a.Experts = o.uintOr("n_routed_experts", 0)
	a.SharedExperts = o.uintOr("n_shared_experts", 0)
	a.MoEIntermediate = o.uintOr("moe_intermediate_size", 0)
	a.SharedIntermediate = a.SharedExperts * a.MoEIntermediate
	a.ExpertsPerToken = o.uintOr("num_experts_per_tok", 0)
	a.ScoreCorrectionBias = o.str("topk_method") == "noaux_tc"
	a.MTPLayers = o.uintOr("num_nextn_predict_layers", 0)
	a.tree.fusedQKVA = a.QLoraRank > 0
	a.tree.packed = map[string][]string{"gate_up_proj": {"gate_proj", "up_proj"}, "fused_qkv_a_proj": {"q_a_proj", "kv_a_proj_with_mqa"}}
	// moe_router_dtype float32 (and every glm_moe_dsa) sets only the
	// router's output dtype: GateLinear gets no params_dtype, so its
	// weight is in the model dtype (deepseek_v2.py:123-133, 308-314;
	// layers/fused_moe/router/gate_linear.py:49-75). The string is read so
	// that a value of the wrong type is an error naming the key.
	o.str("moe_router_dtype")
	if a.ModelType == "kimi_k2" || a.ModelType == "kimi_k25" {
		a.tree.rename = [][2]string{{"language_model.model.", "model."}, {"language_model.lm_head", "lm_head"}}
	}
	firstDense := o.uintOr("first_k_dense_replace", 0)
	freq := o.uintOr("moe_layer_freq", 1)
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		// vLLM deepseek_v2.py DeepseekV2DecoderLayer: MoE when
		// n_routed_experts is set, layer >= first_k_dense_replace and
		// layer % moe_layer_freq == 0.
		a.Layers[i].MoE = a.Experts > 0 && uint64(i) >= firstDense && freq > 0 && uint64(i)%freq == 0
	}
	if a.Experts > 0 && (a.MoEIntermediate == 0 || a.ExpertsPerToken == 0) {
		o.fail("moe_intermediate_size", "n_routed_experts is set but moe_intermediate_size or num_experts_per_tok is missing")
	}
	if o.has("index_topk") {
		a.Indexer = &IndexerShape{HeadDim: o.uint("index_head_dim"), NumHeads: o.uint("index_n_heads"), TopK: o.uint("index_topk")}
		if a.Indexer.HeadDim == 0 || a.Indexer.HeadDim > 1<<14 || a.Indexer.NumHeads == 0 || a.Indexer.NumHeads > 1<<14 {
			o.fail("index_head_dim", "indexer of %d heads of %d: want sizes in [1, %d]", a.Indexer.NumHeads, a.Indexer.HeadDim, 1<<14)
		}
		if a.QLoraRank == 0 {
			o.fail("q_lora_rank", "the indexer projects from the query latent: q_lora_rank must be set with index_topk")
		}
		a.indexCache(o)
		// deepseek_v2.py:1115-1120: the indexer's rope is a second table
		// of the same shape, built with the first layer that has an
		// indexer.
		if slices.ContainsFunc(a.Layers, func(l Layer) bool { return !l.SharesTopK }) {
			idx := a.Rotary[0]
			idx.Name = "rotary_emb_indexer"
			a.Rotary = append(a.Rotary, idx)
		}
	}
}

// indexCache reads which layers reuse an earlier layer's top-k instead of
// building an indexer (deepseek_v2.py:1084-1110, IndexCache): with
// index_topk_pattern, layer i skips when its character is "S"; otherwise
// when max(i - index_skip_topk_offset + 1, 0) is not a multiple of
// index_topk_freq (defaults 2 and 1: every layer has one).
func (a *Arch) indexCache(o jsonObject) {
	if o.has("index_topk_pattern") {
		pattern := o.str("index_topk_pattern")
		for i := range a.Layers {
			a.Layers[i].SharesTopK = i < len(pattern) && pattern[i] == 'S'
		}
		return
	}
	freq := o.uintOr("index_topk_freq", 1)
	offset := o.uintOr("index_skip_topk_offset", 2)
	if freq == 0 {
		o.fail("index_topk_freq", "must be above 0 (vLLM takes the layer index modulo it)")
		return
	}
	if offset > 1<<16 {
		o.fail("index_skip_topk_offset", "%d is beyond any real model's layers", offset)
		return
	}
	for i := range a.Layers {
		n := max(int64(i)-int64(offset)+1, 0)
		a.Layers[i].SharesTopK = uint64(n)%freq != 0
	}
}

// gemmaDefaultHeadDim is transformers GemmaConfig's head_dim, which the
// published Gemma 1 configs state and a config that leaves it out gets
// instead of hidden_size / num_attention_heads.
const gemmaDefaultHeadDim = 256

// readGemma reads Gemma 1 (vllm/model_executor/models/gemma.py): Llama's
// layers without any bias (gemma.py:157-171), GemmaRMSNorm before the
// attention and the MLP (gemma.py:232-235), and the head tied to the
// embedding, which vLLM asserts (gemma.py:349-350).
func readGemma(o jsonObject, a *Arch) {
	setDefault(o, "head_dim", gemmaDefaultHeadDim)
	readCommon(o, a)
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true) // GemmaConfig's default
	if !a.TiedEmbeddings {
		o.fail("tie_word_embeddings", "false: vLLM's GemmaForCausalLM requires the head tied to the embedding (gemma.py:349-350)")
	}
	a.uniformLayers(o, 0)
}

// readGranite reads IBM Granite 3 (vllm/model_executor/models/granite.py):
// Llama's layers, q/k/v and o_proj biased by attention_bias (or bias), the
// MLP by mlp_bias. Its embedding, residual and attention multipliers and
// logits_scaling scale activations and logits, and take no memory; they are
// read so that a value of the wrong type is an error naming its key.
func readGranite(o jsonObject, a *Arch) {
	readCommon(o, a)
	for _, k := range []string{"embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling"} {
		o.number(k)
	}
	// granite.py:197-200: attention_bias, or the bias of Smaug-style configs.
	a.AttnBias = o.boolOr("attention_bias", false) || o.boolOr("bias", false)
	a.OutBias = a.AttnBias
	a.MLPBias = o.boolOr("mlp_bias", false)
	a.uniformLayers(o, 0)
}

// readQwen2MoE reads Qwen1.5-MoE and Qwen2-MoE (vllm/model_executor/models/
// qwen2_moe.py): Qwen2's attention with biased q/k/v and no window
// (qwen2_moe.py:228-266); MoE on the layers decoder_sparse_step selects and
// mlp_only_layers leaves out (qwen2_moe.py:310-325), each with an
// unquantized router, a shared expert of shared_expert_intermediate_size
// and its sigmoid gate, a [1, hidden] linear built even without a shared
// expert (qwen2_moe.py:137-164); the other layers a dense MLP of
// intermediate_size.
func readQwen2MoE(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = true
	a.Experts = o.uint("num_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = o.uint("moe_intermediate_size")
	a.SharedIntermediate = o.uint("shared_expert_intermediate_size")
	if a.SharedIntermediate > 0 {
		a.SharedExperts = 1
	}
	a.tree.shared, a.tree.sharedGate = "shared_expert", true
	a.uniformLayers(o, 0)
	a.sparseLayers(o)
}
