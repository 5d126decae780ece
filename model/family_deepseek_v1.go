package model

func init() {
	// deepseek-ai/deepseek-moe-16b's checkpoint: Llama's attention names,
	// DeepSeek's MoE (mlp.gate, mlp.experts.N, mlp.shared_experts).
	register("deepseek", flat(readDeepSeekV1), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, deepseekMoE, twoNorms}))
	registerArchitectures("deepseek", "DeepseekForCausalLM")
}

// readDeepSeekV1 reads DeepSeek-MoE (model_type deepseek; vLLM builds it
// with deepseek_v2.py at d18bb7b, use_mha for model_type deepseek,
// :1215-1232): DeepseekAttention's unbiased q/k/v and o_proj of
// hidden_size / heads (:136-190), DeepSeek's MoE on the layers from
// first_k_dense_replace on every moe_layer_freq-th (:1234-1246): its
// router in the model dtype, the float32 routing bias under noaux_tc,
// n_shared_experts x moe_intermediate_size of shared expert; Llama's
// stages.
func readDeepSeekV1(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.derivedHeadDim(o)
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.Rotary[0].Dim = a.RotaryDim
	a.Experts = o.uintOr("n_routed_experts", 0)
	a.SharedExperts = o.uintOr("n_shared_experts", 0)
	a.MoEIntermediate = o.uintOr("moe_intermediate_size", 0)
	a.SharedIntermediate = a.SharedExperts * a.MoEIntermediate
	a.ExpertsPerToken = o.uintOr("num_experts_per_tok", 0)
	a.ScoreCorrectionBias = o.str("topk_method") == "noaux_tc"
	firstDense := o.uintOr("first_k_dense_replace", 0)
	freq := o.uintOr("moe_layer_freq", 1)
	a.layerTypes = nil
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		a.Layers[i].MoE = a.Experts > 0 && uint64(i) >= firstDense && freq > 0 && uint64(i)%freq == 0
	}
	if a.Experts > 0 && (a.MoEIntermediate == 0 || a.ExpertsPerToken == 0) {
		o.fail("moe_intermediate_size", "n_routed_experts is set but moe_intermediate_size or num_experts_per_tok is missing")
	}
}
