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

// TestProfile0516Rules: v0.5.16 is v0.5.15.post1's rules but the ones it
// changed.
func TestProfile0516Rules(t *testing.T) {
	p := mustProfile("v0.5.16")
	want := renamedAs(mustProfile("v0.5.15.post1"), "v0.5.16", "fdebc938f7f4d16fe6b9f55dcd9a767cf0899ea1", p)
	want.MultimodalPrefillKept = true // configs/model_config.py:1776-1788, server_args.py:3659-3671
	want.CustomARv2Symm = true        // distributed/device_communicators/custom_all_reduce_v2.py:161-205
	want.Native = native0516
	want.UnreadModels = slices.Concat(new059, new0510, new0511, new0512, new0513, new0514, new0515, new0516)
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("v0.5.16 against v0.5.15.post1's rules (-want +got):\n%s", diff)
	}
	// Five classes new by the EntryClass lists (GLM-Image, Inkling,
	// Mellum, MiniMax-M3 Sparse's two; the drafts left out), none gone.
	checkNewNative(t, "v0.5.16", native0515, new0516, native0516, 5)
	// Speculative decoding is read at v0.5.16 (spec.go; TestSpecByHand0515).
	if !slices.Contains(specReleases, "v0.5.16") {
		t.Errorf("speculative decoding is read at v0.5.16: specReleases = %v", specReleases)
	}
}

// TestCustomARv2SymmBytes pins v0.5.16's custom all-reduce v2 workspace,
// each figure by hand from configs/custom_all_reduce_v2.py's tables: the
// push buffer the larger one-shot push threshold of graph and eager
// dispatch, both buffers capped at 16 MiB, the symmetric block 2 x tp
// push buffers and the 16 MiB pull buffer taking the next 2 MiB step (the
// semaphores and the signal pad), and the graph table tp MiB rounded up
// to 2 MiB.
func TestCustomARv2SymmBytes(t *testing.T) {
	for _, tt := range []struct {
		major int
		tp    uint64
		want  uint64
	}{
		// SM90 TP 2: push min(32, 16) = 16 MiB; 4 x 16 + 16 = 80 -> 82;
		// table 2: 84 MiB.
		{9, 2, 84 * mib},
		// SM90 TP 3: push 3 MiB; 6 x 3 + 16 = 34 -> 36; table 3 -> 4: 40.
		{9, 3, 40 * mib},
		// SM90 TP 4: push 896 KiB; 8 x 896 KiB = 7 MiB, + 16 = 23 -> 24;
		// table 4: 28 MiB.
		{9, 4, 28 * mib},
		// SM90 TP 5: push 384 KiB; 10 x 384 KiB = 3.75 MiB, + 16 = 19.75
		// -> 20; table 5 -> 6: 26 MiB.
		{9, 5, 26 * mib},
		// SM90 TP 8: push 128 KiB; 16 x 128 KiB = 2 MiB, + 16 = 18 -> 20;
		// table 8: 28 MiB.
		{9, 8, 28 * mib},
		// SM100 TP 2: push min(16, 16) = 16 MiB: as SM90's, 84 MiB.
		{10, 2, 84 * mib},
		// SM100 TP 8: push 768 KiB; 16 x 768 KiB = 12 MiB, + 16 = 28 ->
		// 30; table 8: 38 MiB.
		{10, 8, 38 * mib},
		// SM80 (the default table) TP 2: push 1 MiB; 4 + 16 = 20 -> 22;
		// table 2: 24 MiB, v0.5.11's 24 MiB the estimate holds.
		{8, 2, 24 * mib},
		// SM80 TP 8: 16 + 16 = 32 -> 34; table 8: 42 MiB.
		{8, 8, 42 * mib},
		// One GPU, or more than 8: none built.
		{9, 1, 0},
		{9, 16, 0},
	} {
		if got := customARv2SymmBytes(tt.major, tt.tp); got != tt.want {
			t.Errorf("SM%d TP %d: %d B, want %d (%d MiB)", tt.major, tt.tp, got, tt.want, tt.want/mib)
		}
	}
	// SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB = 16 x 1024 (environ.py:750).
	if customARv2CapBytes != 16*1024*1024 {
		t.Errorf("customARv2CapBytes = %d, want 16 MiB", customARv2CapBytes)
	}
}

