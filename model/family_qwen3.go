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
