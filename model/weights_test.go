package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

func sumItems(items []budget.Item, prefixes ...string) uint64 {
	var n uint64
	for _, it := range items {
		if len(prefixes) == 0 {
			n += it.Bytes
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(it.Name, p) {
				n += it.Bytes
				break
			}
		}
	}
	return n
}

// TestFamilyWeights checks the module trees of the families that depart
// from Llama's, on tiny configs, against totals computed by hand from
// vLLM's model files (cited in weights.go and the family_*.go files).
func TestFamilyWeights(t *testing.T) {
	tests := []struct {
		name, doc string
		sh        func(a *Arch) Sharding
		want      uint64
	}{
		{
			// OPT (opt.py), fp16: embed_tokens 128 (100 padded) x 32
			// (word_embed_proj_dim) x 2 = 8192; embed_positions (32 + 2) x
			// 64 x 2 = 4352; project_in 32 x 64 x 2 = 4096 and project_out
			// the same; final LayerNorm 128 + 128. The layer: qkv 64 x 192
			// x 2 = 24576 + bias 384; out_proj 8192 + 128; fc1 64 x 128 x 2
			// = 16384 + 256; fc2 16384 + 128; two LayerNorms 4 x 128. The
			// head is tied. 20992 + 66944.
			name: "opt",
			doc: `{"model_type": "opt", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "ffn_dim": 128,
 "vocab_size": 100, "max_position_embeddings": 32, "word_embed_proj_dim": 32, "torch_dtype": "float16"}`,
			want: 20992 + 66944,
		},
		{
			// OPT builds everything outside the layers on every stage
			// (opt.py:211-253): a middle stage of none of the layers holds
			// 20992.
			name: "opt, a stage without the first or last",
			doc: `{"model_type": "opt", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "ffn_dim": 128,
 "vocab_size": 100, "max_position_embeddings": 32, "word_embed_proj_dim": 32, "torch_dtype": "float16"}`,
			sh:   func(a *Arch) Sharding { return Sharding{TP: 1, DtypeBytes: 2} },
			want: 20992,
		},
		{
			// Nemotron-H "M*E-" (nemotron_h.py), bf16: embedding and head
			// 128 x 64 x 2 = 16384 each, norm_f 128. Mamba2 (I 4 x 16 = 64,
			// 2 groups of 8 states): in_proj 64 x (2x64 + 2x16 + 4) x 2 =
			// 20992, conv1d (64 + 32) x 4 x 2 = 768 + bias 192, A 4 x 4, D
			// and dt_bias 4 x 2 each, norm 128, out_proj 8192, block norm
			// 128: 30432. Attention: qkv 64 x 128 x 2 = 16384, o 8192, norm
			// 128: 24704. MoE: router fp32 (no specialized GEMM) 64 x 2 x 4
			// = 512, routing bias 8, relu2 experts w13 2 x 32 x 64 x 2 =
			// 8192 and w2 8192, shared 48: up 6144, down 6144, norm 128:
			// 29320. MLP: up and down 64 x 128 x 2 = 16384 each, norm 128.
			name: "nemotron_h",
			doc: `{"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 4, "hybrid_override_pattern": "M*E-",
 "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128, "mamba_num_heads": 4,
 "mamba_head_dim": 16, "ssm_state_size": 8, "n_groups": 2, "conv_kernel": 4, "n_routed_experts": 2, "num_experts_per_tok": 1,
 "moe_intermediate_size": 32, "n_shared_experts": 1, "moe_shared_expert_intermediate_size": 48, "vocab_size": 100,
 "max_position_embeddings": 64, "torch_dtype": "bfloat16", "time_step_limit": [0.0, Infinity]}`,
			want: 16384 + 30432 + 24704 + 29320 + 32896 + 128 + 16384,
		},
		{
			// The router in the model dtype where vLLM's router GEMMs run:
			// 256 bytes less.
			name: "nemotron_h on Hopper",
			doc: `{"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 1, "hybrid_override_pattern": "E",
 "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 128, "n_routed_experts": 2, "num_experts_per_tok": 1,
 "moe_intermediate_size": 32, "n_shared_experts": 1, "moe_shared_expert_intermediate_size": 48, "vocab_size": 100,
 "max_position_embeddings": 64, "torch_dtype": "bfloat16"}`,
			sh:   func(a *Arch) Sharding { sh := Whole(a, 1, 2, a.Quant); sh.RouterGEMM = true; return sh },
			want: 16384 + (29320 - 256) + 128 + 16384,
		},
		{
			// Qwen3-Next (qwen3_next.py), layer 0 a delta net, layer 1 full:
			// key dim 2 x 8, value dim 4 x 8. Delta net: in_proj_qkvz 64 x
			// 96 x 2 = 12288, in_proj_ba 64 x 8 x 2 = 1024, conv1d 64 x 4 x
			// 2 = 512, dt_bias 8, A_log 4 x 4, norm 16, out_proj 32 x 64 x
			// 2 = 4096: 17960. Attention with the output gate: qkv 64 x (8 +
			// 4) x 16 x 2 = 24576, o 8192, q_norm and k_norm 32 each: 32832.
			// MoE each layer: gate 256, experts 16384 + 8192, shared
			// expert 8192 + 4096, shared_expert_gate 128: 37248. Norms 256 a
			// layer. Embedding and head 16384 each, norm 128, rotary 64 x
			// 4 (0.25 x 16) x 2 = 512.
			name: "qwen3_next",
			doc: `{"model_type": "qwen3_next", "hidden_size": 64, "num_hidden_layers": 2, "full_attention_interval": 2,
 "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128, "linear_num_key_heads": 2,
 "linear_num_value_heads": 4, "linear_key_head_dim": 8, "linear_value_head_dim": 8, "linear_conv_kernel_dim": 4,
 "num_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 32, "shared_expert_intermediate_size": 32,
 "vocab_size": 100, "max_position_embeddings": 64, "torch_dtype": "bfloat16"}`,
			want: 17960 + 37248 + 256 + 32832 + 37248 + 256 + 16384 + 128 + 16384 + 512,
		},
		{
			// DeepSeek V3.2 (deepseek_v2.py), one dense layer: fused_qkv_a
			// 64 x (16 + 32 + 8) x 2 = 7168, q_a_layernorm 32, q_b 16 x 48 x
			// 2 = 1536, kv_a_layernorm 64, kv_b 32 x 64 x 2 = 4096, o 32 x
			// 64 x 2 = 4096; the indexer's wq_b 16 x 32 x 2 = 1024,
			// wk_weights_proj 64 x 18 x 2 = 2304, fp32 k_norm 2 x 16 x 4 =
			// 128: 20448. MLP 16384 + 8192, norms 256. Embedding, head
			// 16384 each, norm 128, two rotary tables 64 x 8 x 2 = 1024.
			name: "deepseek_v32",
			doc: `{"model_type": "deepseek_v32", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
 "intermediate_size": 64, "kv_lora_rank": 32, "q_lora_rank": 16, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8,
 "v_head_dim": 16, "index_head_dim": 16, "index_n_heads": 2, "index_topk": 4, "vocab_size": 100,
 "max_position_embeddings": 64, "torch_dtype": "bfloat16"}`,
			want: 20448 + 24576 + 256 + 16384 + 128 + 16384 + 2*1024,
		},
	}
	for _, tt := range tests {
		a, err := ParseConfig(tt.name+".json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		sh := Whole(a, 1, 2, a.Quant)
		if tt.sh != nil {
			sh = tt.sh(a)
		}
		if got := sumItems(Weights(a, sh)); got != tt.want {
			t.Errorf("%s: %d B, want %d (by hand)", tt.name, got, tt.want)
		}
	}
}

// TestVisionTowerWeights checks the towers on tiny configs: vision hidden
// 32 (2 heads of 16), intermediate 64, one layer, patch 2, 3 channels,
// merge 2 (merged width 128), text hidden 64, bf16.
func TestVisionTowerWeights(t *testing.T) {
	text := `"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 64, "vocab_size": 100, "max_position_embeddings": 64, "torch_dtype": "bfloat16"`
	tests := []struct {
		name, doc string
		want      uint64
	}{
		{
			// Qwen2.5-VL (qwen2_5_vl.py:533-712): patch_embed 32 x 3 x 2 x
			// 2 x 2 x 2 = 1536; the block: two RMSNorms 64 each, qkv 32 x
			// 96 x 2 = 6144 + bias 192, proj 2048 + 64, gate_up 32 x 128 x
			// 2 = 8192 + 256, down 4096 + 64: 21184; the merger: ln_q 64,
			// mlp.0 128 x 128 x 2 = 32768 + 256, mlp.2 128 x 64 x 2 = 16384
			// + 128: 49600; the rotary table 8192 x 8 x 2 = 131072.
			name: "qwen2_5_vl",
			doc: `{"model_type": "qwen2_5_vl", ` + text + `, "vision_config": {"depth": 1, "hidden_size": 32, "intermediate_size": 64,
 "num_heads": 2, "in_chans": 3, "out_hidden_size": 64, "patch_size": 2, "spatial_merge_size": 2, "temporal_patch_size": 2}}`,
			want: 1536 + 21184 + 49600 + 131072,
		},
		{
			// Qwen3-VL (qwen3_vl.py:370-670): patch_embed 1536 + bias 64,
			// pos_embed 16 x 32 x 2 = 1024; the block: two LayerNorms 128
			// each, qkv 6144 + 192, proj 2048 + 64, linear_fc1 32 x 64 x 2 =
			// 4096 + 128, linear_fc2 4096 + 64: 17088; the merger: norm 128,
			// fc1 32768 + 256, fc2 16384 + 128: 49664; one deepstack merger,
			// its norm over 128: 512 + 32768 + 256 + 16384 + 128 = 50048;
			// rotary 131072.
			name: "qwen3_vl",
			doc: `{"model_type": "qwen3_vl", "text_config": {` + text + `, "head_dim": 16}, "vision_config": {"depth": 1, "hidden_size": 32,
 "intermediate_size": 64, "num_heads": 2, "in_channels": 3, "out_hidden_size": 64, "patch_size": 2, "spatial_merge_size": 2,
 "temporal_patch_size": 2, "num_position_embeddings": 16, "deepstack_visual_indexes": [0]}}`,
			want: 1536 + 64 + 1024 + 17088 + 49664 + 50048 + 131072,
		},
		{
			// Pixtral (pixtral.py, mistral3.py), image 8: patch_conv 32 x 3
			// x 2 x 2 x 2 = 768, ln_pre 64; the layer: two RMSNorms 128,
			// qkv 6144, o 2048, gate_up 8192, down 4096: 20608; the rope's
			// fp32 frequencies (8/2)^2 x 16 x 4 = 1024; projector: norm 64,
			// patch merger 128 x 32 x 2 = 8192, linear_1 32 x 64 x 2 = 4096,
			// linear_2 64 x 64 x 2 = 8192 (no bias).
			name: "mistral3",
			doc: `{"model_type": "mistral3", "multimodal_projector_bias": false, "spatial_merge_size": 2, "vision_feature_layer": -1,
 "text_config": {` + text + `}, "vision_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
 "num_attention_heads": 2, "num_channels": 3, "patch_size": 2, "image_size": 8}}`,
			want: 768 + 64 + 20608 + 1024 + 64 + 8192 + 4096 + 8192,
		},
	}
	for _, tt := range tests {
		a, err := ParseConfig(tt.name+".json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		items := Weights(a, Whole(a, 1, 2, a.Quant))
		if got := sumItems(items, "visual.", "vision_tower.", "multi_modal_projector.", "rotary_emb.visual", "rotary_emb.vision"); got != tt.want {
			t.Errorf("%s: tower %d B, want %d (by hand)", tt.name, got, tt.want)
		}
	}
}

// TestTowersOnFirstStageOnly: a tower and its projector are on the first
// pipeline stage only.
func TestTowersOnFirstStageOnly(t *testing.T) {
	a := loadShipped(t)["Qwen__Qwen2.5-VL-7B-Instruct"]
	last := Sharding{TP: 1, FirstLayer: 14, EndLayer: 28, Last: true, DtypeBytes: 2}
	if got := sumItems(Weights(a, last), "visual."); got != 0 {
		t.Errorf("the last stage holds %d B of the tower", got)
	}
}

// TestMTPLayersNotLoaded: the MTP layers past num_hidden_layers are counted
// in MTPLayers and have no weights (vLLM loads them only for speculative
// decoding).
func TestMTPLayersNotLoaded(t *testing.T) {
	a := loadShipped(t)["zai-org__GLM-4.5"]
	for _, it := range Weights(a, Whole(a, 8, 2, a.Quant)) {
		if strings.HasPrefix(it.Name, "model.layers.92.") {
			t.Fatalf("MTP layer weights %s", it.Name)
		}
	}
	if diff := cmp.Diff(uint64(1), a.MTPLayers); diff != "" {
		t.Errorf("MTP layers (-want +got):\n%s", diff)
	}
}

// itemBytes maps each item to its bytes.
func itemBytes(items []budget.Item) map[string]uint64 {
	m := map[string]uint64{}
	for _, it := range items {
		m[it.Name] += it.Bytes
	}
	return m
}

// tinyMLA is a one-layer MoE DeepSeek-style config (hidden 64, 4 experts)
// of model_type mt, with extra keys.
func tinyMLA(mt, extra string) string {
	return `{"model_type": "` + mt + `", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
 "intermediate_size": 64, "kv_lora_rank": 32, "q_lora_rank": 16, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8,
 "v_head_dim": 16, "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32, "n_shared_experts": 1,
 "first_k_dense_replace": 0, "topk_method": "noaux_tc", "vocab_size": 100, "max_position_embeddings": 64, "torch_dtype": "bfloat16"` + extra + `}`
}

// TestRouterWeightDtype: a router asked to compute in float32 keeps its
// weight in float32 only where vLLM stores it so. DeepSeek's GateLinear
// (glm_moe_dsa, moe_router_dtype float32) sets only its output dtype
// (deepseek_v2.py:123-133, 308-314; gate_linear.py:49-75): the model
// dtype. GLM-4.5's router is an nn.Linear of dtype float32
// (glm4_moe.py:142-146). Nemotron-H's force_fp32_compute stores float32
// unless the device runs the router GEMMs (gate_linear.py:59-68).
func TestRouterWeightDtype(t *testing.T) {
	glm45 := `{"model_type": "glm4_moe", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
 "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128, "n_routed_experts": 4, "num_experts_per_tok": 2,
 "moe_intermediate_size": 32, "n_shared_experts": 1, "vocab_size": 100, "max_position_embeddings": 64, "torch_dtype": "bfloat16"}`
	nemotron := `{"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 1, "hybrid_override_pattern": "E",
 "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 128, "n_routed_experts": 4, "num_experts_per_tok": 1,
 "moe_intermediate_size": 32, "n_shared_experts": 1, "moe_shared_expert_intermediate_size": 48, "vocab_size": 100,
 "max_position_embeddings": 64, "torch_dtype": "bfloat16"}`
	tests := []struct {
		name, doc, router string
		routerGEMM        bool
		want              uint64
	}{
		// 64 x 4 in bf16: 512 B; in float32: 1024 B.
		{"glm_moe_dsa", tinyMLA("glm_moe_dsa", ""), "model.layers.0.mlp.gate.weight", false, 512},
		{"glm_moe_dsa, router GEMMs", tinyMLA("glm_moe_dsa", ""), "model.layers.0.mlp.gate.weight", true, 512},
		{"deepseek_v3 moe_router_dtype float32", tinyMLA("deepseek_v3", `, "moe_router_dtype": "float32"`), "model.layers.0.mlp.gate.weight", false, 512},
		{"glm4_moe", glm45, "model.layers.0.mlp.gate.weight", true, 1024},
		{"nemotron_h", nemotron, "model.layers.0.mixer.gate.weight", false, 1024},
		{"nemotron_h, router GEMMs", nemotron, "model.layers.0.mixer.gate.weight", true, 512},
	}
	for _, tt := range tests {
		a, err := ParseConfig(tt.name+".json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		sh := Whole(a, 1, 2, a.Quant)
		sh.RouterGEMM = tt.routerGEMM
		if got := itemBytes(Weights(a, sh))[tt.router]; got != tt.want {
			t.Errorf("%s: %s %d B, want %d", tt.name, tt.router, got, tt.want)
		}
	}
}

// TestStagesBuildTheTopModules: which pipeline stage holds the embedding,
// the final norm and the head, each family as its vLLM model builds them
// (PPMissingLayer off the first or last stage, or not). Two layers of
// hidden 64, vocabulary 100 padded to 128, untied, in bf16 (fp16 for
// Phi): an embedding or head is 128 x 64 x 2 = 16384 B, an RMSNorm 128 B,
// a LayerNorm 256 B.
func TestStagesBuildTopModules(t *testing.T) {
	const common = `"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 64, "tie_word_embeddings": false`
	const qwenHybrid = `, "head_dim": 16, "layer_types": ["linear_attention", "full_attention"], "linear_num_key_heads": 2,
 "linear_num_value_heads": 4, "linear_key_head_dim": 8, "linear_value_head_dim": 8, "linear_conv_kernel_dim": 4`
	llamaTop := func(embed, norm, head bool) map[string]uint64 {
		m := map[string]uint64{}
		if embed {
			m["model.embed_tokens.weight"] = 16384
		}
		if norm {
			m["model.norm.weight"] = 128
		}
		if head {
			m["lm_head.weight"] = 16384
		}
		return m
	}
	phiTop := map[string]uint64{"model.embed_tokens.weight": 16384, "model.final_layernorm.weight": 128,
		"model.final_layernorm.bias": 128, "lm_head.weight": 16384, "lm_head.bias": 256}
	nemotronTop := map[string]uint64{"model.embed_tokens.weight": 16384, "model.norm_f.weight": 128, "lm_head.weight": 16384}
	tests := []struct {
		name, doc   string
		first, last map[string]uint64
	}{
		// llama.py: the embedding on the first stage, norm and head on the
		// last.
		{"llama", `{"model_type": "llama", "torch_dtype": "bfloat16", ` + common + `}`, llamaTop(true, false, false), llamaTop(false, true, true)},
		// phi.py:216-226, 288-294: all of it on every stage.
		{"phi", `{"model_type": "phi", "torch_dtype": "float16", ` + common + `}`, phiTop, phiTop},
		// olmo3.py:285-300, 372-379.
		{"olmo3", `{"model_type": "olmo3", "torch_dtype": "bfloat16", ` + common + `}`, llamaTop(true, true, true), llamaTop(true, true, true)},
		// nemotron_h.py:561, 595, 814.
		{"nemotron_h", `{"model_type": "nemotron_h", "torch_dtype": "bfloat16", "hybrid_override_pattern": "*-", "head_dim": 16, ` + common + `}`,
			nemotronTop, nemotronTop},
		// gemma4.py:966, 1043, 1540.
		{"gemma4_text", `{"model_type": "gemma4_text", "hidden_size_per_layer_input": 0, "torch_dtype": "bfloat16", "head_dim": 16, ` + common + `}`,
			llamaTop(true, true, true), llamaTop(true, true, true)},
		// qwen3_5.py:244-247 the embedding on every stage; :263-266 and
		// 336-346 the norm and head on the last.
		{"qwen3_5_text", `{"model_type": "qwen3_5_text", "torch_dtype": "bfloat16", ` + common + qwenHybrid + `}`,
			llamaTop(true, false, false), llamaTop(true, true, true)},
		// qwen3_next.py:603-606 and 794-798 the embedding and head on every
		// stage; :622-625 the norm on the last.
		{"qwen3_next", `{"model_type": "qwen3_next", "torch_dtype": "bfloat16", ` + common + qwenHybrid + `}`,
			llamaTop(true, false, true), llamaTop(true, true, true)},
	}
	top := func(items []budget.Item) map[string]uint64 {
		m := map[string]uint64{}
		for name, b := range itemBytes(items) {
			if !strings.HasPrefix(name, "model.layers.") && !strings.HasPrefix(name, "rotary_emb.") {
				m[name] = b
			}
		}
		return m
	}
	for _, tt := range tests {
		a, err := ParseConfig(tt.name+".json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		first, last := Whole(a, 1, 2, a.Quant), Whole(a, 1, 2, a.Quant)
		first.EndLayer, first.Last = 1, false
		last.FirstLayer, last.First = 1, false
		if diff := cmp.Diff(tt.first, top(Weights(a, first))); diff != "" {
			t.Errorf("%s, first stage (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.last, top(Weights(a, last))); diff != "" {
			t.Errorf("%s, last stage (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestWeightlessNormsAndLayerBuffers: the ones tensors of vLLM's
// weightless RMSNorms and Gemma 4's buffers. Gemma 4, bf16, hidden 64,
// layer 0 sliding (head_dim 16) and layer 1 global (global_head_dim 32):
// layer_scalar one element on every layer (gemma4.py:687) = 2 B; v_norm
// head_dim in the model dtype (gemma4.py:436) = 32 and 64 B; with
// enable_moe_block, the router's norm 64 x 2 = 128 B (gemma4.py:279) and
// root_size one element = 2 B (gemma4.py:283-287). Llama 4, head_dim 32:
// the qk norm's ones in float32 (llama4.py:213-221) = 128 B on the rope
// layer 0, none on the no-rope layer 1.
func TestWeightlessNormsAndLayerBuffers(t *testing.T) {
	gemma := `{"model_type": "gemma4_text", "hidden_size_per_layer_input": 0, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
 "num_key_value_heads": 2, "head_dim": 16, "global_head_dim": 32, "intermediate_size": 128, "vocab_size": 100,
 "max_position_embeddings": 64, "torch_dtype": "bfloat16", "sliding_window": 16,
 "layer_types": ["sliding_attention", "full_attention"]`
	tests := []struct {
		name, doc string
		want      map[string]uint64
	}{
		{"gemma4_text", gemma + `}`, map[string]uint64{
			"model.layers.0.layer_scalar": 2, "model.layers.1.layer_scalar": 2,
			"model.layers.0.self_attn.v_norm.weight": 32, "model.layers.1.self_attn.v_norm.weight": 64,
		}},
		{"gemma4_text moe", gemma + `, "enable_moe_block": true, "num_experts": 2, "top_k_experts": 1, "moe_intermediate_size": 32}`, map[string]uint64{
			"model.layers.0.layer_scalar": 2, "model.layers.1.layer_scalar": 2,
			"model.layers.0.self_attn.v_norm.weight": 32, "model.layers.1.self_attn.v_norm.weight": 64,
			"model.layers.0.moe.router.norm.weight": 128, "model.layers.1.moe.router.norm.weight": 128,
			"model.layers.0.moe.router.root_size": 2, "model.layers.1.moe.router.root_size": 2,
		}},
		{"llama4_text", `{"model_type": "llama4_text", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
 "num_key_value_heads": 1, "head_dim": 32, "intermediate_size": 32, "intermediate_size_mlp": 128, "num_local_experts": 2,
 "num_experts_per_tok": 1, "interleave_moe_layer_step": 2, "use_qk_norm": true, "no_rope_layers": [1, 0],
 "vocab_size": 100, "max_position_embeddings": 64, "torch_dtype": "bfloat16"}`, map[string]uint64{
			"model.layers.0.self_attn.qk_norm.weight": 128,
		}},
	}
	for _, tt := range tests {
		a, err := ParseConfig(tt.name+".json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := map[string]uint64{}
		for name, b := range itemBytes(Weights(a, Whole(a, 1, 2, a.Quant))) {
			for _, s := range []string{".layer_scalar", ".v_norm.weight", ".router.norm.weight", ".router.root_size", ".qk_norm.weight"} {
				if strings.HasSuffix(name, s) {
					got[name] = b
				}
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestQwen35BAWholeUnderPackedInt: Qwen3.5's in_proj_ba is replicated
// under AWQ and GPTQ (qwen_gdn_linear_attn.py:519-559, maybe_disable_tp)
// and divided otherwise; Qwen3-Next's fused in_proj_ba is always divided.
// Hidden 64, 8 value heads: in_proj_ba 64 -> 16. AWQ, groups of 32, served
// in fp16: qweight 64 x 16 / 8 int32 = 512 B, qzeros 2 x 2 int32 = 16 B,
// scales 2 x 16 x 2 = 64 B: 592 B whole on each of 2 ranks. Unquantized at
// TP2: 64 x 8 x 2 = 1024 B.
func TestQwen35BAWholeUnderPackedInt(t *testing.T) {
	const awq = `, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 32, "zero_point": true, "version": "gemm"}`
	doc := func(mt, extra string) string {
		return `{"model_type": "` + mt + `", "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 1,
 "head_dim": 32, "intermediate_size": 128, "num_hidden_layers": 1, "layer_types": ["linear_attention"],
 "linear_num_key_heads": 2, "linear_num_value_heads": 8, "linear_key_head_dim": 16, "linear_value_head_dim": 16,
 "linear_conv_kernel_dim": 4, "vocab_size": 128, "max_position_embeddings": 64, "torch_dtype": "float16"` + extra + `}`
	}
	tests := []struct {
		name, doc string
		want      uint64
	}{
		{"qwen3_5_text awq", doc("qwen3_5_text", awq), 592},
		{"qwen3_5_text", doc("qwen3_5_text", ""), 1024},
		// Qwen3-Next, divided: qweight 64 x 8 / 8 x 4 = 256, qzeros 2 x 1
		// x 4 = 8, scales 2 x 8 x 2 = 32: 296 B.
		{"qwen3_next awq", doc("qwen3_next", `, "num_experts": 0`+awq), 296},
	}
	for _, tt := range tests {
		a, err := ParseConfig(tt.name+".json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := sumItems(Weights(a, Whole(a, 2, 2, a.Quant)), "model.layers.0.linear_attn.in_proj_ba."); got != tt.want {
			t.Errorf("%s: in_proj_ba %d B a rank at TP2, want %d", tt.name, got, tt.want)
		}
	}
}

// TestQwen3_14BAWQShipped sizes the shipped Qwen/Qwen3-14B-AWQ config
// (corpus/models, observed rows 206 and 207) whole at TP 1, by hand. AWQ
// (4 bits, groups of 128, zero point) keeps a linear layer of in x out as
// qweight in x out / 8 int32 (in x out / 2 B), qzeros in / 128 x out / 8
// int32 (in x out / 256 B) and scales in / 128 x out fp16 (in x out / 64
// B): in x out x 133 / 256 B. A layer: qkv 5120 x (5120 + 2 x 1024) =
// 36,700,160 -> 19,066,880 B; o 5120 x 5120 -> 13,619,200; gate_up 5120 x
// 2 x 17408 -> 92,610,560; down 17408 x 5120 -> 46,305,280; the two norms
// 2 x 5120 x 2 = 20,480 and q_norm, k_norm 2 x 128 x 2 = 512: 171,622,912,
// x 40 = 6,864,916,480. Embedding and head (untied, fp16) 151936 x 5120 x 2
// = 1,555,824,640 each, the final norm 10,240, the rotary table 40960 x
// 128 x 2 = 10,485,760. The checkpoint less the rotary table is
// 9,976,576,000 B = 9.29 GiB, the "Weights on disk" the rows' source gives
// (index file id 69451098589).
func TestQwen3_14BAWQShipped(t *testing.T) {
	a, err := ParseConfig("Qwen__Qwen3-14B-AWQ.json", corpusModel(t, "Qwen__Qwen3-14B-AWQ"))
	if err != nil {
		t.Fatal(err)
	}
	const want = 6_864_916_480 + 2*1_555_824_640 + 10_240 + 10_485_760
	if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != want {
		t.Errorf("Qwen3-14B-AWQ: %d B whole, want %d (by hand)", got, want)
	}
}

// TestGLM52ShippedIndexCache: the shipped GLM-5.2 config gives
// index_topk_freq 4 and index_skip_topk_offset 3, which vLLM reads
// (deepseek_v2.py:1084-1110); the same file's indexer_types, which vLLM
// does not read, lists the layers by hand: "full" on 0-2 and every fourth
// from 6, "shared" on the other 57 (the Hub's GLM-5.2 count is 57
// indexers short of GLM-5's, corpus/models/SOURCES.md). The two must agree.
func TestGLM52ShippedIndexCache(t *testing.T) {
	data := corpusModel(t, "zai-org__GLM-5.2")
	a, err := ParseConfig("zai-org__GLM-5.2.json", data)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		IndexerTypes []string `json:"indexer_types"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var want, got []bool
	shared := 0
	for _, k := range doc.IndexerTypes {
		want = append(want, k == "shared")
		if k == "shared" {
			shared++
		}
	}
	for _, l := range a.Layers {
		got = append(got, l.SharesTopK)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layers sharing the top-k (-indexer_types +parsed):\n%s", diff)
	}
	if shared != 57 {
		t.Errorf("%d shared layers in indexer_types, want 57", shared)
	}
}

// TestIndexCacheLayers: with index_topk_freq or index_topk_pattern a
// DeepSeek V3.2 layer builds no indexer and reuses an earlier layer's
// top-k (deepseek_v2.py:1084-1110): its indexer weights are not built,
// and the indexer's rope table only while some layer has one.
func TestIndexCacheLayers(t *testing.T) {
	doc := func(extra string) string {
		return `{"model_type": "deepseek_v32", "hidden_size": 64, "num_hidden_layers": 8, "num_attention_heads": 2,
 "intermediate_size": 64, "kv_lora_rank": 32, "q_lora_rank": 16, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8,
 "v_head_dim": 16, "index_head_dim": 16, "index_n_heads": 2, "index_topk": 4, "vocab_size": 100,
 "max_position_embeddings": 64, "torch_dtype": "bfloat16"` + extra + `}`
	}
	tests := []struct {
		name, extra string
		// layers is "F" where the layer has an indexer, "S" where it
		// shares an earlier one's top-k.
		layers string
	}{
		{"no keys: every layer", "", "FFFFFFFF"},
		// GLM-5.2's freq 4, offset 3: max(i - 2, 0) % 4 == 0 at 0, 1, 2, 6.
		{"freq 4 offset 3", `, "index_topk_freq": 4, "index_skip_topk_offset": 3`, "FFFSSSFS"},
		// Offset 2 by default: max(i - 1, 0) % 2 == 0 at 0, 1, 3, 5, 7.
		{"freq 2", `, "index_topk_freq": 2`, "FFSFSFSF"},
		// The pattern wins over the frequency; layers past it keep theirs.
		{"pattern", `, "index_topk_freq": 2, "index_topk_pattern": "FSFS"`, "FSFSFFFF"},
		{"null pattern", `, "index_topk_freq": 2, "index_topk_pattern": null`, "FFSFSFSF"},
	}
	for _, tt := range tests {
		a, err := ParseConfig(tt.name+".json", []byte(doc(tt.extra)))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var got strings.Builder
		for _, l := range a.Layers {
			got.WriteString(map[bool]string{false: "F", true: "S"}[l.SharesTopK])
		}
		if diff := cmp.Diff(tt.layers, got.String()); diff != "" {
			t.Errorf("%s: layers (-want +got):\n%s", tt.name, diff)
		}
		// Each indexer: wq_b 16 x 32 x 2 = 1024, wk_weights_proj 64 x 18 x
		// 2 = 2304, fp32 k_norm 2 x 16 x 4 = 128: 3456 B.
		items := Weights(a, Whole(a, 1, 2, a.Quant))
		for i, l := range a.Layers {
			want := uint64(3456)
			if l.SharesTopK {
				want = 0
			}
			if got := sumItems(items, fmt.Sprintf("model.layers.%d.self_attn.indexer.", i)); got != want {
				t.Errorf("%s: layer %d's indexer %d B, want %d", tt.name, i, got, want)
			}
		}
	}
	// A pattern that skips every layer builds no indexer rope table.
	a, err := ParseConfig("all.json", []byte(doc(`, "index_topk_pattern": "SSSSSSSS"`)))
	if err != nil {
		t.Fatal(err)
	}
	if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant)), "rotary_emb.rotary_emb_indexer"); got != 0 {
		t.Errorf("all layers share: the indexer's rope table holds %d B, want none", got)
	}
	if _, err := ParseConfig("zero.json", []byte(doc(`, "index_topk_freq": 0`))); err == nil || !strings.Contains(err.Error(), "index_topk_freq: must be above 0") {
		t.Errorf("index_topk_freq 0: %v; want an error naming the key", err)
	}
}

func TestStages(t *testing.T) {
	// 7 layers as 3 + 2 + 2: the stages lie end to end, the first holds
	// the embedding and the last the head.
	type layers struct {
		First, End     int
		HasFirst, Last bool
	}
	of := func(st []Sharding) []layers {
		var out []layers
		for _, s := range st {
			out = append(out, layers{s.FirstLayer, s.EndLayer, s.First, s.Last})
		}
		return out
	}
	if diff := cmp.Diff([]layers{{0, 3, true, false}, {3, 5, false, false}, {5, 7, false, true}}, of(Stages([]int{3, 2, 2}))); diff != "" {
		t.Errorf("Stages (-want +got):\n%s", diff)
	}
	// One stage is both first and last.
	if diff := cmp.Diff([]layers{{0, 4, true, true}}, of(Stages([]int{4}))); diff != "" {
		t.Errorf("Stages of one (-want +got):\n%s", diff)
	}
}
