package model

func init() {
	// tencent's Hunyuan dense checkpoints: Llama's names with per-head
	// q and k norms named query_layernorm and key_layernorm.
	register("hunyuan_v1_dense", flat(readHunyuanDense), ckptFamily(nil, [][]moduleRule{gqaAttention, hunyuanQKNorms, gatedMLP, twoNorms}))
	registerArchitectures("hunyuan_v1_dense", "HunYuanDenseV1ForCausalLM")
}

// readHunyuanDense reads Hunyuan dense (HunYuanDenseV1ForCausalLM,
// vllm/model_executor/models/hunyuan_v1.py at d18bb7b): q/k/v and o_proj
// biased by attention_bias or bias, the MLP by mlp_bias (:486-541),
// head_dim, attention_head_dim or hidden_size / heads (:178-183), per-head
// q and k RMSNorms with use_qk_norm (:225-227), Llama's stages
// (:592-604, 923-937). Cross-layer attention (use_cla: layers that read an
// earlier layer's KV) and a MoE config (num_experts above 1) are other
// families' keys: they are refused rather than sized as dense.
func readHunyuanDense(o jsonObject, a *Arch) {
	readHunyuanAttention(o, a)
	a.MLPBias = o.boolOr("mlp_bias", false)
	if o.has("num_experts") && o.uintOr("num_experts", 0) > 1 {
		o.fail("num_experts", "above 1: a MoE config (HunYuanMoEV1ForCausalLM, model_type hunyuan_v1_moe) is not sized as the dense family")
	}
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}

// readHunyuanAttention reads what Hunyuan's dense and MoE models share:
// the common keys, head_dim, the attention's biases and q and k norms,
// and the refusal of cross-layer attention.
func readHunyuanAttention(o jsonObject, a *Arch) {
	if !o.has("head_dim") && o.has("attention_head_dim") {
		o.m["head_dim"] = o.m["attention_head_dim"]
	}
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false) || o.boolOr("bias", false)
	a.OutBias = a.AttnBias
	a.QKNorm = o.boolOr("use_qk_norm", false)
	if o.boolOr("use_cla", false) {
		o.fail("use_cla", "true: cross-layer attention (layers sharing an earlier layer's KV, hunyuan_v1.py:101-104) is not sized")
	}
}

// hunyuanQKNorms: use_qk_norm's per-head norms, whole on every rank.
var hunyuanQKNorms = []moduleRule{
	{module: "self_attn.query_layernorm"},
	{module: "self_attn.key_layernorm"},
}
