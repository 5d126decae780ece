package model

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/model/safetensors"
)

// Checkpoint fixtures at reduced size, named as the published checkpoints
// name their tensors (transformers' modeling files).

func bf16(name string, shape ...uint64) safetensors.Tensor {
	return safetensors.Tensor{Name: name, Dtype: "BF16", Shape: shape}
}

func typed(dtype, name string, shape ...uint64) safetensors.Tensor {
	return safetensors.Tensor{Name: name, Dtype: dtype, Shape: shape}
}

// fp8Block is a block-quantized fp8 linear [out, in] and its
// weight_scale_inv, one F32 per 128 x 128 block.
func fp8Block(module string, out, in uint64) []safetensors.Tensor {
	return []safetensors.Tensor{
		typed("F8_E4M3", module+".weight", out, in),
		typed("F32", module+".weight_scale_inv", (out+127)/128, (in+127)/128),
	}
}

// awq4 is an AWQ 4-bit linear in x out, group 128: qweight int32
// [in, out/8], qzeros int32 [in/128, out/8], scales fp16 [in/128, out].
func awq4(module string, in, out uint64) []safetensors.Tensor {
	return []safetensors.Tensor{
		typed("I32", module+".qweight", in, out/8),
		typed("I32", module+".qzeros", in/128, out/8),
		typed("F16", module+".scales", in/128, out),
	}
}

// llamaFixture: hidden 64, 4 heads of 16, 2 KV heads, intermediate 128,
// vocabulary 256, 2 layers, 128 positions, with an old checkpoint's
// rotary inv_freq (skipped).
func llamaFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"llama","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,` +
		`"num_hidden_layers":2,"vocab_size":256,"max_position_embeddings":128,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 256, 64)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64),
			bf16(p+"self_attn.q_proj.weight", 64, 64),
			bf16(p+"self_attn.k_proj.weight", 32, 64),
			bf16(p+"self_attn.v_proj.weight", 32, 64),
			bf16(p+"self_attn.o_proj.weight", 64, 64),
			typed("F32", p+"self_attn.rotary_emb.inv_freq", 8),
			bf16(p+"post_attention_layernorm.weight", 64),
			bf16(p+"mlp.gate_proj.weight", 128, 64),
			bf16(p+"mlp.up_proj.weight", 128, 64),
			bf16(p+"mlp.down_proj.weight", 64, 128))
	}
	return config, append(ts, bf16("model.norm.weight", 64), bf16("lm_head.weight", 256, 64))
}

// qwen3MoEFixture: hidden 32, 2 heads of 16, 1 KV head, q_norm and k_norm,
// layer 0 dense (mlp_only_layers, intermediate 64), layer 1 a router over 4
// experts of 16, vocabulary 64, 64 positions.
func qwen3MoEFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"qwen3_moe","hidden_size":32,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":16,` +
		`"intermediate_size":64,"num_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":16,"mlp_only_layers":[0],` +
		`"num_hidden_layers":2,"vocab_size":64,"max_position_embeddings":64,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 64, 32)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 32),
			bf16(p+"self_attn.q_proj.weight", 32, 32),
			bf16(p+"self_attn.k_proj.weight", 16, 32),
			bf16(p+"self_attn.v_proj.weight", 16, 32),
			bf16(p+"self_attn.o_proj.weight", 32, 32),
			bf16(p+"self_attn.q_norm.weight", 16),
			bf16(p+"self_attn.k_norm.weight", 16),
			bf16(p+"post_attention_layernorm.weight", 32))
	}
	ts = append(ts, bf16("model.layers.0.mlp.gate_proj.weight", 64, 32), bf16("model.layers.0.mlp.up_proj.weight", 64, 32),
		bf16("model.layers.0.mlp.down_proj.weight", 32, 64), bf16("model.layers.1.mlp.gate.weight", 4, 32))
	for e := range 4 {
		q := fmt.Sprintf("model.layers.1.mlp.experts.%d.", e)
		ts = append(ts, bf16(q+"gate_proj.weight", 16, 32), bf16(q+"up_proj.weight", 16, 32), bf16(q+"down_proj.weight", 32, 16))
	}
	return config, append(ts, bf16("model.norm.weight", 32), bf16("lm_head.weight", 64, 32))
}

// mlaFixture: a DeepSeek-V3 in fp8 blocks of 128 x 128 whose split
// dimensions are multiples of 128 at TP2, as vLLM requires: hidden 256, 2
// heads, q_lora_rank 128, kv_lora_rank 128, qk_nope 128, qk_rope 128,
// v_head 128, layer 0 dense (intermediate 256), layer 1 a router over 2
// experts of 256 with the fp32 routing bias and 1 shared expert, one MTP
// layer (layer 2, skipped), vocabulary 128, 64 positions.
func mlaFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"deepseek_v3","hidden_size":256,"num_attention_heads":2,"q_lora_rank":128,"kv_lora_rank":128,` +
		`"qk_nope_head_dim":128,"qk_rope_head_dim":128,"v_head_dim":128,"intermediate_size":256,"moe_intermediate_size":256,` +
		`"n_routed_experts":2,"n_shared_experts":1,"num_experts_per_tok":1,"first_k_dense_replace":1,"topk_method":"noaux_tc",` +
		`"num_nextn_predict_layers":1,"num_hidden_layers":2,"vocab_size":128,"max_position_embeddings":64,"torch_dtype":"bfloat16",` +
		`"quantization_config":{"quant_method":"fp8","fmt":"e4m3","weight_block_size":[128,128],"activation_scheme":"dynamic"}}`
	mlp := func(p string, inter uint64) []safetensors.Tensor {
		ts := fp8Block(p+"gate_proj", inter, 256)
		ts = append(ts, fp8Block(p+"up_proj", inter, 256)...)
		return append(ts, fp8Block(p+"down_proj", 256, inter)...)
	}
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 128, 256)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts, bf16(p+"input_layernorm.weight", 256))
		ts = append(ts, fp8Block(p+"self_attn.q_a_proj", 128, 256)...)
		ts = append(ts, bf16(p+"self_attn.q_a_layernorm.weight", 128))
		ts = append(ts, fp8Block(p+"self_attn.q_b_proj", 2*(128+128), 128)...)
		ts = append(ts, fp8Block(p+"self_attn.kv_a_proj_with_mqa", 128+128, 256)...)
		ts = append(ts, bf16(p+"self_attn.kv_a_layernorm.weight", 128))
		ts = append(ts, fp8Block(p+"self_attn.kv_b_proj", 2*(128+128), 128)...)
		ts = append(ts, fp8Block(p+"self_attn.o_proj", 256, 2*128)...)
		ts = append(ts, bf16(p+"post_attention_layernorm.weight", 256))
	}
	ts = append(ts, mlp("model.layers.0.mlp.", 256)...)
	ts = append(ts, bf16("model.layers.1.mlp.gate.weight", 2, 256), typed("F32", "model.layers.1.mlp.gate.e_score_correction_bias", 2))
	for e := range 2 {
		ts = append(ts, mlp(fmt.Sprintf("model.layers.1.mlp.experts.%d.", e), 256)...)
	}
	ts = append(ts, mlp("model.layers.1.mlp.shared_experts.", 256)...)
	// DeepSeek-V3's MTP layer: model.layers.<num_hidden_layers>.
	ts = append(ts, bf16("model.layers.2.enorm.weight", 256), bf16("model.layers.2.hnorm.weight", 256))
	ts = append(ts, fp8Block("model.layers.2.eh_proj", 256, 512)...)
	return config, append(ts, bf16("model.norm.weight", 256), bf16("lm_head.weight", 128, 256))
}

