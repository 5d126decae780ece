package modelgen

import "pgregory.net/rapid"

// deepseek draws the model_types read as DeepSeek's: deepseek_v2,
// deepseek_v3 and kimi_k2 (multi-head latent attention, with or without a
// query latent, dense or MoE from first_k_dense_replace on every
// moe_layer_freq-th layer with shared experts), and deepseek_v32 and
// glm_moe_dsa, which add V3.2's lightning indexer and IndexCache's layers
// that reuse an earlier top-k (index_topk_freq and its offset, or
// index_topk_pattern); each with up to one MTP layer. The Kimi-K2.5
// wrapper is drawn by wrappers.
var deepseek = family{types: []string{"deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "glm_moe_dsa"}, draw: drawDeepSeek}

func drawDeepSeek(t *rapid.T, modelType string) map[string]any {
	c, s := decoder(t, modelType, true)
	c["kv_lora_rank"] = rapid.SampledFrom([]uint64{64, 128, 512}).Draw(t, "kv_lora")
	c["qk_rope_head_dim"] = rapid.SampledFrom([]uint64{16, 32, 64}).Draw(t, "rope")
	c["qk_nope_head_dim"] = rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "nope")
	c["v_head_dim"] = rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "v")
	c["q_lora_rank"] = rapid.SampledFrom([]uint64{0, 64, 1536}).Draw(t, "q_lora")
	if modelType == "deepseek_v32" || modelType == "glm_moe_dsa" {
		// The indexer projects from the query latent: q_lora_rank is set.
		c["q_lora_rank"] = rapid.SampledFrom([]uint64{64, 1536}).Draw(t, "q_lora_v32")
		c["index_topk"] = rapid.SampledFrom([]uint64{64, 2048}).Draw(t, "index_topk")
		c["index_head_dim"] = rapid.SampledFrom([]uint64{64, 128}).Draw(t, "index_head_dim")
		c["index_n_heads"] = rapid.SampledFrom([]uint64{4, 64}).Draw(t, "index_n_heads")
		switch rapid.IntRange(0, 2).Draw(t, "index_cache") {
		case 1:
			c["index_topk_freq"] = rapid.Uint64Range(1, 4).Draw(t, "index_topk_freq")
			c["index_skip_topk_offset"] = rapid.Uint64Range(0, 3).Draw(t, "index_skip_topk_offset")
		case 2:
			pattern := make([]byte, s.layers)
			for i := range pattern {
				pattern[i] = rapid.SampledFrom([]byte("FS")).Draw(t, "index_topk_layer")
			}
			c["index_topk_pattern"] = string(pattern)
		}
	}
	if rapid.Bool().Draw(t, "moe") {
		m := drawMoE(t)
		c["n_routed_experts"] = m.experts
		c["num_experts_per_tok"] = m.topK
		c["moe_intermediate_size"] = m.inter
		c["n_shared_experts"] = rapid.Uint64Range(0, 2).Draw(t, "shared")
		c["first_k_dense_replace"] = rapid.Uint64Range(0, s.layers).Draw(t, "first_dense")
		c["moe_layer_freq"] = rapid.Uint64Range(1, 2).Draw(t, "moe_layer_freq")
		c["topk_method"] = rapid.SampledFrom([]string{"noaux_tc", "greedy"}).Draw(t, "topk_method")
	} else {
		// Dense: DeepseekV2Config and DeepseekV3Config give 64 and 256
		// routed experts to a config that leaves the key out; only null
		// (None) makes every layer dense.
		c["n_routed_experts"] = nil
	}
	c["num_nextn_predict_layers"] = rapid.Uint64Range(0, 1).Draw(t, "mtp_layers")
	quantize(t, c, quantExperts)
	return c
}
