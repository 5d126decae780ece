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
	a.uniformLayers(o, 0)
}
