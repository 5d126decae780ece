package model

func init() {
	declareClass("seed_oss", seedOssDefaults)
	register("seed_oss", flat(readSeedOss), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
	registerArchitectures("seed_oss", "SeedOssForCausalLM")
}

// seedOssDefaults are SeedOssConfig's (transformers models/seed_oss/
// configuration_seed_oss.py at 008e574): head_dim 128, 80 heads and 8 KV
// heads of Seed-OSS-36B, 524,288 positions.
var seedOssDefaults = configClass{
	Name:   "SeedOssConfig",
	Source: "src/transformers/models/seed_oss/configuration_seed_oss.py@008e574",
	Defaults: []classDefault{
		{"vocab_size", "155136"}, {"hidden_size", "4096"}, {"intermediate_size", "27648"}, {"num_hidden_layers", "64"},
		{"num_attention_heads", "80"}, {"num_key_value_heads", "8"}, {"max_position_embeddings", "524288"}, {"head_dim", "128"},
	},
}

// readSeedOss reads Seed-OSS (vllm/model_executor/models/seed_oss.py at
// d18bb7b): Llama's tree with q/k/v always biased and o_proj and the MLP
// never (:79-89, 141-155), whatever attention_bias says; a config asking
// for an o_proj or MLP bias (attention_out_bias, mlp_bias) names tensors
// vLLM builds no parameter for, and is refused. head_dim is the config's
// (default 128, :213). Every layer slides over sliding_window when the
// config gives one and does not turn it off with use_sliding_window
// (vLLM's cache-wide window, asserted to cover every layer, :277-289);
// otherwise every layer is full attention. The embedding is on the first
// stage and, tied, the last (:295-305).
func readSeedOss(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = true
	for _, k := range []string{"attention_out_bias", "mlp_bias"} {
		if o.boolOr(k, false) {
			o.fail(k, "true: vLLM's SeedOssForCausalLM builds o_proj and the MLP without biases (seed_oss.py:79-89, 150-155), so the checkpoint's would not load")
		}
	}
	var window uint64
	if o.has("sliding_window") && o.boolOr("use_sliding_window", true) {
		window = o.uintValue("sliding_window")
	}
	a.layerTypes = nil // SeedOssAttention takes no per-layer window
	a.uniformLayers(o, window)
}
