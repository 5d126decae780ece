package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFamilyClassDefaults: one key per family left out, read as the class
// cited in its family file gives it; each want is the value in that class's
// __init__ (or dataclass field), read by hand, and what the Arch makes of
// it. body is a small model every row shares: 64 wide, 4 heads of 16, 2 KV
// heads, 2 layers.
func TestFamilyClassDefaults(t *testing.T) {
	const body = `"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
 "vocab_size": 100, "max_position_embeddings": 256`
	mla := `"kv_lora_rank": 32, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16, "moe_intermediate_size": 32,
 "num_experts_per_tok": 2, "n_routed_experts": 4`
	tests := []struct {
		name, doc string
		got       func(*Arch) any
		want      any
	}{
		// Gemma2Config: sliding_window 4096.
		{"gemma2 sliding_window", `{"model_type": "gemma2", "head_dim": 16, ` + body + `}`,
			func(a *Arch) any { return a.SlidingWindow }, uint64(4096)},
		// GraniteConfig: max_position_embeddings 2048.
		{"granite max_position_embeddings", `{"model_type": "granite", ` + strings.Replace(body, `, "max_position_embeddings": 256`, "", 1) + `}`,
			func(a *Arch) any { return a.MaxPosition }, uint64(2048)},
		// GptOssConfig: sliding_window 128 (every other layer slides).
		{"gpt_oss sliding_window", `{"model_type": "gpt_oss", "head_dim": 16, "num_local_experts": 4, "num_experts_per_tok": 2, "layer_types": ["sliding_attention", "full_attention"], ` + body + `}`,
			func(a *Arch) any { return a.SlidingWindow }, uint64(128)},
		// Exaone4Config: num_key_value_heads 32, so 64 heads share 32.
		{"exaone4 num_key_value_heads", `{"model_type": "exaone4", "hidden_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 64, "intermediate_size": 128,
 "vocab_size": 100, "max_position_embeddings": 256}`,
			func(a *Arch) any { return a.KVHeads }, uint64(32)},
		// Olmo3Config: vocab_size 50304.
		{"olmo3 vocab_size", `{"model_type": "olmo3", ` + strings.Replace(body, `"vocab_size": 100, `, "", 1) + `}`,
			func(a *Arch) any { return a.Vocab }, uint64(50304)},
		// Glm4MoeConfig: partial_rotary_factor 0.5 of head_dim 16: 8.
		{"glm4_moe partial_rotary_factor", `{"model_type": "glm4_moe", "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32, ` + body + `}`,
			func(a *Arch) any { return a.RotaryDim }, uint64(8)},
		// DeepseekV2Config: moe_intermediate_size 1407.
		{"deepseek_v2 moe_intermediate_size", `{"model_type": "deepseek_v2", "q_lora_rank": null, "first_k_dense_replace": 0, ` +
			strings.Replace(mla, `"moe_intermediate_size": 32,`, "", 1) + `, ` + body + `}`,
			func(a *Arch) any { return a.MoEIntermediate }, uint64(1407)},
		// DeepseekV3Config for kimi_k2 (vLLM's registry): first_k_dense_replace 3
		// of 4 layers: the last is MoE.
		{"kimi_k2 first_k_dense_replace", `{"model_type": "kimi_k2", "q_lora_rank": 16, ` + mla + `, ` + strings.Replace(body, `"num_hidden_layers": 2`, `"num_hidden_layers": 4`, 1) + `}`,
			func(a *Arch) any { return kinds(a.Layers) }, "FFFFe"},
		// DeepseekV3Config for deepseek_v32: q_lora_rank 1536.
		{"deepseek_v32 q_lora_rank", `{"model_type": "deepseek_v32", "first_k_dense_replace": 0, ` + mla + `, ` + body + `}`,
			func(a *Arch) any { return a.QLoraRank }, uint64(1536)},
		// Kimi-K2.5's text_config is a DeepseekV3Config: kv_lora_rank 512.
		{"kimi_k25 text kv_lora_rank", `{"model_type": "kimi_k25", "text_config": {"q_lora_rank": 16, "first_k_dense_replace": 0, ` +
			strings.Replace(mla, `"kv_lora_rank": 32, `, "", 1) + `, ` + body + `}}`,
			func(a *Arch) any { return a.KVLoraRank }, uint64(512)},
		// GlmMoeDsaConfig: index_topk 2048 (every GLM-MoE-DSA layer indexes).
		{"glm_moe_dsa index_topk", `{"model_type": "glm_moe_dsa", "q_lora_rank": 16, "first_k_dense_replace": 0, "index_head_dim": 16, "index_n_heads": 2, ` + mla + `, ` + body + `}`,
			func(a *Arch) any { return a.Indexer.TopK }, uint64(2048)},
		// Qwen2MoeConfig: shared_expert_intermediate_size 5632.
		{"qwen2_moe shared_expert_intermediate_size", `{"model_type": "qwen2_moe", "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32, ` + body + `}`,
			func(a *Arch) any { return a.SharedIntermediate }, uint64(5632)},
		// Qwen3MoeConfig: moe_intermediate_size 768.
		{"qwen3_moe moe_intermediate_size", `{"model_type": "qwen3_moe", "num_experts": 4, "num_experts_per_tok": 2, ` + body + `}`,
			func(a *Arch) any { return a.MoEIntermediate }, uint64(768)},
		// Phi3Config: vocab_size 32064.
		{"phi3 vocab_size", `{"model_type": "phi3", ` + strings.Replace(body, `"vocab_size": 100, `, "", 1) + `}`,
			func(a *Arch) any { return a.Vocab }, uint64(32064)},
		// Qwen3NextConfig: linear_num_value_heads 32.
		{"qwen3_next linear_num_value_heads", `{"model_type": "qwen3_next", "head_dim": 16, "linear_num_key_heads": 4, "linear_key_head_dim": 16, "linear_value_head_dim": 16,
 "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32, "shared_expert_intermediate_size": 32, ` + body + `}`,
			func(a *Arch) any { return a.DeltaNet.NumValueHeads }, uint64(32)},
		// Qwen3_5TextConfig: head_dim 256, whatever 64 / 4.
		{"qwen3_5_text head_dim", `{"model_type": "qwen3_5_text", "linear_num_key_heads": 4, "linear_num_value_heads": 4, ` + body + `}`,
			func(a *Arch) any { return a.HeadDim }, uint64(256)},
		// Qwen3_5MoeTextConfig: num_experts 256.
		{"qwen3_5_moe_text num_experts", `{"model_type": "qwen3_5_moe_text", "head_dim": 16, "linear_num_key_heads": 4, "linear_num_value_heads": 4, ` + body + `}`,
			func(a *Arch) any { return a.Experts }, uint64(256)},
		// MiniMaxM2Config: num_local_experts 256.
		{"minimax_m2 num_local_experts", `{"model_type": "minimax_m2", "head_dim": 16, "rotary_dim": 8, "num_experts_per_tok": 2, ` + body + `}`,
			func(a *Arch) any { return a.Experts }, uint64(256)},
		// Llama4TextConfig: attention_chunk_size 8192.
		{"llama4_text attention_chunk_size", `{"model_type": "llama4_text", "head_dim": 16, "num_local_experts": 4, "num_experts_per_tok": 1, "intermediate_size_mlp": 256, ` + body + `}`,
			func(a *Arch) any { return a.AttentionChunkSize }, uint64(8192)},
		// NemotronHConfig: mamba_ssm_cache_dtype float32.
		{"nemotron_h mamba_ssm_cache_dtype", `{"model_type": "nemotron_h", "hybrid_override_pattern": "M*", "head_dim": 16, "mamba_num_heads": 8, "mamba_head_dim": 16,
 "ssm_state_size": 16, "n_groups": 2, "conv_kernel": 4, ` + body + `}`,
			func(a *Arch) any { return a.StateDtype }, "float32"},
		// Gemma4TextConfig: global_head_dim 512 on the full layer.
		{"gemma4_text global_head_dim", `{"model_type": "gemma4_text", "hidden_size_per_layer_input": 0, "head_dim": 16, "sliding_window": 8,
 "layer_types": ["sliding_attention", "full_attention"], ` + body + `}`,
			func(a *Arch) any { return a.Layers[1].HeadDim }, uint64(512)},
		// Ministral3Config: max_position_embeddings 262144.
		{"ministral3 max_position_embeddings", `{"model_type": "ministral3", ` + strings.Replace(body, `, "max_position_embeddings": 256`, "", 1) + `}`,
			func(a *Arch) any { return a.MaxPosition }, uint64(262144)},
		// Mistral3Config: a text_config without model_type is MistralConfig's,
		// whose sliding_window is 4096.
		{"mistral3 text sliding_window", `{"model_type": "mistral3", "text_config": {` + body + `}, "vision_config": {"hidden_size": 64,
 "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "patch_size": 16, "image_size": 64}}`,
			func(a *Arch) any { return a.SlidingWindow }, uint64(4096)},
		// Qwen3VLVisionConfig: depth 27.
		{"qwen3_vl vision depth", `{"model_type": "qwen3_vl", "text_config": {"head_dim": 16, ` + body + `}, "vision_config": {"hidden_size": 64,
 "intermediate_size": 128, "num_heads": 4, "patch_size": 16, "num_position_embeddings": 64, "out_hidden_size": 64, "deepstack_visual_indexes": []}}`,
			func(a *Arch) any { return a.Vision.Layers }, uint64(27)},
		// Qwen2_5_VLVisionConfig: intermediate_size 3420.
		{"qwen2_5_vl vision intermediate_size", `{"model_type": "qwen2_5_vl", ` + body + `, "vision_config": {"depth": 2, "hidden_size": 64, "num_heads": 4,
 "patch_size": 14, "out_hidden_size": 64}}`,
			func(a *Arch) any { return a.Vision.Intermediate }, uint64(3420)},
		// Llama4VisionConfig: image_size 448.
		{"llama4 vision image_size", `{"model_type": "llama4", "text_config": {"head_dim": 16, "num_local_experts": 4, "num_experts_per_tok": 1,
 "intermediate_size_mlp": 256, ` + body + `}, "vision_config": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
 "num_attention_heads": 4, "patch_size": 14, "vision_output_dim": 64, "projector_input_dim": 64, "projector_output_dim": 64}}`,
			func(a *Arch) any { return a.Vision.ImageSize }, uint64(448)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseConfig("x.json", []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tt.got(a)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(a.Defaulted) == 0 {
				t.Error("no key recorded as the class's")
			}
		})
	}
}

