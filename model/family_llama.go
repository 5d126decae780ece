package model

func init() {
	register("llama", flat(readLlama), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
}

// readLlama reads Llama (vllm/model_executor/models/llama.py), whose tree
// (llamaTree) most families follow: q/k/v and o_proj biased by
// attention_bias, the MLP by mlp_bias.
func readLlama(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false)
	// llama.py:265-276: attention_bias biases o_proj too.
	a.OutBias = a.AttnBias
	a.MLPBias = o.boolOr("mlp_bias", false)
	a.uniformLayers(o, 0)
}

// llamaClass is transformers LlamaConfig, read at huggingface/transformers@008e574391. num_key_value_heads and head_dim default to None: the heads, and hidden_size / heads.
var llamaClass = configClass{
	Name:   "LlamaConfig",
	Source: "src/transformers/models/llama/configuration_llama.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "32000"}, {"hidden_size", "4096"}, {"intermediate_size", "11008"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"max_position_embeddings", "2048"},
		{"tie_word_embeddings", "false"}, {"attention_bias", "false"}, {"mlp_bias", "false"},
	},
}

func init() { declareClass("llama", llamaClass) }