// awqFixture: a Llama quantized by AutoAWQ (4 bits, group 128; embedding,
// norms and head in fp16): hidden 256, 2 heads of 128, 1 KV head,
// intermediate 512, 2 layers, vocabulary 256, 64 positions.
func awqFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"llama","hidden_size":256,"num_attention_heads":2,"num_key_value_heads":1,"intermediate_size":512,` +
		`"num_hidden_layers":2,"vocab_size":256,"max_position_embeddings":64,"torch_dtype":"float16",` +
		`"quantization_config":{"quant_method":"awq","bits":4,"group_size":128,"zero_point":true,"version":"gemm"}}`
	ts := []safetensors.Tensor{typed("F16", "model.embed_tokens.weight", 256, 256)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts, typed("F16", p+"input_layernorm.weight", 256))
		ts = append(ts, awq4(p+"self_attn.q_proj", 256, 256)...)
		ts = append(ts, awq4(p+"self_attn.k_proj", 256, 128)...)
		ts = append(ts, awq4(p+"self_attn.v_proj", 256, 128)...)
		ts = append(ts, awq4(p+"self_attn.o_proj", 256, 256)...)
		ts = append(ts, typed("F16", p+"post_attention_layernorm.weight", 256))
		ts = append(ts, awq4(p+"mlp.gate_proj", 256, 512)...)
		ts = append(ts, awq4(p+"mlp.up_proj", 256, 512)...)
		ts = append(ts, awq4(p+"mlp.down_proj", 512, 256)...)
	}
	return config, append(ts, typed("F16", "model.norm.weight", 256), typed("F16", "lm_head.weight", 256, 256))
}

func attach(t *testing.T, fixture func() (string, []safetensors.Tensor)) (*Arch, CheckpointNotes) {
	t.Helper()
	config, ts := fixture()
	return attachTensors(t, config, ts)
}

func attachTensors(t *testing.T, config string, ts []safetensors.Tensor) (*Arch, CheckpointNotes) {
	t.Helper()
	a, err := ParseConfig("config.json", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	notes, err := AttachCheckpoint(a, &Checkpoint{Name: "fixture", Tensors: ts})
	if err != nil {
		t.Fatal(err)
	}
	return a, notes
}

// byName maps each item to its bytes, the rotary tables (which Weights
// names) added into one "rotary tables" entry.
func byName(items []budget.Item) map[string]uint64 {
	m := map[string]uint64{}
	for _, it := range items {
		name := it.Name
		if strings.HasPrefix(name, "rotary_emb.") {
			name = "rotary tables"
		}
		m[name] += it.Bytes
	}
	return m
}

func sum(items []budget.Item) uint64 {
	var n uint64
	for _, it := range items {
		n += it.Bytes
	}
	return n
}

// byHandCase is a fixture and what ranks of it hold, summed by hand.
type byHandCase struct {
	name    string
	fixture func() (string, []safetensors.Tensor)
	ranks   []byHandRank
}

// byHandRank is one rank's sharding and its weights summed by hand.
type byHandRank struct {
	name string
	sh   func(a *Arch) Sharding
	want uint64
	// configDiffers names where Weights departs from vLLM for this rank;
	// "" when the config-derived figure must equal want too.
	configDiffers string
}

// checkByHand checks each case's checkpoint weights per rank, and the
// config-derived ones where they are not known to differ, against the sums
// by hand; every tensor of a fixture must be named by a rule.
func checkByHand(t *testing.T, tests []byHandCase) {
	t.Helper()
	for _, tc := range tests {
		a, notes := attach(t, tc.fixture)
		if len(notes.Unknown) > 0 {
			t.Errorf("%s: tensors no rule names: %v", tc.name, notes.Unknown)
		}
		for _, r := range tc.ranks {
			sh := r.sh(a)
			if ok, why := UsesCheckpoint(a, sh); !ok {
				t.Fatalf("%s %s: the checkpoint is not used: %s", tc.name, r.name, why)
			}
			if got := sum(RankWeights(a, sh)); got != r.want {
				t.Errorf("%s %s: checkpoint weights %d B, want %d (by hand)", tc.name, r.name, got, r.want)
			}
			if got := sum(Weights(a, sh)); r.configDiffers == "" && got != r.want {
				t.Errorf("%s %s: config-derived weights %d B, want %d (by hand)", tc.name, r.name, got, r.want)
			}
		}
	}
}

// tpRanks is one rank of tp tensor-parallel ranks (ep expert-parallel),
// in bf16, with the model's quantization.
func tpRanks(tp, ep uint64) func(a *Arch) Sharding {
	return func(a *Arch) Sharding {
		sh := Whole(a, tp, 2, a.Quant)
		sh.ExpertRanks = ep
		return sh
	}
}

// withSharding is tpRanks(tp, 0) changed by f.
func withSharding(tp uint64, f func(*Sharding)) func(a *Arch) Sharding {
	return func(a *Arch) Sharding {
		sh := Whole(a, tp, 2, a.Quant)
		f(&sh)
		return sh
	}
}

// ppStage is stage i of of pipeline stages, the layers split evenly, in
// bf16.
func ppStage(i, of int) func(a *Arch) Sharding {
	return func(a *Arch) Sharding {
		n := len(a.Layers)
		first, end := i*n/of, (i+1)*n/of
		return Sharding{TP: 1, FirstLayer: first, EndLayer: end, First: i == 0, Last: i == of-1, DtypeBytes: 2, Quant: a.Quant}
	}
}

// TestCheckpointWeightsByHand checks the weights one rank holds of each
// fixture at TP1, TP2 and on each stage of PP2, in bf16 (fp16 for the AWQ
// model), against sums done by hand. Stages split the 2 layers one each.
func TestCheckpointWeightsByHand(t *testing.T) {
	whole, stage := tpRanks, ppStage
	checkByHand(t, []byHandCase{
		{
			// TP1, per layer: norms 2 x 64 x 2 = 256; q 64x64x2 = 8192, k and
			// v 32x64x2 = 4096 each; o 8192; gate and up 128x64x2 = 16384
			// each, down 16384: 73984. Embedding and head 256x64x2 = 32768
			// each, final norm 128, rotary table 128 positions x 16 x 2 =
			// 4096: 2 x 73984 + 32768 + 32768 + 128 + 4096 = 217728.
			// TP2: q 2 heads 4096, k and v 1 KV head 2048 each, o 64x32x2 =
			// 4096, gate and up 64x64x2 = 8192 each, down 8192, norms 256:
			// 37120; embedding and head 128 rows: 16384 each.
			// TP4: 1 q head 2048; the 2 KV heads are fewer than the 4
			// ranks, so each rank holds one: 2048 each; o 64x16x2 = 2048;
			// gate, up, down 32x64x2 = 4096 each; norms 256: 20736;
			// embedding and head 64 rows: 8192 each.
			name: "llama", fixture: llamaFixture,
			ranks: []byHandRank{
				{"TP1", whole(1, 0), 2*73984 + 32768 + 32768 + 128 + 4096, ""},
				{"TP2", whole(2, 0), 2*37120 + 16384 + 16384 + 128 + 4096, ""},
				{"TP4", whole(4, 0), 2*20736 + 8192 + 8192 + 128 + 4096, ""},
				{"PP2 stage 0", stage(0, 2), 32768 + 73984 + 4096, ""},
				{"PP2 stage 1", stage(1, 2), 73984 + 128 + 32768 + 4096, ""},
			},
		},
		{
			// TP1: attention per layer: norms 2 x 32 x 2 = 128, q 32x32x2
			// = 2048, k and v 16x32x2 = 1024 each, o 2048, q_norm and
			// k_norm 16x2 = 32 each: 6336. Layer 0 dense: gate, up, down
			// 64x32x2 = 4096 each: 12288. Layer 1: router 4x32x2 = 256, 4
			// experts of gate, up, down 16x32x2 = 1024 each: 12288 + 256.
			// Embedding and head 64x32x2 = 4096 each, norm 64, rotary 64 x
			// 16 x 2 = 2048.
			// TP2: q 1 head 1024; the 1 KV head is replicated: k and v
			// 1024 each; o 32x16x2 = 1024; norms 192: 4288. Layer 0: 32
			// rows of intermediate per rank, 2048 each: 6144. Layer 1:
			// router 256 whole, each expert's intermediate halved: 4 x 3 x
			// 512 = 6144. Embedding and head 32 rows: 2048 each.
			// EP4 (TP2 x DP2): each rank holds 1 expert whole, 3072.
			// EP4 with 4 redundant experts (EPLB): (4 + 4) / 4 = 2 experts
			// a rank, 6144. EP2 with 6 redundant: (4 + 6) / 2 = 5 physical
			// experts on rank 0, experts 0-3 and a second copy of expert 0
			// (physical 4 copies 4 mod 4 = 0): 5 x 3072 = 15360.
			name: "qwen3_moe", fixture: qwen3MoEFixture,
			ranks: []byHandRank{
				{"TP1", whole(1, 0), (6336 + 12288) + (6336 + 256 + 12288) + 4096 + 4096 + 64 + 2048, ""},
				{"TP2", whole(2, 0), (4288 + 6144) + (4288 + 256 + 6144) + 2048 + 2048 + 64 + 2048, ""},
				{"TP2 EP4", whole(2, 4), (4288 + 6144) + (4288 + 256 + 3072) + 2048 + 2048 + 64 + 2048, ""},
				{"TP2 EP4, 4 redundant", withSharding(2, func(sh *Sharding) { sh.ExpertRanks, sh.RedundantExperts = 4, 4 }), (4288 + 6144) + (4288 + 256 + 6144) + 2048 + 2048 + 64 + 2048, ""},
				{"TP2 EP2, 6 redundant", withSharding(2, func(sh *Sharding) { sh.ExpertRanks, sh.RedundantExperts = 2, 6 }), (4288 + 6144) + (4288 + 256 + 15360) + 2048 + 2048 + 64 + 2048, ""},
				{"PP2 stage 0", stage(0, 2), 4096 + 6336 + 12288 + 2048, ""},
				{"PP2 stage 1", stage(1, 2), 6336 + 256 + 12288 + 64 + 4096 + 2048, ""},
			},
		},
		{
			// fp8 linears: out x in bytes and ceil(out/128) x ceil(in/128)
			// fp32 scales. TP1 attention per layer: norms 512 + 512, q_a
			// [128,256] 32768+8, q_a_layernorm 256, q_b [512,128] 65536+16,
			// kv_a [256,256] 65536+16, kv_a_layernorm 256, kv_b [512,128]
			// 65536+16, o [256,256] 65536+16: 296520. An MLP of 256: gate,
			// up, down 65536+16 each: 196656. Layer 0: 296520 + 196656.
			// Layer 1: router 2x256x2 = 1024, fp32 bias 8, 2 experts and a
			// shared one: 296520 + 1024 + 8 + 3 x 196656. Embedding and
			// head 128x256x2 = 65536 each, norm 512, rotary 64 x 128 x 2 =
			// 16384. The MTP layer 2 is not loaded.
			// TP2: q_a and kv_a whole; q_b, kv_b [256,128] 32768+8 each; o
			// [256,128] 32768+8: 198192. An MLP's intermediate halved:
			// 3 x (32768+8) = 98328. Embedding and head 64 rows: 32768.
			name: "deepseek_v3 fp8", fixture: mlaFixture,
			ranks: []byHandRank{
				{"TP1", whole(1, 0), (296520 + 196656) + (296520 + 1024 + 8 + 3*196656) + 65536 + 65536 + 512 + 16384, ""},
				{"TP2", whole(2, 0), (198192 + 98328) + (198192 + 1024 + 8 + 3*98328) + 32768 + 32768 + 512 + 16384, ""},
				{"PP2 stage 0", stage(0, 2), 65536 + 296520 + 196656 + 16384, ""},
				{"PP2 stage 1", stage(1, 2), 296520 + 1024 + 8 + 3*196656 + 512 + 65536 + 16384, ""},
			},
		},
		{
			// AWQ linears in x out: qweight in x out/8 x 4, qzeros in/128 x
			// out/8 x 4, scales in/128 x out x 2. TP1 per layer: q
			// (256x256) 32768+256+1024 = 34048, k and v (256x128) 17024
			// each, o 34048, gate and up (256x512) 65536+512+2048 = 68096
			// each, down (512x256) 68096, norms 2 x 256 x 2 = 1024: 307456.
			// Embedding and head 256x256x2 = 131072 each, norm 512, rotary
			// 64 x 128 x 2 = 16384.
			// TP2: q 1 head (256x128) 17024; the 1 KV head is replicated:
			// k and v 17024 each; o (128x256) 16384+128+512 = 17024; gate
			// and up (256x256) 34048 each; down (256x256) 34048; norms
			// 1024: 171264. Embedding and head 128 rows: 65536 each.
			name: "llama awq", fixture: awqFixture,
			ranks: []byHandRank{
				{"TP1", whole(1, 0), 2*307456 + 131072 + 131072 + 512 + 16384, ""},
				{"TP2", whole(2, 0), 2*171264 + 65536 + 65536 + 512 + 16384, ""},
				{"PP2 stage 0", stage(0, 2), 131072 + 307456 + 16384, ""},
				{"PP2 stage 1", stage(1, 2), 307456 + 512 + 131072 + 16384, ""},
			},
		},
	})
}

// TestCheckpointItemsAreVLLMParameters: one item per parameter vLLM
// allocates (the caching allocator rounds each), the checkpoint's shards
// of a fused module added into it.
func TestCheckpointItemsAreVLLMParameters(t *testing.T) {
	a, _ := attach(t, qwen3MoEFixture)
	got := byName(RankWeights(a, Sharding{TP: 2, FirstLayer: 1, EndLayer: 2, Last: true, DtypeBytes: 2}))
	// Layer 1 at TP2: q 1 head (16x32x2) with k and v (the 1 KV head,
	// replicated) 16x32x2 each; every expert's gate and up (8x32x2 each)
	// in w13, its down (32x8x2) in w2.
	want := map[string]uint64{
		"model.layers.1.input_layernorm.weight":          64,
		"model.layers.1.self_attn.qkv_proj.weight":       3 * 1024,
		"model.layers.1.self_attn.o_proj.weight":         1024,
		"model.layers.1.self_attn.q_norm.weight":         32,
		"model.layers.1.self_attn.k_norm.weight":         32,
		"model.layers.1.post_attention_layernorm.weight": 64,
		"model.layers.1.mlp.gate.weight":                 256,
		"model.layers.1.mlp.experts.w13_weight":          4 * 2 * 512,
		"model.layers.1.mlp.experts.w2_weight":           4 * 512,
		"model.norm.weight":                              64,
		"lm_head.weight":                                 2048,
		"rotary tables":                                  2048,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

func TestCheckpointNotes(t *testing.T) {
	config, ts := mlaFixture()
	_, notes := attachTensors(t, config, append(ts, bf16("model.layers.0.self_attn.mystery.weight", 8), bf16("extra_head.weight", 4, 4)))
	// The MTP layer's 4 tensors (enorm, hnorm, eh_proj and its scales) are
	// skipped; the 2 that no rule names are counted and listed.
	want := CheckpointNotes{
		Counted: len(ts) - 4 + 2,
		Skipped: []SkippedTensors{{Reason: skipMTP, Count: 4}},
		Unknown: []string{"model.layers.0.self_attn.mystery.weight", "extra_head.weight"},
	}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	_, notes = attach(t, llamaFixture)
	if diff := cmp.Diff([]SkippedTensors{{Reason: skipRotary, Count: 2}}, notes.Skipped); diff != "" {
		t.Errorf("llama skips (-want +got):\n%s", diff)
	}
}

// TestUnknownTensorsAreCountedWhole: a tensor no rule names is held whole,
// on its layer's stage or on the first.
func TestUnknownTensorsAreCountedWhole(t *testing.T) {
	config, ts := llamaFixture()
	a, _ := attachTensors(t, config, append(ts, bf16("model.layers.1.self_attn.mystery.weight", 8, 8), bf16("extra_head.weight", 4, 4)))
	// 8x8x2 = 128 on layer 1, 4x4x2 = 32 on the first stage, at any TP.
	for _, tc := range []struct {
		sh   Sharding
		want uint64
	}{
		{Sharding{TP: 2, FirstLayer: 0, EndLayer: 1, First: true, DtypeBytes: 2}, 16384 + 37120 + 4096 + 32},
		{Sharding{TP: 2, FirstLayer: 1, EndLayer: 2, Last: true, DtypeBytes: 2}, 37120 + 128 + 16384 + 4096 + 128},
	} {
		if got := sum(RankWeights(a, tc.sh)); got != tc.want {
			t.Errorf("%+v: %d B, want %d", tc.sh, got, tc.want)
		}
	}
}

// TestTiedHeadOnTheLastStage: a tied model's checkpoint has no head (or
// one vLLM skips); the last stage of several holds its own copy of the
// embedding.
func TestTiedHeadOnTheLastStage(t *testing.T) {
	config, ts := llamaFixture()
	config = strings.Replace(config, `"torch_dtype"`, `"tie_word_embeddings":true,"torch_dtype"`, 1)
	a, notes := attachTensors(t, config, ts)
	if diff := cmp.Diff([]SkippedTensors{{Reason: skipRotary, Count: 2}, {Reason: skipTiedHead, Count: 1}}, notes.Skipped); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	tests := []struct {
		sh   Sharding
		want uint64
	}{
		// One stage: the embedding's 256x64x2 = 32768 once.
		{Whole(a, 1, 2, Quant{}), 32768 + 2*73984 + 128 + 4096},
		// The last of two stages: a copy of it as the head.
		{Sharding{TP: 1, FirstLayer: 1, EndLayer: 2, Last: true, DtypeBytes: 2}, 73984 + 128 + 32768 + 4096},
	}
	for _, tc := range tests {
		if got := sum(RankWeights(a, tc.sh)); got != tc.want {
			t.Errorf("%+v: %d B, want %d", tc.sh, got, tc.want)
		}
	}
}

// TestServedDtypeAndStoredQuantization: float tensors are counted in the
// served dtype; fp8 weights, their fp32 scales and the fp32 routing bias
// as they are.
func TestServedDtypeAndStoredQuantization(t *testing.T) {
	a, _ := attach(t, mlaFixture)
	sh := Whole(a, 1, 4, a.Quant) // --dtype float32
	got := itemBytes(RankWeights(a, sh))
	want := map[string]uint64{
		"model.embed_tokens.weight":                       128 * 256 * 4,
		"model.layers.1.mlp.gate.weight":                  2 * 256 * 4,
		"model.layers.1.mlp.gate.e_score_correction_bias": 2 * 4,
		"model.layers.1.mlp.experts.w13_weight":           2 * 2 * 256 * 256, // fp8: 1 byte
		"model.layers.1.mlp.experts.w13_weight_scale_inv": 2 * 2 * 2 * 2 * 4, // 2 experts x (gate, up) x [2, 2] fp32
		"model.layers.0.self_attn.q_a_layernorm.weight":   128 * 4,
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %d B, want %d", name, got[name], w)
		}
	}
}

// TestFusedModulesKeepOnePerModuleParameter: vLLM keeps one per-tensor fp8
// scale and one GPTQ g_idx for a fused module; the checkpoint stores one
// per shard.
func TestFusedModulesKeepOnePerModuleParameter(t *testing.T) {
	config := `{"model_type":"llama","hidden_size":256,"num_attention_heads":2,"num_key_value_heads":2,"intermediate_size":256,` +
		`"num_hidden_layers":1,"vocab_size":64,"max_position_embeddings":16,"torch_dtype":"bfloat16",` +
		`"quantization_config":{"quant_method":"gptq","bits":4,"group_size":128,"desc_act":true}}`
	// GPTQ in x out: qweight int32 [in/8, out], qzeros int32 [in/128,
	// out/8], scales fp16 [in/128, out], g_idx int32 [in].
	gptq := func(module string, in, out uint64) []safetensors.Tensor {
		return []safetensors.Tensor{
			typed("I32", module+".qweight", in/8, out), typed("I32", module+".qzeros", in/128, out/8),
			typed("F16", module+".scales", in/128, out), typed("I32", module+".g_idx", in),
		}
	}
	var ts []safetensors.Tensor
	for _, m := range []string{"q_proj", "k_proj", "v_proj"} {
		ts = append(ts, gptq("model.layers.0.self_attn."+m, 256, 256)...)
	}
	a, notes := attachTensors(t, config, ts)
	if diff := cmp.Diff([]SkippedTensors{{Reason: skipFused, Count: 2}}, notes.Skipped); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	got := itemBytes(RankWeights(a, Whole(a, 2, 2, a.Quant)))
	// TP2, 1 head of 128 of each of q, k, v: qweight 32x128x4 = 16384,
	// qzeros 2x16x4 = 128, scales 2x128x2 = 512 each; one g_idx 256x4.
	want := map[string]uint64{
		"model.layers.0.self_attn.qkv_proj.qweight": 3 * 16384,
		"model.layers.0.self_attn.qkv_proj.qzeros":  3 * 128,
		"model.layers.0.self_attn.qkv_proj.scales":  3 * 512,
		"model.layers.0.self_attn.qkv_proj.g_idx":   1024,
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %d B, want %d", name, got[name], w)
		}
	}
}

// TestBitsAndBytesIsFlat: bitsandbytes stores a 4-bit weight as uint8
// [out*in/2, 1] and its absmax flat; a split divides them whatever its
// direction.
func TestBitsAndBytesIsFlat(t *testing.T) {
	config := `{"model_type":"llama","hidden_size":128,"num_attention_heads":1,"intermediate_size":128,` +
		`"num_hidden_layers":1,"vocab_size":64,"max_position_embeddings":16,"torch_dtype":"bfloat16"}`
	p := "model.layers.0.self_attn.o_proj.weight"
	a, _ := attachTensors(t, config, []safetensors.Tensor{
		typed("U8", p, 128*128/2, 1), typed("F32", p+".absmax", 128*128/64), typed("F32", p+".quant_map", 16),
	})
	got := itemBytes(RankWeights(a, Whole(a, 2, 2, Quant{})))
	// TP2: 4096 of the 8192 packed bytes, 128 of the 256 fp32 absmax, the
	// 16-entry quant_map whole.
	want := map[string]uint64{"model.layers.0.self_attn.o_proj.weight": 4096, "model.layers.0.self_attn.o_proj.weight.absmax": 128 * 4,
		"model.layers.0.self_attn.o_proj.weight.quant_map": 64}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %d B, want %d", name, got[name], w)
		}
	}
}

// TestGemma3Names: both spellings of Gemma 3's nested names reach the same
// rules, and the vision tower is held on the first stage.
func TestGemma3Names(t *testing.T) {
	config := `{"model_type":"gemma3","torch_dtype":"bfloat16","text_config":{"hidden_size":64,"num_attention_heads":2,` +
		`"num_key_value_heads":1,"head_dim":32,"intermediate_size":64,"num_hidden_layers":1,"vocab_size":64,` +
		`"max_position_embeddings":16,"sliding_window":8},"vision_config":{"hidden_size":32,"intermediate_size":64,` +
		`"num_hidden_layers":1,"num_attention_heads":1,"patch_size":4,"image_size":8}}`
	for _, prefix := range [][3]string{{"language_model.model.", "vision_tower.", "multi_modal_projector."},
		{"model.language_model.", "model.vision_tower.", "model.multi_modal_projector."}} {
		lm, vt, mp := prefix[0], prefix[1], prefix[2]
		v := vt + "vision_model."
		ts := []safetensors.Tensor{
			bf16(lm+"embed_tokens.weight", 64, 64), bf16(lm+"norm.weight", 64),
			bf16(lm+"layers.0.self_attn.q_proj.weight", 64, 64),
			bf16(v+"encoder.layers.0.self_attn.q_proj.weight", 32, 32), bf16(v+"encoder.layers.0.self_attn.q_proj.bias", 32),
			bf16(v+"encoder.layers.0.self_attn.out_proj.bias", 32),
			bf16(mp+"mm_input_projection_weight", 32, 64),
		}
		a, notes := attachTensors(t, config, ts)
		if len(notes.Unknown) > 0 {
			t.Errorf("%s: unknown %v", lm, notes.Unknown)
		}
		got := byName(RankWeights(a, Sharding{TP: 2, FirstLayer: 0, EndLayer: 1, First: true, DtypeBytes: 2}))
		// TP2: embedding 32 rows x 64 x 2; q 1 head 32x64x2; the vision
		// q 16x32x2 and its bias 16x2; out_proj's bias whole 32x2; the
		// projector whole; the local and global rotary tables, 16 x 32 x
		// 2 each.
		want := map[string]uint64{
			"model.embed_tokens.weight":                                            4096,
			"model.layers.0.self_attn.qkv_proj.weight":                             4096,
			"vision_tower.vision_model.encoder.layers.0.self_attn.qkv_proj.weight": 1024,
			"vision_tower.vision_model.encoder.layers.0.self_attn.qkv_proj.bias":   32,
			"vision_tower.vision_model.encoder.layers.0.self_attn.out_proj.bias":   64,
			"multi_modal_projector.mm_input_projection_weight":                     4096,
			"rotary tables": 2 * 16 * 32 * 2,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", lm, diff)
		}
	}
}

func TestAttachCheckpointRefuses(t *testing.T) {
	config, _ := llamaFixture()
	a, err := ParseConfig("config.json", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	_, err = AttachCheckpoint(a, &Checkpoint{Tensors: []safetensors.Tensor{bf16("transformer.h.0.attn.c_attn.weight", 4, 4)}})
	if err == nil || !strings.Contains(err.Error(), `none of the checkpoint's 1 tensors is named as model_type llama names its tensors (the first: "transformer.h.0.attn.c_attn.weight")`) {
		t.Errorf("a GPT-2 checkpoint under a llama config: %v", err)
	}
	if a.Checkpoint != nil {
		t.Error("a refused checkpoint is attached")
	}
	a.ModelType = "no_such_family" // not a family the model reads
	if _, err := AttachCheckpoint(a, &Checkpoint{}); !errors.Is(err, ErrNoCheckpointRules) {
		t.Errorf("a family without rules: %v, want ErrNoCheckpointRules", err)
	}
}

