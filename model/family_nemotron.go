package model

func init() {
	// nvidia's Nemotron-4 and Minitron checkpoints (transformers
	// models/nemotron/modeling_nemotron.py): Llama's attention names, an
	// ungated up_proj and down_proj, LayerNorm1P norms with biases.
	declareClass("nemotron", nemotronDefaults)
	register("nemotron", flat(readNemotron), ckptFamily(nil, [][]moduleRule{gqaAttention, upDownMLP, twoNorms}))
	registerArchitectures("nemotron", "NemotronForCausalLM")
}

// nemotronDefaults are NemotronConfig's (transformers models/nemotron/
// configuration_nemotron.py at 05cd1ec): Nemotron-15B's shape.
var nemotronDefaults = configClass{
	Name:   "NemotronConfig",
	Source: "src/transformers/models/nemotron/configuration_nemotron.py@05cd1ec",
	Defaults: []classDefault{
		{"vocab_size", "256000"}, {"hidden_size", "6144"}, {"intermediate_size", "24576"}, {"num_hidden_layers", "32"},
		{"num_attention_heads", "48"}, {"max_position_embeddings", "4096"},
	},
}

// readNemotron reads Nemotron-4 and Minitron (vllm/model_executor/models/
// nemotron.py at d18bb7b): q/k/v and o_proj biased by attention_bias or
// bias (:237-250), head_dim or hidden_size / heads (:172-175), KV heads as
// many as heads unless given, partial_rotary_factor of a head rotary
// (NemotronConfig default 0.5), an ungated squared-ReLU MLP of up_proj and
// down_proj biased by mlp_bias (:109-139, 259), LayerNorm1P norms with
// biases (:80-102, 262-267, 326); Llama's stages (:306-328, 400-414).
func readNemotron(o jsonObject, a *Arch) {
	if rs, ok := o.object("rope_parameters"); !(ok && rs.has("partial_rotary_factor")) && !o.has("partial_rotary_factor") {
		o.m["partial_rotary_factor"] = []byte("0.5")
	}
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false) || o.boolOr("bias", false)
	a.OutBias = a.AttnBias
	a.MLPBias = o.boolOr("mlp_bias", false)
	t := &a.tree
	t.ungated, t.mlpNames, t.layerNorm = true, [2]string{"up_proj", "down_proj"}, true
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}
