package sglang

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
)

// TestProfile0514Rules: v0.5.14 is v0.5.13.post1's rules but the ones it
// changed.
func TestProfile0514Rules(t *testing.T) {
	p := mustProfile("v0.5.14")
	want := renamedAs(mustProfile("v0.5.13.post1"), "v0.5.14", "49e384ce9d304648e9959666ecb8ce8cd98d0deb", p)
	want.ReqPoolGivenUncapped = true   // model_runner_kv_cache_mixin.py:987-991
	want.GraphPhases = true            // server_args.py:2942-2944
	want.DraftInFraction = true        // PR #28855
	want.ARFusionMultiNodeSM100 = true // server_args.py:4294-4328
	want.Native = native0514
	want.UnreadModels = slices.Concat(new059, new0510, new0511, new0512, new0513, new0514)
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("v0.5.14 against v0.5.13.post1's rules (-want +got):\n%s", diff)
	}
	// Two classes new by the grep (MiMoV2ASRForCausalLM, ZayaForCausalLM),
	// none gone.
	checkNewNative(t, "v0.5.14", native0513, new0514, native0514, 2)
}

// TestProfile0514DefaultServeIsV0513s walks Llama 3.1 8B on one H100
// without flags: v0.5.14's reserve is v0.5.13's terms on the per-phase
// config (server_args.py:3276-3306): 512 + 1.5 x 8192 + 2 x 256 + 1 / 8 x
// 1024 = 13440 MiB, and 58 piecewise sizes up to the chunked prefill 8192
// at 8 MiB, 464: 13904 MiB over the 10 GiB floor; (81080 - 13904) / 81080
// = 0.82851 -> 0.829, v0.5.13.post1's. The budget (free memory less 1 -
// msf of the memory before loading) and the cell are v0.5.13's, so the
// pool is too: T = floor(rest / cell), the cell 32 layers x 8 heads x
// (128 + 128) x 2 bytes = 131072. Without --max-running-requests the
// req_to_token rows are the estimate, as at v0.5.13.post1.
func TestProfile0514DefaultServeIsV0513s(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	old := ref(t, llama, Serve{}, h100, mustProfile("v0.5.13.post1")).Capacity()
	r := ref(t, llama, Serve{}, h100, mustProfile("v0.5.14"))
	c := r.Capacity()
	wantT := poolTokensByHand(c, 0.829, 131072, false)
	if c.MemFractionStatic != 0.829 || c.CellBytes != 131072 || c.MaxTotalNumTokens != wantT || len(r.Serve.PiecewiseSizes) != 58 {
		t.Errorf("v0.5.14: msf %v, cell %d, T %d, %d piecewise sizes; want 0.829, 131072, %d, 58", c.MemFractionStatic, c.CellBytes, c.MaxTotalNumTokens, len(r.Serve.PiecewiseSizes), wantT)
	}
	if diff := cmp.Diff(old, c); diff != "" {
		t.Errorf("v0.5.14's pool against v0.5.13.post1's (-want +got):\n%s", diff)
	}
}

// TestProfile0514MaxRunningRequestsGiven: a --max-running-requests given
// is capped by the estimate at v0.5.13.post1 (min(given, estimate),
// model_runner_kv_cache_mixin.py:885) and by T // 2 at v0.5.14
// (min(given, T // 2), :991). Llama 3.1 8B on one H100 (context 131072):
//   - 3000 given, T in the hundred thousands: the estimate int(T / 131072
//     x 512) is under 2048, so 2048; v0.5.13.post1 keeps 2048 rows and
//     runs 2048, v0.5.14 keeps 3000 and runs 3000. The table is (rows + 1)
//     x (131072 + 4) x 4 bytes (the padding row of v0.5.11): 2049 x
//     524304 = 1074298896 against 3001 x 524304 = 1573436304, 952 rows x
//     524304 = 499137408 bytes more beside the pool.
//   - 3000 given with --max-total-tokens 4000: T = 4000 (page 1); the
//     estimate int(4000 / 131072 x 512) = 15 -> 2048, so v0.5.13.post1
//     keeps 2048 rows, v0.5.14 4000 // 2 = 2000.
//   - 64 given: 64 at both (under the estimate and T // 2).
func TestProfile0514MaxRunningRequestsGiven(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		profile    string
		given, mtt uint64
		rows       uint64
	}{
		{"v0.5.13.post1", 3000, 0, 2048},
		{"v0.5.14", 3000, 0, 3000},
		{"v0.5.13.post1", 3000, 4000, 2048},
		{"v0.5.14", 3000, 4000, 2000},
		{"v0.5.13.post1", 64, 0, 64},
		{"v0.5.14", 64, 0, 64},
	} {
		r := ref(t, llama, Serve{MaxRunningRequests: tt.given, MaxTotalTokens: tt.mtt}, h100, mustProfile(tt.profile))
		c := r.Capacity()
		table := (tt.rows + 1) * (131072 + 4) * 4
		if c.MaxNumReqs != tt.rows || c.MaxRunningRequests != tt.rows || besideItem(r, "req_to_token") != table {
			t.Errorf("%s --max-running-requests %d --max-total-tokens %d: rows %d, running %d, req_to_token %d; want %d, %d, %d",
				tt.profile, tt.given, tt.mtt, c.MaxNumReqs, c.MaxRunningRequests, besideItem(r, "req_to_token"), tt.rows, tt.rows, table)
		}
	}
	a := ref(t, llama, Serve{MaxRunningRequests: 3000}, h100, mustProfile("v0.5.13.post1"))
	b := ref(t, llama, Serve{MaxRunningRequests: 3000}, h100, mustProfile("v0.5.14"))
	if d := besideItem(b, "req_to_token") - besideItem(a, "req_to_token"); d != 499137408 {
		t.Errorf("req_to_token grows by %d bytes, want 952 x 524304 = 499137408", d)
	}
}

