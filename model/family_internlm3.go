package model

func init() {
	// internlm/internlm3-8b-instruct's checkpoint names its tensors as
	// Llama's (the model's own modeling_internlm3.py).
	register("internlm3", flat(readInternLM3), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
	registerArchitectures("internlm3", "InternLM3ForCausalLM")
}

// readInternLM3 reads InternLM3, which vLLM serves as LlamaForCausalLM
// (registry.py at d18bb7b maps InternLM3ForCausalLM to llama.py), its
// config the checkpoint's own (trust_remote_code): Llama's layers and
// stages, q/k/v and o_proj biased by attention_bias or bias, q/k/v by
// qkv_bias where the config has it ("support internlm/internlm3-8b with
// qkv_bias", llama.py:265-272), the MLP by mlp_bias.
func readInternLM3(o jsonObject, a *Arch) {
	readLlama(o, a)
	a.AttnBias = o.boolOr("attention_bias", false) || o.boolOr("bias", false)
	a.OutBias = a.AttnBias
	if _, present := o.m["qkv_bias"]; present {
		a.AttnBias = o.boolOr("qkv_bias", false)
	}
}
