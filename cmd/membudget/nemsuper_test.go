package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNemotronSuperReport: Nemotron-3-Super (shipped, a latent MoE) on 8
// H200s at TP8, as `membudget report` lays it out (golden) and in figures
// by hand.
//
// Weights a rank: model/family_nemotron_h_test.go's 30,914,479,104 B, the
// router in bf16: nemotron_h's force_fp32_compute router keeps the model
// dtype on Hopper (GateLinear, see TestNemotronSuperRouterDtype).
//
// KV: one KV head of the two a rank, 128 wide, k and v in bf16: 512 B a
// token. A Mamba layer's state a rank: conv (4 - 1) x (8192 + 2 x 1024) /
// 8 x 2 B = 7,680 and SSM 16 heads x 64 x 128 x 4 B = 524,288: 531,968 B,
// so the attention block is raised to 1040 tokens (1040 x 512 = 532,480
// B, the first multiple of 16 tokens that holds the state). 40 Mamba and
// 8 attention layers make 6 groups of 8 layers: a block of 8 x 532,480 =
// 4,259,840 B. A request of 262,144 tokens takes ceil(262144 / 1040) = 253
// attention pages and 2 pages in each of the 5 Mamba groups (mamba_cache_
// mode align): 263.
func TestNemotronSuperReport(t *testing.T) {
	args := []string{"report", "--model", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16", "--class", "h200", "--tp", "8"}
	runGolden(t, []cliCase{{"nemsuper-report-h200-tp8", args, exitOK}})
	got := reportOK(t, append(args, "--json")...)
	type figures struct {
		Weights, BlockBytes, PagesPerSeq uint64
		Fits                             bool
	}
	want := figures{30_914_479_104, 4_259_840, 263, true}
	g := figures{Weights: got.Model.Weights.DerivedBytes, Fits: got.Fits}
	if got.KVCapacity != nil {
		g.BlockBytes, g.PagesPerSeq = got.KVCapacity.BlockBytes, got.KVCapacity.PagesPerSeq
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestNemotronSuperRouterDtype: vLLM keeps nemotron_h's router in the
// model dtype where GateLinear has its router GEMMs (compute capability
// 9.0 or 10.x) from 0.17.0, and in float32 elsewhere and before. At TP8
// a rank holds 30,914,479,104 B with the router in bf16
// (model/family_nemotron_h_test.go); in float32 each of the 40 MoE
// layers' 4096 x 512 router takes 2 B an element more: 40 x 4096 x 512 x
// 2 = 167,772,160 B, 31,082,251,264 B in all.
func TestNemotronSuperRouterDtype(t *testing.T) {
	const bf16, fp32 = 30_914_479_104, 30_914_479_104 + 167_772_160
	tests := []struct {
		name string
		args []string
		want uint64
	}{
		{"H200 (9.0), main", []string{"--class", "h200"}, bf16},
		{"B300 (10.3), main", []string{"--class", "b300"}, bf16},
		{"H200, vLLM 0.17.0", []string{"--class", "h200", "--vllm-version", "0.17.0"}, bf16},
		{"H200, vLLM 0.16.0: float32 before PR #35121", []string{"--class", "h200", "--vllm-version", "0.16.0"}, fp32},
		{"A100 80GB (8.0), main", []string{"--class", "a100-80g"}, fp32},
		{"RTX PRO 6000 (12.0), main", []string{"--class", "rtx-pro-6000"}, fp32},
		{"MI300X, main", []string{"--class", "mi300x"}, fp32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"report", "--model", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16", "--tp", "8", "--json"}, tt.args...)
			got := reportOK(t, args...)
			if diff := cmp.Diff(tt.want, got.Model.Weights.DerivedBytes); diff != "" {
				t.Errorf("weights a rank (-want +got):\n%s", diff)
			}
		})
	}
}