// TestRankWeightsFallsBackToConfig: without a checkpoint, or served in
// another quantization than it stores, the weights are config.json's.
func TestRankWeightsFallsBackToConfig(t *testing.T) {
	a, _ := attach(t, llamaFixture)
	online := Whole(a, 1, 2, Quant{Method: "fp8", Bits: 8})
	if ok, why := UsesCheckpoint(a, online); ok || why != "served fp8, the checkpoint is unquantized: vLLM converts it when it loads" {
		t.Errorf("--quantization fp8 on a bf16 checkpoint: %v %q", ok, why)
	}
	if diff := cmp.Diff(Weights(a, online), RankWeights(a, online)); diff != "" {
		t.Errorf("(-config +RankWeights):\n%s", diff)
	}
	a.Checkpoint = nil
	sh := Whole(a, 1, 2, Quant{})
	if diff := cmp.Diff(Weights(a, sh), RankWeights(a, sh)); diff != "" {
		t.Errorf("no checkpoint (-config +RankWeights):\n%s", diff)
	}
}

// TestGPTQActOrder: vLLM divides a row-parallel GPTQ layer's scales and
// zeros among the ranks, and repeats them whole under act-order
// (marlin_repeat_scales_on_all_ranks); FusedMoE keeps an expert's g_idx,
// with its sort indices, only under act-order.
func TestGPTQActOrder(t *testing.T) {
	// GPTQ in x out, group 128: qweight int32 [in/8, out], qzeros int32
	// [in/128, out/8], scales fp16 [in/128, out], g_idx int32 [in].
	gptq := func(module string, in, out uint64) []safetensors.Tensor {
		return []safetensors.Tensor{
			typed("I32", module+".qweight", in/8, out), typed("I32", module+".qzeros", in/128, out/8),
			typed("F16", module+".scales", in/128, out), typed("I32", module+".g_idx", in),
		}
	}
	ts := gptq("model.layers.0.self_attn.o_proj", 256, 256)
	for e := range 2 {
		p := fmt.Sprintf("model.layers.0.mlp.experts.%d.", e)
		ts = append(ts, gptq(p+"gate_proj", 256, 256)...)
		ts = append(ts, gptq(p+"up_proj", 256, 256)...)
		ts = append(ts, gptq(p+"down_proj", 256, 256)...)
	}
	for _, tc := range []struct {
		descAct bool
		want    map[string]uint64
	}{
		{false, map[string]uint64{
			// TP2: o_proj's 256 inputs halved: 1 group of scales (1x256x2)
			// and zeros (1x32x4) per rank; the experts' g_idx dropped.
			"model.layers.0.self_attn.o_proj.scales": 512,
			"model.layers.0.self_attn.o_proj.qzeros": 128,
			"model.layers.0.mlp.experts.w13_g_idx":   0,
			"model.layers.0.mlp.experts.w2_g_idx":    0,
		}},
		{true, map[string]uint64{
			// Both groups on every rank; per expert gate's g_idx (256 x 4)
			// and its sort indices, and down's (128 inputs per rank x 4,
			// twice).
			"model.layers.0.self_attn.o_proj.scales": 1024,
			"model.layers.0.self_attn.o_proj.qzeros": 256,
			"model.layers.0.mlp.experts.w13_g_idx":   2 * 2 * 1024,
			"model.layers.0.mlp.experts.w2_g_idx":    2 * 2 * 512,
		}},
	} {
		config := `{"model_type":"qwen3_moe","hidden_size":256,"num_attention_heads":2,"num_key_value_heads":2,"head_dim":128,` +
			`"intermediate_size":256,"num_experts":2,"num_experts_per_tok":1,"moe_intermediate_size":256,"num_hidden_layers":1,` +
			`"vocab_size":64,"max_position_embeddings":16,"torch_dtype":"float16",` +
			fmt.Sprintf(`"quantization_config":{"quant_method":"gptq","bits":4,"group_size":128,"desc_act":%v}}`, tc.descAct)
		a, _ := attachTensors(t, config, ts)
		got := byName(RankWeights(a, Whole(a, 2, 2, a.Quant)))
		for name, w := range tc.want {
			if got[name] != w {
				t.Errorf("desc_act %v: %s: %d B, want %d", tc.descAct, name, got[name], w)
			}
		}
	}
}

