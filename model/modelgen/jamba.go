package modelgen

import "pgregory.net/rapid"

// jamba draws model_type jamba (AI21 Jamba): attention every
// attn_layer_period-th layer from attn_layer_offset, Mamba1 elsewhere
// (mamba_dt_rank given or "auto"), experts every expert_layer_period-th
// layer from expert_layer_offset (num_experts 1: every MLP dense); head_dim
// derived from hidden_size, untied, no sliding window; unquantized.
var jamba = family{types: []string{"jamba"}, draw: drawJamba}

func drawJamba(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	c["tie_word_embeddings"] = false
	c["sliding_window"] = nil
	period := rapid.Uint64Range(1, 8).Draw(t, "attn_layer_period")
	c["attn_layer_period"] = period
	c["attn_layer_offset"] = rapid.Uint64Range(0, period-1).Draw(t, "attn_layer_offset")
	eperiod := rapid.Uint64Range(1, 4).Draw(t, "expert_layer_period")
	c["expert_layer_period"] = eperiod
	c["expert_layer_offset"] = rapid.Uint64Range(0, eperiod-1).Draw(t, "expert_layer_offset")
	if rapid.Bool().Draw(t, "moe") {
		m := drawMoE(t)
		c["num_experts"], c["num_experts_per_tok"] = m.experts, m.topK
	} else {
		c["num_experts"], c["num_experts_per_tok"] = 1, 1
	}
	c["mamba_d_state"] = x8(t, "state_x8", 4)
	c["mamba_d_conv"] = rapid.Uint64Range(2, 4).Draw(t, "mamba_d_conv")
	c["mamba_expand"] = rapid.Uint64Range(1, 2).Draw(t, "mamba_expand")
	if rapid.Bool().Draw(t, "dt_rank_auto") {
		c["mamba_dt_rank"] = "auto"
	} else {
		c["mamba_dt_rank"] = x8(t, "dt_rank_x8", 32)
	}
	c["mamba_conv_bias"] = rapid.Bool().Draw(t, "mamba_conv_bias")
	c["mamba_proj_bias"] = rapid.Bool().Draw(t, "mamba_proj_bias")
	return c
}
