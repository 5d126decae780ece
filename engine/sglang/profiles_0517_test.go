package sglang

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
	"membudget/model"
)

// TestProfile0517Rules: v0.5.17 is v0.5.16's rules but the ones it
// changed.
func TestProfile0517Rules(t *testing.T) {
	p := mustProfile("v0.5.17")
	want := renamedAs(mustProfile("v0.5.16"), "v0.5.17", "29481685462732237d80d86076d6563e1f658102", p)
	want.PiecewiseCapByContext = false // PR #30206: the cap gone from server_args.py
	want.BreakableDSAKept = true       // PR #31987: server_args.py:4465-4472
	want.TRTLLMMHAPage128 = true       // PR #30971: arg_groups/overrides.py:2081-2094
	want.CustomARv2Multinode = true    // PR #32541: server_args.py:7675-7708
	want.MMIPCByDefault = true         // server_args.py:7604-7616: cuda_ipc unset on one node
	want.Native = native0517
	want.UnreadModels = slices.Concat(new059, new0510, new0511, new0512, new0513, new0514, new0515, new0516, new0517)
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("v0.5.17 against v0.5.16's rules (-want +got):\n%s", diff)
	}
	// Four classes new by the EntryClass lists (EmbeddingGemma, Kimi-K3,
	// LFM2's bidirectional model, Qwen3's embedding model; the DSpark draft
	// left out, Qwen3.5's text-only classes native before), none gone.
	checkNewNative(t, "v0.5.17", native0516, new0517, native0517, 4)
	// Drafts read at v0.5.17 (spec.go, TestSpec0517AgainstV0516).
	if !slices.Contains(specReleases, "v0.5.17") {
		t.Errorf("speculative decoding is read at v0.5.17: specReleases = %v", specReleases)
	}
}

// TestProfile0517DefaultServeRefused: Llama 3.1 8B on an H100 without
// flags still captures its breakable prefill graphs (v0.5.17's cases drop
// LoRA and DP attention and add two-batch overlap, NemotronH and an
// unvalidated all-to-all backend, none of which the serve meets): 58 sizes
// up to the chunked prefill size 8192, 8 MiB each in the reserve, 464 MiB;
// refused naming --disable-piecewise-cuda-graph, as at v0.5.16.
func TestProfile0517DefaultServeRefused(t *testing.T) {
	checkBreakableRefused(t, "v0.5.17", "SGLang v0.5.17", "58 sizes up to 8192 tokens", "464 MiB", "pass --disable-piecewise-cuda-graph")
}