// TestProfile0514DisableCudaGraphTurnsPrefillOff: --disable-cuda-graph on
// Llama 3.1 8B, one H100. v0.5.13.post1 keeps the piecewise graphs (its
// cases do not read it), so its reserve is the 13904 MiB above: 0.829.
// v0.5.14 turns the prefill phase off too (server_args.py:2942-2944)
// before the reserve, which then drops the 58 x 8 = 464 MiB: 13440 MiB,
// (81080 - 13440) / 81080 = 0.83424 -> 0.834, and no piecewise graphs.
// The decode term 2 x 256 stays at both (server_args.py:3285, v0.5.15's
// #29615 is what drops it).
func TestProfile0514DisableCudaGraphTurnsPrefillOff(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		profile   string
		msf       float64
		reserved  float64
		piecewise bool
	}{{"v0.5.13.post1", 0.829, 13904, true}, {"v0.5.14", 0.834, 13440, false}} {
		r, err := Resolve(Serve{DisableCudaGraph: true}, llama, h100, mustProfile(tt.profile))
		if err != nil {
			t.Fatalf("%s: %v", tt.profile, err)
		}
		if r.MemFractionStatic != tt.msf || r.ReservedMiB != tt.reserved || r.Piecewise != tt.piecewise {
			t.Errorf("%s --disable-cuda-graph: msf %v, reserved %v MiB, piecewise %v; want %v, %v, %v", tt.profile, r.MemFractionStatic, r.ReservedMiB, r.Piecewise, tt.msf, tt.reserved, tt.piecewise)
		}
		if !tt.piecewise && !strings.Contains(r.PiecewiseOff, "--disable-cuda-graph") {
			t.Errorf("%s: piecewise off for %q, want --disable-cuda-graph named", tt.profile, r.PiecewiseOff)
		}
	}
}

// TestProfile0514ARFusionRefused: v0.5.14 turns FlashInfer's all-reduce
// fusion on by itself for Qwen3-VL-MoE (server_args.py:4294-4328), which
// no rule read names: Qwen3-VL-30B-A3B at TP 2 on an H100 (SM90) is
// refused naming the flag under v0.5.14, and not for the fusion under
// v0.5.13.post1, whose list lacks it (server_args.py:2622-2655). Across
// two nodes on a B200 (SM100), v0.5.14 turns it on for DeepSeek-V3 too,
// where the rules read ask one node.
func TestProfile0514ARFusionRefused(t *testing.T) {
	archs := shipped(t)
	vl := archs["Qwen__Qwen3-VL-30B-A3B-Instruct"]
	h100, b200 := class(t, "h100-sxm-80g"), class(t, "b200")
	_, err := Resolve(Serve{TPSize: 2}, vl, h100, mustProfile("v0.5.14"))
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "enable-flashinfer-allreduce-fusion" || !strings.Contains(se.Reason, "Qwen3VLMoeForConditionalGeneration") {
		t.Errorf("Qwen3-VL-30B-A3B TP 2 H100 under v0.5.14: %v; want the fusion refused by name", err)
	}
	if _, err := Resolve(Serve{TPSize: 2}, vl, h100, mustProfile("v0.5.13.post1")); err != nil && strings.Contains(err.Error(), "all-reduce fusion") {
		t.Errorf("under v0.5.13.post1: %v; want no fusion refusal", err)
	}
	ds := archs["deepseek-ai__DeepSeek-V3"]
	r := &Resolved{Serve: Serve{TPSize: 16, Nodes: Nodes{NNodes: 2}}, Profile: mustProfile("v0.5.14")}
	if !autoARFusion(arFusionAnyFor("v0.5.14"), ds, r, b200) {
		t.Errorf("DeepSeek-V3 TP 16 over 2 B200 nodes: v0.5.14 turns the fusion on, want it taken")
	}
	r.Profile = mustProfile("v0.5.13.post1")
	if autoARFusion(arFusionAnyFor("v0.5.13.post1"), ds, r, b200) {
		t.Errorf("DeepSeek-V3 over 2 nodes under v0.5.13.post1: the rules read ask one node")
	}
	r.Profile = mustProfile("v0.5.14")
	if autoARFusion(arFusionAnyFor("v0.5.14"), ds, r, h100) {
		t.Errorf("DeepSeek-V3 over 2 H100 nodes under v0.5.14: SM90 keeps one node")
	}
}

