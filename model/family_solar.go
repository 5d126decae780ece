package model

func init() {
	// upstage's Solar checkpoints name their tensors as Llama's.
	register("solar", flat(readSolar), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
	registerArchitectures("solar", "SolarForCausalLM")
}

// readSolar reads Solar (vllm/model_executor/models/solar.py at d18bb7b),
// whose config is the checkpoint's own (trust_remote_code): Llama's layers
// and stages (:250-290, 381-396), q/k/v and o_proj biased by
// attention_bias or bias and the MLP by mlp_bias (:196-218), head_dim or
// hidden_size / heads (:131-134), every layer full attention (no
// per-layer window); its block skip connections take no weights.
func readSolar(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false) || o.boolOr("bias", false)
	a.OutBias = a.AttnBias
	a.MLPBias = o.boolOr("mlp_bias", false)
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}
