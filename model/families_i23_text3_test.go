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
		// Hunyuan-A13B-Instruct: model_type hunyuan (remote code), read
		// as hunyuan_v1_moe by its HunYuanMoEV1ForCausalLM;
		// attention_head_dim 128; 32 layers of 64 experts top-8 (moe_topk
		// a list of 8s) of 3072 (a list of 3072s) and one shared expert
		// of intermediate_size 3072; dynamic rope (alpha); tied.
		"tencent__Hunyuan-A13B-Instruct": {ModelType: "hunyuan_v1_moe", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
			Vocab: 128167, MaxPos: 32768, Tied: true, MoELayers: 32, Experts: 64, TopK: 8, MoEInter: 3072, SharedInter: 3072, RotaryDim: 128,
			Rope: "dynamic", Dtype: "bfloat16"},
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
		// Hunyuan-A13B-Instruct (hunyuan_v1.py). A layer: q/k/v 4096 x
		// (32 + 8 + 8) x 128 = 25,165,824; o_proj 16,777,216;
		// query_layernorm and key_layernorm 2 x 128 = 256; two norms
		// 8192; the router 4096 x 64 = 262,144; the shared expert's
		// gate_up 4096 x 6144 = 25,165,824 and down 3072 x 4096 =
		// 12,582,912; 64 experts of 3 x 3072 x 4096 = 2,415,919,104:
		// 2,495,881,472, x 32 = 79,868,207,104. The tied embedding
		// 128,167 rows padded to 128,192 x 4096 = 525,074,432; norm 4096.
		// 80,393,285,632 parameters (Hunyuan-A13B's 80B) x 2 B; rotary
		// (DynamicNTKAlphaRotaryEmbedding: max_position_embeddings rows)
		// 32,768 x 128 x 2 B.
		{"tencent__Hunyuan-A13B-Instruct", 80393285632*2 + 32768*128*2},
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

