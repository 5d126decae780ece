package modelgen

import "pgregory.net/rapid"

// flexOlmo draws model_type flex_olmo (FlexOlmo): OLMoE's keys as olmoe
// draws them, unquantized.
var flexOlmo = family{types: []string{"flex_olmo"}, draw: drawFlexOlmo}

func drawFlexOlmo(t *rapid.T, modelType string) map[string]any {
	c := drawOlmoe(t, modelType)
	delete(c, "quantization_config")
	if n, ok := c["num_local_experts"]; ok {
		c["num_experts"] = n // FlexOlmoConfig has no num_local_experts alias
		delete(c, "num_local_experts")
	}
	return c
}
