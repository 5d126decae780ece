package modelgen

import "pgregory.net/rapid"

// mamba draws model_type mamba (state-spaces' Mamba) or falcon_mamba (TII
// Falcon Mamba, Mamba's layers with weightless mixer norms): attention-free,
// every layer a Mamba1 mixer of intermediate_size (given, or expand x
// hidden_size), time_step_rank given or "auto"; sometimes a
// max_position_embeddings, mostly none as the published configs; tied or
// not; unquantized.
var mamba = family{types: []string{"mamba", "falcon_mamba"}, draw: drawMamba}

func drawMamba(t *rapid.T, modelType string) map[string]any {
	hidden := 128 * rapid.Uint64Range(1, 40).Draw(t, "hidden_x128")
	c := map[string]any{
		"model_type":          modelType,
		"hidden_size":         hidden,
		"num_hidden_layers":   rapid.Uint64Range(1, 64).Draw(t, "layers"),
		"vocab_size":          rapid.Uint64Range(256, 65536).Draw(t, "vocab"),
		"state_size":          x8(t, "state_x8", 4),
		"conv_kernel":         rapid.Uint64Range(2, 4).Draw(t, "conv_kernel"),
		"expand":              2,
		"use_bias":            rapid.Bool().Draw(t, "use_bias"),
		"use_conv_bias":       rapid.Bool().Draw(t, "use_conv_bias"),
		"torch_dtype":         rapid.SampledFrom([]string{"bfloat16", "float16", "float32"}).Draw(t, "dtype"),
		"tie_word_embeddings": rapid.Bool().Draw(t, "tied"),
	}
	if rapid.Bool().Draw(t, "intermediate_given") {
		c["intermediate_size"] = 2 * hidden
	}
	if rapid.Bool().Draw(t, "time_step_rank_auto") {
		c["time_step_rank"] = "auto"
	} else {
		c["time_step_rank"] = x8(t, "time_step_rank_x8", 32)
	}
	if rapid.Bool().Draw(t, "max_position") {
		c["max_position_embeddings"] = rapid.SampledFrom(maxPositions).Draw(t, "max_position_embeddings")
	}
	return c
}
