package modelgen

import "pgregory.net/rapid"

// apertus draws model_type apertus (ApertusForCausalLM): Llama's keys
// with an explicit head_dim now and then, hidden_act xielu (the only
// activation vLLM builds), qk_norm either way (vLLM builds the per-head
// norms whatever it says), attention and MLP biases, and sometimes the
// keys ApertusConfig fills left out.
var apertus = family{types: []string{"apertus"}, draw: drawApertus}

func drawApertus(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["hidden_act"] = "xielu"
	c["qk_norm"] = rapid.Bool().Draw(t, "qk_norm")
	c["post_norm"] = false
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	c["mlp_bias"] = rapid.Bool().Draw(t, "mlp_bias")
	quantize(t, c, quantDense)
	return c
}