// qwen35Fixture: a Qwen3.5 text model as Qwen3.5-2B's checkpoint names it
// (model.language_model.layers.N.linear_attn.in_proj_qkv, ...): hidden 64,
// layer 0 a gated delta net (2 key heads and 4 value heads of 16, conv
// kernel 4: key 32, value 64), layer 1 attention (2 heads of 32 with the
// output gate, 1 KV head), a dense MLP of 128, vocabulary 128, 64
// positions with a quarter of each head rotary (8), one MTP tensor
// (skipped).
func qwen35Fixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"qwen3_5_text","hidden_size":64,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":32,` +
		`"intermediate_size":128,"num_hidden_layers":2,"layer_types":["linear_attention","full_attention"],` +
		`"linear_num_key_heads":2,"linear_num_value_heads":4,"linear_key_head_dim":16,"linear_value_head_dim":16,` +
		`"linear_conv_kernel_dim":4,"partial_rotary_factor":0.25,"vocab_size":128,"max_position_embeddings":64,"torch_dtype":"bfloat16"}`
	lm := "model.language_model."
	ts := []safetensors.Tensor{bf16(lm+"embed_tokens.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("%slayers.%d.", lm, l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64), bf16(p+"post_attention_layernorm.weight", 64),
			bf16(p+"mlp.gate_proj.weight", 128, 64), bf16(p+"mlp.up_proj.weight", 128, 64), bf16(p+"mlp.down_proj.weight", 64, 128))
	}
	p := lm + "layers.0.linear_attn."
	ts = append(ts,
		bf16(p+"in_proj_qkv.weight", 2*32+64, 64), bf16(p+"in_proj_z.weight", 64, 64),
		bf16(p+"in_proj_b.weight", 4, 64), bf16(p+"in_proj_a.weight", 4, 64),
		bf16(p+"conv1d.weight", 128, 1, 4), bf16(p+"dt_bias", 4), typed("F32", p+"A_log", 4),
		bf16(p+"norm.weight", 16), bf16(p+"out_proj.weight", 64, 64))
	p = lm + "layers.1.self_attn."
	ts = append(ts,
		bf16(p+"q_proj.weight", 2*2*32, 64), bf16(p+"k_proj.weight", 32, 64), bf16(p+"v_proj.weight", 32, 64),
		bf16(p+"o_proj.weight", 64, 64), bf16(p+"q_norm.weight", 32), bf16(p+"k_norm.weight", 32))
	return config, append(ts, bf16(lm+"norm.weight", 64), bf16("lm_head.weight", 128, 64), bf16("mtp.fc.weight", 64, 128))
}