// TestProfile0517PrefillGraphsOffByHand walks Llama 3.1 8B on an H100
// (81080 MiB) at v0.5.17 with its prefill graphs off, against v0.5.16.
//
//   - The reserve is v0.5.16's terms (server_args.py:4607-4808, 4882-4935):
//     --disable-piecewise-cuda-graph at TP 1: 512 + 1.5 x 8192 + 1 x 1 / 8
//     x 1024 + 2 x 256 (the decode graphs) = 13440 MiB, above the 10 GiB
//     floor, (81080 - 13440) / 81080 = 0.83424 -> 0.834; at TP 2 the
//     parallel term 256: 13568 MiB, 0.83266 -> 0.833; --disable-cuda-graph
//     at TP 1 (both phases off, no decode term): 12928 MiB, 0.84055 ->
//     0.841.
//   - TP 1: F0 = 85018542080 - 603979776 (the driver's); the pool is
//     KVCacheConfigurator's as at v0.5.16: T = floor((F1 - F0 x (1 -
//     0.834)) / 131072), 128 KiB a token (32 layers x 8 KV heads x 128 x
//     2 x 2 bytes), the requests min(max(T / 256, 2048), 4096) (T x 512 /
//     the 131072 context, within [2048, 4096]).
//   - TP 2: the custom all-reduce v2's workspace as at v0.5.16 (84 MiB on
//     SM90, 60 above the estimate's 24): F0 = 82634080256 B; 64 KiB a
//     token; the logits all-gather 32833536 B as at v0.5.16.
//
// Every figure and item equals v0.5.16's.
func TestProfile0517PrefillGraphsOffByHand(t *testing.T) {
	for _, tt := range []poolRow{
		{"TP1 --disable-piecewise-cuda-graph", Serve{DisablePiecewiseCudaGraph: true}, 0.834, 13440, 131072, 85018542080 - 603979776, 0},
		{"TP2 --disable-piecewise-cuda-graph", Serve{TPSize: 2, DisablePiecewiseCudaGraph: true}, 0.833, 13568, 65536, 82634080256, 32833536},
		{"TP1 --disable-cuda-graph", Serve{DisableCudaGraph: true}, 0.841, 12928, 131072, 85018542080 - 603979776, 0},
	} {
		c, o := checkPoolRow(t, "v0.5.17", "v0.5.16", tt)
		if diff := cmp.Diff(o, c); diff != "" {
			t.Errorf("%s: v0.5.17's pool against v0.5.16's (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestProfile0517ContextCapGone: PR #30206 takes v0.5.13's context cap out
// of the reserve's count of prefill sizes. Llama 3.1 8B on an H100 with
// --attention-backend torch_native (which turns both graph phases off only
// after the default fraction, server_args.py:5751-5756 after :3527, so the
// reserve keeps both terms) and --context-length 2048:
//
//   - v0.5.16: sizes up to min(8192, 2048) = 2048: 4 to 32 by 4 (8), 48 to
//     256 by 16 (14), 288 to 512 by 32 (8), 576 to 1024 by 64 (8), 1280 to
//     2048 by 256 (4): 42 sizes, 336 MiB; 512 + 12288 + 128 + 512 + 336 =
//     13776 MiB, (81080 - 13776) / 81080 = 0.83009 -> 0.830.
//   - v0.5.17: sizes up to 8192: 1280 to 4096 by 256 (12) and 4608 to 8192
//     by 512 (8) for the last two runs, 58 sizes, 464 MiB: 13904 MiB,
//     (81080 - 13904) / 81080 = 0.82851 -> 0.829.
func TestProfile0517ContextCapGone(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	s := Serve{AttentionBackend: "torch_native", ContextLength: 2048}
	for _, tt := range []struct {
		p        string
		sizes    int
		reserved float64
		msf      float64
	}{
		{"v0.5.16", 42, 13776, 0.830},
		{"v0.5.17", 58, 13904, 0.829},
	} {
		r, err := Resolve(s, llama, h100, mustProfile(tt.p))
		if err != nil {
			t.Errorf("%s: %v", tt.p, err)
			continue
		}
		if len(r.PiecewiseSizes) != tt.sizes || r.ReservedMiB != tt.reserved || r.MemFractionStatic != tt.msf || r.PiecewiseCaptured {
			t.Errorf("%s: %d sizes, reserved %v MiB, msf %v, captured %v; want %d, %v, %v, none captured",
				tt.p, len(r.PiecewiseSizes), r.ReservedMiB, r.MemFractionStatic, r.PiecewiseCaptured, tt.sizes, tt.reserved, tt.msf)
		}
	}
}

// TestProfile0517MLAPrefillGraphsOff: DeepSeek-V2-Lite (MLA, no sparse
// attention: no index_topk) at TP 1 on an H100 loses its prefill graphs to
// the breakable runner's "MLA attention (non-DSA)" case
// (server_args.py:4465-4472), as at v0.5.16: 512 + 12288 + 512 + 128 =
// 13440 MiB, 0.834, sized without a flag, its pool v0.5.16's.
func TestProfile0517MLAPrefillGraphsOff(t *testing.T) {
	lite := shipped(t)["deepseek-ai__DeepSeek-V2-Lite"]
	h100 := class(t, "h100-sxm-80g")
	r, err := Resolve(Serve{}, lite, h100, mustProfile("v0.5.17"))
	if err != nil {
		t.Fatal(err)
	}
	if r.MemFractionStatic != 0.834 || r.ReservedMiB != 13440 || r.Piecewise || !strings.Contains(r.PiecewiseOff, "MLA") {
		t.Errorf("DeepSeek-V2-Lite: msf %v, reserved %v MiB, prefill graphs %v (off for %q); want 0.834, 13440, off for MLA", r.MemFractionStatic, r.ReservedMiB, r.Piecewise, r.PiecewiseOff)
	}
	cur := ref(t, lite, Serve{}, h100, mustProfile("v0.5.17"))
	old := ref(t, lite, Serve{}, h100, mustProfile("v0.5.16"))
	if diff := cmp.Diff(old.Capacity(), cur.Capacity()); diff != "" {
		t.Errorf("DeepSeek-V2-Lite's pool against v0.5.16's (-want +got):\n%s", diff)
	}
}

// TestProfile0517DSAPrefillKept: a DeepSeek sparse attention model
// (DeepseekV32ForCausalLM with index_topk) loses its breakable prefill
// graphs to the MLA case at v0.5.16 but keeps them at v0.5.17 (PR
// #31987), where the serve is refused naming --disable-piecewise-cuda-graph:
// an MLA model's sizes go up to 2048 (server_args.py's 2048 for MLA), 42 of
// them. A DeepseekV3 config without index_topk is no DSA and stays off.
func TestProfile0517DSAPrefillKept(t *testing.T) {
	lite := shipped(t)["deepseek-ai__DeepSeek-V2-Lite"]
	h100 := class(t, "h100-sxm-80g")
	dsa := *lite
	dsa.Architectures = []string{"DeepseekV32ForCausalLM"}
	dsa.Indexer = &model.IndexerShape{HeadDim: 128, NumHeads: 64, TopK: 2048}
	v3 := *lite
	v3.Architectures = []string{"DeepseekV3ForCausalLM"}
	for _, tt := range []struct {
		name    string
		a       *model.Arch
		p       string
		wantOff string // "" captured
	}{
		{"DSA at v0.5.16", &dsa, "v0.5.16", "MLA"},
		{"DSA at v0.5.17", &dsa, "v0.5.17", ""},
		{"V3 without an indexer at v0.5.17", &v3, "v0.5.17", "MLA"},
	} {
		r := Resolved{Serve: Serve{}, Profile: mustProfile(tt.p)}
		got := r.breakableOffWhy(tt.a, h100)
		if tt.wantOff == "" && got != "" || tt.wantOff != "" && !strings.Contains(got, tt.wantOff) {
			t.Errorf("%s: off for %q, want %q", tt.name, got, tt.wantOff)
		}
	}
	r := Resolved{Serve: Serve{}, Profile: mustProfile("v0.5.17"), PiecewiseSizes: piecewiseSizes(2048)}
	var se *engine.SettingError
	if err := dsaPrefillKept(&r); !errors.As(err, &se) || se.Flag != "disable-piecewise-cuda-graph" ||
		!strings.Contains(se.Reason, "#31987") || !strings.Contains(se.Reason, "42 sizes up to 2048 tokens") {
		t.Errorf("the DSA refusal: %v", err)
	}
	// The rule stands behind the indexer's own refusal: a DSA model is
	// refused at every release, its prefill graphs off or not.
	for _, s := range []Serve{{}, {DisablePiecewiseCudaGraph: true}} {
		_, err := Resolve(s, &dsa, h100, mustProfile("v0.5.17"))
		if !errors.As(err, &se) || se.Flag != "model" || !strings.Contains(se.Reason, "indexer") {
			t.Errorf("DSA at v0.5.17 (%+v): %v; want the indexer refused", s, err)
		}
	}
}

// TestProfile0517TRTLLMMHAPage128: on a B200 (SM100) with
// --attention-backend trtllm_mha, --page-size 128 is set to 64 at v0.5.16
// and kept at v0.5.17, which membudget refuses naming --page-size; 32 is
// kept at both.
func TestProfile0517TRTLLMMHAPage128(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	b200 := class(t, "b200")
	for _, tt := range []struct {
		p       string
		page    uint64
		want    uint64 // 0: refused
		refused bool
	}{
		{"v0.5.16", 128, 64, false},
		{"v0.5.17", 128, 0, true},
		{"v0.5.17", 32, 32, false},
		{"v0.5.17", 256, 64, false},
	} {
		s := Serve{AttentionBackend: "trtllm_mha", PageSize: tt.page, DisablePiecewiseCudaGraph: true}
		r, err := Resolve(s, llama, b200, mustProfile(tt.p))
		var se *engine.SettingError
		switch {
		case tt.refused:
			if !errors.As(err, &se) || se.Flag != "page-size" || !strings.Contains(se.Reason, "#30971") {
				t.Errorf("%s page %d: %v; want refused naming --page-size", tt.p, tt.page, err)
			}
		case err != nil:
			t.Errorf("%s page %d: %v", tt.p, tt.page, err)
		case r.PageSize != tt.want:
			t.Errorf("%s page %d: page %d, want %d", tt.p, tt.page, r.PageSize, tt.want)
		}
	}
}

// TestProfile0517CustomARv2Multinode: a TP 8 server over 2 nodes of GB200
// keeps the custom all-reduce v2 at v0.5.17 (is_mnnvl_fabric_device),
// refused naming --nnodes; one node of GB200, TP 16 over 2 (v2 off above
// TP 8), and 2 nodes of H100 (no fabric device: v2 off as at v0.5.16), are
// not.
func TestProfile0517CustomARv2Multinode(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	gb200, h100 := class(t, "gb200"), class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		name    string
		p       string
		c       string
		tp      uint64
		nnodes  uint64
		refused bool
	}{
		{"GB200 TP 8 on 2 nodes v0.5.17", "v0.5.17", "gb200", 8, 2, true},
		{"GB200 TP 8 on 2 nodes v0.5.16", "v0.5.16", "gb200", 8, 2, false},
		{"GB200 TP 8 on 1 node v0.5.17", "v0.5.17", "gb200", 8, 1, false},
		// Above TP 8 the multi-node mode is not turned on and v2 is off.
		{"GB200 TP 16 on 2 nodes v0.5.17", "v0.5.17", "gb200", 16, 2, false},
		{"H100 TP 8 on 2 nodes v0.5.17", "v0.5.17", "h100", 8, 2, false},
	} {
		c := gb200
		if tt.c == "h100" {
			c = h100
		}
		s := Serve{TPSize: tt.tp, DisablePiecewiseCudaGraph: true, Nodes: Nodes{NNodes: tt.nnodes}}
		_, err := Resolve(s, llama, c, mustProfile(tt.p))
		var se *engine.SettingError
		isNodes := errors.As(err, &se) && se.Flag == "nnodes"
		if isNodes != tt.refused {
			t.Errorf("%s: %v; want refused naming --nnodes: %v", tt.name, err, tt.refused)
		}
	}
	for _, tt := range []struct {
		name string
		want bool
	}{{"NVIDIA GB200", true}, {"NVIDIA GB300", true}, {"nvidia gb200 nvl", true}, {"NVIDIA B200", false}, {"NVIDIA H100 80GB HBM3", false}} {
		if got := mnnvlFabric(tt.name); got != tt.want {
			t.Errorf("mnnvlFabric(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestProfile0517Flags: the 15 new option strings of v0.5.17 are judged:
// decode context parallelism's backend and Q replication (read only with
// --dcp-size above 1, refused), multimodal worker threads, FlashInfer's
// autotune skips and the weight cache's socket and timeout ignored; DWDP,
// context-parallel decode slicing, linear ReplaySSM verify, the
// linear-attention verify backend, the Mamba states per path, the
// hidden-state mode and the weight cache daemon refused (DWDP, the Mamba
// cap and the weight cache at their defaults ignored).
func TestProfile0517Flags(t *testing.T) {
	refuses := refusesUnder("v0.5.17")
	checkJudged(t, "v0.5.17", []judgeCase{
		{[]string{"--disable-piecewise-cuda-graph"}, ""},
		{[]string{"--dcp-comm-backend", "a2a"}, ""},
		{[]string{"--dcp-replicate-q-proj"}, ""},
		{[]string{"--no-dcp-replicate-q-proj"}, ""},
		{[]string{"--mm-io-worker-num", "4"}, ""},
		{[]string{"--mm-processor-worker-num", "4"}, ""},
		{[]string{"--flashinfer-autotune-skip-ops", "mxfp8_gemm"}, ""},
		{[]string{"--weight-cache-socket", "/tmp/s.sock"}, ""},
		{[]string{"--weight-cache-timeout", "60"}, ""},
		{[]string{"--dwdp-size", "1"}, ""},
		{[]string{"--dwdp-size", "8"}, "--dwdp-size: " + whatDWDP + refuses},
		{[]string{"--enable-cp-decode-attn-tp"}, "--enable-cp-decode-attn-tp: " + whatCPDecodeTP + refuses},
		{[]string{"--enable-linear-replayssm-spec"}, "--enable-linear-replayssm-spec: " + whatReplaySSM + refuses},
		{[]string{"--enable-gdn-replayssm-spec"}, "--enable-gdn-replayssm-spec: " + whatReplaySSM + refuses},
		{[]string{"--linear-attn-verify-backend", "triton"}, "--linear-attn-verify-backend: " + whatLinearAttn + refuses},
		{[]string{"--mamba-max-states-per-path", "-1"}, ""},
		{[]string{"--mamba-max-states-per-path", "4"}, "--mamba-max-states-per-path: " + whatMamba + refuses},
		{[]string{"--return-hidden-states-mode", "last"}, "--return-hidden-states-mode: " + whatHidden + refuses},
		{[]string{"--weight-cache-mode", "off"}, ""},
		{[]string{"--weight-cache-mode", "daemon"}, "--weight-cache-mode: " + whatWeightCache + refuses},
	})
}
