package model

func init() {
	register("qwen3_moe", flat(readQwen3MoE), ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, routedExperts, twoNorms}))
}

// readQwen3MoE reads Qwen3-MoE: Qwen3's attention, MoE with a quantized
// router on the layers sparseLayers selects.
func readQwen3MoE(o jsonObject, a *Arch) {
	readQwen3(o, a)
	a.Experts = o.uint("num_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = o.uint("moe_intermediate_size")
	// qwen3_moe.py:167-173: the router takes the quantization config.
	a.tree.routerQuantized = true
	a.sparseLayers(o)
}
