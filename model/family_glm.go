package model

func init() {
	// THUDM/glm-4-9b-chat-hf and GLM-4-0414 store gate_up_proj fused
	// (transformers models/glm/modeling_glm.py and models/glm4/
	// modeling_glm4.py GlmMLP, Glm4MLP); a split gate_proj and up_proj is
	// read too.
	declareClass("glm", glmDefaults)
	register("glm", flat(readGlm), ckptFamily(nil, [][]moduleRule{gqaAttention, fusedMLP, gatedMLP, twoNorms}))
	declareClass("glm4", glmDefaults)
	register("glm4", flat(readGlm), ckptFamily(nil, [][]moduleRule{gqaAttention, fusedMLP, gatedMLP, twoNorms, glm4Norms}))
	registerArchitectures("glm", "GlmForCausalLM")
	registerArchitectures("glm4", "Glm4ForCausalLM")
}

// glmDefaults are GlmConfig's and Glm4Config's, the same (transformers
// models/glm/configuration_glm.py and models/glm4/configuration_glm4.py
// at 008e574): GLM-4-9B's shape, head_dim 128, attention_bias True,
// untied.
var glmDefaults = configClass{
	Name:   "GlmConfig",
	Source: "src/transformers/models/glm/configuration_glm.py and models/glm4/configuration_glm4.py@008e574",
	Defaults: []classDefault{
		{"vocab_size", "151552"}, {"hidden_size", "4096"}, {"intermediate_size", "13696"}, {"num_hidden_layers", "40"},
		{"num_attention_heads", "32"}, {"num_key_value_heads", "2"}, {"head_dim", "128"}, {"max_position_embeddings", "131072"},
	},
}

// readGlm reads GLM-4 (glm: vllm/model_executor/models/glm.py at d18bb7b,
// LlamaForCausalLM with half of each head rotary whatever the config says
// and o_proj's bias dropped, :11-22) and GLM-4-0414 (glm4: glm4.py, its own
// attention: q/k/v biased by attention_bias, o_proj unbiased, :99-112,
// 166; half of each head rotary unless rope_parameters gives
// partial_rotary_factor, :86-92; Llama's unbiased MLP, :46; four norms a
// layer, :180-187). Both: q/k/v biased by attention_bias (default True),
// head_dim or hidden_size / heads, every layer full attention, Llama's
// stages (LlamaModel).
func readGlm(o jsonObject, a *Arch) {
	if rs, ok := o.object("rope_parameters"); a.ModelType == "glm" || !(ok && rs.has("partial_rotary_factor")) && !o.has("partial_rotary_factor") {
		o.m["partial_rotary_factor"] = []byte("0.5")
	}
	readCommon(o, a)
	if a.ModelType == "glm" {
		// glm.py:12 sets rope_parameters' factor to 0.5 whatever it was.
		a.RotaryDim = a.HeadDim / 2
		a.Rotary[0].Dim = a.RotaryDim
	}
	a.AttnBias = o.boolOr("attention_bias", true)
	if a.ModelType == "glm" {
		a.MLPBias = o.boolOr("mlp_bias", false) // llama.py:303
	}
	if a.ModelType == "glm4" {
		a.layerTypes = nil // Glm4Attention slides on no layer
		a.tree.norms = []string{"input_layernorm", "post_attention_layernorm", "post_self_attn_layernorm", "post_mlp_layernorm"}
		a.NormsPerLayer = 4
	}
	a.uniformLayers(o, 0)
}

// glm4Norms: GLM-4-0414's norms after the attention and after the MLP.
var glm4Norms = []moduleRule{
	{module: "post_self_attn_layernorm"},
	{module: "post_mlp_layernorm"},
}
