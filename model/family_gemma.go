package model

func init() {
	// Gemma 1: Llama's names (transformers models/gemma/modeling_gemma.py).
	register("gemma", flat(readGemma), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
}

// readGemma reads Gemma 1 (vllm/model_executor/models/gemma.py): Llama's
// layers without any bias (gemma.py:157-171), GemmaRMSNorm before the
// attention and the MLP (gemma.py:232-235), and the head tied to the
// embedding, which vLLM asserts (gemma.py:349-350).
func readGemma(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	if !a.TiedEmbeddings {
		o.fail("tie_word_embeddings", "false: vLLM's GemmaForCausalLM requires the head tied to the embedding (gemma.py:349-350)")
	}
	a.uniformLayers(o, 0)
}

// gemmaClass is transformers GemmaConfig, read at huggingface/transformers@008e574391. head_dim defaults to 256, not to hidden_size / heads.
var gemmaClass = configClass{
	Name:   "GemmaConfig",
	Source: "src/transformers/models/gemma/configuration_gemma.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "256000"}, {"hidden_size", "3072"}, {"intermediate_size", "24576"},
		{"num_hidden_layers", "28"}, {"num_attention_heads", "16"}, {"num_key_value_heads", "16"},
		{"head_dim", "256"}, {"max_position_embeddings", "8192"}, {"tie_word_embeddings", "true"},
		{"attention_bias", "false"},
	},
}

func init() { declareClass("gemma", gemmaClass) }
