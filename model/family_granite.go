package model

func init() {
	// IBM Granite 3: Llama's names (transformers models/granite/
	// modeling_granite.py).
	register("granite", flat(readGranite), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
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

// graniteClass is transformers GraniteConfig, read at huggingface/transformers@008e574391.
var graniteClass = configClass{
	Name:   "GraniteConfig",
	Source: "src/transformers/models/granite/configuration_granite.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "32000"}, {"hidden_size", "4096"}, {"intermediate_size", "11008"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"max_position_embeddings", "2048"},
		{"tie_word_embeddings", "false"}, {"attention_bias", "false"}, {"mlp_bias", "false"},
	},
}

func init() { declareClass("granite", graniteClass) }