// TestDerivedLayerTypes: a config without layer_types gets the ones its
// class's __post_init__ derives, which vLLM reads: Olmo3Config each 4th
// layer full, Exaone4Config each sliding_window_pattern-th (4 by default),
// Gemma4TextConfig each 6th and the last; a null window leaves every layer
// full; Gemma 4's last layer is full whatever layer_types say.
func TestDerivedLayerTypes(t *testing.T) {
	const body = `"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
 "vocab_size": 100, "max_position_embeddings": 256, "sliding_window": 16`
	tests := []struct{ name, doc, want string }{
		// 8 layers: 4 and 8 full.
		{"olmo3", `{"model_type": "olmo3", "num_hidden_layers": 8, ` + body + `}`, "SSSFSSSF"},
		{"olmo3 null window", `{"model_type": "olmo3", "num_hidden_layers": 4, ` + strings.Replace(body, `"sliding_window": 16`, `"sliding_window": null`, 1) + `}`, "FFFF"},
		// Exaone4Config's pattern 4; then a pattern of 2.
		{"exaone4", `{"model_type": "exaone4", "num_hidden_layers": 5, ` + body + `}`, "SSSFS"},
		{"exaone4 pattern 2", `{"model_type": "exaone4", "num_hidden_layers": 4, "sliding_window_pattern": 2, ` + body + `}`, "SFSF"},
		// 7 layers: the 6th full by the period, the 7th as the last.
		{"gemma4", `{"model_type": "gemma4_text", "hidden_size_per_layer_input": 0, "head_dim": 16, "global_head_dim": 16, "num_hidden_layers": 7, ` + body + `}`, "SSSSSFF"},
		{"gemma4 last sliding", `{"model_type": "gemma4_text", "hidden_size_per_layer_input": 0, "head_dim": 16, "global_head_dim": 16, "num_hidden_layers": 2,
 "layer_types": ["full_attention", "sliding_attention"], ` + body + `}`, "FF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseConfig("x.json", []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, kinds(a.Layers)); diff != "" {
				t.Errorf("layers (-want +got):\n%s", diff)
			}
		})
	}
	_, err := ParseConfig("x.json", []byte(`{"model_type": "exaone4", "num_hidden_layers": 4, "sliding_window_pattern": "LLLG", `+body+`}`))
	if err == nil || !strings.Contains(err.Error(), `x.json: sliding_window_pattern: must be a non-negative integer, got "LLLG"`) {
		t.Errorf("a string pattern without layer_types: %v", err)
	}
}