// nemotronFixture: a Nemotron-H as NVIDIA-Nemotron-Nano's checkpoint
// names it (backbone.layers.N.mixer.*), pattern "M*E": hidden 64; layer 0
// Mamba2 of 4 heads of 16 (intermediate 64), 1 group of state 16, conv
// kernel 4 with its bias; layer 1 attention of 2 heads of 32, 1 KV head,
// no rotary; layer 2 a router over 2 relu2 experts of 32 and a shared
// expert of 32; vocabulary 128.
func nemotronFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"nemotron_h","hidden_size":64,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":32,` +
		`"num_hidden_layers":3,"hybrid_override_pattern":"M*E","mamba_num_heads":4,"mamba_head_dim":16,"ssm_state_size":16,` +
		`"n_groups":1,"conv_kernel":4,"n_routed_experts":2,"num_experts_per_tok":1,"moe_intermediate_size":32,` +
		`"n_shared_experts":1,"moe_shared_expert_intermediate_size":32,"vocab_size":128,"max_position_embeddings":64,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("backbone.embeddings.weight", 128, 64)}
	for l := range 3 {
		ts = append(ts, bf16(fmt.Sprintf("backbone.layers.%d.norm.weight", l), 64))
	}
	p := "backbone.layers.0.mixer."
	ts = append(ts,
		bf16(p+"in_proj.weight", 2*64+2*16+4, 64), bf16(p+"conv1d.weight", 64+2*16, 1, 4), bf16(p+"conv1d.bias", 64+2*16),
		typed("F32", p+"A_log", 4), typed("F32", p+"D", 4), bf16(p+"dt_bias", 4), bf16(p+"norm.weight", 64),
		bf16(p+"out_proj.weight", 64, 64))
	p = "backbone.layers.1.mixer."
	ts = append(ts, bf16(p+"q_proj.weight", 64, 64), bf16(p+"k_proj.weight", 32, 64), bf16(p+"v_proj.weight", 32, 64),
		bf16(p+"o_proj.weight", 64, 64))
	p = "backbone.layers.2.mixer."
	ts = append(ts, bf16(p+"gate.weight", 2, 64), typed("F32", p+"gate.e_score_correction_bias", 2),
		bf16(p+"shared_experts.up_proj.weight", 32, 64), bf16(p+"shared_experts.down_proj.weight", 64, 32))
	for e := range 2 {
		q := fmt.Sprintf("%sexperts.%d.", p, e)
		ts = append(ts, bf16(q+"up_proj.weight", 32, 64), bf16(q+"down_proj.weight", 64, 32))
	}
	return config, append(ts, bf16("backbone.norm_f.weight", 64), bf16("lm_head.weight", 128, 64),
		bf16("mtp.layers.0.eh_proj.weight", 64, 128))
}

// gptOssFixture: gpt-oss as openai/gpt-oss-20b's checkpoint names and
// stores it (MXFP4 experts): hidden 64, 2 heads of 32, 1 KV head, biases
// and sinks, 2 layers of 2 experts of 64 (blocks [E, 2I, H/32, 16] and
// scales [E, 2I, H/32] of uint8, down [E, H, I/32, 16] and [E, H, I/32],
// biases in bf16), vocabulary 128, 64 positions (YaRN: 32 x 2).
func gptOssFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"gpt_oss","hidden_size":64,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":32,` +
		`"intermediate_size":64,"num_local_experts":2,"num_experts_per_tok":1,"sliding_window":16,"num_hidden_layers":2,` +
		`"vocab_size":128,"max_position_embeddings":64,"torch_dtype":"bfloat16",` +
		`"rope_scaling":{"rope_type":"yarn","factor":2.0,"original_max_position_embeddings":32,"beta_fast":32.0,"beta_slow":1.0},` +
		`"quantization_config":{"quant_method":"mxfp4","modules_to_not_convert":["model.layers.*.self_attn","model.layers.*.mlp.router","model.embed_tokens","lm_head"]}}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64), bf16(p+"post_attention_layernorm.weight", 64),
			bf16(p+"self_attn.q_proj.weight", 64, 64), bf16(p+"self_attn.q_proj.bias", 64),
			bf16(p+"self_attn.k_proj.weight", 32, 64), bf16(p+"self_attn.k_proj.bias", 32),
			bf16(p+"self_attn.v_proj.weight", 32, 64), bf16(p+"self_attn.v_proj.bias", 32),
			bf16(p+"self_attn.o_proj.weight", 64, 64), bf16(p+"self_attn.o_proj.bias", 64),
			bf16(p+"self_attn.sinks", 2),
			bf16(p+"mlp.router.weight", 2, 64), bf16(p+"mlp.router.bias", 2),
			typed("U8", p+"mlp.experts.gate_up_proj_blocks", 2, 128, 2, 16), typed("U8", p+"mlp.experts.gate_up_proj_scales", 2, 128, 2),
			bf16(p+"mlp.experts.gate_up_proj_bias", 2, 128),
			typed("U8", p+"mlp.experts.down_proj_blocks", 2, 64, 2, 16), typed("U8", p+"mlp.experts.down_proj_scales", 2, 64, 2),
			bf16(p+"mlp.experts.down_proj_bias", 2, 64))
	}
	return config, append(ts, bf16("model.norm.weight", 64), bf16("lm_head.weight", 128, 64))
}

// llama4Fixture: Llama 4 as meta-llama/Llama-4-Scout-17B-16E-Instruct's
// checkpoint names it, under language_model. and with its vision tower:
// hidden 64, 2 heads of 32, 1 KV head, weightless qk norms on both (rope)
// layers; layer 0 dense (intermediate_size_mlp 128), layer 1 a router over
// 2 experts of 32 stacked ([E, H, 2I] and [E, I, H]) and a shared expert of
// 32; vocabulary 128, 64 positions. The tower: width 32, 2 heads, MLP 64, 1
// layer, patches of 4 of an 8-pixel image (4 patches and the class token),
// the adapter 64 -> 32 -> 32, the projector 32 -> 64.
func llama4Fixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"llama4","torch_dtype":"bfloat16","text_config":{"hidden_size":64,"num_attention_heads":2,` +
		`"num_key_value_heads":1,"head_dim":32,"intermediate_size":32,"intermediate_size_mlp":128,"num_local_experts":2,` +
		`"num_experts_per_tok":1,"interleave_moe_layer_step":2,"use_qk_norm":true,"attention_chunk_size":16,` +
		`"num_hidden_layers":2,"vocab_size":128,"max_position_embeddings":64},"vision_config":{"hidden_size":32,` +
		`"intermediate_size":64,"num_hidden_layers":1,"num_attention_heads":2,"patch_size":4,"image_size":8,"num_channels":3,` +
		`"vision_output_dim":32,"projector_input_dim":32,"projector_output_dim":32,"pixel_shuffle_ratio":0.5}}`
	lm := "language_model.model."
	ts := []safetensors.Tensor{bf16(lm+"embed_tokens.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("%slayers.%d.", lm, l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64), bf16(p+"post_attention_layernorm.weight", 64),
			bf16(p+"self_attn.q_proj.weight", 64, 64), bf16(p+"self_attn.k_proj.weight", 32, 64),
			bf16(p+"self_attn.v_proj.weight", 32, 64), bf16(p+"self_attn.o_proj.weight", 64, 64))
	}
	p := lm + "layers.0.feed_forward."
	ts = append(ts, bf16(p+"gate_proj.weight", 128, 64), bf16(p+"up_proj.weight", 128, 64), bf16(p+"down_proj.weight", 64, 128))
	p = lm + "layers.1.feed_forward."
	ts = append(ts, bf16(p+"router.weight", 2, 64),
		bf16(p+"experts.gate_up_proj", 2, 64, 64), bf16(p+"experts.down_proj", 2, 32, 64),
		bf16(p+"shared_expert.gate_proj.weight", 32, 64), bf16(p+"shared_expert.up_proj.weight", 32, 64),
		bf16(p+"shared_expert.down_proj.weight", 64, 32))
	ts = append(ts, bf16(lm+"norm.weight", 64), bf16("language_model.lm_head.weight", 128, 64))
	v := "vision_model."
	ts = append(ts, bf16(v+"patch_embedding.linear.weight", 32, 48), bf16(v+"class_embedding", 32),
		bf16(v+"positional_embedding_vlm", 5, 32),
		bf16(v+"layernorm_pre.weight", 32), bf16(v+"layernorm_pre.bias", 32),
		bf16(v+"layernorm_post.weight", 32), bf16(v+"layernorm_post.bias", 32))
	p = v + "model.layers.0."
	for _, m := range []string{"q_proj", "k_proj", "v_proj", "o_proj"} {
		ts = append(ts, bf16(p+"self_attn."+m+".weight", 32, 32), bf16(p+"self_attn."+m+".bias", 32))
	}
	ts = append(ts, bf16(p+"mlp.fc1.weight", 64, 32), bf16(p+"mlp.fc1.bias", 64), bf16(p+"mlp.fc2.weight", 32, 64), bf16(p+"mlp.fc2.bias", 32),
		bf16(p+"input_layernorm.weight", 32), bf16(p+"input_layernorm.bias", 32),
		bf16(p+"post_attention_layernorm.weight", 32), bf16(p+"post_attention_layernorm.bias", 32),
		bf16(v+"vision_adapter.mlp.fc1.weight", 32, 64), bf16(v+"vision_adapter.mlp.fc2.weight", 32, 32),
		bf16("multi_modal_projector.linear_1.weight", 64, 32))
	return config, ts
}

// dsaFixture: DeepSeek V3.2 as deepseek-ai/DeepSeek-V3.2-Exp's checkpoint
// names it: mlaFixture's model with the indexer on both layers (2 heads of
// 128: wq_b in fp8 blocks, wk in fp8 blocks, weights_proj and the k_norm
// LayerNorm in bf16), and the MTP layer's indexer (skipped).
func dsaFixture() (string, []safetensors.Tensor) {
	config, ts := mlaFixture()
	config = strings.Replace(config, `"model_type":"deepseek_v3"`, `"model_type":"deepseek_v32","index_topk":64,"index_head_dim":128,"index_n_heads":2`, 1)
	for l := range 3 {
		p := fmt.Sprintf("model.layers.%d.self_attn.indexer.", l)
		ts = append(ts, fp8Block(p+"wq_b", 2*128, 128)...)
		ts = append(ts, fp8Block(p+"wk", 128, 256)...)
		ts = append(ts, bf16(p+"weights_proj.weight", 2, 256), bf16(p+"k_norm.weight", 128), bf16(p+"k_norm.bias", 128))
	}
	return config, ts
}

