package model

func init() {
	register("exaone4", flat(readExaone4), ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, postNorms}))
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
	// Exaone4Config.__post_init__: without layer_types, each
	// sliding_window_pattern-th layer full (an integer; a string pattern is
	// refused, naming the key).
	if a.layerTypes == nil && o.has("sliding_window") {
		a.periodicLayers(o, o.uintOr("sliding_window_pattern", 0))
	}
	a.uniformLayers(o, 0)
}

// exaone4Class is transformers Exaone4Config, read at huggingface/transformers@008e574391. num_key_value_heads defaults to 32.
var exaone4Class = configClass{
	Name:   "Exaone4Config",
	Source: "src/transformers/models/exaone4/configuration_exaone4.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "102400"}, {"hidden_size", "4096"}, {"intermediate_size", "16384"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"num_key_value_heads", "32"},
		{"max_position_embeddings", "2048"}, {"tie_word_embeddings", "false"}, {"sliding_window", "4096"},
		{"sliding_window_pattern", "4"},
	},
}

func init() { declareClass("exaone4", exaone4Class) }
