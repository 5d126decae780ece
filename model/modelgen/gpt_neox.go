package modelgen

import "pgregory.net/rapid"

// gptNeoX draws model_type gpt_neox (Pythia, GPT-NeoX-20B): multi-head
// attention of hidden_size / heads, a rotary_pct or partial_rotary_factor
// of a head, attention_bias, and sometimes the keys GPTNeoXConfig fills
// left out.
var gptNeoX = family{types: []string{"gpt_neox"}, draw: drawGPTNeoX}

func drawGPTNeoX(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	delete(c, "num_key_value_heads")
	pct := rapid.SampledFrom([]float64{0.25, 0.5, 1}).Draw(t, "rotary_pct")
	if rapid.Bool().Draw(t, "partial_rotary_factor") {
		c["partial_rotary_factor"] = pct
	} else {
		c["rotary_pct"] = pct
	}
	c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
	c["use_parallel_residual"] = rapid.Bool().Draw(t, "use_parallel_residual")
	for _, k := range []string{"vocab_size", "max_position_embeddings", "tie_word_embeddings"} {
		if rapid.Bool().Draw(t, "omit_"+k) {
			delete(c, k)
		}
	}
	quantize(t, c, quantDense)
	return c
}
