package model

func init() {
	register("qwen3", flat(readQwen3), ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms}))
}

// readQwen3 reads Qwen3 (and Qwen3-VL's language model): per-head q and k
// norms, q/k/v biased by attention_bias.
func readQwen3(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false)
	a.QKNorm = true
	a.uniformLayers(o, 0)
}

// qwen3Class is transformers Qwen3Config, read at huggingface/transformers@008e574391. head_dim defaults to 128 and num_key_value_heads to 32, whatever hidden_size and the heads.
var qwen3Class = configClass{
	Name:   "Qwen3Config",
	Source: "src/transformers/models/qwen3/configuration_qwen3.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "151936"}, {"hidden_size", "4096"}, {"intermediate_size", "22016"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"num_key_value_heads", "32"},
		{"head_dim", "128"}, {"max_position_embeddings", "32768"}, {"tie_word_embeddings", "false"},
		{"attention_bias", "false"},
	},
}

func init() { declareClass("qwen3", qwen3Class) }
