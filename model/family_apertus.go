package model

func init() {
	declareClass("apertus", apertusClass)
	register("apertus", flat(readApertus), ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, apertusMLP, apertusNorms}))
	registerArchitectures("apertus", "ApertusForCausalLM")
}

// apertusClass is ApertusConfig (transformers models/apertus/
// configuration_apertus.py at 008e574391): Apertus-8B's shape but an FFN
// of 14,336, multi-head attention (num_key_value_heads None), xielu,
// untied. Its rope_parameters default (llama3 x8 over 8192 positions) is
// not filled: a llama3 rope changes neither the rotary table's rows nor
// the length vLLM derives.
var apertusClass = configClass{
	Name:   "ApertusConfig",
	Source: "src/transformers/models/apertus/configuration_apertus.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "131072"}, {"hidden_size", "4096"}, {"intermediate_size", "14336"}, {"num_hidden_layers", "32"},
		{"num_attention_heads", "32"}, {"hidden_act", `"xielu"`}, {"max_position_embeddings", "65536"},
		{"tie_word_embeddings", "false"}, {"attention_bias", "false"},
	},
}

// readApertus reads Apertus (ApertusForCausalLM, vllm/model_executor/
// models/apertus.py at d18bb7b): Llama's attention (:151-205) with a
// per-head q_norm and k_norm of head_dim built whatever qk_norm says
// (:204-205), biased as Llama's by attention_bias (or bias) and qkv_bias
// (:248-254); an ungated MLP of up_proj and down_proj, biased by mlp_bias
// (:77-109, 285), whose activation vLLM builds as XIELU only (:104-108 raise
// for any other hidden_act), keeping alpha_p, alpha_n, beta and eps in
// bfloat16 (layers/activation.py:672-702); the norms attention_layernorm
// and feedforward_layernorm (:288-291); per-layer sliding windows from
// layer_types (:181-183). The embedding, norm and head are Llama's on the
// first and last stages (:334-356, 440-455). is_causal false builds
// encoder-only attention (:257-263), a pooling model's, which is refused.
func readApertus(o jsonObject, a *Arch) {
	switch act := o.str("hidden_act"); {
	case !o.has("hidden_act"):
		o.fail("hidden_act", "missing (required: vLLM's ApertusMLP builds xielu only, apertus.py:104-108)")
	case act != "xielu":
		o.fail("hidden_act", "%q: vLLM's ApertusMLP raises for anything but xielu (apertus.py:104-108)", act)
	}
	if !o.boolOr("is_causal", true) {
		o.fail("is_causal", "false: vLLM builds Apertus with encoder-only attention (apertus.py:257-263), which membudget does not size")
	}
	readCommon(o, a)
	readLlamaAttentionBias(o, a)
	a.MLPBias = o.boolOr("mlp_bias", false)
	a.QKNorm = true
	t := &a.tree
	t.mlpNames, t.ungated, t.xielu = [2]string{"up_proj", "down_proj"}, true, true
	t.norms = []string{"attention_layernorm", "feedforward_layernorm"}
	t.packed = map[string][]string{"qkv_proj": {"q_proj", "k_proj", "v_proj"}}
	a.uniformLayers(o, 0)
}

var (
	// apertusMLP: swiss-ai's checkpoints (transformers models/apertus/
	// modeling_apertus.py ApertusMLP) name the ungated MLP up_proj and
	// down_proj, and keep XIELU's alpha_p, alpha_n, beta and eps under
	// mlp.act_fn, which vLLM loads into its own bfloat16 ones.
	apertusMLP   = append(upDownMLP[:len(upDownMLP):len(upDownMLP)], moduleRule{module: "mlp.act_fn", bf16: true})
	apertusNorms = []moduleRule{
		{module: "attention_layernorm"},
		{module: "feedforward_layernorm"},
	}
)