// TestProfile0516DistInit: the workspace is charged beyond the estimate's
// 24 MiB at v0.5.16 only, on one node over NVLink on NVIDIA: an H100 at TP
// 2 holds 1638 + 60 MiB, at TP 8 (above 4 ranks) 2058 + 4; two nodes
// (v2 off, server_args.py:6655-6662), PCIe with peer access and v0.5.15
// keep the estimate.
func TestProfile0516DistInit(t *testing.T) {
	h100 := class(t, "h100-sxm-80g")
	pcie := h100
	pcie.Device.Interconnect = budget.PCIeP2P
	v16, v15 := mustProfile("v0.5.16"), mustProfile("v0.5.15.post1")
	for _, tt := range []struct {
		name         string
		p            Profile
		c            budget.Class
		tp, pp, node uint64
		want         uint64
	}{
		{"v0.5.16 TP 2", v16, h100, 2, 1, 1, (1638 + 60) * mib},
		{"v0.5.16 TP 4", v16, h100, 4, 1, 1, (1638 + 4) * mib},
		{"v0.5.16 TP 8", v16, h100, 8, 1, 1, (2058 + 4) * mib},
		{"v0.5.16 TP 1 PP 2", v16, h100, 1, 2, 1, 1638 * mib},
		{"v0.5.16 TP 2 on 2 nodes", v16, h100, 2, 1, 2, 1638 * mib},
		{"v0.5.16 TP 2 over PCIe P2P", v16, pcie, 2, 1, 1, 399 * mib},
		{"v0.5.15.post1 TP 2", v15, h100, 2, 1, 1, 1638 * mib},
	} {
		if got := distInitFor(tt.p, tt.c, tt.tp, tt.pp, tt.node); got != tt.want {
			t.Errorf("%s: %d B, want %d", tt.name, got, tt.want)
		}
	}
}

// TestProfile0516DefaultServeRefused: Llama 3.1 8B on an H100 without
// flags still captures its 58 breakable prefill sizes up to 8192 (the
// breakable cases are v0.5.15's, decode context parallelism added;
// #31204's 4 GiB gate is measured after the pool, which membudget cannot
// see): refused naming --disable-piecewise-cuda-graph, as at v0.5.15.
func TestProfile0516DefaultServeRefused(t *testing.T) {
	checkBreakableRefused(t, "v0.5.16", "SGLang v0.5.16", "58 sizes up to 8192 tokens", "464 MiB", "6.17 GB", "pass --disable-piecewise-cuda-graph")
}

// TestProfile0516PrefillGraphsOffByHand walks Llama 3.1 8B on an H100
// (81080 MiB) at v0.5.16 with its prefill graphs off, against v0.5.15.post1.
//
//   - The reserve is v0.5.15's terms (reserve_for_graph_mb,
//     server_args.py:4164-4200): --disable-piecewise-cuda-graph at TP 1
//     13440 MiB, 0.834; at TP 2 13568 MiB, 0.833; --disable-cuda-graph at
//     TP 1 12928 MiB, 0.841.
//   - TP 1: no custom all-reduce; KVCacheConfigurator's pool is
//     v0.5.15's: the same capacity, item for item.
//   - TP 2: distributed init holds 60 MiB more (see
//     TestCustomARv2SymmBytes): F0 = 85018542080 - 603979776 (driver) -
//     1638 MiB (1717567488, the estimate) - 62914560 = 82634080256 B,
//     v0.5.15's 82696994816 less 60 MiB; the weights the same, T =
//     floor((F1 - F0 x 0.167) / 65536) through float32, about 0.833 x
//     960 = 800 tokens fewer than v0.5.15's; the all-gather's 32833536 B
//     and the eager buffers 48 x max(T, 8192, running) + 16 x running as
//     at v0.5.15.
func TestProfile0516PrefillGraphsOffByHand(t *testing.T) {
	for _, tt := range []poolRow{
		{"TP1 --disable-piecewise-cuda-graph", Serve{DisablePiecewiseCudaGraph: true}, 0.834, 13440, 131072, 85018542080 - 603979776, 0},
		{"TP2 --disable-piecewise-cuda-graph", Serve{TPSize: 2, DisablePiecewiseCudaGraph: true}, 0.833, 13568, 65536, 82634080256, 32833536},
		{"TP1 --disable-cuda-graph", Serve{DisableCudaGraph: true}, 0.841, 12928, 131072, 85018542080 - 603979776, 0},
	} {
		c, o := checkPoolRow(t, "v0.5.16", "v0.5.15.post1", tt)
		if c.LoadedBytes != o.LoadedBytes {
			t.Errorf("%s: loaded %d; want v0.5.15.post1's %d", tt.name, c.LoadedBytes, o.LoadedBytes)
		}
		if tt.s.TPSize <= 1 {
			if diff := cmp.Diff(o, c); diff != "" {
				t.Errorf("%s: v0.5.16's pool against v0.5.15.post1's (-want +got):\n%s", tt.name, diff)
			}
			continue
		}
		// 60 MiB less before the weights: 0.833 x 62914560 / 65536 =
		// 799.7 tokens, within a page of float32's rounding.
		if d := o.MaxTotalNumTokens - c.MaxTotalNumTokens; d < 798 || d > 802 {
			t.Errorf("%s: %d tokens fewer than v0.5.15.post1's %d, want about 800", tt.name, d, o.MaxTotalNumTokens)
		}
	}
}

