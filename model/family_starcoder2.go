package model

func init() {
	register("starcoder2", flat(readStarcoder2), ckptFamily(nil, [][]moduleRule{gqaAttention, starcoder2MLP, twoNorms}))
	registerArchitectures("starcoder2", "Starcoder2ForCausalLM")
	declareClass("starcoder2", starcoder2Class)
}

// readStarcoder2 reads StarCoder 2 (Starcoder2ForCausalLM) as vLLM serves
// it at d18bb7b: through its Transformers backend (registry.py:697 maps it
// to TransformersForCausalLM, since PR #30966 of 2026-07-01, which deleted
// starcoder2.py).
//
// The backend builds transformers' Starcoder2Model (modeling_starcoder2.py)
// and replaces its modules (transformers/base.py:430-524): q, k and v,
// biased alike by use_bias, fused into a head-sharded QKVParallelLinear
// with its bias, o_proj row-parallel (fusers/qkv.py update_attrs); the
// ungated MLP's c_fc column-parallel and c_proj row-parallel, as
// Starcoder2Config's base_model_tp_plan says, each with its bias
// (utils.py:110-147: a row-parallel bias whole on every rank); the
// LayerNorms (weight and bias) are no RMSNorm for the fuser to match and
// stay transformers' nn.LayerNorm, whole on every rank, allocated in the
// served dtype (base.py:637-663 init_parameters). The embedding is a
// VocabParallelEmbedding, the head a ParallelLMHead tied to it unless
// tie_word_embeddings is false (Starcoder2Config's default is true;
// causal.py:44-59). Stages follow base_model_pp_plan: Llama's.
//
// The KV cache is one Attention a layer (base.py:526-612); Starcoder2Config
// has no layer_types, so each layer takes the model-level sliding_window
// (cache_config.sliding_window, attention.py:259-267): every layer slides
// when the config sets one, as StarCoder 2's 4096 does.
//
// The rotary embedding keeps only inv_freq (head_dim / 2 float32) and
// computes cos and sin each forward: no cos/sin table. The releases
// before PR #30966 built starcoder2.py natively, with vLLM's rotary cos/sin
// table of max_position_embeddings x head_dim in the model dtype (4 MiB
// for StarCoder 2's 16,384 positions in bf16), which is not counted for
// them: the model reads one layout, main's.
func readStarcoder2(o jsonObject, a *Arch) {
	readCommon(o, a)
	bias := o.boolOr("use_bias", true)
	a.AttnBias, a.OutBias, a.MLPBias = bias, bias, bias
	t := &a.tree
	t.mlpNames, t.ungated = [2]string{"c_fc", "c_proj"}, true
	t.layerNorm = true
	t.hfRotary = true
	a.uniformLayers(o, o.uintOr("sliding_window", 0))
}

// starcoder2MLP: transformers' Starcoder2MLP, c_fc column-parallel and
// c_proj row-parallel by base_model_tp_plan.
var starcoder2MLP = []moduleRule{
	{module: "mlp.c_fc", split: column},
	{module: "mlp.c_proj", split: row},
}

// starcoder2Class is transformers Starcoder2Config, read at huggingface/transformers@008e574391.
var starcoder2Class = configClass{
	Name:   "Starcoder2Config",
	Source: "src/transformers/models/starcoder2/configuration_starcoder2.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "49152"}, {"hidden_size", "3072"}, {"intermediate_size", "12288"},
		{"num_hidden_layers", "30"}, {"num_attention_heads", "24"}, {"num_key_value_heads", "2"},
		{"max_position_embeddings", "4096"}, {"use_bias", "true"}, {"tie_word_embeddings", "true"},
	},
}