// TestCheckpointFamiliesByHand checks the weights one rank holds of the
// hybrid, MXFP4, Llama 4 and DeepSeek V3.2 fixtures, in bf16, against sums
// done by hand; where vLLM builds a model differently from what Weights
// derives from config.json (configDiffers), the config-derived figure is
// not compared.
func TestCheckpointFamiliesByHand(t *testing.T) {
	whole := func(tp uint64) func(a *Arch) Sharding { return tpRanks(tp, 0) }
	with, stage := withSharding, ppStage
	checkByHand(t, []byHandCase{
		{
			// TP1. Layer 0, the delta net: in_proj_qkv 128x64x2 = 16384,
			// in_proj_z 64x64x2 = 8192, in_proj_b and in_proj_a 4x64x2 =
			// 512 each, conv1d 128x4x2 = 1024, dt_bias 4x2 = 8, A_log 4x4
			// (float32) = 16, norm 16x2 = 32, out_proj 8192: 34872.
			// Layer 1, attention: q (with the gate) 128x64x2 = 16384, k
			// and v 32x64x2 = 4096 each, o 8192, q_norm and k_norm 32x2 =
			// 64 each: 32896. Each layer's MLP: gate, up, down 128x64x2 =
			// 16384 each, and 2 norms of 64x2: 49408. Embedding and head
			// 128x64x2 = 16384 each, norm 128, rotary 64 x 8 x 2 = 1024.
			// TP2. Layer 0: in_proj_qkv 64 rows 8192, in_proj_z 32 rows
			// 4096, b and a 2 rows 256 each, conv1d 64 rows 512, dt_bias
			// 4, A_log 8, norm 32 (whole), out_proj 64x32x2 = 4096: 17452.
			// Layer 1: q (1 head and its gate) 64 rows 64x64x2 = 8192; the
			// 1 KV head replicated: k and v 4096 each; o 64x32x2 = 4096;
			// norms 128: 20608. MLP: 64 rows of gate and up 8192 each, down 8192, norms
			// 256: 24832. Embedding and head 64 rows: 8192 each.
			// PP2 (1 layer each): Qwen3.5 builds the embedding on every
			// stage (qwen3_5.py:244-247), the norm and head on the last.
			name: "qwen3_5_text", fixture: qwen35Fixture,
			ranks: []byHandRank{
				{"TP1", whole(1), (34872 + 49408) + (32896 + 49408) + 16384 + 128 + 16384 + 1024, ""},
				{"TP2", whole(2), (17452 + 24832) + (20608 + 24832) + 8192 + 128 + 8192 + 1024, ""},
				{"PP2 stage 0", stage(0, 2), 34872 + 49408 + 16384 + 1024, ""},
				{"PP2 stage 1", stage(1, 2), 32896 + 49408 + 16384 + 128 + 16384 + 1024, ""},
			},
		},
		{
			// TP1. Layer 0, Mamba2: in_proj (2x64 + 2x16 + 4 = 164 rows)
			// 164x64x2 = 20992, conv1d (64 + 2x16 = 96 rows) 96x4x2 = 768
			// and its bias 192, A (float32) 4x4 = 16, D 8, dt_bias 8, the
			// gated norm 64x2 = 128, out_proj 8192, the layer's norm 128:
			// 30432. Layer 1, attention: q 8192, k and v 4096 each, o 8192,
			// norm 128: 24704. Layer 2: the router in float32 (no router
			// GEMMs) 2x64x4 = 512, its bias 8, 2 experts of up 32x64x2 =
			// 4096 and down 4096, the shared expert's up and down 4096
			// each, norm 128: 25224. Embedding and head 16384 each, norm_f
			// 128; no rotary.
			// With the router GEMMs the router is in bf16: 256 less.
			// TP2: the 1 group is repeated to 2, 32 more rows of B and C
			// before dividing. Layer 0: in_proj (164+32)/2 = 98 rows 12544,
			// conv1d (96+32)/2 = 64 rows 512 and bias 128, A 8, D 4,
			// dt_bias 4, norm 32 rows 64, out_proj 64x32x2 = 4096, norm
			// 128: 17488. Layer 1: q 1 head 4096, k and v (replicated)
			// 4096 each, o 4096, norm 128: 16512. Layer 2: router 512,
			// bias 8, experts halved 2 x (2048 + 2048), shared 2048 + 2048,
			// norm 128: 12936. Embedding and head 64 rows 8192 each.
			name: "nemotron_h", fixture: nemotronFixture,
			ranks: []byHandRank{
				{"TP1", whole(1), 30432 + 24704 + 25224 + 16384 + 128 + 16384, ""},
				{"TP1 router GEMMs", with(1, func(sh *Sharding) { sh.RouterGEMM = true }), 30432 + 24704 + 25224 - 256 + 16384 + 128 + 16384, ""},
				{"TP2", whole(2), 17488 + 16512 + 12936 + 8192 + 128 + 8192, ""},
			},
		},
		{
			// TP1, the checkpoint's layout (no kernel rounding). Per
			// layer: q 64x64x2 = 8192 and bias 128, k and v 32x64x2 = 4096
			// and bias 64 each, o 8192 and bias 128, sinks 2x2 = 4: 24964;
			// router 2x64x2 = 256 and bias 4; experts: gate_up blocks
			// 2x128x2x16 = 8192, scales 2x128x2 = 512, bias 2x128x2 = 512,
			// down blocks 2x64x2x16 = 4096, scales 2x64x2 = 256, bias
			// 2x64x2 = 256: 13824; norms 256: 39304. Embedding and head
			// 128x64x2 = 16384 each, norm 128, the YaRN table in float32
			// 64 x 32 x 4 = 8192.
			// TP2 with Triton's kernel: each rank's intermediate 32 is
			// rounded to 64 and the biases are float32. Per layer: q 4096
			// and bias 64, k and v (replicated) 4096 and 64 each, o
			// 64x32x2 = 4096 and its bias whole 128, sinks 2: 16706;
			// router 260; experts: gate_up blocks 2x(2x64)x32 = 8192,
			// scales 2x128x2 = 512, bias 2x128x4 = 1024, down blocks
			// 2x64x(64/2) = 4096, scales 2x64x2 = 256, bias whole 2x64x4 =
			// 512: 14592; norms 256: 31814. Embedding and head 64 rows
			// 8192 each.
			// TP2 with Triton on Hopper: the same rounding, but the Hopper
			// layouts pad each expert's matrices: gate_up (N 128, K 64)
			// values [round_up(32, 64), round_up(128, 256)] = 64 x 256 =
			// 16384 and scales [256, round_up(2, 4)] = 1024 per expert;
			// down (N 64, K 64) the same 16384 and 1024; with the float32
			// biases 1024 + 512: 2 x 34816 + 1536 = 71168 of experts, a
			// layer 31814 - 14592 + 71168 = 88390.
			// PP2: gpt-oss builds the embedding, norm and head on every
			// stage (gpt_oss.py GptOssModel, GptOssForCausalLM).
			name: "gpt_oss mxfp4", fixture: gptOssFixture,
			ranks: []byHandRank{
				{"TP1", whole(1), 2*39304 + 16384 + 128 + 16384 + 8192, ""},
				{"TP2 Triton", with(2, func(sh *Sharding) { sh.MXFP4 = mxfp4Triton }), 2*31814 + 8192 + 128 + 8192 + 8192, ""},
				{"TP2 Triton Hopper", with(2, func(sh *Sharding) { sh.MXFP4 = mxfp4Hopper }), 2*88390 + 8192 + 128 + 8192 + 8192, ""},
				// The checkpoint's scales kept beside the swizzled ones:
				// gate_up 128 x 2 and down 64 x 2 per expert, 2 x 384 = 768
				// more a layer.
				{"TP2 Triton Hopper, scales kept", with(2, func(sh *Sharding) { sh.MXFP4 = mxfp4Hopper; sh.MXFP4.KeepsScales = true }), 2*(88390+768) + 8192 + 128 + 8192 + 8192, ""},
				{"PP2 stage 0", stage(0, 2), 39304 + 16384 + 128 + 16384 + 8192, ""},
			},
		},
		{
			// TP1. Attention per layer: q 8192, k and v 4096 each, o 8192:
			// 24576; norms 256. Layer 0's MLP: gate, up, down 128x64x2 =
			// 16384 each: 49152. Layer 1: router 2x64x2 = 256, experts
			// gate_up 2x64x64x2 = 16384 and down 2x32x64x2 = 8192, the
			// shared expert 3 x 32x64x2 = 12288. Embedding and head 16384
			// each, norm 128, rotary 64 x 32 x 2 = 4096, the qk norms' ones
			// in float32 (llama4.py:213-221) 2 x 32x4 = 256. The tower: patch 32x48x2 = 3072, class 64,
			// positions 5x32x2 = 320, pre and post norms 128 each, its
			// layer (q, k, v, o 32x32x2 + 64 each: 8448; fc1 64x32x2 + 128
			// = 4224; fc2 4160; norms 256): 17088, the adapter 64x32x2 =
			// 4096 and 32x32x2 = 2048, the projector 64x32x2 = 4096, its
			// rotary 5 x 8 complex64 = 320: 31360.
			// TP2. Attention: q 32 rows 4096, k and v replicated 4096
			// each, o 4096: 16384. Layer 0's MLP: 8192 x 3. Layer 1:
			// router 256, experts' intermediate halved: 8192 and 4096, the
			// shared expert 3 x 2048. Embedding and head 8192 each. The
			// tower: patch 16 rows 1536, class 64, positions 320, norms
			// 256, its layer (q, k, v 16 rows 1024 + 32 each: 3168; o
			// 32x16x2 + 64 = 1088; fc1 32 rows 2048 + 64; fc2 2048 + 64;
			// norms 256): 8736, the adapter 2048 and 1024, the projector
			// 2048, rotary 320: 16352.
			name: "llama4", fixture: llama4Fixture,
			ranks: []byHandRank{
				{"TP1", whole(1), (24576 + 256 + 49152) + (24576 + 256 + 256 + 16384 + 8192 + 12288) + 16384 + 128 + 16384 + 4096 + 256 + 31360, ""},
				{"TP2", whole(2), (16384 + 256 + 24576) + (16384 + 256 + 256 + 8192 + 4096 + 6144) + 8192 + 128 + 8192 + 4096 + 256 + 16352, ""},
			},
		},
		{
			// mlaFixture's sums (TestCheckpointWeightsByHand) and, on each
			// layer, the indexer, whole at any TP: wq_b [256,128] in fp8
			// 32768 and its 2x1 fp32 scales 8, wk [128,256] upcast to bf16
			// 65536 (its scales dropped) with weights_proj 2x256x2 = 1024
			// into wk_weights_proj, k_norm's weight and bias in float32
			// 2 x 128x4 = 1024: 100360; and the indexer's own rotary table
			// 64 x 128 x 2 = 16384.
			name: "deepseek_v32 fp8", fixture: dsaFixture,
			ranks: []byHandRank{
				{"TP1", whole(1), (296520 + 196656) + (296520 + 1024 + 8 + 3*196656) + 2*100360 + 65536 + 65536 + 512 + 2*16384, ""},
				{"TP2", whole(2), (198192 + 98328) + (198192 + 1024 + 8 + 3*98328) + 2*100360 + 32768 + 32768 + 512 + 2*16384, ""},
			},
		},
	})
}

