package modelgen

import "pgregory.net/rapid"

// qwen3Next draws model_type qwen3_next: gated-delta-net layers with full
// attention every full_attention_interval, gated attention with partial
// rotary (the default 0.25 where the config leaves it out), MoE with a
// gated shared expert on every layer.
var qwen3Next = family{types: []string{"qwen3_next"}, draw: drawQwen3Next}

func drawQwen3Next(t *rapid.T, modelType string) map[string]any {
	c := drawGatedDeltaNet(t, modelType)
	quantize(t, c, quantExperts)
	return c
}

// drawGatedDeltaNet draws what Qwen3-Next and Qwen3.5 share: the layer
// pattern, the delta net's heads and sizes, and Qwen3-Next's MoE keys
// (which Qwen3.5's dense model reads past).
func drawGatedDeltaNet(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	m := drawMoE(t)
	c["head_dim"] = s.headDim
	c["full_attention_interval"] = rapid.Uint64Range(1, 4).Draw(t, "full_interval")
	keyHeads := rapid.SampledFrom([]uint64{8, 16}).Draw(t, "linear_key_heads")
	c["linear_num_key_heads"] = keyHeads
	c["linear_num_value_heads"] = keyHeads * rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "linear_value_ratio")
	c["linear_key_head_dim"] = rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "linear_key_dim")
	c["linear_value_head_dim"] = rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "linear_value_dim")
	c["linear_conv_kernel_dim"] = rapid.Uint64Range(2, 4).Draw(t, "linear_conv")
	c["num_experts"] = m.experts
	c["num_experts_per_tok"] = m.topK
	c["moe_intermediate_size"] = m.inter
	c["shared_expert_intermediate_size"] = m.inter
	if rapid.Bool().Draw(t, "partial") {
		c["partial_rotary_factor"] = partialRotary(t, 0.25, 0.5)
	}
	return c
}
