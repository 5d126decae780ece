package vllm

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget"
	"membudget/budget"
	"membudget/model"
)

// TestPinnedBytes: what the caching host allocator pins for a request,
// by hand: up to the next power of two, n itself past 2^63.
func TestPinnedBytes(t *testing.T) {
	tests := []struct {
		n, want uint64
	}{
		{0, 0},
		{1, 1},
		{2, 2},
		{3, 4},
		{4096, 4096},
		// 1024 x 40960 int32 cells (row 205's all_token_ids): 160 MiB,
		// taken up to 256 MiB.
		{167_772_160, 268_435_456},
		// 3 x 160 MiB (M-RoPE's prefill_positions): 480 MiB up to 512.
		{503_316_480, 536_870_912},
		// Past 2^63 no power of two a uint64 holds is larger: n itself.
		{1<<63 + 1, 1<<63 + 1},
		{math.MaxUint64, math.MaxUint64},
	}
	for _, tt := range tests {
		if got := pinnedBytes(tt.n); got != tt.want {
			t.Errorf("pinnedBytes(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}

// TestPinnedBytesProperties: up to 2^63, pinnedBytes is the least power of
// two at least n.
func TestPinnedBytesProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Uint64Range(2, 1<<63).Draw(t, "n")
		got := pinnedBytes(n)
		// A power of two, at least n, and less than twice n.
		if got&(got-1) != 0 || got < n || got/2 >= n {
			t.Fatalf("pinnedBytes(%d) = %d", n, got)
		}
	})
}

// TestHostTokenIDsBytes: the runner's pinned token-id tensors by era and
// release, by hand, and the unified class's host charge (those tensors
// plus unifiedHostGrowthBytes, 1796 MiB) only on a unified class.
func TestHostTokenIDsBytes(t *testing.T) {
	plain := &model.Arch{}
	mrope := &model.Arch{RopeScalings: []model.RopeScaling{{Type: "mrope", MRoPE: true}}}
	tests := []struct {
		name        string
		profile     string
		a           *model.Arch
		seqs, tlen  uint64
		want        uint64
		wantUnified uint64
	}{
		// 256 x 32768 = 8,388,608 cells, an int32 and a bool each (V1's
		// token_ids_cpu and is_token_ids): 41,943,040 B (row 110's serve).
		{"V1 0.13.0", "0.13.0", plain, 256, 32768, 41_943_040, 41_943_040 + 1796<<20},
		// Before PR #24278 the int32 alone: 33,554,432 B.
		{"V1 0.10.2", "0.10.2", plain, 256, 32768, 33_554_432, 33_554_432 + 1796<<20},
		// 5 x 262144 = 1,310,720 cells x 5 B (row 208's serve).
		{"V1 0.22.1, 5 long sequences", "0.22.1", plain, 5, 262144, 6_553_600, 6_553_600 + 1796<<20},
		// The V0 engine keeps no such tensors; the growth floor alone.
		{"V0", "0.8.5:v0", plain, 256, 32768, 0, 1796 << 20},
		// V2 (every model from 0.29.0): 1024 x 40960 int32 = 160 MiB,
		// pinned at 256 MiB.
		{"V2", "0.29.0", plain, 1024, 40960, 268_435_456, 268_435_456 + 1796<<20},
		// With M-RoPE, 3 x 160 MiB more, pinned at 512 MiB: 768 MiB.
		{"V2 M-RoPE", "0.29.0", mrope, 1024, 40960, 805_306_368, 805_306_368 + 1796<<20},
		// 5 x 262144 int32 = 5 MiB, pinned at 8.
		{"V2, 5 long sequences", "0.29.0", plain, 5, 262144, 8_388_608, 8_388_608 + 1796<<20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Resolved{Serve: Serve{MaxNumSeqs: tt.seqs, MaxModelLen: tt.tlen}, Profile: mustProfile(tt.profile)}
			if got := hostTokenIDsBytes(tt.a, r); got != tt.want {
				t.Errorf("hostTokenIDsBytes = %d, want %d", got, tt.want)
			}
			if got := unifiedHostBytes(tt.a, r); got != 0 {
				t.Errorf("off a unified class unifiedHostBytes = %d, want 0", got)
			}
			r.unified = true
			if got := unifiedHostBytes(tt.a, r); got != tt.wantUnified {
				t.Errorf("on a unified class unifiedHostBytes = %d, want %d", got, tt.wantUnified)
			}
		})
	}
}

