package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

// TestRouterGEMMByDeviceAndRelease: GateLinear keeps a force_fp32_compute
// router in the model dtype only on CUDA compute capability exactly 9.0 or
// any 10.x (gate_linear.py:59-68 at d18bb7b), and nemotron_h builds its
// router so from 0.17.0 (PR #35121); before, and on every other device,
// the router is float32.
func TestRouterGEMMByDeviceAndRelease(t *testing.T) {
	t.Parallel()
	nv := func(major, minor int) budget.Silicon {
		return budget.Silicon{Vendor: budget.NVIDIA, Major: major, Minor: minor}
	}
	tests := []struct {
		name    string
		silicon budget.Silicon
		version string
		want    bool
	}{
		{"H100 (9.0), main", nv(9, 0), "main", true},
		{"B200 (10.0), main", nv(10, 0), "main", true},
		{"B300 (10.3), main: the 10.x family", nv(10, 3), "main", true},
		{"H100 (9.0), 0.17.0: PR #35121's first release", nv(9, 0), "0.17.0", true},
		{"H100 (9.0), 0.16.0: ReplicatedLinear in float32", nv(9, 0), "0.16.0", false},
		{"A100 (8.0), main", nv(8, 0), "main", false},
		{"L40S (8.9), main", nv(8, 9), "main", false},
		{"Jetson Thor (11.0), main: not family 100", nv(11, 0), "main", false},
		{"RTX PRO 6000 (12.0), main", nv(12, 0), "main", false},
		{"GB10 (12.1), main", nv(12, 1), "main", false},
		{"MI300X (gfx942), main: not CUDA", budget.Silicon{Vendor: budget.AMD, Target: "gfx942"}, "main", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := routerGEMM(budget.Device{Silicon: tt.silicon}, mustProfile(tt.version))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestRouterGEMMSetOnlyForADeviceRouter: a serve on H100 (9.0, main) sets
// Sharding.RouterGEMM only for an architecture whose router weight
// follows it (nemotron_h, GateLinear's force_fp32_compute); for every
// other model, the float32 routers of GLM-4.5 included (always float32,
// glm4_moe.py builds them with params_dtype float32), it stays unset, so
// that their weights are the same on every device and the compiler's
// weights cache is shared across classes.
func TestRouterGEMMSetOnlyForADeviceRouter(t *testing.T) {
	t.Parallel()
	archs := shipped(t)
	p, err := ProfileFor("main")
	if err != nil {
		t.Fatal(err)
	}
	c := testClass(false)
	c.Device.Silicon = budget.Silicon{Vendor: budget.NVIDIA, Major: 9}
	c.Device.MemoryBytes = 1 << 40
	got := map[string]bool{}
	for _, name := range []string{"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nvidia__NVIDIA-Nemotron-3-Super-120B-A12B-BF16", "Qwen__Qwen3-30B-A3B", "zai-org__GLM-4.5", "meta-llama__Llama-3.1-8B-Instruct"} {
		r, err := Resolve(Serve{TensorParallelSize: 8, MaxModelLen: 4096}, archs[name], c, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got[name] = r.Stages[0].RouterGEMM
	}
	want := map[string]bool{"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": true, "nvidia__NVIDIA-Nemotron-3-Super-120B-A12B-BF16": true,
		"Qwen__Qwen3-30B-A3B": false, "zai-org__GLM-4.5": false, "meta-llama__Llama-3.1-8B-Instruct": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RouterGEMM by model on H100 (-want +got):\n%s", diff)
	}
}
