package modelgen

import "pgregory.net/rapid"

// qwen35Text draws the language models of Qwen3.5: qwen3_5_text (Qwen3-Next's
// layers with a dense MLP on every layer, whatever MoE keys the config
// holds) and qwen3_5_moe_text (MoE on every layer, its sizes sometimes
// left to Qwen3_5MoeTextConfig's defaults); the recurrent state sometimes
// in mamba_ssm_dtype. The qwen3_5 and qwen3_5_moe wrappers are drawn by
// wrappers.
var qwen35Text = family{types: []string{"qwen3_5_text", "qwen3_5_moe_text"}, draw: drawQwen35Text}

func drawQwen35Text(t *rapid.T, modelType string) map[string]any {
	c := drawGatedDeltaNet(t, modelType)
	moeKeys := []string{"num_experts", "num_experts_per_tok", "moe_intermediate_size", "shared_expert_intermediate_size"}
	switch {
	case modelType == "qwen3_5_text" && rapid.Bool().Draw(t, "moe_keys_left_out"):
		for _, k := range moeKeys {
			delete(c, k)
		}
	case modelType == "qwen3_5_moe_text" && rapid.IntRange(0, 7).Draw(t, "moe_defaults") == 0:
		// 256 experts of 512, top 8, a shared expert of 512
		// (vllm/transformers_utils/configs/qwen3_5_moe.py:46-50).
		for _, k := range moeKeys {
			delete(c, k)
		}
	}
	if rapid.Bool().Draw(t, "mamba_ssm_dtype") {
		c["mamba_ssm_dtype"] = rapid.SampledFrom([]string{"float32", "bfloat16"}).Draw(t, "ssm_dtype")
	}
	quantize(t, c, quantExperts)
	return c
}
