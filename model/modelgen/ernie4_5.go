package modelgen

import "pgregory.net/rapid"

// ernie45 draws model_type ernie4_5 (ERNIE 4.5 dense): Llama's layers,
// sometimes leaving out the keys Ernie4_5Config fills (vocabulary,
// context, MLP width, head_dim 128, tied embeddings).
var ernie45 = family{types: []string{"ernie4_5"}, draw: drawErnie45}

func drawErnie45(t *rapid.T, modelType string) map[string]any {
	c, _ := decoder(t, modelType, true)
	for _, k := range []string{"vocab_size", "max_position_embeddings", "intermediate_size", "tie_word_embeddings"} {
		if rapid.Bool().Draw(t, "omit_"+k) {
			delete(c, k)
		}
	}
	c["use_bias"] = false
	quantize(t, c, quantDense)
	return c
}
