package model

func init() {
	// zai-org/GLM-4.7-Flash's checkpoint names its tensors as DeepSeek-V2's
	// attention and GLM-4.5's MoE block (transformers models/
	// glm4_moe_lite/modeling_glm4_moe_lite.py), its MTP layer past
	// num_hidden_layers.
	register("glm4_moe_lite", flat(readGlm4MoELite), ckptFamily(nil, [][]moduleRule{mlaAttention, gatedMLP, glmMoE, twoNorms}))
	registerArchitectures("glm4_moe_lite", "Glm4MoeLiteForCausalLM")
}

// readGlm4MoELite reads GLM-4.7-Flash (vllm/model_executor/models/
// glm4_moe_lite.py at d18bb7b): DeepSeek-V2's multi-head latent attention
// (Glm4MoeLiteMLAAttention, :95-101, 133-153) with GLM-4.5's MoE block
// (Glm4MoeLite is glm4_moe.py's Glm4MoE, :87-88: an nn.Linear router in
// float32 and its float32 e_score_correction_bias whatever topk_method
// says, glm4_moe.py:134-146, and n_shared_experts x moe_intermediate_size
// of shared expert) on the layers from first_k_dense_replace on, every
// moe_layer_freq-th (:155-166), as readDeepSeek places them. The head is
// its own ParallelLMHead whatever tie_word_embeddings says (:557-565 never
// ties it).
func readGlm4MoELite(o jsonObject, a *Arch) {
	// 20 heads do not divide hidden_size 2048: a head is
	// qk_nope_head_dim + qk_rope_head_dim (Glm4MoeLiteConfig's
	// qk_head_dim), which readDeepSeek sets; head_dim is given it first so
	// that readCommon does not derive one from hidden_size.
	if !o.has("head_dim") && o.has("qk_nope_head_dim") && o.has("qk_rope_head_dim") {
		setDefault(o, "head_dim", o.uintValue("qk_nope_head_dim")+o.uintValue("qk_rope_head_dim"))
	}
	readDeepSeek(o, a)
	a.ScoreCorrectionBias = true
	a.tree.routerDtype = routerFP32
	a.TiedEmbeddings = false
}
