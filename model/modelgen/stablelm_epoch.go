package modelgen

import "pgregory.net/rapid"

// stableLMEpoch draws model_type stablelm_epoch (Stability's remote-code
// StableLM): StableLM's keys with the remote class's rope_pct, which vLLM
// does not read, sometimes beside a partial_rotary_factor or rotary_pct it
// does; use_qkv_bias given or not; tie_word_embeddings given or left out
// (true).
var stableLMEpoch = family{types: []string{"stablelm_epoch"}, draw: drawStableLMEpoch}

func drawStableLMEpoch(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	c["rope_pct"] = rapid.SampledFrom([]float64{0.25, 0.5, 1}).Draw(t, "rope_pct")
	c["norm_eps"] = 1e-5
	if rapid.Bool().Draw(t, "qkv_bias_given") {
		c["use_qkv_bias"] = rapid.Bool().Draw(t, "use_qkv_bias")
	}
	switch rapid.IntRange(0, 2).Draw(t, "rotary_key") {
	case 1:
		c["partial_rotary_factor"] = rapid.SampledFrom([]float64{0.25, 0.5, 1}).Draw(t, "partial_rotary_factor")
	case 2:
		c["rotary_pct"] = rapid.SampledFrom([]float64{0.25, 0.5, 1}).Draw(t, "rotary_pct")
	}
	if c["tie_word_embeddings"] == true && rapid.Bool().Draw(t, "omit_tie") {
		delete(c, "tie_word_embeddings")
	}
	quantize(t, c, quantDense)
	return c
}
