package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGemmaGraniteQwen2MoEWeights checks the module trees of Gemma 1,
// Granite and Qwen2-MoE on tiny bf16 configs (hidden 64, 4 heads, 2 KV
// heads, vocab 100 padded to 128, 64 positions) against totals computed by
// hand from vLLM's model files: gemma.py, granite.py, qwen2_moe.py.
func TestGemmaGraniteQwen2MoEWeights(t *testing.T) {
	tests := []struct {
		name, doc string
		want      uint64
	}{
		{
			// gemma.py, head_dim left out: GemmaConfig's 256, not 64/4.
			// qkv 64 x (4 + 2 + 2) x 256 x 2 = 262144, o_proj 1024 x 64 x
			// 2 = 131072 (no biases, gemma.py:157-171); gate_up 64 x 256 x
			// 2 = 32768, down 128 x 64 x 2 = 16384; two norms 2 x 128. The
			// embedding 128 x 64 x 2 = 16384, tied; final norm 128; rotary
			// 64 x 256 x 2 = 32768.
			name: "gemma",
			doc: `{"model_type": "gemma", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 64, "torch_dtype": "bfloat16"}`,
			want: 262144 + 131072 + 32768 + 16384 + 256 + 16384 + 128 + 32768,
		},
		{
			// granite.py, head_dim 64/4 = 16, attention_bias and mlp_bias:
			// qkv 64 x 128 x 2 = 16384 + bias 256, o_proj 8192 + bias 128,
			// gate_up 64 x 256 x 2 = 32768 + bias 512, down 16384 + bias
			// 128, two norms 256: 75008. Embedding and untied head 16384
			// each, norm 128, rotary 64 x 16 x 2 = 2048. The multipliers
			// take nothing.
			name: "granite",
			doc: `{"model_type": "granite", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 64, "torch_dtype": "bfloat16", "attention_bias": true,
 "mlp_bias": true, "tie_word_embeddings": false, "embedding_multiplier": 12.0, "residual_multiplier": 0.22,
 "attention_multiplier": 0.0625, "logits_scaling": 8.0}`,
			want: 75008 + 16384 + 16384 + 128 + 2048,
		},
		{
			// qwen2_moe.py, layer 0 MoE, layer 1 dense (mlp_only_layers).
			// Attention each layer: qkv 16384 + bias 256, o_proj 8192, no
			// bias: 24832. MoE: router 64 x 4 x 2 = 512 (unquantized),
			// experts w13 4 x 64 x 64 x 2 = 32768 and w2 4 x 64 x 32 x 2 =
			// 16384, shared expert of 48: gate_up 64 x 96 x 2 = 12288, down
			// 48 x 64 x 2 = 6144, shared_expert_gate 64 x 1 x 2 = 128:
			// 68224. Dense MLP 32768 + 16384. Norms 2 x 256. Embedding and
			// head 16384 each, norm 128, rotary 2048.
			name: "qwen2_moe",
			doc: `{"model_type": "qwen2_moe", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
 "shared_expert_intermediate_size": 48, "decoder_sparse_step": 1, "mlp_only_layers": [1], "vocab_size": 100,
 "max_position_embeddings": 64, "torch_dtype": "bfloat16"}`,
			want: 2*24832 + 68224 + 49152 + 512 + 16384 + 16384 + 128 + 2048,
		},
		{
			// Without a shared expert vLLM still builds shared_expert_gate
			// (qwen2_moe.py:145-151): the MoE layer loses the shared MLP's
			// 18432 and keeps the gate's 128.
			name: "qwen2_moe without a shared expert",
			doc: `{"model_type": "qwen2_moe", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
 "shared_expert_intermediate_size": 0, "decoder_sparse_step": 1, "mlp_only_layers": [1], "vocab_size": 100,
 "max_position_embeddings": 64, "torch_dtype": "bfloat16"}`,
			want: 2*24832 + 68224 - 18432 + 49152 + 512 + 16384 + 16384 + 128 + 2048,
		},
	}
	for _, tt := range tests {
		a, err := ParseConfig(tt.name+".json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != tt.want {
			t.Errorf("%s: %d B, want %d (by hand)", tt.name, got, tt.want)
		}
	}
}

