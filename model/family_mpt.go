package model

func init() {
	declareClass("mpt", mptClass)
	register("mpt", flat(readMPT), ckptFamily(mptRename, [][]moduleRule{mptLayer}, mptTop))
	registerArchitectures("mpt", "MptForCausalLM", "MPTForCausalLM")
}

// mptClass is MptConfig (transformers models/mpt/configuration_mpt.py):
// its own names d_model, n_heads, n_layers and max_seq_len, which its
// attribute_map reads hidden_size, num_attention_heads and
// num_hidden_layers as.
var mptClass = configClass{
	Name:   "MptConfig",
	Source: "src/transformers/models/mpt/configuration_mpt.py",
	Defaults: []classDefault{
		{"d_model", "2048"}, {"n_heads", "16"}, {"n_layers", "24"}, {"max_seq_len", "2048"}, {"vocab_size", "50368"},
	},
	Aliases: []classAlias{{From: "hidden_size", To: "d_model"}, {From: "num_attention_heads", To: "n_heads"}, {From: "num_hidden_layers", To: "n_layers"}},
}

// readMPT reads MPT (vllm/model_executor/models/mpt.py at d18bb7b): the
// config's d_model, n_heads, n_layers and max_seq_len (MptConfig's names
// for hidden_size, num_attention_heads, num_hidden_layers; MptConfig
// defaults 2048, 16, 24 and 2048), an ungated MLP of expansion_ratio
// (default 4) x d_model; Wqkv of hidden_size / heads with attn_config's
// kv_n_heads KV heads (or as many as heads), out_proj, and with
// attn_config.qk_ln q_ln and k_ln LayerNorms of d_model; every linear and
// LayerNorm biased unless no_bias (default True: mpt.py:232-239 drops the
// biases); ALiBi, so no rotary table. vLLM asserts attn_config.alibi, no
// prefix_lm and a tied head (mpt.py:73-74, 319): other configs are
// refused. The embedding (the head) and norm_f are built on every stage.
func readMPT(o jsonObject, a *Arch) {
	// MptConfig's attribute_map makes hidden_size, num_attention_heads and
	// num_hidden_layers its d_model, n_heads and n_layers; max_seq_len is
	// its own key, always set (default 2048), which vLLM derives the
	// maximum length from beside any max_position_embeddings.
	names := [][2]string{{"d_model", "hidden_size"}, {"n_heads", "num_attention_heads"}, {"n_layers", "num_hidden_layers"}}
	for _, k := range names {
		if !o.has(k[0]) && o.has(k[1]) {
			o.m[k[0]] = o.m[k[1]]
		}
	}
	for _, k := range names {
		if o.has(k[0]) {
			o.m[k[1]] = o.m[k[0]]
		}
	}
	if !o.has("max_position_embeddings") && o.has("max_seq_len") {
		o.m["max_position_embeddings"] = o.m["max_seq_len"]
	}
	hidden := o.uintOr("hidden_size", 2048)
	setDefault(o, "intermediate_size", o.uintOr("expansion_ratio", 4)*hidden)
	attn, _ := o.object("attn_config")
	var kv uint64
	qkLN := false
	if attn.m != nil {
		if !attn.boolOr("alibi", false) {
			attn.fail("alibi", "false: vLLM's MPTForCausalLM asserts ALiBi attention (mpt.py:73-74)")
		}
		if attn.boolOr("prefix_lm", false) {
			attn.fail("prefix_lm", "true: vLLM's MPTForCausalLM asserts a causal model (mpt.py:72)")
		}
		kv = attn.uintOr("kv_n_heads", 0)
		qkLN = attn.boolOr("qk_ln", false)
	} else {
		o.fail("attn_config", "missing: MptAttentionConfig's default has no ALiBi, which vLLM asserts (mpt.py:73-74)")
	}
	if kv > 0 {
		setDefault(o, "num_key_value_heads", kv)
	}
	readCommon(o, a)
	a.derivedHeadDim(o)
	a.Rotary, a.RotaryDim = nil, 0
	if a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true); !a.TiedEmbeddings {
		o.fail("tie_word_embeddings", "false: vLLM's MPTForCausalLM uses the embedding as its head (mpt.py:319-323)")
	}
	if qkLN && a.KVHeads != a.Heads {
		o.fail("attn_config.qk_ln", "with %d KV heads of %d: k_ln spans d_model, not the KV heads, which membudget does not size", a.KVHeads, a.Heads)
	}
	biased := !o.boolOr("no_bias", true)
	a.AttnBias, a.OutBias, a.MLPBias = biased, biased, biased
	a.QKNorm = qkLN
	t := &a.tree
	t.attn, t.attnOut, t.mlp, t.mlpNames, t.ungated = "attn", "out_proj", "ffn", [2]string{"up_proj", "down_proj"}, true
	t.embed, t.norm, t.norms, t.layerNorm = "transformer.wte", "transformer.norm_f", []string{"norm_1", "norm_2"}, biased
	t.qkNorm = qkNormFull
	t.embedEveryStage, t.normEveryStage = true, true
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}

var (
	mptRename = [][2]string{
		{"transformer.blocks.", "model.layers."},
		{"transformer.wte", "model.embed_tokens"},
		{"transformer.norm_f", "model.norm"},
	}
	// mptLayer: mosaicml/mpt-7b's block (the model's own modeling_mpt.py
	// and transformers models/mpt/modeling_mpt.py): Wqkv fused, q_ln and
	// k_ln, out_proj, ffn.up_proj and down_proj, norm_1 and norm_2.
	mptLayer = []moduleRule{
		{module: "attn.Wqkv", split: column, heads: qkvRows},
		{module: "attn.q_ln"},
		{module: "attn.k_ln"},
		{module: "attn.out_proj", split: row},
		{module: "ffn.up_proj", split: column},
		{module: "ffn.down_proj", split: row},
		{module: "norm_1"},
		{module: "norm_2"},
	}
	// mptTop: wte (the head too) and norm_f on every stage.
	mptTop = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.norm", place: allStages},
	}
)
