package model

import (
	"fmt"
	"testing"

	"membudget/model/safetensors"
)

// qwen25VL7BHeader is Qwen/Qwen2.5-VL-7B-Instruct's checkpoint in the
// names its published files use (the language model under model., the
// tower under visual.: RMSNorm norm1 and norm2, fused qkv with its bias, a
// gated MLP with biases, the merger's ln_q and two linears), with shapes
// from the corpus config, bf16: Qwen2.5-7B's text model (28 layers of 12
// tensors, 3 outside them), the patch embedding, 32 blocks of 12 and the
// merger's 5.
func qwen25VL7BHeader() (string, []safetensors.Tensor) {
	const W, I, O = 1280, 3420, 3584 // the tower's width, MLP, the merger's output
	ts := qwen2Layout(28, 3584, 18944, 4)
	ts = append(ts, bf16("visual.patch_embed.proj.weight", W, 3, 2, 14, 14))
	for l := range 32 {
		p := fmt.Sprintf("visual.blocks.%d.", l)
		ts = append(ts, bf16(p+"norm1.weight", W), bf16(p+"norm2.weight", W),
			bf16(p+"attn.qkv.weight", 3*W, W), bf16(p+"attn.qkv.bias", 3*W), bf16(p+"attn.proj.weight", W, W), bf16(p+"attn.proj.bias", W),
			bf16(p+"mlp.gate_proj.weight", I, W), bf16(p+"mlp.gate_proj.bias", I), bf16(p+"mlp.up_proj.weight", I, W), bf16(p+"mlp.up_proj.bias", I),
			bf16(p+"mlp.down_proj.weight", W, I), bf16(p+"mlp.down_proj.bias", W))
	}
	ts = append(ts, bf16("visual.merger.ln_q.weight", W),
		bf16("visual.merger.mlp.0.weight", 4*W, 4*W), bf16("visual.merger.mlp.0.bias", 4*W),
		bf16("visual.merger.mlp.2.weight", O, 4*W), bf16("visual.merger.mlp.2.bias", O))
	return corpusConfig("Qwen__Qwen2.5-VL-7B-Instruct"), ts
}

// TestQwen25VL7BHeader: the checkpoint's 729 tensors sum to 16,584,333,312
// B, the weights of Qwen2.5-VL-7B-Instruct as two stored sources give them
// (a model card of Qwen-Image, whose text encoder it is, sizing that
// encoder's files; a stored training run asserting a merged 7B
// checkpoint's index total_size: index file ids 8559747720, 61082468558):
// 8,292,166,656 parameters, Qwen2.5-7B's 7,615,616,512 and the tower's
// 676,550,144 (patch embedding 1280 x 3 x 2 x 14 x 14 = 1,505,280; a block's
// norms 2 x 1280, qkv 3840 x 1280 + 3840, proj 1280^2 + 1280, gate and up 2
// x (3420 x 1280 + 3420), down 1280 x 3420 + 1280: 19,702,200, x 32; the
// merger's ln_q 1280, 5120^2 + 5120 and 3584 x 5120 + 3584: 44,574,464).
// Read by qwen2_5_vl's rules they are what the config gives at one rank,
// beside the rotary tables no checkpoint holds (the text model's mrope
// table, 4 x 128,000 positions x 128 x 2 B as TestQwen2VL7BHeader counts
// Qwen2-VL's, and the tower's 8192 positions x 40 x 2 B); the checkpoint
// and the config agree rank by rank.
func TestQwen25VL7BHeader(t *testing.T) {
	_, ts := qwen25VL7BHeader()
	checkHeaderNames(t, ts, 729)
	if got := headerTotal(ts); got != 16_584_333_312 {
		t.Errorf("header total %d B, the published weights are 16,584,333,312", got)
	}
	checkByHand(t, []byHandCase{{
		name: "Qwen2.5-VL-7B-Instruct", fixture: qwen25VL7BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 16_584_333_312 + 4*128000*128*2 + 8192*40*2, ""}},
	}})
	checkHeaderRanks(t, qwen25VL7BHeader)
}
