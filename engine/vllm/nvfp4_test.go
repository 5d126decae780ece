package vllm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
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
	// Ungated experts' intermediate is padded to the 128-row tiles.
	cutlass := model.NVFP4Kernel{LinearSwizzle: true, LinearWeightPad: true, ExpertSwizzle: true, ExpertUngatedMultiple: 128}
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
		{"RTX 5090 (12.0), 0.15.1", nv(12, 0), "0.15.1", model.NVFP4Kernel{LinearSwizzle: true, ExpertSwizzle: true, ExpertUngatedMultiple: 128}},
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

// TestNVFP4GatedExpertsRefusedOnCUTLASS: Qwen3.6-35B-A3B's config made a
// W4A4 ModelOpt NVFP4 checkpoint (gated experts of hidden 2048; the
// published nvidia one is W4A16 there, Marlin's on every device), its
// expert intermediate set to 480: the gate and up rows, 960, are 7.5
// tiles of 128. vLLM's CUTLASS MoE kernels (12.x) pad the swizzled scales
// but raise on the gated weights, with or without expert parallelism
// (which keeps the intermediate whole); the 10.x family's TRTLLM pads them
// to 512 and Hopper's Marlin takes them as they are, so both are sized.
// 512, the checkpoint's own, is 8 tiles: sized on 12.x too.
func TestNVFP4GatedExpertsRefusedOnCUTLASS(t *testing.T) {
	on := func(major int) budget.Class {
		c := bigClass
		c.Device.Silicon = budget.Silicon{Vendor: budget.NVIDIA, Major: major}
		return c
	}
	for _, tt := range []struct {
		name   string
		inter  int
		tp     uint64 // --tensor-parallel-size; 0 for vLLM's 1
		class  budget.Class
		ep     bool
		refuse bool
		way    string // the way out the refusal names
	}{
		// 480 is not a multiple of 64: neither TP nor EP helps.
		{"12.0, 480", 480, 0, on(12), false, true, "no tensor-parallel size or expert parallelism"},
		{"12.0, 480, expert parallel", 480, 0, on(12), true, true, "no tensor-parallel size or expert parallelism"},
		// 640 is 10 x 64, but a rank of TP 4 holds 160 (320 gate and up
		// rows, 2.5 tiles): a TP size or expert parallelism (640 whole)
		// is the way out.
		{"12.0, 640 at TP 4", 640, 4, on(12), false, true, "--enable-expert-parallel"},
		{"12.0, 640 at TP 4, expert parallel", 640, 4, on(12), true, false, ""},
		{"12.0, 512", 512, 0, on(12), false, false, ""},
		{"10.0, 480: TRTLLM pads", 480, 0, on(10), false, false, ""},
		{"9.0, 480: Marlin", 480, 0, on(9), false, false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := expertsTPConfig(t, "nvidia__Qwen3.6-35B-A3B-NVFP4", "", map[string]any{"moe_intermediate_size": tt.inter})
			var root map[string]any
			if err := json.Unmarshal(doc, &root); err != nil {
				t.Fatal(err)
			}
			root["quantization_config"] = map[string]any{"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": []string{"lm_head", "mtp*", "*mlp.gate"}}
			doc, err := json.Marshal(root)
			if err != nil {
				t.Fatal(err)
			}
			a, err := model.ParseConfig("config.json", doc)
			if err != nil {
				t.Fatal(err)
			}
			_, err = NewReference(a, trusting(a, Serve{TensorParallelSize: tt.tp, EnableExpertParallel: tt.ep, MaxModelLen: 2048, KVCacheMemoryBytes: gib40}), tt.class, current)
			var se *engine.SettingError
			switch {
			case tt.refuse && (!errors.As(err, &se) || se.Flag != "tensor-parallel-size" || !strings.Contains(se.Reason, "NotImplementedError") || !strings.Contains(se.Reason, tt.way)):
				t.Errorf("got %v, want a refusal of --tensor-parallel-size naming vLLM's NotImplementedError and %q", err, tt.way)
			case !tt.refuse && err != nil:
				t.Errorf("got %v, want it sized", err)
			}
		})
	}
}

// TestNVFP4ExpertsOn10xBefore016Refused: the shipped Nemotron-3-Nano NVFP4
// checkpoint (W4A4 experts) on a 10.x device is refused by name under a
// release before 0.16.0, whose NVFP4 MoE kernel (CUTLASS before PR #32414,
// FlashInfer TRTLLM after it) is not settled, and sized from 0.16.0; on
// 9.0 (Marlin at every release) it is sized at 0.15.1 too.
func TestNVFP4ExpertsOn10xBefore016Refused(t *testing.T) {
	t.Parallel()
	a := shipped(t)["nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"]
	if !a.Quant.W4A4NVFP4() {
		t.Fatal("the shipped Nemotron-3-Nano NVFP4 config has no W4A4 NVFP4 layer: the case moved")
	}
	class := func(major int) budget.Class {
		c := testClass(false)
		c.Device.Silicon = budget.Silicon{Vendor: budget.NVIDIA, Major: major}
		c.Device.MemoryBytes = 180 << 30
		return c
	}
	refused := func(version string, major int) bool {
		p, err := ProfileFor(version)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Resolve(Serve{MaxModelLen: 8192}, a, class(major), p)
		var se *engine.SettingError
		if err != nil && !(errors.As(err, &se) && se.Flag == "vllm-version" && strings.Contains(se.Reason, "#32414")) {
			t.Fatalf("%s on %d.x: %v, want sized or refused naming #32414", version, major, err)
		}
		return err != nil
	}
	got := map[string]bool{"0.15.1 on 10.x": refused("0.15.1", 10), "0.16.0 on 10.x": refused("0.16.0", 10),
		"main on 10.x": refused("main", 10), "0.15.1 on 9.x": refused("0.15.1", 9)}
	want := map[string]bool{"0.15.1 on 10.x": true, "0.16.0 on 10.x": false, "main on 10.x": false, "0.15.1 on 9.x": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
}
