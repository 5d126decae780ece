package modelgen

import "pgregory.net/rapid"

// falconH1 draws model_type falcon_h1 (TII Falcon-H1): attention beside a
// Mamba2 mixer on every layer; the mixer's channels given by mamba_d_ssm
// or, when it is null, mamba_expand x hidden_size, in heads that divide
// them; head_dim explicit or derived, a partial or whole rotary; the
// gated norm weighted or not; unquantized.
var falconH1 = family{types: []string{"falcon_h1"}, draw: drawFalconH1}

func drawFalconH1(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	hidden := c["hidden_size"].(uint64)
	headDim := s.headDim
	if _, ok := c["head_dim"]; !ok {
		headDim = hidden / s.heads
	}
	inter := 2 * hidden
	if rapid.Bool().Draw(t, "d_ssm_given") {
		inter = 128 * rapid.Uint64Range(1, 32).Draw(t, "d_ssm_x128")
		c["mamba_d_ssm"] = inter
	} else {
		c["mamba_d_ssm"] = nil
		c["mamba_expand"] = 2
	}
	var dims []uint64 // head sizes that divide the channels, as FalconH1Config requires
	for _, d := range []uint64{16, 32, 64} {
		if inter%d == 0 {
			dims = append(dims, d)
		}
	}
	d := rapid.SampledFrom(dims).Draw(t, "mamba_d_head")
	heads := inter / d
	c["mamba_n_heads"] = heads
	if rapid.Bool().Draw(t, "explicit_d_head") {
		c["mamba_d_head"] = d
	} else {
		c["mamba_d_head"] = "auto"
	}
	c["mamba_n_groups"] = rapid.SampledFrom(divisors(heads)[:min(3, len(divisors(heads)))]).Draw(t, "mamba_n_groups")
	c["mamba_d_state"] = x8(t, "state_x8", 32)
	c["mamba_d_conv"] = rapid.Uint64Range(2, 4).Draw(t, "mamba_d_conv")
	c["mamba_chunk_size"] = 128
	c["mamba_conv_bias"] = rapid.Bool().Draw(t, "mamba_conv_bias")
	c["mamba_proj_bias"] = rapid.Bool().Draw(t, "mamba_proj_bias")
	c["mamba_rms_norm"] = rapid.Bool().Draw(t, "mamba_rms_norm")
	if rapid.Bool().Draw(t, "partial_rotary") {
		c["attn_rotary_emb"] = headDim / 2
	}
	c["hidden_act"] = "silu"
	c["projectors_bias"], c["attention_bias"], c["mlp_bias"] = false, false, false
	c["embedding_multiplier"], c["lm_head_multiplier"], c["key_multiplier"] = 5.66, 0.039, 0.39
	c["attention_in_multiplier"], c["attention_out_multiplier"] = 1.0, 0.94
	c["ssm_in_multiplier"], c["ssm_out_multiplier"] = 1.25, 0.24
	c["mlp_multipliers"] = []float64{0.88, 0.59}
	c["ssm_multipliers"] = []float64{0.35, 0.25, 0.35, 0.5, 0.35}
	c["rope_theta"] = 1e11
	return c
}