// TestProfile0514Flags: the graph flags membudget models stay flags of
// v0.5.14 (deprecated aliases storing into the per-phase fields,
// server_args.py:6358-6432), the per-phase ones are refused by name, and
// the four it dropped are no flags of it.
func TestProfile0514Flags(t *testing.T) {
	refuses := refusesUnder("v0.5.14")
	checkJudged(t, "v0.5.14", []judgeCase{
		{[]string{"--cuda-graph-max-bs", "64"}, ""},
		{[]string{"--disable-cuda-graph"}, ""},
		{[]string{"--disable-piecewise-cuda-graph"}, ""},
		{[]string{"--tp-size", "2"}, ""},
		{[]string{"--tensor-parallel-size", "2"}, ""},
		{[]string{"--cuda-graph-max-bs-decode", "64"}, "--cuda-graph-max-bs-decode: " + whatGraphPhases + refuses},
		{[]string{"--disable-prefill-cuda-graph"}, "--disable-prefill-cuda-graph: " + whatGraphPhases + refuses},
		{[]string{"--cuda-graph-config", "{}"}, "--cuda-graph-config: " + whatGraphPhases + refuses},
		{[]string{"--enable-prefill-cp"}, "--enable-prefill-cp: " + whatNSACP + refuses},
		{[]string{"--hybrid-kvcache-ratio"}, "--hybrid-kvcache-ratio is not a flag of SGLang v0.5.14 (it is v0.5.13.post1's, server_args.py:4919 there, and gone by v0.5.14): its nearest is --hicache-ratio"},
	})
	// Under v0.5.13.post1 the per-phase flags are none of its.
	if err := (&flagServe{}).Judge([]string{"--sglang-version", "v0.5.13.post1", "--cuda-graph-max-bs-decode", "64"}, 2); err == nil || !strings.Contains(err.Error(), "it came in v0.5.14") {
		t.Errorf("--cuda-graph-max-bs-decode under v0.5.13.post1: %v; want it named as v0.5.14's", err)
	}
}

// TestProfile0514TorchNativeKeepsTheReserve: the torch_native backend
// turns both graph phases off at v0.5.14 in
// _handle_attention_backend_compatibility (server_args.py:4494-4499),
// after the default fraction (:2524 before :2540), so the reserve keeps
// the 58 piecewise sizes, 13904 MiB, 0.829, and none is captured; given
// --disable-cuda-graph beside it, the phases are off before the fraction:
// 13440 MiB, 0.834 (Llama 3.1 8B, one H100).
func TestProfile0514TorchNativeKeepsTheReserve(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		given               bool
		msf, reserved       float64
		piecewise, captured bool
	}{{false, 0.829, 13904, true, false}, {true, 0.834, 13440, false, false}} {
		r, err := Resolve(Serve{AttentionBackend: "torch_native", DisableCudaGraph: tt.given}, llama, h100, mustProfile("v0.5.14"))
		if err != nil {
			t.Fatalf("torch_native, --disable-cuda-graph %v: %v", tt.given, err)
		}
		if r.MemFractionStatic != tt.msf || r.ReservedMiB != tt.reserved || r.Piecewise != tt.piecewise || r.PiecewiseCaptured != tt.captured {
			t.Errorf("torch_native, --disable-cuda-graph %v: msf %v, reserved %v, piecewise %v, captured %v; want %v, %v, %v, %v",
				tt.given, r.MemFractionStatic, r.ReservedMiB, r.Piecewise, r.PiecewiseCaptured, tt.msf, tt.reserved, tt.piecewise, tt.captured)
		}
	}
}

