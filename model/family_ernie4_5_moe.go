package model

import "slices"

func init() {
	f := ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, ernie45MoE, twoNorms})
	// ernie45_moe.py:500-503: the MTP modules are skipped by substring.
	f.skipWithin = [][2]string{{"mtp", skipMTPModule}}
	declareClass("ernie4_5_moe", ernie45MoEDefaults)
	register("ernie4_5_moe", flat(readErnie45MoE), f)
	registerArchitectures("ernie4_5_moe", "Ernie4_5_MoeForCausalLM")
}

// ernie45MoEDefaults are Ernie4_5_MoeConfig's (transformers models/
// ernie4_5_moe/configuration_ernie4_5_moe.py at 001f85b):
// ERNIE-4.5-21B-A3B's shape, 64 experts top-6 of 1536 and 2 shared.
var ernie45MoEDefaults = configClass{
	Name:   "Ernie4_5_MoeConfig",
	Source: "src/transformers/models/ernie4_5_moe/configuration_ernie4_5_moe.py@001f85b",
	Defaults: []classDefault{
		{"vocab_size", "103424"}, {"hidden_size", "2560"}, {"intermediate_size", "12288"}, {"num_hidden_layers", "28"},
		{"num_attention_heads", "20"}, {"num_key_value_heads", "4"}, {"max_position_embeddings", "131072"},
		{"moe_intermediate_size", "1536"}, {"moe_k", "6"}, {"moe_num_experts", "64"}, {"moe_num_shared_experts", "2"},
		{"moe_layer_start_index", "1"}, {"moe_layer_interval", "1"},
	},
}

// readErnie45MoE reads ERNIE 4.5 MoE (vllm/model_executor/models/
// ernie45_moe.py at d18bb7b): q/k/v biased by use_bias and o_proj never
// (:251-265), head_dim or hidden_size / heads (:244); MoE on layer i when
// use_moe (moe_num_experts > 0 by default), (i + 1) % moe_layer_interval
// == 0 and moe_layer_start_index <= i <= moe_layer_end_index (-1, the
// default, is the last layer: Ernie4_5_MoeConfig.__init__), a dense MLP
// biased by use_bias elsewhere (:333-361); the MoE block's router
// unquantized in float32 with its float32 e_score_correction_bias
// (:153-164), moe_num_shared_experts x moe_intermediate_size of unbiased
// shared expert (:166-179). The head is tied by tie_word_embeddings
// (default True). use_bias would bias the dense MLP and not the shared
// expert, which the model does not size: it is refused.
func readErnie45MoE(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	if o.boolOr("use_bias", false) {
		o.fail("use_bias", "true: the dense MLP would be biased and the shared expert not, which membudget does not size")
	}
	a.Experts = o.uint("moe_num_experts")
	a.TPWithinExperts = "ernie45_moe.py:147-151"
	a.ExpertsPerToken = o.uint("moe_k")
	a.MoEIntermediate = o.uint("moe_intermediate_size")
	a.SharedExperts = o.uint("moe_num_shared_experts")
	a.SharedIntermediate = a.SharedExperts * a.MoEIntermediate
	a.ScoreCorrectionBias = true
	a.tree.routerDtype = routerFP32
	a.layerTypes = nil // Ernie4_5_MoeAttention takes no window
	a.uniformLayers(o, 0)
	useMoE := o.boolOr("use_moe", a.Experts > 0)
	start := o.intOr("moe_layer_start_index", 1)
	end := o.intOr("moe_layer_end_index", -1)
	if end == -1 {
		end = int64(len(a.Layers)) - 1
	}
	interval := o.uintOr("moe_layer_interval", 1)
	if interval == 0 {
		o.fail("moe_layer_interval", "must be above 0 (vLLM takes the layer index modulo it)")
		return
	}
	for i := range a.Layers {
		a.Layers[i].MoE = useMoE && (uint64(i)+1)%interval == 0 && int64(i) >= start && int64(i) <= end
	}
}

// ernie45MoE: the float32 router, its routing bias stored as
// moe_statics.e_score_correction_bias [1, experts] (loaded into the gate's,
// ernie45_moe.py:486-495), one tensor per expert, and the shared experts.
var ernie45MoE = slices.Concat(expertsRouted("mlp", "gate", "gate_proj", "up_proj", "down_proj", moduleRule{fp32: true}),
	[]moduleRule{{module: "mlp.moe_statics.e_score_correction_bias", vllm: "mlp.gate.e_score_correction_bias", fp32: true}},
	gatedMLPAt("mlp.shared_experts"))