// TestGemma4KEqV: Gemma 4's global layers under attention_k_eq_v have no
// v_proj in the checkpoint; vLLM loads k_proj into both the K and V slots
// of qkv_proj (gemma4.py:1682-1691).
func TestGemma4KEqV(t *testing.T) {
	config := `{"model_type":"gemma4_text","hidden_size_per_layer_input":0,"hidden_size":64,"num_attention_heads":2,"num_key_value_heads":2,"head_dim":32,` +
		`"global_head_dim":64,"attention_k_eq_v":true,"num_global_key_value_heads":1,"sliding_window":8,` +
		`"layer_types":["sliding_attention","full_attention"],"intermediate_size":64,"num_hidden_layers":2,` +
		`"vocab_size":64,"max_position_embeddings":16,"torch_dtype":"bfloat16"}`
	lm := "model.language_model.layers."
	a, notes := attachTensors(t, config, []safetensors.Tensor{
		bf16(lm+"0.self_attn.q_proj.weight", 64, 64), bf16(lm+"0.self_attn.k_proj.weight", 64, 64), bf16(lm+"0.self_attn.v_proj.weight", 64, 64),
		bf16(lm+"1.self_attn.q_proj.weight", 128, 64), bf16(lm+"1.self_attn.k_proj.weight", 64, 64),
	})
	if len(notes.Unknown) > 0 {
		t.Errorf("unknown %v", notes.Unknown)
	}
	for _, tc := range []struct {
		tp   uint64
		want map[string]uint64
	}{
		// TP1: layer 0's q, k and v 64x64x2 = 8192 each; layer 1's q
		// (2 heads of 64) 128x64x2 = 16384 and its k (1 head of 64)
		// 64x64x2 = 8192 twice.
		{1, map[string]uint64{"model.layers.0.self_attn.qkv_proj.weight": 3 * 8192, "model.layers.1.self_attn.qkv_proj.weight": 16384 + 2*8192}},
		// TP2: layer 0 halved; layer 1's q 64 rows 8192, its 1 KV head
		// replicated 8192, twice.
		{2, map[string]uint64{"model.layers.0.self_attn.qkv_proj.weight": 3 * 4096, "model.layers.1.self_attn.qkv_proj.weight": 8192 + 2*8192}},
	} {
		got := byName(RankWeights(a, Whole(a, tc.tp, 2, Quant{})))
		for name, w := range tc.want {
			if got[name] != w {
				t.Errorf("TP%d %s: %d B, want %d", tc.tp, name, got[name], w)
			}
		}
	}
}

// TestPixtralLayersPastTheFeatureLayer: vLLM builds Pixtral's layers up to
// vision_feature_layer (-2: all but the last of 2); the checkpoint's last
// layer is skipped.
func TestPixtralLayersPastTheFeatureLayer(t *testing.T) {
	config := `{"model_type":"mistral3","torch_dtype":"bfloat16","vision_feature_layer":-2,"spatial_merge_size":2,` +
		`"text_config":{"model_type":"mistral","hidden_size":64,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":32,` +
		`"intermediate_size":128,"num_hidden_layers":1,"vocab_size":64,"max_position_embeddings":16},` +
		`"vision_config":{"hidden_size":32,"intermediate_size":64,"num_hidden_layers":2,"num_attention_heads":2,"patch_size":4,"image_size":8}}`
	v := "model.vision_tower.transformer.layers."
	a, notes := attachTensors(t, config, []safetensors.Tensor{
		bf16("model.language_model.layers.0.self_attn.q_proj.weight", 64, 64),
		bf16(v+"0.attention.q_proj.weight", 32, 32), bf16(v+"0.feed_forward.gate_proj.weight", 64, 32),
		bf16(v+"1.attention.q_proj.weight", 32, 32), bf16(v+"1.feed_forward.gate_proj.weight", 64, 32),
	})
	want := CheckpointNotes{Counted: 3, Skipped: []SkippedTensors{{Reason: skipTowerLayer, Count: 2}}}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	got := byName(RankWeights(a, Whole(a, 2, 2, Quant{})))
	// TP2: layer 0's q 16 rows of 32: 1024; gate 32 rows of 32: 2048.
	for name, w := range map[string]uint64{
		"vision_tower.transformer.layers.0.attention.qkv_proj.weight":        1024,
		"vision_tower.transformer.layers.0.feed_forward.gate_up_proj.weight": 2048,
	} {
		if got[name] != w {
			t.Errorf("%s: %d B, want %d", name, got[name], w)
		}
	}
}

// TestGemma4Towers: Gemma 4's wrapper loads its vision tower and embedder
// whole on the first stage (AutoModel modules, gemma4_mm.py:1060-1100) and
// ignores Gemma 3n's embedding table; the text-only model skips them.
func TestGemma4Towers(t *testing.T) {
	text := `{"hidden_size":64,"hidden_size_per_layer_input":0,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":32,"sliding_window":8,` +
		`"layer_types":["sliding_attention"],"intermediate_size":64,"num_hidden_layers":1,"vocab_size":64,"max_position_embeddings":16}`
	ts := []safetensors.Tensor{
		bf16("model.language_model.layers.0.self_attn.q_proj.weight", 64, 64),
		bf16("model.vision_tower.encoder.layers.0.self_attn.q_proj.linear.weight", 32, 32),
		bf16("model.embed_vision.embedding_projection.weight", 64, 32),
		bf16("model.embed_vision.embedding.weight", 16, 32),
	}
	a, notes := attachTensors(t, `{"model_type":"gemma4","torch_dtype":"bfloat16","text_config":`+text+`}`, ts)
	if diff := cmp.Diff(CheckpointNotes{Counted: 3, Skipped: []SkippedTensors{{Reason: skipVestigial, Count: 1}}}, notes); diff != "" {
		t.Errorf("gemma4 notes (-want +got):\n%s", diff)
	}
	got := byName(RankWeights(a, Sharding{TP: 2, FirstLayer: 0, EndLayer: 1, First: true, DtypeBytes: 2}))
	// Whole at TP2: 32x32x2 = 2048 and 64x32x2 = 4096.
	for name, w := range map[string]uint64{
		"vision_tower.encoder.layers.0.self_attn.q_proj.linear.weight": 2048,
		"embed_vision.embedding_projection.weight":                     4096,
	} {
		if got[name] != w {
			t.Errorf("%s: %d B, want %d", name, got[name], w)
		}
	}
	if got := byName(RankWeights(a, Sharding{TP: 2, FirstLayer: 1, EndLayer: 1, Last: true, DtypeBytes: 2})); got["embed_vision.embedding_projection.weight"] != 0 {
		t.Errorf("the embedder is on the last stage: %d B", got["embed_vision.embedding_projection.weight"])
	}
	_, notes = attachTensors(t, strings.Replace(text, `{`, `{"model_type":"gemma4_text","torch_dtype":"bfloat16",`, 1), ts)
	if diff := cmp.Diff(CheckpointNotes{Counted: 1, Skipped: []SkippedTensors{{Reason: skipTowers, Count: 3}}}, notes); diff != "" {
		t.Errorf("gemma4_text notes (-want +got):\n%s", diff)
	}
}

