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
