package modelgen

import "pgregory.net/rapid"

// gptOss draws model_type gpt_oss: every layer MoE with biased experts, the
// even layers sliding, YaRN rope, bfloat16, MXFP4 experts or none.
var gptOss = family{types: []string{"gpt_oss"}, draw: drawGptOss}

func drawGptOss(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	m := drawMoE(t)
	c["head_dim"] = s.headDim
	c["hidden_size"] = 64 * rapid.Uint64Range(1, 64).Draw(t, "hidden_x64")
	c["num_local_experts"] = m.experts
	c["num_experts_per_tok"] = m.topK
	c["intermediate_size"] = 64 * rapid.Uint64Range(1, 64).Draw(t, "expert_inter_x64")
	c["sliding_window"] = window(t)
	c["rope_scaling"] = map[string]any{"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": s.maxPos / 32,
		"beta_fast": 32.0, "beta_slow": 1.0}
	c["torch_dtype"] = "bfloat16"
	quantize(t, c, quantMXFP4)
	return c
}
