package modelgen

import "pgregory.net/rapid"

// gemma4Text draws model_type gemma4_text: sliding and global layers by
// layer_types, the global ones of twice the head size and, under
// attention_k_eq_v, of all or half the KV heads; sometimes a routed MoE
// beside every layer's MLP. The gemma4 wrapper is drawn by wrappers.
var gemma4Text = family{types: []string{"gemma4_text"}, draw: drawGemma4Text}

func drawGemma4Text(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	c["layer_types"] = layerTypes(t, s.layers, "full_attention", "sliding_attention")
	if rapid.Bool().Draw(t, "derived_layer_types") {
		delete(c, "layer_types") // Gemma4TextConfig derives them: each 6th and the last full
	}
	c["sliding_window"] = window(t)
	c["head_dim"] = s.headDim
	c["global_head_dim"] = 2 * s.headDim
	// The published configs write 0: Gemma4TextConfig's default (256)
	// turns on the per-layer inputs, which the model refuses.
	c["hidden_size_per_layer_input"] = 0
	if rapid.Bool().Draw(t, "k_eq_v") {
		// All or half the KV heads: the global layers' KV page is then
		// twice the sliding layers' or the same, which vLLM's page
		// unification needs (one must divide the other); half only of an
		// even count, so that the pages keep that ratio.
		global := s.kvHeads
		if s.kvHeads%2 == 0 && rapid.Bool().Draw(t, "global_kv_half") {
			global /= 2
		}
		c["attention_k_eq_v"] = true
		c["num_global_key_value_heads"] = global
	}
	if rapid.Bool().Draw(t, "moe_block") {
		m := drawMoE(t)
		c["enable_moe_block"] = true
		c["num_experts"] = m.experts
		c["top_k_experts"] = m.topK
		c["moe_intermediate_size"] = m.inter
	}
	quantize(t, c, quantExperts)
	return c
}
