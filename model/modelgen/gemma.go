package modelgen

import "pgregory.net/rapid"

// gemma draws model_type gemma (Gemma 1): the head tied to the embedding,
// as vLLM asserts, and head_dim 256 where the config leaves it out.
var gemma = family{types: []string{"gemma"}, draw: drawGemma}

func drawGemma(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	c["tie_word_embeddings"] = true // gemma.py:349-350 asserts it
	if rapid.Bool().Draw(t, "default_tied") {
		delete(c, "tie_word_embeddings") // GemmaConfig's default
	}
	quantize(t, c, quantDense)
	return c
}