// TestProfile0516MLAPrefillGraphsOff: DeepSeek-V2-Lite (MLA) at TP 1 on an
// H100 loses its prefill graphs to the breakable runner's MLA case, as at
// v0.5.15: 512 + 12288 + 512 + 128 = 13440 MiB, 0.834, sized without a
// flag, its pool v0.5.15.post1's.
func TestProfile0516MLAPrefillGraphsOff(t *testing.T) {
	lite := shipped(t)["deepseek-ai__DeepSeek-V2-Lite"]
	h100 := class(t, "h100-sxm-80g")
	r, err := Resolve(Serve{}, lite, h100, mustProfile("v0.5.16"))
	if err != nil {
		t.Fatal(err)
	}
	if r.MemFractionStatic != 0.834 || r.ReservedMiB != 13440 || r.Piecewise || !strings.Contains(r.PiecewiseOff, "MLA") {
		t.Errorf("DeepSeek-V2-Lite: msf %v, reserved %v MiB, prefill graphs %v (off for %q); want 0.834, 13440, off for MLA", r.MemFractionStatic, r.ReservedMiB, r.Piecewise, r.PiecewiseOff)
	}
	cur := ref(t, lite, Serve{}, h100, mustProfile("v0.5.16"))
	old := ref(t, lite, Serve{}, h100, mustProfile("v0.5.15.post1"))
	if diff := cmp.Diff(old.Capacity(), cur.Capacity()); diff != "" {
		t.Errorf("DeepSeek-V2-Lite's pool against v0.5.15.post1's (-want +got):\n%s", diff)
	}
}

// TestProfile0516MultimodalPrefillKept: v0.5.15's breakable case turns
// every multimodal model's prefill graphs off; v0.5.16 keeps them for its
// allowlists: Kimi-K2.5 moves to torch.compile's piecewise backend, off
// there under pipeline parallelism, and Qwen3.5 keeps the breakable one
// even at PP 2; a multimodal model on neither list (Qwen2.5-VL) stays
// off. Both allowlisted families are refused earlier as unread model
// files; the rule stands behind that.
func TestProfile0516MultimodalPrefillKept(t *testing.T) {
	archs := shipped(t)
	h100 := class(t, "h100-sxm-80g")
	vl := archs["Qwen__Qwen2.5-VL-7B-Instruct"]
	for _, tt := range []struct {
		arch    string
		p       string
		pp      uint64
		wantOff string // "" captured
	}{
		{"KimiK25ForConditionalGeneration", "v0.5.15.post1", 1, "a multimodal model"},
		{"KimiK25ForConditionalGeneration", "v0.5.16", 1, ""},
		{"KimiK25ForConditionalGeneration", "v0.5.16", 2, "pipeline parallelism"},
		{"Qwen3_5ForConditionalGeneration", "v0.5.15.post1", 1, "a multimodal model"},
		{"Qwen3_5ForConditionalGeneration", "v0.5.16", 1, ""},
		{"Qwen3_5ForConditionalGeneration", "v0.5.16", 2, ""},
		{"Qwen2_5_VLForConditionalGeneration", "v0.5.16", 1, "a multimodal model"},
	} {
		a := *vl
		a.Architectures = []string{tt.arch}
		r := Resolved{Serve: Serve{PPSize: tt.pp}, Profile: mustProfile(tt.p)}
		got := r.breakableOffWhy(&a, h100)
		if tt.wantOff == "" && got != "" || tt.wantOff != "" && !strings.Contains(got, tt.wantOff) {
			t.Errorf("%s %s PP %d: off for %q, want %q", tt.arch, tt.p, tt.pp, got, tt.wantOff)
		}
	}
	// v0.5.17 keeps the rule (its allowlists are v0.5.16's) and gives the
	// same refusal, whose line numbers say they are v0.5.16's.
	a := *vl
	a.Architectures = []string{"KimiK25ForConditionalGeneration"}
	for _, p := range []string{"v0.5.16", "v0.5.17"} {
		r := Resolved{Serve: Serve{}, Profile: mustProfile(p), PiecewiseSizes: piecewiseSizes(2048)}
		var se *engine.SettingError
		if err := mmPrefillKept(&r, &a); !errors.As(err, &se) || se.Flag != "disable-piecewise-cuda-graph" ||
			!strings.Contains(se.Reason, "torch.compile's piecewise backend (server_args.py:3659-3671 at v0.5.16)") ||
			!strings.Contains(se.Reason, "configs/model_config.py:1776-1788 at v0.5.16") || !strings.Contains(se.Reason, "up to 2048 tokens") {
			t.Errorf("Kimi-K2.5's refusal at %s: %v", p, err)
		}
	}
}

