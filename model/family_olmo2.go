package model

func init() {
	// Olmo2ForCausalLM's modules are transformers' own (modeling_olmo2.py),
	// built by vLLM's Transformers backend: OLMo 3's names, q_norm and
	// k_norm the whole projection wide and whole on every rank, norms
	// after the attention and after the MLP; Llama's stages.
	register("olmo2", flat(readOlmo2), ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, postNorms}))
	registerArchitectures("olmo2", "Olmo2ForCausalLM")
	declareClass("olmo2", olmo2Class)
}

// readOlmo2 reads OLMo 2 (Olmo2ForCausalLM) as vLLM serves it at d18bb7b:
// through its Transformers backend (registry.py:695 maps it to
// TransformersForCausalLM, since PR #48100 of 2026-07-09; olmo2.py before
// it built the same parameters natively, with a rotary cos/sin table).
//
// The backend builds transformers' Olmo2Model on the meta device
// (transformers/base.py:158-166) and replaces its modules: q, k and v are
// fused into a head-sharded QKVParallelLinear and o_proj made row-parallel
// (fusers/qkv.py update_attrs), gate and up into a MergedColumnParallelLinear
// (fusers/glu.py), the RMSNorms into vLLM's, whose TP-aware form gathers a
// sharded input to normalise it over the whole width (fusers/rms_norm.py:
// 81-107), so q_norm and k_norm stay whole on every rank; the embedding
// becomes a VocabParallelEmbedding and the head a ParallelLMHead
// (utils.py:226, causal.py:44-59). Were a fusion not to match, the
// base_model_tp_plan of Olmo2Config (colwise_gather_output for q, k and
// v, rowwise_split_input for o_proj, colwise/rowwise for the MLP) shards
// the same matrices (utils.py:131-137), the same bytes a rank except k
// and v past num_key_value_heads ranks. Pipeline stages follow
// base_model_pp_plan: the embedding on the first stage (and the last when
// tied), norm and head on the last (base.py:357-428), as Llama's.
//
// The KV cache is one Attention a layer (base.py:526-612): full unless
// the config has a sliding_window (cache_config.sliding_window, which
// attention.py:259-267 gives every layer) or layer_types, whose
// sliding_attention layers slide; OLMo 2's configs have neither.
//
// The rotary embedding is transformers' Olmo2RotaryEmbedding, which keeps
// only inv_freq (head_dim / 2 float32, a buffer the meta-device init
// leaves real; original_inv_freq is the same tensor) and computes cos and
// sin each forward (modeling_olmo2.py@000c33fd): no cos/sin table. The
// releases before PR #48100 built olmo2.py natively, with vLLM's rotary
// cos/sin table of max_position_embeddings x head_dim in the model dtype
// (1 MiB for OLMo-2-1124-13B in bf16), which is not counted for them:
// the model reads one layout, main's.
func readOlmo2(o jsonObject, a *Arch) {
	readCommon(o, a)
	// Olmo2Attention: q, k, v and o_proj take bias=config.attention_bias.
	a.AttnBias = o.boolOr("attention_bias", false)
	a.OutBias = a.AttnBias
	a.QKNorm = true
	a.tree.qkNorm = qkNormFull
	a.tree.norms = []string{"post_attention_layernorm", "post_feedforward_layernorm"}
	a.tree.hfRotary = true
	a.uniformLayers(o, o.uintOr("sliding_window", 0))
}

// olmo2Class is transformers Olmo2Config, read at huggingface/transformers@008e574391.
var olmo2Class = configClass{
	Name:   "Olmo2Config",
	Source: "src/transformers/models/olmo2/configuration_olmo2.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "50304"}, {"hidden_size", "4096"}, {"intermediate_size", "11008"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"max_position_embeddings", "2048"},
		{"tie_word_embeddings", "false"}, {"attention_bias", "false"},
	},
}
