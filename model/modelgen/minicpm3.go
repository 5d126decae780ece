package modelgen

import "pgregory.net/rapid"

// miniCPM3 draws model_type minicpm3 (MiniCPM3): MiniCPM's keys with
// DeepSeek V2's latent ranks (always a query latent: vLLM builds q_a_proj
// whatever), v_head_dim given or left out (hidden_size / heads, drawn only
// where it fits in the query-key head vLLM pads V to), silu or fatrelu,
// tie_word_embeddings given or left out (true).
var miniCPM3 = family{types: []string{"minicpm3"}, draw: drawMiniCPM3}

func drawMiniCPM3(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, false)
	nope := rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "nope")
	rope := rapid.SampledFrom([]uint64{16, 32, 64}).Draw(t, "rope")
	c["qk_nope_head_dim"], c["qk_rope_head_dim"] = nope, rope
	c["kv_lora_rank"] = rapid.SampledFrom([]uint64{64, 256, 512}).Draw(t, "kv_lora")
	c["q_lora_rank"] = rapid.SampledFrom([]uint64{64, 768, 1536}).Draw(t, "q_lora")
	if s.headDim > nope+rope || rapid.Bool().Draw(t, "explicit_v") {
		c["v_head_dim"] = rapid.SampledFrom([]uint64{16, 32, 48}).Draw(t, "v")
	}
	c["hidden_act"] = rapid.SampledFrom([]string{"silu", "fatrelu"}).Draw(t, "hidden_act")
	c["scale_emb"], c["scale_depth"], c["dim_model_base"] = 12, 1.4, 256
	if c["tie_word_embeddings"] == true && rapid.Bool().Draw(t, "omit_tie") {
		delete(c, "tie_word_embeddings")
	}
	quantize(t, c, quantDense)
	return c
}
