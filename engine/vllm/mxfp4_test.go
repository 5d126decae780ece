package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/model"
)

// TestMXFP4KernelByDevice checks the MoE kernel vLLM picks for gpt-oss's
// experts on each device of a shipped class kind (oracle/mxfp4.py's gpt-oss
// priority with each kernel's device check, see mxfp4Kernel).
func TestMXFP4KernelByDevice(t *testing.T) {
	nv := func(major, minor int) budget.Silicon {
		return budget.Silicon{Vendor: budget.NVIDIA, Major: major, Minor: minor}
	}
	tests := []struct {
		name string
		si   budget.Silicon
		want model.MXFP4Kernel
	}{
		{"A100 (8.0)", nv(8, 0), MXFP4Marlin},
		{"L40S (8.9)", nv(8, 9), MXFP4Marlin},
		{"H100 (9.0)", nv(9, 0), MXFP4Triton},
		{"B200 (10.0)", nv(10, 0), MXFP4TRTLLM},
		{"B300 (10.3)", nv(10, 3), MXFP4TRTLLM},
		// SM110 is outside Triton's [9.0, 11.0) window and FlashInfer
		// CUTLASS's list (flashinfer-ai/flashinfer#3134): Marlin.
		{"Jetson Thor (11.0)", nv(11, 0), MXFP4Marlin},
		{"RTX 5090 (12.0)", nv(12, 0), MXFP4CUTLASS},
		{"GB10 (12.1)", nv(12, 1), MXFP4CUTLASS},
		{"MI300X (gfx942)", budget.Silicon{Vendor: budget.AMD, Target: "gfx942"}, MXFP4ROCmTriton},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, mxfp4Kernel(budget.Device{Silicon: tt.si}, current)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// Triton on Hopper by release: strided (torch 2.8.0) with the
	// checkpoint's scales kept through 0.11.0, the Hopper layouts from
	// 0.11.1, the scales freed from 0.24.0.
	strided := model.MXFP4Kernel{IntermediateMultiple: 64, HiddenMultiple: 1, BiasFloat32: true, KeepsScales: true}
	swizzledKept := model.MXFP4Kernel{IntermediateMultiple: 64, HiddenMultiple: 1, BiasFloat32: true, HopperLayout: true, KeepsScales: true}
	for _, tt := range []struct {
		profile string
		want    model.MXFP4Kernel
	}{
		{"0.11.0", strided}, {"0.11.1", swizzledKept}, {"0.23.0", swizzledKept}, {"0.24.0", MXFP4Triton}, {"main", MXFP4Triton},
	} {
		if diff := cmp.Diff(tt.want, mxfp4Kernel(budget.Device{Silicon: hopper}, mustProfile(tt.profile))); diff != "" {
			t.Errorf("H100 under %s (-want +got):\n%s", tt.profile, diff)
		}
	}
}

// TestMXFP4WeightsPerKernel checks gpt-oss's weights per GPU at TP 1 on
// each kernel's device against the checkpoint's layout, the difference
// worked by hand per expert (hidden H = 2880, intermediate I = 2880; the
// checkpoint holds w13 values 5760 x 1440 and scales 5760 x 90, w2 2880 x
// 1440 and 2880 x 90, 13,219,200 B, and bf16 biases (5760 + 2880) x 2 =
// 17,280 B):
//   - Triton on Hopper: values [1472, 5888] and [1472, 3072], scales
//     [5888, 92] and [3072, 92]: 14,013,440 B (+794,240), float32 biases
//     +17,280: +811,520 an expert;
//   - Marlin: I 2944, H 3072: values 5888 x 1536 + 3072 x 1472, scales
//     5888 x 96 + 3072 x 92: 14,413,824 B (+1,194,624), bf16 biases of
//     (5888 + 3072) x 2 = 17,920 (+640): +1,195,264;
//   - TRTLLM: Marlin's sizes with float32 biases 35,840 (+18,560):
//     +1,213,184;
//   - FlashInfer CUTLASS: I and H 2944: values 5888 x 1472 + 2944 x 1472,
//     scales 5888 x 92 + 2944 x 92: 13,813,248 B (+594,048), bf16 biases
//     (5888 + 2944) x 2 = 17,664 (+384): +594,432;
//   - ROCm Triton: I and H 3072: values 6144 x 1536 + 3072 x 1536, scales
//     6144 x 96 + 3072 x 96: 15,040,512 B (+1,821,312), float32 biases
//     (6144 + 3072) x 4 = 36,864 (+19,584): +1,840,896.
//
// gpt-oss-20b has 24 layers of 32 experts (768), gpt-oss-120b 36 of 128
// (4608). On H100 that is 0.58 and 3.48 GiB over the checkpoint, which
// vLLM's "Model loading took 13.47 GiB" and "64.38 GiB" (llm-d's table,
// corpus/observed/vllm.csv rows 61, 62) show; on A100 (Marlin) 0.85 GiB, as
// row 56's 13.72 GiB does.
//
// Under older releases on Hopper: 0.11.0 keeps the strided layout (nothing
// padded) and the checkpoint's scales beside their copy, 777,600 B, with
// the float32 biases +17,280: +794,880 an expert, gpt-oss-20b 13.42 GiB
// where vLLM 0.11.0 logs 13.47 (row 61); 0.11.1 to 0.23 pad as main does
// and keep the scales: +811,520 + 777,600 = +1,589,120.
func TestMXFP4WeightsPerKernel(t *testing.T) {
	archs := shipped(t)
	perExpert := map[string]uint64{"hopper": 811520, "marlin": 1195264, "trtllm": 1213184, "cutlass": 594432, "rocm": 1840896}
	devices := map[string]budget.Silicon{
		"hopper": hopper, "marlin": {Vendor: budget.NVIDIA, Major: 8}, "trtllm": {Vendor: budget.NVIDIA, Major: 10},
		"cutlass": {Vendor: budget.NVIDIA, Major: 12}, "rocm": {Vendor: budget.AMD, Target: "gfx942"},
	}
	for name, experts := range map[string]uint64{"openai__gpt-oss-20b": 24 * 32, "openai__gpt-oss-120b": 36 * 128} {
		a := archs[name]
		base := budget.ItemBytes(model.Weights(a, model.Whole(a, 1, 2, a.Quant)))
		for kernel, si := range devices {
			c := bigClass
			c.Device.Silicon = si
			r := ref(t, a, Serve{}, c)
			got := budget.ItemBytes(r.stages[0].weights) - base
			if want := experts * perExpert[kernel]; got != want {
				t.Errorf("%s on %s: %d B over the checkpoint's layout, want %d", name, kernel, got, want)
			}
		}
		for profile, each := range map[string]uint64{"0.11.0": 794880, "0.23.0": 1589120} {
			c := bigClass
			r, err := NewReference(a, Serve{}, c, mustProfile(profile))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := budget.ItemBytes(r.stages[0].weights)-base, experts*each; got != want {
				t.Errorf("%s on Hopper under %s: %d B over the checkpoint's layout, want %d", name, profile, got, want)
			}
		}
	}
}
