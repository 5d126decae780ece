package model

func init() {
	// ibm-granite's GraniteMoE checkpoints stack every expert's gate and
	// up in block_sparse_moe.input_linear [experts, 2 x intermediate,
	// hidden] and down in output_linear [experts, hidden, intermediate],
	// the router at block_sparse_moe.router.layer (transformers models/
	// granitemoe/modeling_granitemoe.py; vLLM granitemoe.py:434-470 splits
	// them per expert).
	declareClass("granitemoe", graniteMoEDefaults)
	register("granitemoe", flat(readGraniteMoE), ckptFamily(nil, [][]moduleRule{gqaAttention, graniteMoE, twoNorms}, graniteMoETop))
	registerArchitectures("granitemoe", "GraniteMoeForCausalLM")
}

// graniteMoEDefaults are GraniteMoeConfig's (transformers models/
// granitemoe/configuration_granitemoe.py at 040e1a7): 8 experts top-2.
var graniteMoEDefaults = configClass{
	Name:   "GraniteMoeConfig",
	Source: "src/transformers/models/granitemoe/configuration_granitemoe.py@040e1a7",
	Defaults: []classDefault{
		{"vocab_size", "32000"}, {"hidden_size", "4096"}, {"intermediate_size", "11008"}, {"num_hidden_layers", "32"},
		{"num_attention_heads", "32"}, {"max_position_embeddings", "2048"}, {"num_local_experts", "8"}, {"num_experts_per_tok", "2"},
	},
}

// readGraniteMoE reads IBM Granite 3 MoE (vllm/model_executor/models/
// granitemoe.py at d18bb7b): unbiased q/k/v and o_proj of hidden_size /
// heads (:168-190), a MoE block on every layer of num_local_experts
// experts of intermediate_size, its router unquantized in the model dtype
// (:95-112, 247-254), two norms; the embedding and final norm built on
// every pipeline stage and the head too (GraniteMoeModel and
// GraniteMoeForCausalLM have no PPMissingLayer, :298-310, 501-508), tied
// by tie_word_embeddings. The multipliers scale activations and take no
// memory; they are read so that a value of the wrong type is an error
// naming its key.
func readGraniteMoE(o jsonObject, a *Arch) {
	readCommon(o, a)
	for _, k := range []string{"embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling"} {
		o.number(k)
	}
	a.derivedHeadDim(o)
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.Rotary[0].Dim = a.RotaryDim
	a.Experts = o.uint("num_local_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = a.Intermediate
	t := &a.tree
	t.mlp = "block_sparse_moe"
	t.onEveryStage()
	a.layerTypes = nil // GraniteMoeAttention takes no window
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		a.Layers[i].MoE = true
	}
}

var (
	// graniteMoE: the router (block_sparse_moe.router.layer, vLLM's
	// block_sparse_moe.gate) and the stacked experts.
	graniteMoE = []moduleRule{
		{module: "block_sparse_moe.router.layer", vllm: "block_sparse_moe.gate"},
		stackedAt("block_sparse_moe.input_linear", "block_sparse_moe.experts.w13_weight", gateUpOutIn),
		stackedAt("block_sparse_moe.output_linear", "block_sparse_moe.experts.w2_weight", downOutIn),
	}
	graniteMoETop = decoderTopOn(allStages, allStages, allStages)
)