// TestUnifiedHostGrowthCalibration pins unifiedHostGrowthBytes to row 205
// of corpus/observed/vllm.csv: its consumed memory less what the model
// charges there beside the floor, each figure checked against the model.
func TestUnifiedHostGrowthCalibration(t *testing.T) {
	// "Actual usage is 3.35 GiB for consumed memory (weights +
	// non-torch)": at least 3.345 GiB, 3,591,651,819 B (3.345 x 2^30 =
	// 3,591,651,819.52, taken down).
	const loggedAtLeast = 3_591_651_819
	// What the model charges there beside the floor, by hand:
	//   - Qwen3-0.6B's bf16 weights, tied embedding: 1,202,585,600 B;
	//   - the non-torch growth of a discrete GPU from 0.19: 256 MiB;
	//   - the V2 request state at GB10's default 256 sequences and 2048
	//     batched tokens: 169,930,756 B (v2state.go);
	//   - the V2 all_token_ids, 256 x 40960 int32 = 40 MiB, pinned at 64.
	const weights, nonTorch, v2State, tokenIDs = 1_202_585_600, 256 << 20, 169_930_756, 64 << 20
	rest := uint64(weights + nonTorch + v2State + tokenIDs)
	if rest != 1_708_060_676 {
		t.Fatalf("the model's charge beside the floor = %d, want 1,708,060,676", rest)
	}
	// 3,591,651,819 - 1,708,060,676 = 1,883,591,143 B = 1796.33 MiB,
	// taken down to whole MiB.
	if floor := (loggedAtLeast - rest) >> 20 << 20; floor != 1796<<20 {
		t.Errorf("calibrated floor %d, want 1796 MiB", floor)
	}
	if unifiedHostGrowthBytes != 1796<<20 {
		t.Errorf("unifiedHostGrowthBytes = %d, want 1796 MiB", unifiedHostGrowthBytes)
	}

	// The row's serve as TestObserved sizes it: the model's figures are
	// the ones above.
	a := shipped(t)["Qwen__Qwen3-0.6B"]
	c, err := membudget.Kernels().Load("gb10")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReference(a, Serve{GPUMemoryUtilization: 0.6}, c, mustProfile("0.27.1"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, it := range r.stages[0].weights {
		got["weights"] += it.Bytes
	}
	for _, it := range r.stages[0].peaks {
		if it.Term == budget.TermNonTorch {
			got[it.Name] = it.Bytes
		}
	}
	want := map[string]uint64{
		"weights":                weights,
		"non_torch_growth":       nonTorch,
		"v2_request_state":       v2State,
		"unified_host_token_ids": tokenIDs,
		"unified_host_growth":    1796 << 20,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("row 205's non-torch items (-want +got):\n%s", diff)
	}
	// The consumed memory the model logs: 1,708,060,676 + 1796 MiB =
	// 3,591,303,172 B, 3.3447 GiB, under the logged 3.35 by what the floor
	// was taken down by.
	if p := r.Predict(); budget.SatAdd(p.WeightsBytes, p.NonTorchBytes) != 3_591_303_172 {
		t.Errorf("weights + non-torch = %d, want 3,591,303,172", budget.SatAdd(p.WeightsBytes, p.NonTorchBytes))
	}
}

// TestUnifiedHostOnlyUnified checks the items come off the KV cache on a
// unified class alone: the same serve on the same device marked discrete
// has the same ledger less them.
func TestUnifiedHostOnlyUnified(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-0.6B"]
	s := Serve{GPUMemoryUtilization: 0.5, MaxModelLen: 8192, MaxNumSeqs: 64}
	// The token-id tensors plus the floor.
	unified, discrete := testClass(true), testClass(false)
	ru := ref(t, a, s, unified)
	rd := ref(t, a, s, discrete)
	tokenIDs := hostTokenIDsBytes(a, &ru.Serve)
	want := budget.SatAdd(tokenIDs, unifiedHostGrowthBytes)
	if got := ru.Predict().NonTorchBytes - rd.Predict().NonTorchBytes; got != want {
		t.Errorf("non-torch on unified - discrete = %d, want %d", got, want)
	}
	if got := rd.AvailableKV(0) - ru.AvailableKV(0); got != want {
		t.Errorf("KV memory discrete - unified = %d, want %d", got, want)
	}
	// main runs Qwen3 on the V2 runner: 64 x 8192 int32 = 2 MiB, pinned
	// as it is (a power of two).
	if tokenIDs != 2<<20 {
		t.Errorf("token ids = %d, want 2 MiB", tokenIDs)
	}
}

// TestUnifiedHostAutoMaxLen: under --max-model-len auto vLLM builds its
// runner, and profiles, at the model's length and fits a shorter one after;
// the token-id tensors are charged at the length the runner was built with
// whatever the fit, and the report's line names the charged bytes.
func TestUnifiedHostAutoMaxLen(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-0.6B"]
	r := ref(t, a, Serve{GPUMemoryUtilization: 0.09, AutoMaxModelLen: true, MaxNumSeqs: 16}, testClass(true))
	if r.Serve.MaxModelLen >= 40960 || r.Serve.runnerMaxLen != 40960 {
		t.Fatalf("max_model_len %d, runner's %d: want a fit below the model's 40960, built at 40960", r.Serve.MaxModelLen, r.Serve.runnerMaxLen)
	}
	// main runs Qwen3 on the V2 runner: 16 x 40960 int32 = 2.5 MiB, pinned
	// at 4 MiB.
	var got uint64
	for _, it := range r.stages[0].peaks {
		if it.Name == "unified_host_token_ids" {
			got = it.Bytes
		}
	}
	if got != 4<<20 || hostTokenIDsBytes(a, &r.Serve) != 4<<20 {
		t.Errorf("token ids charged %d, recomputed %d, want 4 MiB", got, hostTokenIDsBytes(a, &r.Serve))
	}
}
