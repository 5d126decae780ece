package modelgen

import "pgregory.net/rapid"

// qwen3VLMoE draws model_type qwen3_vl_moe (Qwen3-MoE text under
// text_config, with Qwen3-VL's tower or text-only) and its text model
// qwen3_vl_moe_text at the top.
var qwen3VLMoE = family{types: []string{"qwen3_vl_moe", "qwen3_vl_moe_text"}, draw: drawQwen3VLMoE}

func init() {
	wrapped["qwen3_vl_moe"] = struct {
		types []string
		draw  func(t *rapid.T, modelType string) map[string]any
	}{[]string{"qwen3_vl_moe_text"}, drawQwen3MoE}
}

func drawQwen3VLMoE(t *rapid.T, modelType string) map[string]any {
	if modelType == "qwen3_vl_moe_text" {
		return drawQwen3MoE(t, modelType)
	}
	return drawWrapper(t, modelType)
}
