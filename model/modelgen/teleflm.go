package modelgen

import "pgregory.net/rapid"

// teleFLM draws model_type teleflm (Tele-FLM, Llama's layers): biases as
// llama.py reads them and the muP multipliers.
var teleFLM = family{types: []string{"teleflm"}, draw: drawTeleFLM}

func drawTeleFLM(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	c["use_mup"] = true
	c["input_mult"] = 1.0
	c["output_mult"] = 1.0
	c["mup_scale_factor"] = 1.0
	quantize(t, c, quantDense)
	return c
}
