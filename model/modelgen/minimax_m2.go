package modelgen

import "pgregory.net/rapid"

// minimaxM2 draws model_type minimax_m2: every layer MoE, whole-width q
// and k norms, rotary over all or half the head, MTP modules.
var minimaxM2 = family{types: []string{"minimax_m2"}, draw: drawMiniMaxM2}

func drawMiniMaxM2(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	m := drawMoE(t)
	c["num_local_experts"] = m.experts
	c["num_experts_per_tok"] = m.topK
	c["intermediate_size"] = m.inter
	c["use_qk_norm"] = true
	c["use_routing_bias"] = rapid.Bool().Draw(t, "routing_bias")
	c["head_dim"] = s.headDim
	c["rotary_dim"] = s.headDim / rapid.SampledFrom([]uint64{1, 2}).Draw(t, "rotary_div")
	c["num_mtp_modules"] = rapid.Uint64Range(0, 3).Draw(t, "mtp")
	quantize(t, c, quantExperts)
	return c
}
