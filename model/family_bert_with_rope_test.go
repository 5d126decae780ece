package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

// nomicEmbedV15 is nomic-ai/nomic-embed-text-v1.5's numbers under its
// config's own (GPT-2) names: 768 wide, 12 layers of 12 heads x 64, 3072
// intermediate, SwiGLU, no biases, 30528 tokens, 2 token types, 8192
// positions, the whole head rotated at base 1000.
const nomicEmbedV15 = `{"model_type":"nomic_bert","architectures":["NomicBertModel"],"activation_function":"swiglu",` +
	`"n_embd":768,"n_layer":12,"n_head":12,"n_inner":3072,"n_positions":8192,"max_trained_positions":2048,` +
	`"vocab_size":30528,"type_vocab_size":2,"qkv_proj_bias":false,"mlp_fc1_bias":false,"mlp_fc2_bias":false,` +
	`"rotary_emb_base":1000,"rotary_emb_fraction":1.0,"rotary_emb_interleaved":false,"rotary_emb_scale_base":null,` +
	`"rotary_scaling_factor":null,"prenorm":false,"causal":false,"torch_dtype":"float32"}`

// gteBaseEnV15 is Alibaba-NLP/gte-base-en-v1.5's numbers with the
// architecture vLLM's docs tell its users to override NewModel with: 768
// wide, 12 layers of 12 heads x 64, 3072 intermediate, 30528 tokens, no
// token types, 8192 positions, an NTK rope of factor 2 at base 500000.
const gteBaseEnV15 = `{"model_type":"new","architectures":["GteNewModel"],"hidden_act":"gelu","hidden_size":768,` +
	`"num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,"max_position_embeddings":8192,` +
	`"vocab_size":30528,"type_vocab_size":0,"layer_norm_type":"layer_norm","pack_qkv":true,"position_embedding_type":"rope",` +
	`"rope_theta":500000,"rope_scaling":{"type":"ntk","factor":2.0},"torch_dtype":"float32"}`

// TestBertWithRopeWeightsByHand: the bert_with_rope.py models as vLLM
// builds them at d18bb7b, element by element, at float16 on one GPU.
func TestBertWithRopeWeightsByHand(t *testing.T) {
	tests := []struct {
		name, doc string
		rows      uint64 // Sharding.RotaryRows: the served max_model_len
		want      uint64
	}{
		// Nomic: word_embeddings 30528 x 768 = 23,445,504 (30528 is a
		// multiple of 64); token types 2 x 768 = 1,536; LayerNorm 1,536.
		// A layer: qkv_proj 768 x 2304 = 1,769,472; out_proj 589,824;
		// gate_up_proj 768 x 6144 = 4,718,592; down_proj 3072 x 768 =
		// 2,359,296; attn_ln and mlp_ln 3,072 (no linear bias): 9,440,256,
		// x 12 = 113,283,072. In all 136,731,648 parameters (the card's
		// 137M). vLLM pads the token-type table's 2 rows to 64: 49,152
		// elements built, 47,616 more: 136,779,264. The cos/sin cache:
		// 8192 rows (max_model_len, derived from n_positions) x 64 =
		// 524,288. 137,303,552 x 2 B = 274,607,104.
		{"nomic-embed-text-v1.5", nomicEmbedV15, 0, 274_607_104},
		// Served at --max-model-len 512: the cache is 512 x 64 = 32,768:
		// (136,779,264 + 32,768) x 2 = 273,624,064.
		{"nomic-embed-text-v1.5 at 512", nomicEmbedV15, 512, 273_624_064},
		// GTE: word_embeddings 23,445,504, no token-type table, LayerNorm
		// 1,536. A layer: qkv_proj 1,769,472 + 2,304 bias; out_proj
		// 589,824 + 768; gate_up_proj 4,718,592 and no bias (GteNewModel
		// drops it); down_proj 2,359,296 + 768; LayerNorms 3,072:
		// 9,444,096, x 12 = 113,329,152. In all 136,776,192 (the card's
		// 137M). The NTK rope's cache keeps max_position_embeddings rows:
		// 8192 x 64 = 524,288, whatever max_model_len is served.
		// 137,300,480 x 2 B = 274,600,960.
		{"gte-base-en-v1.5", gteBaseEnV15, 0, 274_600_960},
		{"gte-base-en-v1.5 at 512", gteBaseEnV15, 512, 274_600_960},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseConfig("x.json", []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			sh := Whole(a, 1, 2, Quant{})
			sh.RotaryRows = tt.rows
			if got := budget.ItemBytes(Weights(a, sh)); got != tt.want {
				t.Errorf("%d B, want %d", got, tt.want)
			}
		})
	}
}