// TestPublishedNamesAreKnown: tensor names from the families' published
// checkpoints (their model.safetensors.index.json, or the converters that
// list them) are read by the rules, and what vLLM does not load is
// skipped for its reason.
func TestPublishedNamesAreKnown(t *testing.T) {
	tests := []struct {
		name, config string
		names        []string
		skipped      []SkippedTensors
	}{
		{
			// Kimi-K2.5: the DeepSeek-V3 language model under
			// language_model., MoonViT and its projector (names as
			// pytorch/torchtitan torchtitan/models/kimi_k2_7/
			// state_dict_adapter.py maps them).
			name: "kimi_k25",
			config: `{"model_type":"kimi_k25","torch_dtype":"bfloat16","text_config":{"hidden_size":64,"num_attention_heads":2,` +
				`"q_lora_rank":32,"kv_lora_rank":32,"qk_nope_head_dim":16,"qk_rope_head_dim":16,"v_head_dim":16,"intermediate_size":64,` +
				`"moe_intermediate_size":32,"n_routed_experts":2,"n_shared_experts":1,"num_experts_per_tok":1,"first_k_dense_replace":1,` +
				`"topk_method":"noaux_tc","num_hidden_layers":2,"vocab_size":64,"max_position_embeddings":16}}`,
			names: []string{
				"language_model.model.embed_tokens.weight", "language_model.model.layers.0.self_attn.q_a_proj.weight",
				"language_model.model.layers.0.self_attn.kv_a_proj_with_mqa.weight", "language_model.model.layers.0.mlp.gate_proj.weight",
				"language_model.model.layers.1.mlp.experts.0.gate_proj.weight", "language_model.model.layers.1.mlp.gate.e_score_correction_bias",
				"language_model.model.layers.1.mlp.shared_experts.down_proj.weight", "language_model.model.norm.weight",
				"language_model.lm_head.weight",
				"vision_tower.patch_embed.proj.weight", "vision_tower.patch_embed.pos_emb.weight",
				"vision_tower.encoder.blocks.0.norm0.weight", "vision_tower.encoder.blocks.0.wqkv.weight",
				"vision_tower.encoder.blocks.0.wo.bias", "vision_tower.encoder.blocks.0.mlp.fc0.weight",
				"vision_tower.encoder.blocks.0.mlp.fc1.weight", "vision_tower.encoder.final_layernorm.weight",
				"mm_projector.pre_norm.weight", "mm_projector.proj.0.weight", "mm_projector.proj.2.bias",
			},
		},
		{
			// Qwen3.5: the language model and vision tower under model.,
			// the MTP module (skipped) (Qwen3.5-2B's index,
			// lawrence3699/Jev-Style-2B-Decision-v3 model.safetensors.index.json;
			// the tower as pytorch/torchtitan torchtitan/models/qwen3_5/
			// state_dict_adapter.py lists it).
			name: "qwen3_5",
			config: `{"model_type":"qwen3_5","torch_dtype":"bfloat16","text_config":{"hidden_size":64,"num_attention_heads":2,` +
				`"num_key_value_heads":1,"head_dim":32,"intermediate_size":128,"num_hidden_layers":2,` +
				`"layer_types":["linear_attention","full_attention"],"linear_num_key_heads":2,"linear_num_value_heads":4,` +
				`"linear_key_head_dim":16,"linear_value_head_dim":16,"linear_conv_kernel_dim":4,"vocab_size":128,` +
				`"max_position_embeddings":64},"vision_config":{"depth":1,"hidden_size":32,"intermediate_size":64,"num_heads":2,` +
				`"out_hidden_size":64,"patch_size":16,"num_position_embeddings":64,"deepstack_visual_indexes":[]}}`,
			names: []string{
				"model.language_model.layers.0.linear_attn.in_proj_qkv.weight", "model.language_model.layers.0.linear_attn.in_proj_z.weight",
				"model.language_model.layers.0.linear_attn.in_proj_b.weight", "model.language_model.layers.0.linear_attn.A_log",
				"model.language_model.layers.0.linear_attn.dt_bias", "model.language_model.layers.1.self_attn.q_norm.weight",
				"model.visual.patch_embed.proj.weight", "model.visual.pos_embed.weight", "model.visual.blocks.0.attn.qkv.weight",
				"model.visual.blocks.0.mlp.linear_fc1.bias", "model.visual.merger.norm.weight", "model.visual.merger.linear_fc2.weight",
				"lm_head.weight", "mtp.fc.weight", "mtp.layers.0.self_attn.q_proj.weight",
			},
			skipped: []SkippedTensors{{Reason: skipMTPModule, Count: 2}},
		},
		{
			// Qwen3.5-MoE: one tensor per expert (a REAP pruning of
			// Qwen3.5-35B-A3B, bryce-hoehn/Qwen3.5-18B-REAP-A3B-Coding
			// model.safetensors.index.json) or stacked, as transformers 5
			// saves it.
			name: "qwen3_5_moe_text",
			config: `{"model_type":"qwen3_5_moe_text","hidden_size":64,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":32,` +
				`"num_hidden_layers":1,"layer_types":["linear_attention"],"linear_num_key_heads":2,"linear_num_value_heads":4,` +
				`"linear_key_head_dim":16,"linear_value_head_dim":16,"linear_conv_kernel_dim":4,"num_experts":2,"num_experts_per_tok":1,` +
				`"moe_intermediate_size":32,"shared_expert_intermediate_size":32,"vocab_size":128,"max_position_embeddings":64,"torch_dtype":"bfloat16"}`,
			names: []string{
				"model.language_model.layers.0.mlp.gate.weight", "model.language_model.layers.0.mlp.experts.1.down_proj.weight",
				"model.language_model.layers.0.mlp.experts.gate_up_proj", "model.language_model.layers.0.mlp.shared_expert.up_proj.weight",
				"model.language_model.layers.0.mlp.shared_expert_gate.weight", "model.language_model.layers.0.linear_attn.norm.weight",
			},
		},
		{
			// facebook/opt-125m: saved from OPTModel, its names start at
			// decoder. (opt.py's mapper); the tied head is skipped.
			name: "opt",
			config: `{"model_type":"opt","hidden_size":64,"num_attention_heads":2,"ffn_dim":128,"num_hidden_layers":1,` +
				`"vocab_size":64,"max_position_embeddings":16,"word_embed_proj_dim":32,"torch_dtype":"float16"}`,
			names: []string{
				"decoder.embed_tokens.weight", "decoder.embed_positions.weight", "decoder.project_in.weight", "decoder.project_out.weight",
				"decoder.layers.0.self_attn.k_proj.bias", "decoder.layers.0.self_attn.out_proj.weight", "decoder.layers.0.fc1.weight",
				"decoder.layers.0.self_attn_layer_norm.bias", "decoder.layers.0.final_layer_norm.weight",
				"decoder.final_layer_norm.weight", "lm_head.weight",
			},
			skipped: []SkippedTensors{{Reason: skipTiedHead, Count: 1}},
		},
		{
			// MiniMaxAI/MiniMax-M2: the routing bias beside the router,
			// experts w1, w2, w3, the MTP module past num_hidden_layers.
			name: "minimax_m2",
			config: `{"model_type":"minimax_m2","hidden_size":64,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":32,` +
				`"intermediate_size":32,"num_local_experts":2,"num_experts_per_tok":1,"use_qk_norm":true,"use_routing_bias":true,` +
				`"num_mtp_modules":1,"num_hidden_layers":1,"vocab_size":64,"max_position_embeddings":16,"torch_dtype":"bfloat16"}`,
			names: []string{
				"model.layers.0.self_attn.q_norm.weight", "model.layers.0.block_sparse_moe.gate.weight",
				"model.layers.0.block_sparse_moe.e_score_correction_bias", "model.layers.0.block_sparse_moe.experts.1.w3.weight",
				"model.layers.1.eh_proj.weight",
			},
			skipped: []SkippedTensors{{Reason: skipMTP, Count: 1}},
		},
	}
	for _, tc := range tests {
		var ts []safetensors.Tensor
		for _, n := range tc.names {
			ts = append(ts, bf16(n, 4, 4))
		}
		_, notes := attachTensors(t, tc.config, ts)
		if len(notes.Unknown) > 0 {
			t.Errorf("%s: names no rule reads: %v", tc.name, notes.Unknown)
		}
		if diff := cmp.Diff(tc.skipped, notes.Skipped); diff != "" {
			t.Errorf("%s: skipped (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestEveryModelTypeHasCheckpointRules: a family the model reads is read
// from its checkpoint too.
func TestEveryModelTypeHasCheckpointRules(t *testing.T) {
	// The encoder-only families (registerConfigOnly) derive their weights
	// from config.json alone; each names why in its file.
	var read []string
	for _, mt := range ModelTypes() {
		if !configOnly[mt] {
			read = append(read, mt)
		}
	}
	if diff := cmp.Diff(read, CheckpointModelTypes()); diff != "" {
		t.Errorf("model_types without checkpoint rules (-read +with rules):\n%s", diff)
	}
}

// TestQwen35BAWholeUnderAWQ: under AWQ and GPTQ vLLM keeps Qwen3.5's
// in_proj_ba whole on every rank (qwen_gdn_linear_attn.py:543-559, for the
// Marlin kernel's 64 outputs per rank).
func TestQwen35BAWholeUnderAWQ(t *testing.T) {
	config := `{"model_type":"qwen3_5_text","hidden_size":64,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":32,` +
		`"intermediate_size":128,"num_hidden_layers":1,"layer_types":["linear_attention"],"linear_num_key_heads":2,` +
		`"linear_num_value_heads":8,"linear_key_head_dim":16,"linear_value_head_dim":16,"linear_conv_kernel_dim":4,` +
		`"vocab_size":128,"max_position_embeddings":64,"torch_dtype":"float16",` +
		`"quantization_config":{"quant_method":"awq","bits":4,"group_size":32,"zero_point":true,"version":"gemm"}}`
	// AWQ in_proj_b and in_proj_a, 64 -> 8: qweight [64, 1], qzeros [2,
	// 1], scales [2, 8] in fp16.
	var ts []safetensors.Tensor
	for _, m := range []string{"in_proj_b", "in_proj_a"} {
		p := "model.language_model.layers.0.linear_attn." + m
		ts = append(ts, typed("I32", p+".qweight", 64, 1), typed("I32", p+".qzeros", 2, 1), typed("F16", p+".scales", 2, 8))
	}
	a, _ := attachTensors(t, config, ts)
	got := byName(RankWeights(a, Whole(a, 2, 2, a.Quant)))
	// TP2, whole: per tensor qweight 64x4 = 256, qzeros 2x4 = 8, scales
	// 2x8x2 = 32; for b and a twice.
	want := map[string]uint64{
		"model.layers.0.linear_attn.in_proj_ba.qweight": 2 * 256,
		"model.layers.0.linear_attn.in_proj_ba.qzeros":  2 * 8,
		"model.layers.0.linear_attn.in_proj_ba.scales":  2 * 32,
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %d B, want %d", name, got[name], w)
		}
	}
}

// TestIndexCacheDropsSkippedIndexers: a layer that reuses an earlier
// layer's top-k builds no indexer, and vLLM drops its checkpoint weights
// (deepseek_v2.py:1566-1583): dsaFixture with index_topk_pattern "FSF"
// loses layer 1's indexer, 100360 B (TestCheckpointFamiliesByHand), and
// skips its seven tensors (wq_b and wk with their scales, weights_proj,
// k_norm's weight and bias); Weights agrees.
func TestIndexCacheDropsSkippedIndexers(t *testing.T) {
	config, ts := dsaFixture()
	config = strings.Replace(config, `"index_topk":64`, `"index_topk":64,"index_topk_pattern":"FSF"`, 1)
	a, notes := attachTensors(t, config, ts)
	sh := Whole(a, 1, 2, a.Quant)
	const all = (296520 + 196656) + (296520 + 1024 + 8 + 3*196656) + 2*100360 + 65536 + 65536 + 512 + 2*16384
	if got := sum(RankWeights(a, sh)); got != all-100360 {
		t.Errorf("checkpoint weights %d B, want %d (by hand)", got, all-100360)
	}
	if got := sum(Weights(a, sh)); got != all-100360 {
		t.Errorf("config-derived weights %d B, want %d (by hand)", got, all-100360)
	}
	skipped := map[string]int{}
	for _, s := range notes.Skipped {
		skipped[s.Reason] = s.Count
	}
	if got := skipped[skipSharedTopK]; got != 7 {
		t.Errorf("%d indexer tensors skipped, want 7; notes %+v", got, notes.Skipped)
	}
}
