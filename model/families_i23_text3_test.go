package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// The text-generation families of issue 23, item 2, third batch (DBRX,
// Hunyuan MoE, ...): the shapes of their shipped configs, their weights by
// hand from a real config, their checkpoints by hand, and what their
// config classes fill.

func init() {
	for name, s := range map[string]shape{
		// dbrx-instruct: d_model 6144, 48 heads of 6144 / 48 = 128,
		// attn_config.kv_n_heads 8; every one of the 40 layers a MoE block
		// of 16 experts top-4 of ffn_hidden_size 10,752; max_seq_len
		// 32,768; untied; no rope_scaling.
		"databricks__dbrx-instruct": {ModelType: "dbrx", Layers: 40, Hidden: 6144, Heads: 48, KVHeads: 8, HeadDim: 128,
			Vocab: 100352, MaxPos: 32768, MoELayers: 40, Experts: 16, TopK: 4, MoEInter: 10752, RotaryDim: 128, Dtype: "bfloat16"},
	} {
		shippedShapes[name] = s
	}
}

// TestText3WeightsByHand: the weights of each shipped config, whole on one
// rank in its dtype, counted by hand from its config.json as vLLM's model
// file builds it.
func TestText3WeightsByHand(t *testing.T) {
	tests := []struct {
		name string
		want uint64
	}{
		// dbrx-instruct (dbrx.py). A layer: Wqkv 6144 x (48 + 8 + 8) x
		// 128 = 50,331,648; out_proj 6144 x 6144 = 37,748,736; norm_1 and
		// norm_2 weights 12,288 (biases removed); the router 6144 x 16 =
		// 98,304; 16 experts of w13 2 x 10,752 x 6144 and w2 6144 x 10,752
		// = 3,170,893,824: 3,259,084,800, x 40 = 130,363,392,000. wte and
		// the untied lm_head 100,352 (a multiple of 64) x 6144 =
		// 616,562,688 each; norm_f 6144. 131,596,523,520 parameters
		// (DBRX's published 132B) x 2 B; rotary 32,768 (max_seq_len) x 128
		// x 2 B.
		{"databricks__dbrx-instruct", 131596523520*2 + 32768*128*2},
	}
	for _, tt := range tests {
		a := shippedArch(t, tt.name)
		if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != tt.want {
			t.Errorf("%s: %d B, want %d (by hand)", tt.name, got, tt.want)
		}
	}
}

// dbrxFixture: d_model 32, 2 heads of 16 and kv_n_heads 1, 2 layers of 4
// experts top-2 of ffn_hidden_size 16, vocabulary 64, max_seq_len 64,
// untied; named as databricks' checkpoints name them (transformers
// models/dbrx/modeling_dbrx.py), the experts as flat [experts x
// ffn_hidden_size, d_model] tensors without .weight.
func dbrxFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"dbrx","d_model":32,"n_heads":2,"n_layers":2,"max_seq_len":64,"vocab_size":64,` +
		`"attn_config":{"kv_n_heads":1,"rope_theta":10000},"ffn_config":{"ffn_hidden_size":16,"moe_num_experts":4,"moe_top_k":2},` +
		`"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("transformer.wte.weight", 64, 32)}
	for l := range 2 {
		p := fmt.Sprintf("transformer.blocks.%d.", l)
		ts = append(ts,
			bf16(p+"norm_attn_norm.norm_1.weight", 32), bf16(p+"norm_attn_norm.norm_2.weight", 32),
			bf16(p+"norm_attn_norm.attn.Wqkv.weight", 64, 32), bf16(p+"norm_attn_norm.attn.out_proj.weight", 32, 32),
			bf16(p+"ffn.router.layer.weight", 4, 32),
			bf16(p+"ffn.experts.mlp.w1", 64, 32), bf16(p+"ffn.experts.mlp.v1", 64, 32), bf16(p+"ffn.experts.mlp.w2", 64, 32))
	}
	return config, append(ts, bf16("transformer.norm_f.weight", 32), bf16("lm_head.weight", 64, 32))
}

