package modelgen

import "pgregory.net/rapid"

// ernie45MoE draws model_type ernie4_5_moe (ERNIE 4.5 MoE): MoE layers by
// moe_layer_start_index, moe_layer_end_index (-1: the last) and
// moe_layer_interval, shared experts, and sometimes the keys
// Ernie4_5_MoeConfig fills left out.
var ernie45MoE = family{types: []string{"ernie4_5_moe"}, draw: drawErnie45MoE}

func drawErnie45MoE(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	m := drawMoE(t)
	c["moe_num_experts"] = m.experts
	c["moe_k"] = m.topK
	c["moe_intermediate_size"] = m.inter
	c["moe_num_shared_experts"] = rapid.Uint64Range(0, 2).Draw(t, "shared")
	c["moe_layer_start_index"] = rapid.Uint64Range(0, s.layers).Draw(t, "moe_start")
	c["moe_layer_end_index"] = rapid.Int64Range(-1, int64(s.layers)-1).Draw(t, "moe_end")
	c["moe_layer_interval"] = rapid.Uint64Range(1, 2).Draw(t, "moe_interval")
	c["use_bias"] = false
	for _, k := range []string{"vocab_size", "max_position_embeddings", "tie_word_embeddings"} {
		if rapid.Bool().Draw(t, "omit_"+k) {
			delete(c, k)
		}
	}
	quantize(t, c, quantExperts)
	return c
}
