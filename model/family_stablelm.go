package model

func init() {
	declareClass("stablelm", stableLMDefaults)
	register("stablelm", flat(readStableLM), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, everyStageTop))
	registerArchitectures("stablelm", "StableLmForCausalLM")
}

// stableLMDefaults are StableLmConfig's (transformers models/stablelm/
// configuration_stablelm.py at 05cd1ec): stablelm-3b's shape, 32 KV heads
// (not num_attention_heads).
var stableLMDefaults = configClass{
	Name:   "StableLmConfig",
	Source: "src/transformers/models/stablelm/configuration_stablelm.py@05cd1ec",
	Defaults: []classDefault{
		{"vocab_size", "50304"}, {"hidden_size", "2560"}, {"intermediate_size", "6912"}, {"num_hidden_layers", "32"},
		{"num_attention_heads", "32"}, {"num_key_value_heads", "32"}, {"max_position_embeddings", "4096"},
	},
}

// readStableLM reads StableLM 2 (vllm/model_executor/models/stablelm.py at
// d18bb7b): q/k/v biased by use_qkv_bias, o_proj never (:124-146), head_dim
// hidden_size / heads (:119), partial_rotary_factor of a head rotary
// (StableLmConfig default 0.25), an unbiased gated MLP (:71-82),
// LayerNorms with biases (:190-191, 238); the embedding, final norm and
// head built on every pipeline stage (:224-238, 290-297), the head tied by
// tie_word_embeddings. vLLM builds neither per-head q/k LayerNorms nor the
// parallel-residual layer: a config asking for qk_layernorm or
// use_parallel_residual (StableLM 2 12B) names tensors vLLM does not
// load, and is refused.
func readStableLM(o jsonObject, a *Arch) {
	if rs, ok := o.object("rope_parameters"); !(ok && rs.has("partial_rotary_factor")) && !o.has("partial_rotary_factor") {
		o.m["partial_rotary_factor"] = []byte("0.25")
	}
	readCommon(o, a)
	a.derivedHeadDim(o)
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.Rotary[0].Dim = a.RotaryDim
	a.AttnBias = o.boolOr("use_qkv_bias", false)
	for _, k := range []string{"qk_layernorm", "use_parallel_residual"} {
		if o.boolOr(k, false) {
			o.fail(k, "true: vLLM's StablelmForCausalLM builds neither per-head q/k norms nor a parallel-residual layer (stablelm.py:94-215)")
		}
	}
	t := &a.tree
	t.layerNorm = true
	t.onEveryStage()
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}