// TestQwen2MoESparseLayers: a layer is MoE when decoder_sparse_step
// selects it ((i+1) % step == 0) and mlp_only_layers does not list it
// (qwen2_moe.py:310-325).
func TestQwen2MoESparseLayers(t *testing.T) {
	doc := `{"model_type": "qwen2_moe", "hidden_size": 64, "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 4,
 "intermediate_size": 128, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
 "shared_expert_intermediate_size": 32, "decoder_sparse_step": 2, "mlp_only_layers": [3], "vocab_size": 100,
 "max_position_embeddings": 64}`
	a, err := ParseConfig("x.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	// Step 2 selects layers 1, 3, 5 (F Fe F F F Fe); layer 3 is listed dense.
	if diff := cmp.Diff("FFeFFFFe", kinds(a.Layers)); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}
}

// TestNewFamilyConfigErrors: what vLLM refuses or the families require is
// an error naming the key.
func TestNewFamilyConfigErrors(t *testing.T) {
	base := `"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 128, "vocab_size": 100,
 "max_position_embeddings": 64`
	tests := []struct{ name, doc, want string }{
		{"gemma untied", `{"model_type": "gemma", ` + base + `, "tie_word_embeddings": false}`,
			"x.json: tie_word_embeddings: false: vLLM's GemmaForCausalLM requires the head tied to the embedding (gemma.py:349-350)"},
		{"granite multiplier not a number", `{"model_type": "granite", ` + base + `, "embedding_multiplier": "twelve"}`,
			`x.json: embedding_multiplier: must be a finite number, got "twelve"`},
		// Qwen2MoeConfig gives 5632; a remote-code config read as
		// Qwen2-MoE by its architectures has no class to give it.
		{"qwen2_moe without a shared size", `{"model_type": "acme_moe", "architectures": ["Qwen2MoeForCausalLM"], ` + base + `, "num_experts": 4, "num_experts_per_tok": 2,
 "moe_intermediate_size": 32}`,
			"x.json: shared_expert_intermediate_size: missing (required)"},
	}
	for _, tt := range tests {
		_, err := ParseConfig("x.json", []byte(tt.doc))
		if err == nil {
			t.Errorf("%s: parsed, want %q", tt.name, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %q, want it to hold %q", tt.name, err, tt.want)
		}
	}
}

// TestQwen35MoEByModelType: vLLM builds Qwen3.5's MLP by the text
// model_type (qwen3_5.py:162-177): qwen3_5_text is dense on every layer
// whatever MoE keys its config holds, qwen3_5_moe_text has the MoE block
// on every layer whatever decoder_sparse_step or mlp_only_layers say, its
// sizes defaulting as Qwen3_5MoeTextConfig's (num_experts 256, top-8,
// 512-wide experts and shared expert: vllm/transformers_utils/configs/
// qwen3_5_moe.py:46-50).
func TestQwen35MoEByModelType(t *testing.T) {
	const common = `"hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
 "head_dim": 16, "intermediate_size": 128, "full_attention_interval": 2, "linear_num_key_heads": 2,
 "linear_num_value_heads": 4, "linear_key_head_dim": 8, "linear_value_head_dim": 8, "linear_conv_kernel_dim": 4,
 "vocab_size": 100, "max_position_embeddings": 64, "torch_dtype": "bfloat16"`
	const moeKeys = `, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
 "shared_expert_intermediate_size": 32, "decoder_sparse_step": 2, "mlp_only_layers": [0]`
	type shape struct {
		MoELayers                                  int
		Experts, TopK, MoEIntermediate, SharedSize uint64
	}
	tests := []struct {
		name, doc string
		want      shape
	}{
		{"qwen3_5_text with MoE keys", `{"model_type": "qwen3_5_text", ` + common + moeKeys + `}`, shape{}},
		{"qwen3_5 wrapper with MoE keys", `{"model_type": "qwen3_5", "text_config": {` + common + moeKeys + `},
 "vision_config": {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "in_channels": 3,
 "out_hidden_size": 64, "patch_size": 2, "spatial_merge_size": 2, "temporal_patch_size": 2, "num_position_embeddings": 16}}`, shape{}},
		{"qwen3_5_moe_text", `{"model_type": "qwen3_5_moe_text", ` + common + moeKeys + `}`, shape{4, 4, 2, 32, 32}},
		{"qwen3_5_moe_text without sizes", `{"model_type": "qwen3_5_moe_text", ` + common + `}`, shape{4, 256, 8, 512, 512}},
	}
	for _, tt := range tests {
		a, err := ParseConfig(tt.name+".json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := shape{Experts: a.Experts, TopK: a.ExpertsPerToken, MoEIntermediate: a.MoEIntermediate, SharedSize: a.SharedIntermediate}
		for _, l := range a.Layers {
			if l.MoE {
				got.MoELayers++
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
