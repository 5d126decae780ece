package model

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readDeepSeekV4Corpus(t *testing.T, name string) *Arch {
	t.Helper()
	data, err := os.ReadFile("../corpus/models/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseConfig(name+".json", data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestDeepSeekV4Config pins what the reader takes from DeepSeek-V4-Flash's
// config.json: compress_ratios [0, 0] then 4, 128 alternating to layer 41
// and 4 on layer 42 (the 0731 file's three more entries are its MTP and
// DSpark stages, which no decoder layer reads), the indexer and output
// shapes, and the two float32 YaRN tables of 65,536 x 16 rows.
func TestDeepSeekV4Config(t *testing.T) {
	for _, name := range []string{"deepseek-ai__DeepSeek-V4-Flash", "deepseek-ai__DeepSeek-V4-Flash-0731"} {
		a := readDeepSeekV4Corpus(t, name)
		want := &DeepSeekV4Shape{QLoraRank: 1024, ORank: 1024, OGroups: 8, IndexHeads: 64, IndexHeadDim: 128,
			IndexTopK: 512, HCMult: 4, HashLayers: 3, ExpertFP4: true}
		if diff := cmp.Diff(want, a.DeepSeekV4); diff != "" {
			t.Errorf("%s shape (-want +got):\n%s", name, diff)
		}
		if a.RotaryDim != 64 { // qk_rope_head_dim
			t.Errorf("%s RotaryDim = %d, want 64", name, a.RotaryDim)
		}
		counts := map[uint64]int{}
		for _, l := range a.Layers {
			counts[l.CompressRatio]++
		}
		// Layers 0 and 1 uncompressed; 2, 4, ..., 42 at 4 (21); 3, 5, ...,
		// 41 at 128 (20).
		if diff := cmp.Diff(map[uint64]int{1: 2, 4: 21, 128: 20}, counts); diff != "" {
			t.Errorf("%s compress ratios (-want +got):\n%s", name, diff)
		}
		rows := uint64(65536 * 16)
		wantRotary := []RotaryTable{{Name: "rotary_emb", Positions: rows, Dim: 64, Dtype: "float32"},
			{Name: "rotary_emb_compress", Positions: rows, Dim: 64, Dtype: "float32"}}
		if diff := cmp.Diff(wantRotary, a.Rotary); diff != "" {
			t.Errorf("%s rotary (-want +got):\n%s", name, diff)
		}
	}
}

// dsv4FP8 is an FP8 block linear of out x in as DeepSeek-V4-Flash stores
// it: one byte a value and one e8m0 byte a 128 x 128 block.
func dsv4FP8(out, in uint64) uint64 { return out*in + (out+127)/128*((in+127)/128) }

// TestDeepSeekV4WeightsMatchCheckpoint checks the weights at one rank
// against DeepSeek-V4-Flash's checkpoint: its index's total_size,
// 159,609,485,896 bytes over 69,187 tensors (the published
// model.safetensors.index.json as alibaba/rtp-llm's
// rtp_llm/model_loader/test/dsv4_checkpoint_inventory_test.py pins it),
// summed here tensor by tensor from the checkpoint's names and dtypes
// (F8_E4M3 weights with F8_E8M0 scales a 128-block, I8 MXFP4 experts with
// an E8M0 scale a 32, BF16 norms, embeddings, compressors and router,
// F32 mixes, sinks and position tables, I64 tid2eid), then turned into
// what vLLM holds: the MTP layer not loaded without speculative
// decoding, tid2eid built int32, and the two rotary tables added.
func TestDeepSeekV4WeightsMatchCheckpoint(t *testing.T) {
	const (
		H, V, E, I, QL, HD, NH, OG, OL, HC = 4096, 129280, 256, 2048, 1024, 512, 64, 8, 1024, 4
		IH, ID, topK                       = 64, 128, 6
		mix                                = (2 + HC) * HC // 24 rows of each hyper-connection mix
	)
	// Every layer: two norms, q_norm and kv_norm, the sink, the five FP8
	// attention linears, the two mixes, the router, the shared expert and
	// 256 MXFP4 experts (w1, w3: 2048 x 4096 packed to 2048 x 2048 bytes
	// with 2048 x 128 scales; w2: 4096 x 1024 bytes, 4096 x 64 scales).
	common := uint64(2*H*2+QL*2+HD*2+NH*4) +
		dsv4FP8(QL, H) + dsv4FP8(HD, H) + dsv4FP8(NH*HD, QL) + dsv4FP8(OG*OL, NH*HD/OG) + dsv4FP8(H, OG*OL) +
		2*(mix*HC*H*4+mix*4+3*4) + E*H*2 +
		2*dsv4FP8(I, H) + dsv4FP8(H, I) +
		E*(2*(I*H/2+I*H/32)+(H*I/2+H*I/32))
	// A compressor of ratio r over heads of d (coff 2 at r 4): wkv and
	// wgate bf16, norm bf16, ape float32.
	compressor := func(r, coff, d uint64) uint64 { return 2*coff*d*H*2 + d*2 + r*coff*d*4 }
	c4 := compressor(4, 2, HD) + dsv4FP8(IH*ID, QL) + IH*H*2 + compressor(4, 2, ID)
	c128 := compressor(128, 1, HD)
	hashRouter, scoreBias := uint64(V*topK*8), uint64(E*4)
	// Layers 0, 1: uncompressed, hash-routed; layer 2: 4x, hash-routed;
	// then 20 layers at 128 and 20 more at 4, score-routed.
	layers := 43*common + 3*hashRouter + 40*scoreBias + 21*c4 + 20*c128
	top := uint64(2*V*H*2+H*2) + HC*HC*H*4 + HC*4 + 4
	// mtp.0: an uncompressed score-routed layer, its own norm and head mix,
	// enorm, hnorm, and the FP8 e_proj and h_proj.
	mtp := common + scoreBias + H*2 + HC*HC*H*4 + HC*4 + 4 + 2*H*2 + 2*dsv4FP8(H, H)
	if got := layers + top + mtp; got != 159_609_485_896 {
		t.Fatalf("checkpoint by hand = %d, want the index's total_size 159,609,485,896", got)
	}
	// vLLM: tid2eid int32 (nvidia/model.py:565-575), no MTP layer, the
	// sink already 64 heads at one rank, two 1,048,576 x 64 float32 tables.
	want := layers + top - 3*V*topK*4 + 2*(65536*16)*64*4
	a := readDeepSeekV4Corpus(t, "deepseek-ai__DeepSeek-V4-Flash")
	if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != want {
		t.Errorf("weights at tp 1 = %d, want %d", got, want)
	}
}

// TestDeepSeekV4WeightsTP8 checks one rank of eight: the query
// up-projection and the grouped output projections divided by 8; the
// sink padded from 8 heads to FlashMLA's 64; each expert's intermediate
// 2,048 / 8 = 256 (w13 512 x 4096 packed, w2 4096 x 256 packed), the
// shared expert's 16 blocks of 128 dealt 2 a rank; the rest whole.
func TestDeepSeekV4WeightsTP8(t *testing.T) {
	a := readDeepSeekV4Corpus(t, "deepseek-ai__DeepSeek-V4-Flash")
	items := Weights(a, Whole(a, 8, 2, a.Quant))
	got := itemBytes(items)
	want := map[string]uint64{
		"model.layers.5.attn.attn_sink":                         64 * 4,
		"model.layers.5.attn.wq_b.weight":                       64 * 512 / 8 * 1024,
		"model.layers.5.attn.wq_b.weight_scale_inv":             32 * 8,
		"model.layers.5.attn.wo_a.weight":                       8 * 1024 / 8 * 4096,
		"model.layers.5.attn.wo_b.weight":                       4096 * 1024,
		"model.layers.5.attn.fused_wqa_wkv.weight":              (1024 + 512) * 4096,
		"model.layers.5.attn.fused_wqa_wkv.weight_scale_inv":    12 * 32,
		"model.layers.5.ffn.experts.w13_weight":                 256 * 512 * 2048,
		"model.layers.5.ffn.experts.w13_weight_scale":           256 * 512 * 128,
		"model.layers.5.ffn.experts.w2_weight":                  256 * 4096 * 128,
		"model.layers.5.ffn.experts.w2_weight_scale":            256 * 4096 * 8,
		"model.layers.5.ffn.shared_experts.gate_up_proj.weight": 2 * 256 * 4096,
		"model.layers.5.ffn.shared_experts.down_proj.weight":    4096 * 256,
		"model.layers.4.attn.indexer.compressor.ape":            4 * 2 * 128 * 4,
		"model.layers.5.attn.compressor.ape":                    128 * 512 * 4,
		"model.layers.0.ffn.gate.tid2eid":                       129280 * 6 * 4,
		"lm_head.weight":                                        129280 / 8 * 4096 * 2,
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s = %d, want %d", name, got[name], w)
		}
	}
	if _, ok := got["model.layers.5.attn.indexer.wq_b.weight"]; ok {
		t.Error("layer 5 (128x) has an indexer")
	}
	if _, ok := got["model.layers.1.attn.compressor.ape"]; ok {
		t.Error("layer 1 (uncompressed) has a compressor")
	}
}

func TestDeepSeekV4ConfigErrors(t *testing.T) {
	data, err := os.ReadFile("../corpus/models/deepseek-ai__DeepSeek-V4-Flash.json")
	if err != nil {
		t.Fatal(err)
	}
	base := string(data)
	with := func(old, new string) string {
		if !strings.Contains(base, old) {
			t.Fatalf("%q not in the config", old)
		}
		return strings.Replace(base, old, new, 1)
	}
	tests := []struct{ name, doc, want string }{
		{"expert dtype", with(`"expert_dtype": "fp4"`, `"expert_dtype": "int4"`), `expert_dtype: "int4": vLLM takes fp4 or fp8`},
		{"short ratios", with(`"compress_ratios": [0, 0, 4,`, `"compress_ratios": [4,`), "compress_ratios: has 42 entries for 43 layers"},
		{"odd ratio", with(`"compress_ratios": [0, 0, 4,`, `"compress_ratios": [0, 8, 4,`), "compress_ratios: layer 1: ratio 8"},
		{"head dim", with(`"head_dim": 512`, `"head_dim": 256`), "head_dim: 256: vLLM's DeepSeek-V4 cache and SWA backend take 512"},
		{"no o_groups", with(`"o_groups": 8,`, ``), "o_groups: missing (required)"},
		{"rope dim", with(`"qk_rope_head_dim": 64`, `"qk_rope_head_dim": 32`), "qk_rope_head_dim: 32: vLLM's DeepSeek-V4 cache token holds 448 NoPE and 64 RoPE values"},
		{"index dim", with(`"index_head_dim": 128`, `"index_head_dim": 64`), "index_head_dim: 64: vLLM's DeepSeek-V4 compressor takes an indexer of 128"},
		{"moe blocks", with(`"moe_intermediate_size": 2048`, `"moe_intermediate_size": 2000`), "moe_intermediate_size: 2000: not whole 128-blocks"},
		{"no yarn", with(`"type": "yarn"`, `"type": "linear"`), "rope_scaling: membudget sizes DeepSeek-V4's YaRN tables"},
		{"block", with(`      128,
      128
    ]`, `      64,
      64
    ]`), "quantization_config: weight_block_size [64 64]"},
	}
	// RedHatAI/DeepSeek-V4-Flash-NVFP4-FP8: compressed-tensors NVFP4
	// experts, FP8 attention.
	nvfp4, err := os.ReadFile("testdata/unsupported/RedHatAI__DeepSeek-V4-Flash-NVFP4-FP8.json")
	if err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct{ name, doc, want string }{"nvfp4", string(nvfp4),
		`quantization_config: quant_method "compressed-tensors": membudget sizes DeepSeek-V4 only in its published FP8 blocks`})
	for _, tt := range tests {
		_, err := ParseConfig("x.json", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}
