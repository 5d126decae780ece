package modelgen

import "pgregory.net/rapid"

// graniteMoEHybrid draws model_type granitemoehybrid (IBM Granite 4.0-H):
// each layer Mamba2 or attention as layer_types says, in either spelling
// transformers has written them; Mamba2 heads that divide mamba_expand x
// hidden_size; on every layer experts with a shared MLP, or the shared MLP
// alone; rotary or none; unquantized.
var graniteMoEHybrid = family{types: []string{"granitemoehybrid"}, draw: drawGraniteMoEHybrid}

func drawGraniteMoEHybrid(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, false)
	spelling := rapid.SampledFrom([][2]string{{"mamba", "attention"}, {"linear_attention", "full_attention"}}).Draw(t, "spelling")
	types := make([]string, s.layers)
	for i := range types {
		types[i] = rapid.SampledFrom(spelling[:]).Draw(t, "layer_type")
	}
	c["layer_types"] = types
	expand := rapid.Uint64Range(1, 2).Draw(t, "mamba_expand")
	inter := expand * s.heads * s.headDim
	var dims []uint64
	for _, d := range []uint64{16, 32, 64} {
		if inter%d == 0 {
			dims = append(dims, d)
		}
	}
	d := rapid.SampledFrom(dims).Draw(t, "mamba_d_head")
	heads := inter / d
	c["mamba_expand"] = expand
	c["mamba_n_heads"] = heads
	if rapid.Bool().Draw(t, "explicit_d_head") {
		c["mamba_d_head"] = d
	} else {
		c["mamba_d_head"] = "auto"
	}
	c["mamba_n_groups"] = rapid.SampledFrom(divisors(heads)[:min(3, len(divisors(heads)))]).Draw(t, "mamba_n_groups")
	c["mamba_d_state"] = x8(t, "state_x8", 32)
	c["mamba_d_conv"] = rapid.Uint64Range(2, 4).Draw(t, "mamba_d_conv")
	c["mamba_chunk_size"] = 256
	c["mamba_conv_bias"] = rapid.Bool().Draw(t, "mamba_conv_bias")
	c["mamba_proj_bias"] = rapid.Bool().Draw(t, "mamba_proj_bias")
	c["position_embedding_type"] = rapid.SampledFrom([]any{"nope", "rope", nil}).Draw(t, "position_embedding_type")
	if rapid.Bool().Draw(t, "moe") {
		m := drawMoE(t)
		c["num_local_experts"] = m.experts
		c["num_experts_per_tok"] = m.topK
		c["intermediate_size"] = m.inter
		c["shared_intermediate_size"] = 128 * rapid.Uint64Range(0, 8).Draw(t, "shared_x128")
	} else {
		c["num_local_experts"] = 0
		c["num_experts_per_tok"] = 0
		c["shared_intermediate_size"] = 128 * rapid.Uint64Range(1, 32).Draw(t, "shared_x128")
	}
	c["embedding_multiplier"] = 12.0
	c["residual_multiplier"] = 0.22
	c["attention_multiplier"] = 1 / float64(s.headDim)
	c["logits_scaling"] = rapid.SampledFrom([]float64{6, 8}).Draw(t, "logits_scaling")
	return c
}
