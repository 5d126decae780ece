package modelgen

import "pgregory.net/rapid"

// hyperCLOVAX draws model_type hyperclovax (HyperCLOVA X): Llama's layers
// with biases, the muP multipliers, and sometimes use_post_norm's two more
// norms a layer.
var hyperCLOVAX = family{types: []string{"hyperclovax"}, draw: drawHyperCLOVAX}

func drawHyperCLOVAX(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	c["mlp_bias"] = rapid.Bool().Draw(t, "mlp_bias")
	c["use_post_norm"] = rapid.Bool().Draw(t, "use_post_norm")
	c["attention_multiplier"] = 1 / float64(s.headDim)
	c["residual_multiplier"] = 1.0
	c["embedding_multiplier"] = 1.0
	c["logits_scaling"] = 1.0
	quantize(t, c, quantDense)
	return c
}
