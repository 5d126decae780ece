package modelgen

import "pgregory.net/rapid"

// deepseekV4 draws model_type deepseek_v4 (DeepseekV4ForCausalLM): a
// single 512-wide latent a token over a sliding window on every layer,
// each layer uncompressed (0 or 1), compressed 4x with the indexer or
// 128x (compress_ratios, sometimes longer than the layers as the
// published files are), every layer MoE with the first num_hash_layers
// hash-routed, hc_mult residual streams, fp4 or fp8 experts, the FP8
// 128-block quantization_config of its checkpoints, YaRN, up to one MTP
// layer. The intermediate is whole 256s, which MXFP4 experts at one rank
// need. The shapes the reader refuses (head_dim, rope and indexer widths
// vLLM's kernels fix) are drawn as the published ones.
var deepseekV4 = family{types: []string{"deepseek_v4"}, draw: drawDeepSeekV4}

func drawDeepSeekV4(t *rapid.T, modelType string) map[string]any {
	heads := rapid.SampledFrom(headCounts).Draw(t, "heads")
	layers := rapid.Uint64Range(1, 48).Draw(t, "layers")
	ratios := make([]uint64, layers+rapid.Uint64Range(0, 3).Draw(t, "extra_ratios"))
	for i := range ratios {
		ratios[i] = rapid.SampledFrom([]uint64{0, 1, 4, 128}).Draw(t, "compress_ratio")
	}
	m := drawMoE(t)
	original := rapid.SampledFrom([]uint64{1024, 4096, 65536}).Draw(t, "original_max_position")
	factor := rapid.SampledFrom([]uint64{1, 4, 16}).Draw(t, "yarn_factor")
	c := map[string]any{
		"model_type":               modelType,
		"hidden_size":              256 * rapid.Uint64Range(1, 32).Draw(t, "hidden_x256"),
		"num_hidden_layers":        layers,
		"num_attention_heads":      heads,
		"num_key_value_heads":      1,
		"head_dim":                 512,
		"vocab_size":               rapid.Uint64Range(256, 262144).Draw(t, "vocab"),
		"max_position_embeddings":  original * factor,
		"torch_dtype":              "bfloat16",
		"tie_word_embeddings":      false,
		"q_lora_rank":              rapid.SampledFrom([]uint64{64, 1024}).Draw(t, "q_lora"),
		"o_lora_rank":              rapid.SampledFrom([]uint64{64, 1024}).Draw(t, "o_lora"),
		"o_groups":                 rapid.SampledFrom(divisors(heads)).Draw(t, "o_groups"),
		"qk_rope_head_dim":         64,
		"index_n_heads":            rapid.SampledFrom([]uint64{4, 64}).Draw(t, "index_n_heads"),
		"index_head_dim":           128,
		"index_topk":               rapid.SampledFrom([]uint64{64, 512}).Draw(t, "index_topk"),
		"hc_mult":                  rapid.Uint64Range(1, 4).Draw(t, "hc_mult"),
		"hc_sinkhorn_iters":        20,
		"num_hash_layers":          rapid.Uint64Range(0, 3).Draw(t, "hash_layers"),
		"n_routed_experts":         m.experts,
		"num_experts_per_tok":      m.topK,
		"moe_intermediate_size":    rapid.SampledFrom([]uint64{256, 512, 1024, 2048}).Draw(t, "moe_inter"),
		"n_shared_experts":         1,
		"topk_method":              "noaux_tc",
		"sliding_window":           rapid.SampledFrom([]uint64{64, 128, 512}).Draw(t, "sliding_window"),
		"compress_ratios":          ratios,
		"compress_rope_theta":      160000,
		"rope_theta":               10000,
		"rope_scaling":             map[string]any{"type": "yarn", "factor": factor, "original_max_position_embeddings": original, "beta_fast": 32, "beta_slow": 1},
		"expert_dtype":             rapid.SampledFrom([]string{"fp4", "fp8"}).Draw(t, "expert_dtype"),
		"num_nextn_predict_layers": rapid.Uint64Range(0, 1).Draw(t, "mtp_layers"),
		"quantization_config": map[string]any{"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "scale_fmt": "ue8m0",
			"weight_block_size": []uint64{128, 128}},
	}
	return c
}
