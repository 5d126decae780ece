package modelgen

import "pgregory.net/rapid"

// gemma3Text draws model_type gemma3_text: layers sliding but every
// sliding_window_pattern-th, and sometimes the vocabulary and context
// left to Gemma3TextConfig's defaults. The gemma3 wrapper, with its
// SigLIP tower, is drawn by wrappers.
var gemma3Text = family{types: []string{"gemma3_text"}, draw: drawGemma3Text}

func drawGemma3Text(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["sliding_window"] = window(t)
	c["sliding_window_pattern"] = rapid.Uint64Range(1, 8).Draw(t, "pattern")
	if rapid.IntRange(0, 3).Draw(t, "gemma3_defaults") == 0 {
		delete(c, "vocab_size")              // 262208
		delete(c, "max_position_embeddings") // 131072
	}
	quantize(t, c, quantDense)
	return c
}
