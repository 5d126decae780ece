package modelgen

import "pgregory.net/rapid"

// hunyuanMoE draws model_type hunyuan_v1_moe (Hunyuan MoE): the dense
// family's attention, biases and q and k norms; experts top moe_topk of
// moe_intermediate_size (null now and then: intermediate_size), each a
// number or a list of one value a layer, with or without the shared
// expert (use_mixed_mlp_moe, num_shared_expert); now and then no experts
// at all (num_experts 1), which vLLM builds as the dense MLP.
var hunyuanMoE = family{types: []string{"hunyuan_v1_moe"}, draw: drawHunyuanMoE}

func drawHunyuanMoE(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	c["mlp_bias"] = rapid.Bool().Draw(t, "mlp_bias")
	c["use_qk_norm"] = rapid.Bool().Draw(t, "use_qk_norm")
	c["use_cla"] = false
	if rapid.IntRange(0, 4).Draw(t, "dense") == 0 {
		c["num_experts"] = 1
		quantize(t, c, quantDense)
		return c
	}
	m := drawMoE(t)
	perLayer := func(label string, v uint64) any {
		if !rapid.Bool().Draw(t, label+"_list") {
			return v
		}
		l := make([]uint64, s.layers)
		for i := range l {
			l[i] = v
		}
		return l
	}
	c["num_experts"] = m.experts
	c["moe_topk"] = perLayer("moe_topk", m.topK)
	if rapid.Bool().Draw(t, "moe_intermediate_null") {
		c["moe_intermediate_size"] = nil
	} else {
		c["moe_intermediate_size"] = perLayer("moe_intermediate_size", m.inter)
	}
	mixed := rapid.Bool().Draw(t, "use_mixed_mlp_moe")
	c["use_mixed_mlp_moe"] = mixed
	if mixed {
		c["num_shared_expert"] = perLayer("num_shared_expert", rapid.Uint64Range(1, 2).Draw(t, "shared"))
	}
	quantize(t, c, quantExperts)
	return c
}