// hunyuanMoEFixture: hidden 32, 2 heads of 16 and one KV head, q and k
// norms, 2 layers of 4 experts top-2 of 16 (lists by layer) and one
// shared expert of intermediate_size 32, vocabulary 64, 64 positions,
// tied (no lm_head); named as Hunyuan-A13B's modeling_hunyuan.py names
// them, the router wg in float32 as that file builds it.
func hunyuanMoEFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"hunyuan_v1_moe","hidden_size":32,"num_attention_heads":2,"num_key_value_heads":1,"intermediate_size":32,` +
		`"num_experts":4,"moe_topk":[2,2],"moe_intermediate_size":[16,16],"use_mixed_mlp_moe":true,"num_shared_expert":[1,1],` +
		`"use_qk_norm":true,"num_hidden_layers":2,"vocab_size":64,"max_position_embeddings":64,"tie_word_embeddings":true,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 64, 32), bf16("model.norm.weight", 32)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 32), bf16(p+"post_attention_layernorm.weight", 32),
			bf16(p+"self_attn.q_proj.weight", 32, 32), bf16(p+"self_attn.k_proj.weight", 16, 32),
			bf16(p+"self_attn.v_proj.weight", 16, 32), bf16(p+"self_attn.o_proj.weight", 32, 32),
			bf16(p+"self_attn.query_layernorm.weight", 16), bf16(p+"self_attn.key_layernorm.weight", 16),
			typed("F32", p+"mlp.gate.wg.weight", 4, 32),
			bf16(p+"mlp.shared_mlp.gate_proj.weight", 32, 32), bf16(p+"mlp.shared_mlp.up_proj.weight", 32, 32),
			bf16(p+"mlp.shared_mlp.down_proj.weight", 32, 32))
		for e := range 4 {
			q := fmt.Sprintf("%smlp.experts.%d.", p, e)
			ts = append(ts, bf16(q+"gate_proj.weight", 16, 32), bf16(q+"up_proj.weight", 16, 32), bf16(q+"down_proj.weight", 32, 16))
		}
	}
	return config, ts
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
			// PP2: wte, norm_f and lm_head on both stages.
			name: "dbrx", fixture: dbrxFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*18816 + 2*4096 + 64 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*10624 + 2*2048 + 64 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 18816 + 2*4096 + 64 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 18816 + 2*4096 + 64 + 2048, ""},
			},
		},
		{
			// hunyuan_v1.py. TP1, a layer: two norms 128; q 32 x 32 x 2 =
			// 2048, k and v 16 x 32 x 2 = 1024 each, o_proj 2048; q and k
			// norms 2 x 16 x 2 = 64; the float32 router loaded into the
			// model dtype 4 x 32 x 2 = 256; the shared expert's gate, up
			// and down 32 x 32 x 2 = 2048 each; 4 experts of 3 x 16 x 32 x
			// 2 = 3072: 12,288: 25,024. The tied embedding 64 x 32 x 2 =
			// 4096, norm 64, rotary 64 x 16 x 2 = 2048.
			// TP2, a layer: q one head 1024, the KV head replicated 1024
			// each, o_proj 32 x 16 x 2 = 1024; norms 128 and 64 whole;
			// router 256; the shared expert halved 3 x 1024; the experts'
			// intermediate halved 6144: 13,760. The embedding 32 rows 2048.
			// PP2: the embedding on stage 0, the norm and the tied head's
			// own copy on stage 1.
			name: "hunyuan_v1_moe", fixture: hunyuanMoEFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*25024 + 4096 + 64 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*13760 + 2048 + 64 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 25024 + 4096 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 25024 + 64 + 4096 + 2048, ""},
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
		Experts, TopK, MoEInter, SharedInter                   uint64
		Tied                                                   bool
	}
	tests := []struct {
		name, doc string
		want      got
	}{
		// DbrxConfig: d_model 2048, 16 heads of 128, 24 layers,
		// max_seq_len 2048, 32,000 tokens; DbrxAttentionConfig's one KV
		// head, DbrxFFNConfig's 4 experts top-1 of 3584; never tied.
		{"dbrx empty", `{"model_type": "dbrx"}`, got{24, 2048, 16, 1, 128, 32000, 2048, 4, 1, 3584, 0, false}},
		// attn_config and ffn_config given in part: the rest from their
		// classes.
		{"dbrx partial", `{"model_type": "dbrx", "attn_config": {"kv_n_heads": 4}, "ffn_config": {"moe_top_k": 2}}`,
			got{24, 2048, 16, 4, 128, 32000, 2048, 4, 2, 3584, 0, false}},
		// A null attn_config or ffn_config is its class's defaults
		// (DbrxConfig.__init__ treats None as left out).
		{"dbrx null sub-configs", `{"model_type": "dbrx", "attn_config": null, "ffn_config": null}`,
			got{24, 2048, 16, 1, 128, 32000, 2048, 4, 1, 3584, 0, false}},
		// The standard names read as DbrxConfig's (attribute_map); a
		// head_dim key is not read (dbrx.py:201).
		{"dbrx standard names", `{"model_type": "dbrx", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 2,
 "max_position_embeddings": 512, "head_dim": 32}`, got{2, 256, 4, 1, 64, 32000, 512, 4, 1, 3584, 0, false}},
		// HunYuanMoEV1Config: one expert, which vLLM builds as the dense
		// MLP (_is_moe); 4096 / 32 = 128 a head, num_key_value_heads None
		// (every head); 290,943 tokens; untied.
		{"hunyuan_v1_moe empty", `{"model_type": "hunyuan_v1_moe"}`, got{32, 4096, 32, 32, 128, 290943, 2048, 0, 0, 0, 0, false}},
		// Experts: the shared expert is intermediate_size x
		// num_shared_expert; a null moe_intermediate_size is
		// intermediate_size; use_mixed_mlp_moe as a number.
		{"hunyuan_v1_moe experts", `{"model_type": "hunyuan_v1_moe", "num_experts": 8, "moe_topk": 2, "moe_intermediate_size": null,
 "use_mixed_mlp_moe": 1, "num_shared_expert": 2, "intermediate_size": 1024}`, got{32, 4096, 32, 32, 128, 290943, 2048, 8, 2, 1024, 2048, false}},
		// No shared expert without use_mixed_mlp_moe; lists by layer of
		// one value.
		{"hunyuan_v1_moe lists", `{"model_type": "hunyuan_v1_moe", "num_hidden_layers": 2, "num_experts": 8, "moe_topk": [2, 2, 4],
 "moe_intermediate_size": [256, 256], "num_shared_expert": [1, 1]}`, got{2, 4096, 32, 32, 128, 290943, 2048, 8, 2, 256, 0, false}},
	}
	for _, tt := range tests {
		a, err := ParseConfig("x.json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		g := got{uint64(len(a.Layers)), a.Hidden, a.Heads, a.KVHeads, a.HeadDim, a.Vocab, a.MaxPosition,
			a.Experts, a.ExpertsPerToken, a.MoEIntermediate, a.SharedIntermediate, a.TiedEmbeddings}
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	errs := []struct{ name, doc, want string }{
		{"dbrx tied", `{"model_type": "dbrx", "tie_word_embeddings": true}`, "x.json: tie_word_embeddings: true: vLLM's DbrxForCausalLM raises"},
		{"dbrx quantized", `{"model_type": "dbrx", "quantization_config": {"quant_method": "fp8"}}`,
			"x.json: quantization_config: present: a quantized DBRX checkpoint's stacked experts"},
		{"dbrx top-k", `{"model_type": "dbrx", "ffn_config": {"moe_num_experts": 4, "moe_top_k": 5}}`, "x.json: ffn_config.moe_top_k: 5: want 1 to moe_num_experts (4)"},
		{"hunyuan_v1_moe no moe_intermediate_size", `{"model_type": "hunyuan_v1_moe", "num_experts": 8}`,
			"x.json: moe_intermediate_size: missing (required: vLLM's HunYuanSparseMoeBlock reads it"},
		{"hunyuan_v1_moe no num_shared_expert", `{"model_type": "hunyuan_v1_moe", "num_experts": 8, "moe_intermediate_size": 64, "use_mixed_mlp_moe": true}`,
			"x.json: num_shared_expert: missing (required with use_mixed_mlp_moe"},
		{"hunyuan_v1_moe per-layer", `{"model_type": "hunyuan_v1_moe", "num_hidden_layers": 2, "num_experts": 8, "moe_intermediate_size": [64, 128]}`,
			"x.json: moe_intermediate_size: differs by layer"},
		{"hunyuan_v1_moe short list", `{"model_type": "hunyuan_v1_moe", "num_hidden_layers": 2, "num_experts": 8, "moe_intermediate_size": 64, "moe_topk": [2]}`,
			"x.json: moe_topk: has 1 entries for 2 layers"},
		{"hunyuan_v1_moe expert list", `{"model_type": "hunyuan_v1_moe", "num_experts": [8, 8]}`, "x.json: num_experts: a list"},
		{"hunyuan_v1_moe mla", `{"model_type": "hunyuan_v1_moe", "use_mla": true}`, "x.json: use_mla: true"},
		{"hunyuan_v1_moe cla", `{"model_type": "hunyuan_v1_moe", "use_cla": true}`, "x.json: use_cla: true: cross-layer attention"},
	}
	for _, tt := range errs {
		_, err := ParseConfig("x.json", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to hold %q", tt.name, err, tt.want)
		}
	}
}
