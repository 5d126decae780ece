package model

import (
	"fmt"
	"slices"
	"testing"

	"membudget/model/safetensors"
)

// deepSeekV32ExpHeader is deepseek-ai/DeepSeek-V3.2-Exp's checkpoint:
// deepSeekV3Header's 91,991 tensors (the corpus holds V3.2's config, the
// same shapes as Exp's) and, in each of the 62 layers the MTP layer
// included, the lightning indexer in the names deepseek_v2.py loads
// (self_attn.indexer.): wq_b and wk block-quantized fp8 with float32
// weight_scale_inv, weights_proj in bf16, and k_norm's weight and bias.
func deepSeekV32ExpHeader() (string, []safetensors.Tensor) {
	const H, QL, IH, ID = 7168, 1536, 64, 128
	_, ts := deepSeekV3Header()
	for l := range 62 {
		a := fmt.Sprintf("model.layers.%d.self_attn.indexer.", l)
		ts = append(ts, slices.Concat(fp8Block(a+"wq_b", IH*ID, QL), fp8Block(a+"wk", ID, H))...)
		ts = append(ts, bf16(a+"weights_proj.weight", IH, H), bf16(a+"k_norm.weight", ID), bf16(a+"k_norm.bias", ID))
	}
	return corpusConfig("deepseek-ai__DeepSeek-V3.2"), ts
}

// TestDeepSeekV32ExpHeader: the checkpoint's 92,425 tensors (V3's 91,991
// and 62 indexers of 7) hold 685,396,921,376 parameters, the Hub's count
// for deepseek-ai/DeepSeek-V3.2-Exp and -Speciale (a stored model survey,
// index file id 69468411049): V3's 684,531,386,000 and 62 x 13,960,248,
// an indexer's wq_b 8192 x 1536 = 12,582,912 and its 64 x 12 scales, wk
// 128 x 7168 = 917,504 and its 1 x 56 scales, weights_proj 64 x 7168 =
// 458,752 and k_norm 2 x 128. The same survey counts DeepSeek-V3.2
// 685,355,329,792, exactly this less every block scale (V3's 41,540,496
// and the indexers' 62 x 824): V3.2's config names scale_fmt ue8m0, and
// the Hub leaves its scales out of the count (their dtype is not known
// here), so the fixture is Exp's float32 scales. Its bytes by hand: V3's
// 688,574,839,360 and 62 indexers of 12,582,912 + 768 x 4 + 917,504 + 56
// x 4 + 2 x 458,752 + 2 x 2 x 128 = 14,421,728 (no index total_size was
// found). Read by deepseek_v32's rules, a rank holds V3's (its MTP
// layer's 15,424,227,552 B skipped) less the 62 stored indexers, and in
// each of the 61 layers the indexer as vLLM builds it: wq_b as stored, wk
// and weights_proj fused into one unquantized bf16 (128 + 64) x 7168 and
// k_norm in float32, 12,582,912 + 3072 + 2,752,512 + 1024 = 15,339,520 B;
// beside V3's YaRN table a second of the same shape for the indexer
// (deepseek_v2.py:1115-1120). The checkpoint and the config agree rank by
// rank.
func TestDeepSeekV32ExpHeader(t *testing.T) {
	_, ts := deepSeekV32ExpHeader()
	checkHeaderNames(t, ts, 92425)
	var params uint64
	for _, x := range ts {
		n := uint64(1)
		for _, d := range x.Shape {
			n *= d
		}
		params += n
	}
	if want := uint64(684_531_386_000 + 62*13_960_248); params != want || want != 685_396_921_376 {
		t.Errorf("%d parameters, by hand %d, the Hub counts DeepSeek-V3.2-Exp 685,396,921,376", params, want)
	}
	const indexer, mtp, yarn = 12_582_912 + 768*4 + 917_504 + 56*4 + 2*458_752 + 2*2*128, 15_424_227_552, 4096 * 40 * 64 * 2
	const served = 12_582_912 + 768*4 + (128+64)*7168*2 + 2*128*4 // 15,339,520
	if got, want := headerTotal(ts), uint64(688_574_839_360+62*indexer); got != want {
		t.Errorf("header total %d B, by hand %d", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "DeepSeek-V3.2-Exp", fixture: deepSeekV32ExpHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 688_574_839_360 - mtp + 61*served + 2*yarn, ""}},
	}})
	checkHeaderRanks(t, deepSeekV32ExpHeader)
}