// TestBertWithRopeShape: what each reader makes of its config: the
// rotary part, biases, gate and position bound.
func TestBertWithRopeShape(t *testing.T) {
	type got struct {
		Layout                  EncoderLayout
		Head                    EncoderHead
		RotaryDim, Limit, Types uint64
		Gated, GateBias, Bias   bool
		Served                  bool
		Labels                  uint64
	}
	tests := []struct {
		name, doc string
		want      got
	}{
		// Nomic: SwiGLU (gated), no bias anywhere, the cache by the
		// served length; max_model_len from n_positions 8192.
		{"nomic", nomicEmbedV15, got{LayoutBertWithRope, HeadNone, 64, 8192, 2, true, false, false, true, 0}},
		// gelu: the ungated up_proj; biases from qkv_proj_bias; half the
		// head rotated.
		{"nomic gelu", strings.NewReplacer(`"swiglu"`, `"gelu"`, `"qkv_proj_bias":false,"mlp_fc1_bias":false,"mlp_fc2_bias":false`,
			`"qkv_proj_bias":true,"mlp_fc1_bias":true,"mlp_fc2_bias":true`, `"rotary_emb_fraction":1.0`, `"rotary_emb_fraction":0.5`).Replace(nomicEmbedV15),
			got{LayoutBertWithRope, HeadNone, 32, 8192, 2, false, true, true, true, 0}},
		// GTE: GeGLU without a gate bias, biased elsewhere.
		{"gte", gteBaseEnV15, got{LayoutBertWithRope, HeadNone, 64, 8192, 0, true, false, true, false, 0}},
		// The reranker: BertPooler and one label; rotary_emb_dim 32.
		{"gte reranker", strings.NewReplacer(`"GteNewModel"`, `"GteNewForSequenceClassification"`, `"type_vocab_size":0`,
			`"type_vocab_size":1,"num_labels":1,"rotary_emb_dim":32`).Replace(gteBaseEnV15),
			got{LayoutBertWithRope, HeadBertClassifier, 32, 8192, 1, true, false, true, false, 1}},
		// Arctic-Embed 2.0's model_type gte is SnowflakeGteNewModel.
		{"snowflake", strings.NewReplacer(`"model_type":"new","architectures":["GteNewModel"]`, `"model_type":"gte","architectures":["GteModel"]`).Replace(gteBaseEnV15),
			got{LayoutBertWithRope, HeadNone, 64, 8192, 0, true, false, true, false, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseConfig("x.json", []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			e := a.Encoder
			g := got{e.Layout, e.Head, a.RotaryDim, a.PositionLimit(), e.TokenTypes, e.GatedMLP, e.GateUpBias, a.AttnBias,
				len(a.Rotary) == 1 && a.Rotary[0].Served, e.Labels}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !e.RotaryPositions() {
				t.Error("RotaryPositions false for a rotary encoder")
			}
		})
	}
}

// TestBertWithRopeRefusals: each config vLLM asserts against, or that
// membudget does not size, is refused naming its key.
func TestBertWithRopeRefusals(t *testing.T) {
	tests := []struct{ name, doc, key string }{
		{"NewModel", strings.Replace(gteBaseEnV15, `"GteNewModel"`, `"NewModel"`, 1), "architectures"},
		{"gte relu", strings.Replace(gteBaseEnV15, `"hidden_act":"gelu"`, `"hidden_act":"relu"`, 1), "hidden_act"},
		{"gte rms", strings.Replace(gteBaseEnV15, `"layer_norm_type":"layer_norm"`, `"layer_norm_type":"rms_norm"`, 1), "layer_norm_type"},
		{"gte linear rope", strings.Replace(gteBaseEnV15, `"type":"ntk"`, `"type":"linear"`, 1), "rope_scaling"},
		{"gte absolute", strings.Replace(gteBaseEnV15, `"position_embedding_type":"rope"`, `"position_embedding_type":"absolute"`, 1), "position_embedding_type"},
		{"gte unpacked", strings.Replace(gteBaseEnV15, `"pack_qkv":true`, `"pack_qkv":false`, 1), "pack_qkv"},
		{"nomic gelu_new", strings.Replace(nomicEmbedV15, `"swiglu"`, `"gelu_new"`, 1), "activation_function"},
		{"nomic no activation", strings.Replace(nomicEmbedV15, `"activation_function":"swiglu",`, ``, 1), "activation_function"},
		{"nomic biases differ", strings.Replace(nomicEmbedV15, `"mlp_fc1_bias":false`, `"mlp_fc1_bias":true`, 1), "mlp_fc1_bias"},
		{"nomic no rotation", strings.Replace(nomicEmbedV15, `"rotary_emb_fraction":1.0,`, ``, 1), "rotary_emb_fraction"},
		{"nomic moe", strings.Replace(nomicEmbedV15, `"causal":false`, `"causal":false,"moe_every_n_layers":2,"num_experts":8,"moe_top_k":2`, 1), "moe_every_n_layers"},
		{"nomic interleaved", strings.Replace(nomicEmbedV15, `"rotary_emb_interleaved":false`, `"rotary_emb_interleaved":true`, 1), "rotary_emb_interleaved"},
		{"nomic no n_inner", strings.Replace(nomicEmbedV15, `"n_inner":3072,`, ``, 1), "n_inner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("x.json", []byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.key) {
				t.Errorf("error %v, want one naming %s", err, tt.key)
			}
		})
	}
}
