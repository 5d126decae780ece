package model

func init() {
	// XiaomiMiMo's checkpoints: Qwen2's names, the MTP layers under
	// model.mtp_layers.
	register("mimo", flat(readMiMo), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}).
		skipping([2]string{"model.mtp_layers.", skipMTPModule}))
	registerArchitectures("mimo", "MiMoForCausalLM")
}

// readMiMo reads MiMo (vllm/model_executor/models/mimo.py at d18bb7b):
// Qwen2's model and head (MiMoModel and MiMoForCausalLM subclass
// qwen2.py's, :57-113, read as readQwen2 reads Qwen2), its
// num_nextn_predict_layers MTP layers under model.mtp_layers, which vLLM
// loads only for speculative decoding (:121-125).
func readMiMo(o jsonObject, a *Arch) {
	readQwen2(o, a)
	a.MTPLayers = o.uintOr("num_nextn_predict_layers", 0)
}