// TestText3CheckpointsByHand: each family's checkpoint, named as its
// published checkpoints name their tensors, read by its rules, against
// sums by hand; the config-derived weights agree.
func TestText3CheckpointsByHand(t *testing.T) {
	checkByHand(t, []byHandCase{
		{
			// dbrx.py. TP1, a layer: norm_1 and norm_2 2 x 32 x 2 = 128;
			// Wqkv (2 + 1 + 1) x 16 = 64 rows x 32 x 2 = 4096; out_proj
			// 2048; the router 4 x 32 x 2 = 256; w1, v1 and w2 64 x 32 x 2
			// = 4096 each: 18,816. wte and lm_head 64 x 32 x 2 = 4096
			// each, norm_f 64, rotary 64 x 16 x 2 = 2048.
			// TP2, a layer: Wqkv one q head and the KV head replicated, 48
			// rows 3072; out_proj 32 x 16 x 2 = 1024; norms 128; router
			// 256; each expert's 16 rows halved, 2048 for each of w1, v1
			// and w2: 10,624. wte and lm_head 32 rows 2048 each.
			// TP2 under EP2: two whole experts a rank, the same 2048 for
			// each of w1, v1 and w2.
			// PP2: wte, norm_f and lm_head on both stages.
			name: "dbrx", fixture: dbrxFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*18816 + 2*4096 + 64 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*10624 + 2*2048 + 64 + 2048, ""},
				{"TP2 EP2", tpRanks(2, 2), 2*10624 + 2*2048 + 64 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 18816 + 2*4096 + 64 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 18816 + 2*4096 + 64 + 2048, ""},
			},
		},
	})
}

// TestText3Defaults: a config that leaves out what the family's
// transformers configuration class fills reads as the class fills it;
// a key vLLM cannot honour is an error naming it.
func TestText3Defaults(t *testing.T) {
	type got struct {
		Layers, Hidden, Heads, KVHeads, HeadDim, Vocab, MaxPos uint64
		Experts, TopK, MoEInter                                uint64
		Tied                                                   bool
	}
	tests := []struct {
		name, doc string
		want      got
	}{
		// DbrxConfig: d_model 2048, 16 heads of 128, 24 layers,
		// max_seq_len 2048, 32,000 tokens; DbrxAttentionConfig's one KV
		// head, DbrxFFNConfig's 4 experts top-1 of 3584; never tied.
		{"dbrx empty", `{"model_type": "dbrx"}`, got{24, 2048, 16, 1, 128, 32000, 2048, 4, 1, 3584, false}},
		// attn_config and ffn_config given in part: the rest from their
		// classes.
		{"dbrx partial", `{"model_type": "dbrx", "attn_config": {"kv_n_heads": 4}, "ffn_config": {"moe_top_k": 2}}`,
			got{24, 2048, 16, 4, 128, 32000, 2048, 4, 2, 3584, false}},
		// The standard names read as DbrxConfig's (attribute_map); a
		// head_dim key is not read (dbrx.py:201).
		{"dbrx standard names", `{"model_type": "dbrx", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 2,
 "max_position_embeddings": 512, "head_dim": 32}`, got{2, 256, 4, 1, 64, 32000, 512, 4, 1, 3584, false}},
	}
	for _, tt := range tests {
		a, err := ParseConfig("x.json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		g := got{uint64(len(a.Layers)), a.Hidden, a.Heads, a.KVHeads, a.HeadDim, a.Vocab, a.MaxPosition,
			a.Experts, a.ExpertsPerToken, a.MoEIntermediate, a.TiedEmbeddings}
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	errs := []struct{ name, doc, want string }{
		{"dbrx tied", `{"model_type": "dbrx", "tie_word_embeddings": true}`, "x.json: tie_word_embeddings: true: vLLM's DbrxForCausalLM raises"},
		{"dbrx quantized", `{"model_type": "dbrx", "quantization_config": {"quant_method": "fp8"}}`,
			"x.json: quantization_config: present: a quantized DBRX checkpoint's stacked experts"},
		{"dbrx top-k", `{"model_type": "dbrx", "ffn_config": {"moe_num_experts": 4, "moe_top_k": 5}}`, "x.json: ffn_config.moe_top_k: 5: want 1 to moe_num_experts (4)"},
	}
	for _, tt := range errs {
		_, err := ParseConfig("x.json", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to hold %q", tt.name, err, tt.want)
		}
	}
}