// TestProfile0516Flags: the 27 new option strings of v0.5.16 are judged:
// the gRPC and sidecar front end, chat template defaults, retraction
// order and timeouts ignored; elastic EP, Waterfill, DSA layer split,
// DSPARK drafts, FlexKV and GDN ReplaySSM refused; the renamed
// --grpc-http-sidecar-port still ignored; --mm-feature-transport
// modelled (its cuda_ipc refused when resolved, see TestMMTransport).
func TestProfile0516Flags(t *testing.T) {
	refuses := refusesUnder("v0.5.16")
	checkJudged(t, "v0.5.16", []judgeCase{
		{[]string{"--disable-piecewise-cuda-graph"}, ""},
		{[]string{"--grpc-port", "30001"}, ""},
		{[]string{"--smg-grpc-mode"}, ""},
		{[]string{"--smg-http-sidecar-port", "30002"}, ""},
		{[]string{"--grpc-http-sidecar-port", "30002"}, ""},
		{[]string{"--retraction-policy", "priority"}, ""},
		{[]string{"--optimistic-prefill-attempts", "2"}, ""},
		{[]string{"--no-dllm-fdfo"}, ""},
		{[]string{"--elastic-ep-join-rank-offset", "0"}, ""},
		{[]string{"--elastic-ep-join-rank-offset", "8"}, "--elastic-ep-join-rank-offset: " + whatEP + refuses},
		{[]string{"--max-ep-size", "16"}, "--max-ep-size: " + whatEP + refuses},
		{[]string{"--enable-waterfill"}, "--enable-waterfill: " + whatA2a + refuses},
		{[]string{"--enable-dsa-cache-layer-split"}, "--enable-dsa-cache-layer-split: " + whatDSALayerSplit + refuses},
		{[]string{"--speculative-dspark-block-size", "4"}, "--speculative-dspark-block-size: " + whatSpec + refuses},
		{[]string{"--enable-flexkv"}, "--enable-flexkv: " + whatRadixBackend + refuses},
		{[]string{"--mm-feature-transport", "cuda_ipc"}, ""}, // modelled: cuda_ipc refused at Resolve (TestMMTransport)
		{[]string{"--enable-scattered-sconv"}, "--enable-scattered-sconv: " + whatScatteredSconv + refuses},
	})
}

// TestPropertyCustomARv2SymmAboveEstimate: at v0.5.16 on one NVLink node
// distributed init is the estimate plus what the workspace takes beyond
// 24 MiB, never less than v0.5.15's, and the workspace is at least its
// 16 MiB pull buffer and 2 x tp 128 KiB push buffers.
func TestPropertyCustomARv2SymmAboveEstimate(t *testing.T) {
	h100 := class(t, "h100-sxm-80g")
	rapid.Check(t, func(t *rapid.T) {
		tp := rapid.Uint64Range(1, 8).Draw(t, "tp")
		major := rapid.SampledFrom([]int{8, 9, 10, 12}).Draw(t, "major")
		c := h100
		c.Device.Silicon.Major = major
		got, old := distInitFor(mustProfile("v0.5.16"), c, tp, 1, 1), distInitFor(mustProfile("v0.5.15.post1"), c, tp, 1, 1)
		ws := customARv2SymmBytes(major, tp)
		if got != old+budget.SatSub(ws, legacyCustomARBytes) {
			t.Fatalf("SM%d TP %d: %d, want %d + (%d - 24 MiB)", major, tp, got, old, ws)
		}
		if tp >= 2 && ws < customARv2CapBytes+2*tp*128*1024 {
			t.Fatalf("SM%d TP %d: workspace %d below its buffers", major, tp, ws)
		}
	})
}
