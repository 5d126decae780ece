package model

func init() {
	// allenai's FlexOlmo checkpoints: OLMoE's names with OLMo 2's norms
	// after the attention and after the MoE block.
	register("flex_olmo", flat(readFlexOlmo), ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, routedExperts, postNorms}, everyStageTop))
	registerArchitectures("flex_olmo", "FlexOlmoForCausalLM")
}

// readFlexOlmo reads FlexOlmo (vllm/model_executor/models/flex_olmo.py at
// d18bb7b): OLMoE's attention (whole-width q and k norms, :34-46), stages
// and untied head (FlexOlmoForCausalLM subclasses OlmoeForCausalLM,
// :146-156), a MoE block on every layer of num_experts experts of
// intermediate_size with an unquantized router (:49-80), and norms after
// the attention and after the MoE block (:108-122). Its experts are built
// without the quantization config (:62-72), which the model does not size
// under a quantized checkpoint: a quantization_config is refused.
func readFlexOlmo(o jsonObject, a *Arch) {
	if o.has("quantization_config") {
		o.fail("quantization_config", "FlexOlmo builds its experts unquantized (flex_olmo.py:62-72), which membudget does not size beside quantized layers")
	}
	readOlmoeLayers(o, a)
	a.tree.norms = []string{"post_attention_layernorm", "post_feedforward_layernorm"}
}
