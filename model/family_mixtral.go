package model

func init() {
	register("mixtral", flat(readMixtral), ckptFamily(nil, [][]moduleRule{gqaAttention, mixtralExperts, twoNorms}))
}

// readMixtral reads Mixtral: every layer MoE under block_sparse_moe, its
// experts of intermediate_size; every layer slides when sliding_window is
// set.
func readMixtral(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.Experts = o.uint("num_local_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = a.Intermediate
	a.tree.mlp = "block_sparse_moe"
	a.uniformLayers(o, o.uintOr("sliding_window", 0))
	for i := range a.Layers {
		a.Layers[i].MoE = true
	}
}

// mixtralExperts: Mixtral's checkpoint names the experts' projections
// w1 (gate), w3 (up), w2 (down) (vllm/model_executor/models/mixtral.py).
var mixtralExperts = expertsAt("block_sparse_moe", "w1", "w3", "w2")