// TestTRTLLMMoEKeepsPiecewiseFromV0513: Qwen3-30B-A3B (bf16) on one B200
// takes the flashinfer_trtllm MoE runner (SM10x); v0.5.12.post1 then turns
// the piecewise graphs off after the fraction (server_args.py:3172-3186),
// so they are reserved and not captured; PR #23351 drops that case in
// v0.5.13 (its tag holds the commit, cadfa2d), so v0.5.13, v0.5.13.post1
// and v0.5.14 capture them: the ledger holds their 8 MiB a size. The
// reserve is the same at all three (the fraction counts them either way).
func TestTRTLLMMoEKeepsPiecewiseFromV0513(t *testing.T) {
	qwen := shipped(t)["Qwen__Qwen3-30B-A3B"]
	b200 := class(t, "b200")
	var msf []float64
	for _, tt := range []struct {
		profile  string
		captured bool
	}{{"v0.5.12.post1", false}, {"v0.5.13", true}, {"v0.5.13.post1", true}, {"v0.5.14", true}} {
		r := ref(t, qwen, Serve{}, b200, mustProfile(tt.profile))
		item := besideItem(r, "piecewise_cuda_graphs")
		want := uint64(0)
		if tt.captured {
			want = uint64(len(r.Serve.PiecewiseSizes)) * 8 * mib
		}
		if r.Serve.PiecewiseCaptured != tt.captured || item != want || !r.Serve.Piecewise {
			t.Errorf("%s: piecewise %v, captured %v, item %d; want true, %v, %d", tt.profile, r.Serve.Piecewise, r.Serve.PiecewiseCaptured, item, tt.captured, want)
		}
		msf = append(msf, r.Serve.MemFractionStatic)
	}
	for _, m := range msf[1:] {
		if m != msf[0] {
			t.Errorf("fractions %v, want one", msf)
		}
	}
}

// TestPropertyV0514SizesAsV0513post1: apart from the three rules it
// changes for a serve membudget takes (a --max-running-requests given,
// --disable-cuda-graph, the fusion's list; and the message of a rest not
// above 0, see [noKVRestFrom]), v0.5.14 sizes a dense model
// as v0.5.13.post1 does, to the byte: Llama 3.1 8B and Qwen3-8B on an H100,
// an L40S or an RTX 4090 with any chunked prefill, context length and
// --max-total-tokens drawn give the same Capacity (fraction, budget, cell,
// pool, rows, running, log figures).
func TestPropertyV0514SizesAsV0513post1(t *testing.T) {
	archs := shipped(t)
	models := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B"}
	classes := map[string]budget.Class{}
	for _, name := range []string{"h100-sxm-80g", "l40s", "rtx-4090"} {
		classes[name] = class(t, name)
	}
	p13, p14 := mustProfile("v0.5.13.post1"), mustProfile("v0.5.14")
	rapid.Check(t, func(t *rapid.T) {
		a := archs[rapid.SampledFrom(models).Draw(t, "model")]
		c := classes[rapid.SampledFrom([]string{"h100-sxm-80g", "l40s", "rtx-4090"}).Draw(t, "class")]
		s := Serve{
			ChunkedPrefillSize: rapid.SampledFrom([]int64{0, 2048, 4096, 8192, 16384}).Draw(t, "chunked"),
			ContextLength:      uint64(rapid.SampledFrom([]int{0, 2048, 8192, 32768}).Draw(t, "context")),
			MaxTotalTokens:     uint64(rapid.SampledFrom([]int{0, 4000, 100000}).Draw(t, "max-total-tokens")),
		}
		r13, err13 := NewReference(a, s, c, p13)
		r14, err14 := NewReference(a, s, c, p14)
		if (err13 == nil) != (err14 == nil) {
			t.Fatalf("%+v: v0.5.13.post1 %v, v0.5.14 %v", s, err13, err14)
		}
		if err13 != nil {
			return
		}
		c13, c14 := r13.Capacity(), r14.Capacity()
		if r14.kvRest <= 0 {
			// Where the rest is not above 0 v0.5.14 fails before the pool
			// with its own message (TestNoKVRest); the figures stay.
			if !strings.HasPrefix(c14.Failure, "Loaded weights leave no GPU memory") || c13.Starts {
				t.Fatalf("%+v: rest %v GiB: v0.5.13.post1 starts %v, v0.5.14 fails %q", s, r14.kvRest, c13.Starts, c14.Failure)
			}
			c14.Failure = c13.Failure
		}
		if diff := cmp.Diff(c13, c14); diff != "" {
			t.Fatalf("%+v: v0.5.14 against v0.5.13.post1 (-want +got):\n%s", s, diff)
		}
	})
}
