package model

func init() {
	// ERNIE 4.5's Hugging Face checkpoints name their tensors as Llama's
	// (transformers models/ernie4_5/modeling_ernie4_5.py, whose module tree
	// is Llama's with use_bias on every projection).
	declareClass("ernie4_5", ernie45Defaults)
	register("ernie4_5", flat(readErnie45), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
	registerArchitectures("ernie4_5", "Ernie4_5ForCausalLM")
}

// ernie45Defaults are Ernie4_5Config's (transformers
// models/ernie4_5/configuration_ernie4_5.py at 008e574): the 0.3B model's
// shape, and a head_dim of 128 rather than hidden_size / heads.
var ernie45Defaults = configClass{
	Name:   "Ernie4_5Config",
	Source: "src/transformers/models/ernie4_5/configuration_ernie4_5.py@008e574",
	Defaults: []classDefault{
		{"vocab_size", "103424"}, {"hidden_size", "1024"}, {"intermediate_size", "3072"}, {"num_hidden_layers", "18"},
		{"num_attention_heads", "16"}, {"num_key_value_heads", "2"}, {"max_position_embeddings", "131072"}, {"head_dim", "128"},
	},
}

// readErnie45 reads ERNIE 4.5 dense (vllm/model_executor/models/ernie45.py
// at d18bb7b): LlamaForCausalLM with its rotary embedding not in the neox
// style and o_proj's bias dropped (ernie45.py:47-55), which leaves Llama's
// weights and KV cache, every layer full attention (or as layer_types
// says, as Llama reads it). Llama reads attention_bias and mlp_bias
// (llama.py:265-303), which Ernie4_5Config does not have: its use_bias is
// read by no vLLM layer, so a biased checkpoint would not load, and is
// refused. The head is tied unless the config says
// otherwise (Ernie4_5Config tie_word_embeddings True).
func readErnie45(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	// llama.py:265-276, 303: a config's own attention_bias (or bias, or
	// qkv_bias) biases q, k and v; ernie45.py drops o_proj's bias.
	a.AttnBias = o.boolOr("attention_bias", false) || o.boolOr("bias", false)
	if o.has("qkv_bias") {
		a.AttnBias = o.boolOr("qkv_bias", false)
	}
	a.MLPBias = o.boolOr("mlp_bias", false)
	if o.boolOr("use_bias", false) {
		o.fail("use_bias", "true: vLLM's Ernie4_5ForCausalLM builds Llama's unbiased layers (ernie45.py, llama.py:265-303), so the checkpoint's biases would not load")
	}
	a.uniformLayers(o, 0)
}
