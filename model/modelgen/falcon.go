package modelgen

import "pgregory.net/rapid"

// falcon draws model_type falcon (Falcon, Falcon-RW): head_dim derived
// from hidden_size, KV heads by new_decoder_architecture (num_kv_heads,
// sometimes left to the heads), multi_query or multi-head, parallel_attn
// with one or two norms or falcon-rw's sequential layer (never under
// new_decoder_architecture), ALiBi or rotary, bias either way; the MLP is
// always 4 x hidden_size, ffn_hidden_size given now and then.
var falcon = family{types: []string{"falcon"}, draw: drawFalcon}

func drawFalcon(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, false)
	delete(c, "num_key_value_heads")
	delete(c, "intermediate_size")
	newArch := rapid.Bool().Draw(t, "new_decoder_architecture")
	c["new_decoder_architecture"] = newArch
	c["multi_query"] = rapid.Bool().Draw(t, "multi_query")
	// vLLM runs a new_decoder_architecture layer only in parallel.
	parallel := newArch || rapid.Bool().Draw(t, "parallel_attn")
	c["parallel_attn"] = parallel
	if newArch && rapid.Bool().Draw(t, "num_kv_heads") {
		c["num_kv_heads"] = s.kvHeads
	}
	if parallel && rapid.Bool().Draw(t, "num_ln") {
		c["num_ln_in_parallel_attn"] = rapid.SampledFrom([]uint64{1, 2}).Draw(t, "num_ln_in_parallel_attn")
	}
	c["alibi"] = rapid.Bool().Draw(t, "alibi")
	c["bias"] = rapid.Bool().Draw(t, "bias")
	if rapid.Bool().Draw(t, "ffn_hidden_size") {
		c["ffn_hidden_size"] = 4 * c["hidden_size"].(uint64)
	}
	quantize(t, c, quantDense)
	return c
}
