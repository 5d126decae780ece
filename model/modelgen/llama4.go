package modelgen

import "pgregory.net/rapid"

// llama4Text draws model_type llama4_text: MoE every
// interleave_moe_layer_step-th layer with a shared expert, dense layers of
// intermediate_size_mlp, no-rope layers, and sometimes chunked attention on
// the rope layers. The llama4 wrapper is drawn by wrappers.
var llama4Text = family{types: []string{"llama4_text"}, draw: drawLlama4Text}

func drawLlama4Text(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	m := drawMoE(t)
	c["num_local_experts"] = m.experts
	c["num_experts_per_tok"] = m.topK
	c["intermediate_size_mlp"] = 128 * rapid.Uint64Range(1, 64).Draw(t, "mlp_x128")
	c["interleave_moe_layer_step"] = rapid.Uint64Range(1, 2).Draw(t, "moe_step")
	c["use_qk_norm"] = rapid.Bool().Draw(t, "qk_norm")
	if rapid.Bool().Draw(t, "chunked") {
		c["attention_chunk_size"] = chunk(t)
	}
	quantize(t, c, quantExperts)
	return c
}
