package model

func init() {
	// microsoft/Phi-3.5-MoE-instruct's checkpoint: Mixtral's experts (w1,
	// w3, w2) under block_sparse_moe, biased q/k/v and o_proj, LayerNorms
	// with biases, a biased head (transformers models/phimoe/
	// modeling_phimoe.py).
	register("phimoe", flat(readPhiMoE), ckptFamily(nil, [][]moduleRule{gqaAttention, mixtralExperts, twoNorms}, everyStageTop))
	registerArchitectures("phimoe", "PhiMoEForCausalLM")
}

// readPhiMoE reads Phi-3.5-MoE (vllm/model_executor/models/phimoe.py at
// d18bb7b): q/k/v and o_proj always biased (:334-348), head_dim or
// hidden_size / heads (:395-397), a MoE block on every layer of
// num_local_experts experts of intermediate_size with an unquantized
// router in the model dtype (:265-285), LayerNorms with biases (:411-416,
// 469); the embedding, final norm and a biased, never tied, unquantized
// head built on every pipeline stage (:445-470, 551-557); every layer
// slides over sliding_window when the config sets one (vLLM's cache-wide
// window; Attention gets no per-layer one, :356-364).
func readPhiMoE(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias, a.OutBias = true, true
	a.TiedEmbeddings = false
	a.Experts = o.uint("num_local_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = a.Intermediate
	t := &a.tree
	t.mlp, t.layerNorm, t.lmHeadBias = "block_sparse_moe", true, true
	t.onEveryStage()
	a.layerTypes = nil
	a.uniformLayers(o, o.uintOr("sliding_window", 0))
	for i := range a.Layers {
		a.Layers[i].MoE = true
	}
}
