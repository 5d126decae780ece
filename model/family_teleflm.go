package model

func init() {
	// CofeAI's Tele-FLM checkpoints name their tensors as Llama's.
	register("teleflm", flat(readTeleFLM), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
	registerArchitectures("teleflm", "TeleFLMForCausalLM")
}

// readTeleFLM reads Tele-FLM (vllm/model_executor/models/teleflm.py at
// d18bb7b): LlamaModel and LlamaForCausalLM (:38-78), read as llama.py
// reads a config (readInternLM3: attention_bias or bias, qkv_bias,
// mlp_bias); its muP multipliers (input_mult, output_mult,
// mup_scale_factor) scale activations and logits and take no memory; they
// are read so that a value of the wrong type is an error naming its key.
func readTeleFLM(o jsonObject, a *Arch) {
	readInternLM3(o, a)
	o.boolOr("use_mup", false)
	for _, k := range []string{"input_mult", "output_mult", "mup_scale_factor"} {
		o.number(k)
	}
}
