package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestQwenMTPWeights: the MTP layer vLLM loads as a Qwen3.5 draft, counted
// by hand from each config as qwen3_5_mtp.py builds it.
func TestQwenMTPWeights(t *testing.T) {
	type got struct {
		Bytes uint64
		OK    bool
	}
	tests := []struct {
		name   string
		config string
		tp     uint64
		want   got
	}{
		// nvidia/Qwen3.6-35B-A3B-NVFP4 at TP 1: its ignore list holds
		// "mtp*", so the layer is bf16 though the target's layers are NVFP4
		// and FP8. Gated attention: q with its gate 16 x 256 x 2 = 8192, k
		// and v 2 x 256 each, 2048 in: 2048 x 9216 = 18,874,368 params;
		// o_proj 4096 x 2048 = 8,388,608; q_norm and k_norm 256 each. MoE:
		// 256 experts x 3 x 512 x 2048 = 805,306,368; router 256 x 2048 =
		// 524,288; shared expert 3 x 512 x 2048 = 3,145,728 and its gate
		// 2048. Two layer norms 2 x 2048; fc 4096 x 2048 = 8,388,608; three
		// norms 3 x 2048. 844,640,768 params x 2 B = 1,689,281,536 B (1.573
		// GiB: row 208 of corpus/observed/vllm.csv logs 21.93 GiB where the
		// target alone is 20.36).
		{"NVFP4 checkpoint, mtp* ignored", "nvidia__Qwen3.6-35B-A3B-NVFP4", 1, got{1_689_281_536, true}},
		// Qwen3.5-27B at TP 2, dense: qkv column 7168 of (24 x 256 x 2 +
		// 2 x 4 x 256) = 14336 rows x 5120 = 36,700,160 params; o_proj row
		// 3072 x 5120 = 15,728,640; q_norm and k_norm 512; gate_up 17408 x
		// 5120 = 89,128,960; down 8704 x 5120 = 44,564,480; two norms
		// 10,240; fc column 2560 x 10240 = 26,214,400; three norms 15,360.
		// 212,362,752 params x 2 B = 424,725,504 B.
		{"dense at TP 2", "Qwen__Qwen3.5-27B", 2, got{424_725_504, true}},
		// Qwen3-8B has no MTP layer vLLM builds this way.
		{"not Qwen3.5", "Qwen__Qwen3-8B", 1, got{0, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := shippedArch(t, tt.config)
			items, ok := QwenMTPWeights(a, Whole(a, tt.tp, 2, a.Quant))
			g := got{OK: ok}
			for _, it := range items {
				g.Bytes += it.Bytes
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("QwenMTPWeights (-want +got):\n%s", diff)
			}
		})
	}
}
