package modelgen

import "pgregory.net/rapid"

// mamba2 draws model_type mamba2 (Mamba2, Codestral Mamba):
// attention-free, every layer a Mamba2 mixer of expand x hidden_size
// channels in heads of head_dim and n_groups dividing the heads; no length
// key mostly, as the published configs; tied or not; unquantized.
var mamba2 = family{types: []string{"mamba2"}, draw: drawMamba2}

func drawMamba2(t *rapid.T, modelType string) map[string]any {
	hidden := 128 * rapid.Uint64Range(1, 40).Draw(t, "hidden_x128")
	d := rapid.SampledFrom([]uint64{32, 64}).Draw(t, "head_dim")
	heads := 2 * hidden / d
	c := map[string]any{
		"model_type":          modelType,
		"hidden_size":         hidden,
		"num_hidden_layers":   rapid.Uint64Range(1, 64).Draw(t, "layers"),
		"vocab_size":          rapid.Uint64Range(256, 65536).Draw(t, "vocab"),
		"expand":              2,
		"num_heads":           heads,
		"head_dim":            d,
		"n_groups":            rapid.SampledFrom(divisors(heads)[:min(3, len(divisors(heads)))]).Draw(t, "n_groups"),
		"state_size":          x8(t, "state_x8", 16),
		"conv_kernel":         rapid.Uint64Range(2, 4).Draw(t, "conv_kernel"),
		"chunk_size":          256,
		"use_bias":            rapid.Bool().Draw(t, "use_bias"),
		"use_conv_bias":       rapid.Bool().Draw(t, "use_conv_bias"),
		"torch_dtype":         rapid.SampledFrom([]string{"bfloat16", "float16", "float32"}).Draw(t, "dtype"),
		"tie_word_embeddings": rapid.Bool().Draw(t, "tied"),
	}
	if rapid.Bool().Draw(t, "max_position") {
		c["max_position_embeddings"] = rapid.SampledFrom(maxPositions).Draw(t, "max_position_embeddings")
	}
	return c
}
