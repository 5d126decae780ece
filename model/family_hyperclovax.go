package model

func init() {
	// naver-hyperclovax's checkpoints: Llama's names, post_norm1 and
	// post_norm2 with use_post_norm.
	register("hyperclovax", flat(readHyperCLOVAX), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms,
		{{module: "post_norm1"}, {module: "post_norm2"}}}))
	registerArchitectures("hyperclovax", "HyperCLOVAXForCausalLM")
}

// readHyperCLOVAX reads HyperCLOVA X (vllm/model_executor/models/
// hyperclovax.py at d18bb7b): Llama's layers and stages (:297-336,
// 417-436), q/k/v and o_proj biased by attention_bias and the MLP by
// mlp_bias (:220-241), head_dim or hidden_size / heads (:140-142), two
// more norms per layer with use_post_norm (:250-253), every layer full
// attention. Its muP multipliers scale activations and take no memory;
// they are read so that a value of the wrong type is an error naming its
// key. Dual-chunk attention (dual_chunk_attention_config) is not sized.
func readHyperCLOVAX(o jsonObject, a *Arch) {
	readCommon(o, a)
	for _, k := range []string{"attention_multiplier", "residual_multiplier", "embedding_multiplier", "logits_scaling"} {
		o.number(k)
	}
	if o.has("dual_chunk_attention_config") {
		o.fail("dual_chunk_attention_config", "dual-chunk attention is not sized")
	}
	a.AttnBias = o.boolOr("attention_bias", false)
	a.OutBias = a.AttnBias
	a.MLPBias = o.boolOr("mlp_bias", false)
	if o.boolOr("use_post_norm", false) {
		a.tree.norms = []string{"input_layernorm", "post_attention_layernorm", "post_norm1", "post_norm2"}
		a.NormsPerLayer = 4
	}
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}
