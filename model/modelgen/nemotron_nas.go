package modelgen

import "pgregory.net/rapid"

// nemotronNAS draws model_type nemotron-nas (DeciLMForCausalLM,
// Llama-Nemotron): Llama's keys with num_key_value_heads and
// intermediate_size null, as NVIDIA's configs write them, and a
// block_configs entry a layer: attention with the one heads group every
// attending block shares, or a no-op now and then (the first block always
// attends); an FFN of one of the ffn_mult values the published blocks use,
// or a no-op now and then; window_length and sink keys null, as vLLM
// builds every attending block full.
var nemotronNAS = family{types: []string{"nemotron-nas"}, draw: drawNemotronNAS}

// decilmMults are the ffn_mult values of Llama-3.3-Nemotron-Super-49B-v1's
// blocks (corpus/models) and 2.0.
var decilmMults = []float64{0.5, 1.0, 1.3125, 2.0, 2.625, 3.28125, 5.25}

func drawNemotronNAS(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, false)
	c["num_key_value_heads"] = nil
	c["intermediate_size"] = nil
	c["attention_bias"] = false
	c["mlp_bias"] = false
	blocks := make([]any, s.layers)
	for i := range blocks {
		attn := map[string]any{"no_op": true, "replace_with_linear": false, "n_heads_in_group": nil, "window_length": nil, "num_sink_tokens": nil}
		if i == 0 || rapid.IntRange(0, 2).Draw(t, "attends") > 0 {
			attn["no_op"] = false
			attn["n_heads_in_group"] = s.heads / s.kvHeads
		}
		ffn := map[string]any{"no_op": true, "replace_with_linear": false, "ffn_mult": nil}
		if rapid.IntRange(0, 5).Draw(t, "ffn") > 0 {
			ffn["no_op"] = false
			ffn["ffn_mult"] = rapid.SampledFrom(decilmMults).Draw(t, "ffn_mult")
		}
		blocks[i] = map[string]any{"attention": attn, "ffn": ffn}
	}
	c["block_configs"] = blocks
	return c
}
