package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/model"
)

// TestNVFP4KernelByDeviceAndRelease pins the NVFP4 layout vLLM's kernels
// give each device kind (see nvfp4Kernel for the selection read at
// d18bb7b): the 10.x family swizzles linear scales (FlashInfer CuteDSL) and
// runs the experts on FlashInfer TRTLLM, which rounds instead of
// swizzling; 11.0 and 12.x swizzle both (FlashInfer or vLLM CUTLASS);
// Hopper, Ada and Ampere run Marlin in the checkpoint's layout, as ROCm's
// emulation does.
func TestNVFP4KernelByDeviceAndRelease(t *testing.T) {
	t.Parallel()
	nv := func(major, minor int) budget.Silicon {
		return budget.Silicon{Vendor: budget.NVIDIA, Major: major, Minor: minor}
	}
	trtllm := model.NVFP4Kernel{LinearSwizzle: true, LinearWeightPad: true, ExpertHiddenMultiple: 256, ExpertGatedMultiple: 64, ExpertUngatedMultiple: 128}
	cutlass := model.NVFP4Kernel{LinearSwizzle: true, LinearWeightPad: true, ExpertSwizzle: true}
	tests := []struct {
		name    string
		silicon budget.Silicon
		version string
		want    model.NVFP4Kernel
	}{
		{"B200 (10.0), main", nv(10, 0), "main", trtllm},
		{"B300 (10.3), main: the 10.x family", nv(10, 3), "main", trtllm},
		{"B200 (10.0), 0.27.0: #46880's first release", nv(10, 0), "0.27.0", trtllm},
		// Before #46880 the intermediate was aligned to 16 whether gated
		// or not.
		{"B200 (10.0), 0.24.0", nv(10, 0), "0.24.0", model.NVFP4Kernel{LinearSwizzle: true, LinearWeightPad: true, ExpertHiddenMultiple: 256, ExpertGatedMultiple: 16, ExpertUngatedMultiple: 16}},
		// Before #39510 the hidden size was not padded.
		{"B200 (10.0), 0.20.0", nv(10, 0), "0.20.0", model.NVFP4Kernel{LinearSwizzle: true, LinearWeightPad: true, ExpertGatedMultiple: 16, ExpertUngatedMultiple: 16}},
		// Before #31099 the linear weight was not padded to 32.
		{"RTX 5090 (12.0), 0.15.1", nv(12, 0), "0.15.1", model.NVFP4Kernel{LinearSwizzle: true, ExpertSwizzle: true}},
		{"RTX 5090 (12.0), 0.16.0", nv(12, 0), "0.16.0", cutlass},
		{"RTX 5090 (12.0), main", nv(12, 0), "main", cutlass},
		{"GB10 (12.1), main", nv(12, 1), "main", cutlass},
		{"Jetson Thor (11.0), main: vLLM's CUTLASS experts", nv(11, 0), "main", cutlass},
		{"H100 (9.0), main: Marlin", nv(9, 0), "main", model.NVFP4Kernel{}},
		{"L40S (8.9), main: Marlin", nv(8, 9), "main", model.NVFP4Kernel{}},
		{"A100 (8.0), main: Marlin", nv(8, 0), "main", model.NVFP4Kernel{}},
		{"MI300X (gfx942), main: emulation", budget.Silicon{Vendor: budget.AMD, Target: "gfx942"}, "main", model.NVFP4Kernel{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := nvfp4Kernel(budget.Device{Silicon: tt.silicon}, mustProfile(tt.version))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
