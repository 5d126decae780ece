package modelgen

import "pgregory.net/rapid"

// nemotronH draws model_type nemotron_h: one block a layer as
// hybrid_override_pattern says (M Mamba2, * attention without rotary, -
// MLP, E MoE with a shared expert; dense hybrids without E), the SSM state
// sometimes in float32, time_step_limit's Infinity as Python writes it.
var nemotronH = family{types: []string{"nemotron_h"}, draw: drawNemotronH}

func drawNemotronH(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	pattern := make([]byte, s.layers)
	blocks := "M*-E"
	if rapid.Bool().Draw(t, "dense_hybrid") {
		blocks = "M*-"
	}
	for i := range pattern {
		pattern[i] = rapid.SampledFrom([]byte(blocks)).Draw(t, "block")
	}
	c["hybrid_override_pattern"] = string(pattern)
	c["mamba_num_heads"] = x8(t, "mamba_heads_x8", 16)
	c["mamba_head_dim"] = x8(t, "mamba_head_dim_x8", 8)
	c["ssm_state_size"] = x8(t, "state_x8", 16)
	c["n_groups"] = rapid.SampledFrom([]uint64{1, 8}).Draw(t, "n_groups")
	c["conv_kernel"] = rapid.Uint64Range(2, 4).Draw(t, "conv")
	c["chunk_size"] = 128
	if rapid.Bool().Draw(t, "fp32_state") {
		c["mamba_ssm_cache_dtype"] = "float32"
	}
	c["time_step_limit"] = []any{0.0, "Infinity"} // written as Python's bare Infinity by JSON
	if blocks == "M*-E" {
		m := drawMoE(t)
		c["n_routed_experts"] = m.experts
		c["num_experts_per_tok"] = m.topK
		c["moe_intermediate_size"] = m.inter
		c["n_shared_experts"] = 1
		c["moe_shared_expert_intermediate_size"] = m.inter
	}
	quantize(t, c, quantExperts)
	return c
}
