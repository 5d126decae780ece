package model

import "slices"

func init() {
	// ibm-granite's GraniteMoeShared checkpoints: Granite MoE's tensors and
	// a shared_mlp whose input_linear holds gate and up fused.
	register("granitemoeshared", flat(readGraniteMoEShared),
		ckptFamily(nil, [][]moduleRule{gqaAttention, graniteMoE, graniteSharedMLP, twoNorms}, graniteMoETop))
	registerArchitectures("granitemoeshared", "GraniteMoeSharedForCausalLM")
}

// readGraniteMoEShared reads Granite MoE with a shared expert
// (vllm/model_executor/models/granitemoeshared.py at d18bb7b): Granite
// MoE's layers and stages (readGraniteMoE) and, where
// shared_intermediate_size is above 0, an unbiased gated shared MLP of it
// beside the experts on every layer (:38-62, 106-112).
func readGraniteMoEShared(o jsonObject, a *Arch) {
	readGraniteMoE(o, a)
	a.SharedIntermediate = o.uintOr("shared_intermediate_size", 0)
}

// graniteSharedMLP: shared_mlp.input_linear (gate and up fused,
// MergedColumnParallelLinear) and output_linear (row-parallel).
var graniteSharedMLP = slices.Clone([]moduleRule{
	{module: "shared_mlp.input_linear", split: column},
	{module: "shared_mlp.output_linear", split: row},
})
