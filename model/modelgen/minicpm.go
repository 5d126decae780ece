package modelgen

import "pgregory.net/rapid"

// miniCPM draws model_type minicpm (MiniCPM, dense): Llama's keys with
// head_dim derived from hidden_size, silu or fatrelu, the activation
// scales (scale_emb, scale_depth, dim_model_base), tie_word_embeddings
// given or left out (true).
var miniCPM = family{types: []string{"minicpm"}, draw: drawMiniCPM}

func drawMiniCPM(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, false)
	c["hidden_act"] = rapid.SampledFrom([]string{"silu", "fatrelu"}).Draw(t, "hidden_act")
	c["scale_emb"], c["scale_depth"], c["dim_model_base"] = 12, 1.4, 256
	if c["tie_word_embeddings"] == true && rapid.Bool().Draw(t, "omit_tie") {
		delete(c, "tie_word_embeddings")
	}
	quantize(t, c, quantDense)
	return c
}
