package model

func init() {
	// Gemma 1: Llama's names (transformers models/gemma/modeling_gemma.py).
	register("gemma", flat(readGemma), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
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
