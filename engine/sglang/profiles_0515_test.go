package sglang

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/engine"
	"membudget/model"
)

// TestProfile0515Rules: v0.5.15 is v0.5.14's rules but the ones it
// changed, and v0.5.15.post1 is v0.5.15's.
func TestProfile0515Rules(t *testing.T) {
	p := mustProfile("v0.5.15")
	want := renamedAs(mustProfile("v0.5.14"), "v0.5.15", "f63458b5beaceabbd9d749b9fc956370e1b649e6", p)
	want.BreakablePrefill = true      // model_executor/cuda_graph_config.py:95-101
	want.ReserveDecodeGraphsOn = true // server_args.py:3639-3643
	want.LogitsAllGather = true       // layers/logits_processor.py:365-371
	want.EagerTokensFromPool = true   // model_executor/runner/eager_runner.py:111
	want.GDNTrackIndicesBuf = true    // layers/attention/hybrid_linear_attn_backend.py:360-362
	want.Native = native0515
	want.UnreadModels = slices.Concat(new059, new0510, new0511, new0512, new0513, new0514, new0515)
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("v0.5.15 against v0.5.14's rules (-want +got):\n%s", diff)
	}
	// Three classes new by the grep (HrmText, LocateAnything,
	// UnlimitedOCR; the draft DFlashLagunaForCausalLM left out), none gone.
	checkNewNative(t, "v0.5.15", native0514, new0515, native0515, 3)
	post := mustProfile("v0.5.15.post1")
	if diff := cmp.Diff(renamedAs(p, "v0.5.15.post1", "0b3bb0cbe31873994c9f989fddfe2f87ca839fdd", post), post); diff != "" {
		t.Errorf("v0.5.15.post1 against v0.5.15's rules (-want +got):\n%s", diff)
	}
	// Speculative decoding is read at both (spec.go; TestSpecByHand0515).
	if !slices.Contains(specReleases, "v0.5.15") || !slices.Contains(specReleases, "v0.5.15.post1") {
		t.Errorf("speculative decoding is read at v0.5.15 and v0.5.15.post1: specReleases = %v", specReleases)
	}
}

// TestProfile0515Constants pins the constants of v0.5.15's new items.
func TestProfile0515Constants(t *testing.T) {
	for _, tt := range []struct {
		name      string
		got, want float64
	}{
		// input_ids, positions, out_cache_loc int64 and mrope_positions
		// (3, tokens) int64 (cuda_graph_buffer_registry.py:507-590).
		{"eagerTokenBytes", eagerTokenBytes, 8 + 8 + 8 + 24},
		// req_pool_indices and seq_lens int64 on the device.
		{"eagerRequestBytes", eagerRequestBytes, 16},
		// recommended_max_tokens(..., floor=128), logits_processor.py:365-371.
		{"logitsAllGatherFloor", logitsAllGatherFloor, 128},
		// _NUMEL_PER_THREAD, triton_symm_mem_ag.py:24.
		{"logitsAllGatherNumel", logitsAllGatherNumel, 8},
		// DEFAULT_VOCAB_PADDING_SIZE, layers/vocab_parallel_embedding.py:45.
		{"sglVocabPadding", sglVocabPadding, 64},
		// PR #32678's 6.17 GB.
		{"breakablePrefillMeasuredBytes", breakablePrefillMeasuredBytes, 6170000000},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestProfile0515DefaultServeRefused: Llama 3.1 8B on an H100 without
// flags captures its prefill graphs through the breakable runner (none of
// the seven cases: not MLA, not DeepSeek-V4, not multimodal; no LoRA, DP
// attention, context parallelism or all-to-all backend), 58 sizes up to
// the chunked prefill 8192 (4 to 32 by 4: 8; 48 to 256 by 16: 13; 288 to
// 512 by 32: 8; 576 to 1024 by 64: 8; 1280 to 4096 by 256: 12; 4608 to
// 8192 by 512: 8 + 1 = 9), whose capture membudget does not size: refused
// naming --disable-piecewise-cuda-graph, with the reserve's 58 x 8 = 464
// MiB and the public 6.17 GB. Pipeline parallelism, which turned v0.5.14's
// piecewise graphs off, no longer does: refused too.
func TestProfile0515DefaultServeRefused(t *testing.T) {
	for _, name := range []string{"v0.5.15", "v0.5.15.post1"} {
		checkBreakableRefused(t, name, "58 sizes up to 8192 tokens", "464 MiB", "6.17 GB", "#29458", "#32678", "pass --disable-piecewise-cuda-graph")
	}
	// v0.5.14 at PP 2 turns its piecewise graphs off (the case of
	// pipeline parallelism) and sizes the serve.
	if _, err := Resolve(Serve{PPSize: 2}, shipped(t)["meta-llama__Llama-3.1-8B-Instruct"], class(t, "h100-sxm-80g"), mustProfile("v0.5.14")); err != nil {
		t.Errorf("v0.5.14 PP 2: %v; want it sized", err)
	}
}

// TestProfile0515PrefillGraphsOffByHand walks Llama 3.1 8B on an H100
// (81080 MiB) at v0.5.15 with its prefill graphs off.
//
//   - --disable-piecewise-cuda-graph, TP 1: no prefill term; the decode
//     graphs are on, so 512 + 1.5 x 8192 + 2 x 256 + 1 / 8 x 1024 = 13440
//     MiB, (81080 - 13440) / 81080 = 0.83424 -> 0.834, v0.5.14's with the
//     same flag, and the same pool: T = floor((F1 - F0 x 0.166) / 131072),
//     the cell 32 layers x 8 heads x 256 x 2 bytes. Running requests: the
//     estimate int(T / 131072 x 512) = T / 256, T under 524288, is under
//     2048, so 2048. After the pool: no all-gather at TP 1; the eager
//     buffers 48 x max(T, 8192, 2048) + 16 x 2048 bytes.
//   - --disable-piecewise-cuda-graph, TP 2: 512 + 12288 + 512 + 2 / 8 x
//     1024 = 13568 MiB, (81080 - 13568) / 81080 = 0.83266 -> 0.833; the
//     cell 32 x 4 heads x 256 x 2 = 65536; F0 and F1 through float32 (the
//     world group's minimum). T is near twice TP 1's, above 524288, so
//     the running requests are the estimate int(T / 131072 x 512) = T /
//     256 (between 2048 and 4096) itself. The logits' all-gather buffer:
//     128 rows
//     (no --max-running-requests) x 128256 (128256 is 64 x 2004, a
//     rank's shard 64128 a multiple of 8) x 2 bytes = 32833536 B a rank;
//     with --max-running-requests 3000, 3000 x 128256 x 2 = 769536000 B.
//   - --disable-cuda-graph, TP 1: both phases off before the reserve, the
//     decode term too: 512 + 12288 + 128 = 12928 MiB, (81080 - 12928) /
//     81080 = 0.84055 -> 0.841 (v0.5.14: 13440, 0.834); no graph item.
func TestProfile0515PrefillGraphsOffByHand(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		name      string
		s         Serve
		msf       float64
		reserved  float64
		cell      uint64
		running   uint64 // 0: the estimate, max(min(T / 256, 4096), 2048)
		allGather uint64
		graphs    bool
	}{
		{"TP1 --disable-piecewise-cuda-graph", Serve{DisablePiecewiseCudaGraph: true}, 0.834, 13440, 131072, 0, 0, true},
		{"TP2 --disable-piecewise-cuda-graph", Serve{TPSize: 2, DisablePiecewiseCudaGraph: true}, 0.833, 13568, 65536, 0, 32833536, true},
		{"TP2 --disable-piecewise-cuda-graph --max-running-requests 3000", Serve{TPSize: 2, DisablePiecewiseCudaGraph: true, MaxRunningRequests: 3000}, 0.833, 13568, 65536, 3000, 769536000, true},
		{"TP1 --disable-cuda-graph", Serve{DisableCudaGraph: true}, 0.841, 12928, 131072, 0, 0, false},
	} {
		r := ref(t, llama, tt.s, h100, mustProfile("v0.5.15"))
		checkPoolByHand(t, tt.name, r, tt.msf, tt.reserved, tt.cell, tt.running, tt.allGather)
		if got := besideItem(r, "cuda_graphs") > 0; got != tt.graphs || besideItem(r, "piecewise_cuda_graphs") != 0 {
			t.Errorf("%s: cuda_graphs charged %v, piecewise %d; want %v, 0", tt.name, got, besideItem(r, "piecewise_cuda_graphs"), tt.graphs)
		}
	}
	// The same serve at v0.5.14 has the same pool but neither new item.
	old := ref(t, llama, Serve{DisablePiecewiseCudaGraph: true}, h100, mustProfile("v0.5.14"))
	cur := ref(t, llama, Serve{DisablePiecewiseCudaGraph: true}, h100, mustProfile("v0.5.15"))
	if diff := cmp.Diff(old.Capacity(), cur.Capacity()); diff != "" {
		t.Errorf("v0.5.15's pool against v0.5.14's, --disable-piecewise-cuda-graph (-want +got):\n%s", diff)
	}
	if besideItem(old, "eager_input_buffers") != 0 || besideItem(old, "logits_all_gather") != 0 {
		t.Errorf("v0.5.14 charges v0.5.15's items")
	}
}

// checkBreakableRefused resolves Llama 3.1 8B on an H100 under release
// without flags, at TP 2 and at PP 2, and wants each refused naming
// --disable-piecewise-cuda-graph, the reason naming every string of must
// (the figures the caller worked for that release).
func checkBreakableRefused(t *testing.T, release string, must ...string) {
	t.Helper()
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	for _, s := range []Serve{{}, {TPSize: 2}, {PPSize: 2}} {
		_, err := Resolve(s, llama, h100, mustProfile(release))
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "disable-piecewise-cuda-graph" {
			t.Errorf("%s %+v: %v; want the breakable prefill graphs refused naming --disable-piecewise-cuda-graph", release, s, err)
			continue
		}
		for _, m := range must {
			if !strings.Contains(se.Reason, m) {
				t.Errorf("%s %+v: %q does not name %q", release, s, se.Reason, m)
			}
		}
	}
}

// poolRow is one serve of Llama 3.1 8B on an H100 with its figures worked
// by hand: the fraction, the reserve in MiB, the cell, F0 and the logits'
// all-gather buffer.
type poolRow struct {
	name      string
	s         Serve
	msf       float64
	reserved  float64
	cell      uint64
	f0        uint64
	allGather uint64
}

// checkPoolRow sizes tt's serve under release and under prev, checks the
// release's F0 and pool against tt's figures (checkPoolByHand, the
// running requests the estimate), and returns both capacities for the
// caller's comparison of the two releases.
func checkPoolRow(t *testing.T, release, prev string, tt poolRow) (cur, old Capacity) {
	t.Helper()
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	r := ref(t, llama, tt.s, h100, mustProfile(release))
	cur, old = r.Capacity(), ref(t, llama, tt.s, h100, mustProfile(prev)).Capacity()
	if cur.F0Bytes != tt.f0 {
		t.Errorf("%s: F0 %d, want %d", tt.name, cur.F0Bytes, tt.f0)
	}
	checkPoolByHand(t, tt.name, r, tt.msf, tt.reserved, tt.cell, 0, tt.allGather)
	return cur, old
}

// checkPoolByHand checks Llama 3.1 8B's pool at r against the figures
// worked by hand from v0.5.15 on: the fraction and the reserve, the cell,
// T = floor((F1 - F0 x (1 - msf)) / cell) (F0 and F1 through float32 under
// TP, the world group's minimum), the running requests (given, or the
// estimate T / 256 within [2048, 4096]), the eager runner's input buffers
// 48 x max(T, 8192, running) + 16 x running bytes (#28894) and the logits'
// all-gather buffer.
func checkPoolByHand(t *testing.T, name string, r *Reference, msf, reserved float64, cell, running, allGather uint64) {
	t.Helper()
	c := r.Capacity()
	wantT := poolTokensByHand(c, msf, cell, r.Serve.TPSize > 1)
	if running == 0 {
		running = uint64(min(max(wantT/256, 2048), 4096))
	}
	if r.Serve.MemFractionStatic != msf || r.Serve.ReservedMiB != reserved || c.CellBytes != cell || c.MaxTotalNumTokens != wantT || c.MaxRunningRequests != running {
		t.Errorf("%s: msf %v, reserved %v, cell %d, T %d, running %d; want %v, %v, %d, %d, %d", name,
			r.Serve.MemFractionStatic, r.Serve.ReservedMiB, c.CellBytes, c.MaxTotalNumTokens, c.MaxRunningRequests, msf, reserved, cell, wantT, running)
	}
	eager := 48*uint64(max(wantT, 8192, int64(running))) + 16*running
	if got := besideItem(r, "eager_input_buffers"); got != eager {
		t.Errorf("%s: eager_input_buffers %d, want 48 x max(%d, 8192, %d) + 16 x %d = %d", name, got, wantT, running, running, eager)
	}
	if got := besideItem(r, "logits_all_gather"); got != allGather {
		t.Errorf("%s: logits_all_gather %d, want %d", name, got, allGather)
	}
}

// TestProfile0515MLAPrefillGraphsOff: DeepSeek-V2-Lite (MLA) at TP 1 on an
// H100. v0.5.15's breakable runner turns its prefill graphs off for MLA
// (server_args.py:3341-3384) before the reserve, which drops the 1.5 GiB
// MLA term: 512 + 12288 + 512 + 128 = 13440 MiB, 0.834, and the serve is
// sized without a flag. v0.5.14's piecewise graphs keep it: 14976 MiB,
// (81080 - 14976) / 81080 = 0.81529 -> 0.815.
func TestProfile0515MLAPrefillGraphsOff(t *testing.T) {
	lite := shipped(t)["deepseek-ai__DeepSeek-V2-Lite"]
	h100 := class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		profile   string
		msf       float64
		reserved  float64
		piecewise bool
	}{{"v0.5.14", 0.815, 14976, true}, {"v0.5.15", 0.834, 13440, false}, {"v0.5.15.post1", 0.834, 13440, false}} {
		r, err := Resolve(Serve{}, lite, h100, mustProfile(tt.profile))
		if err != nil {
			t.Fatalf("%s: %v", tt.profile, err)
		}
		if r.MemFractionStatic != tt.msf || r.ReservedMiB != tt.reserved || r.Piecewise != tt.piecewise {
			t.Errorf("%s DeepSeek-V2-Lite: msf %v, reserved %v MiB, prefill graphs %v; want %v, %v, %v", tt.profile, r.MemFractionStatic, r.ReservedMiB, r.Piecewise, tt.msf, tt.reserved, tt.piecewise)
		}
		if !tt.piecewise && !strings.Contains(r.PiecewiseOff, "MLA") {
			t.Errorf("%s: prefill graphs off for %q, want MLA named", tt.profile, r.PiecewiseOff)
		}
	}
}

// TestProfile0515Flags: the 18 new option strings of v0.5.15 are judged:
// --enable-tf32-matmul (float32 matmul precision) and
// --min-free-slots-delay (admission) ignored; --dcp-size at its default 1
// ignored and above it refused; the unified and page-major pools refused;
// the old graph flags stay modelled.
func TestProfile0515Flags(t *testing.T) {
	refuses := refusesUnder("v0.5.15")
	checkJudged(t, "v0.5.15", []judgeCase{
		{[]string{"--disable-piecewise-cuda-graph"}, ""},
		{[]string{"--disable-cuda-graph"}, ""},
		{[]string{"--enable-tf32-matmul"}, ""},
		{[]string{"--min-free-slots-delay", "4"}, ""},
		{[]string{"--dcp-size", "1"}, ""},
		{[]string{"--dcp-size", "2"}, "--dcp-size: " + whatDCP + refuses},
		{[]string{"--decode-context-parallel-size", "2"}, "--decode-context-parallel-size: " + whatDCP + refuses},
		{[]string{"--enable-unified-memory"}, "--enable-unified-memory: " + whatUnifiedPool + refuses},
		{[]string{"--enable-page-major-kv-layout"}, "--enable-page-major-kv-layout: " + whatPageMajor + refuses},
		{[]string{"--decoupled-spec-role", "verifier"}, "--decoupled-spec-role: " + whatDecoupledSpec + refuses},
	})
}

// TestPropertyLogitsAllGather: the all-gather buffer is 0 at TP 1 or
// before v0.5.15, and else max(given, 128) rows of the padded vocabulary
// in bf16, a rank's shard of it a multiple of 8, on an H100 SXM on one
// node (where SGLang keeps it, see [logitsAllGatherKept]).
func TestPropertyLogitsAllGather(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	rapid.Check(t, func(t *rapid.T) {
		tp := rapid.SampledFrom([]uint64{1, 2, 4, 8}).Draw(t, "tp")
		given := rapid.Uint64Range(0, 1<<14).Draw(t, "given")
		p := mustProfile(rapid.SampledFrom([]string{"v0.5.14", "v0.5.15", "v0.5.15.post1"}).Draw(t, "profile"))
		r := Resolved{Serve: Serve{TPSize: tp, MaxRunningRequests: given, Dtype: "bfloat16"}, Profile: p}
		got := logitsAllGatherBytes(llama, h100, r)
		switch {
		case tp == 1 || !p.LogitsAllGather:
			if got != 0 {
				t.Fatalf("TP %d %s: %d, want 0", tp, p.Name, got)
			}
		default:
			// 128256 = 64 x 2004: the padded vocabulary is the vocabulary,
			// 128256 / tp a multiple of 8 for tp up to 8.
			if want := max(given, 128) * 128256 * 2; got != want {
				t.Fatalf("TP %d given %d: %d, want %d", tp, given, got, want)
			}
		}
		r.Dtype = "float16"
		if logitsAllGatherBytes(llama, h100, r) != 0 {
			t.Fatalf("float16 logits take no buffer (triton_symm_mem_ag.py:518)")
		}
	})
}

// TestLogitsAllGatherPaddingByHand reaches the edges the property above
// cannot (its Llama vocabulary, 128256, needs no padding and splits into
// multiples of 8 up to TP 8): the vocabulary padded to 64
// (DEFAULT_VOCAB_PADDING_SIZE) before the split, and a rank's shard that
// is not a multiple of 8 taking no buffer (triton_symm_mem_ag.py:523).
// 128 rows (no --max-running-requests, no draft), bf16, on an H100 SXM
// (NVLink, Hopper: the buffer kept, see [logitsAllGatherKept]).
func TestLogitsAllGatherPaddingByHand(t *testing.T) {
	h100 := class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		vocab, tp, want uint64
	}{
		// 32001 -> 32064 (64 x 501); 16032 a rank, a multiple of 8:
		// 128 x 32064 x 2.
		{32001, 2, 8208384},
		// 40 -> 64; 32 a rank: 128 x 64 x 2.
		{40, 2, 16384},
		// 128256 over 16 ranks: 8016 a rank, a multiple of 8: 128 x
		// 128256 x 2.
		{128256, 16, 32833536},
		// 1088 (64 x 17) over 16 ranks: 68 a rank, not a multiple of 8.
		{1088, 16, 0},
	} {
		r := Resolved{Serve: Serve{TPSize: tt.tp, Dtype: "bfloat16"}, Profile: mustProfile("v0.5.15")}
		if got := gatherBytes(tt.vocab, h100, r); got != tt.want {
			t.Errorf("vocab %d at TP %d: %d B, want %d", tt.vocab, tt.tp, got, tt.want)
		}
	}
}

// TestLogitsAllGatherKeptByHand: where SGLang keeps the logits
// all-gather's buffer (see [logitsAllGatherKept]), v0.5.15 to v0.5.18, for
// Llama 3.1 8B with no --max-running-requests and no draft: 128 rows of
// its 128256-entry vocabulary (64 x 2004, no padding; 128256 / tp a
// multiple of 8 up to TP 16) in bf16, 128 x 128256 x 2 = 32833536 B, kept
// only where the GPUs may have a multicast address (NVLink on Hopper or
// later) and a TP group sits on one node.
func TestLogitsAllGatherKeptByHand(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	const kept = 128 * 128256 * 2 // 32833536 B, 31.3 MiB
	for _, tt := range []struct {
		name, class    string
		tp, pp, nnodes uint64
		want           uint64
	}{
		// HGX H100: NVSwitch, Hopper; multicast at any TP of the node.
		{"H100 SXM TP 2", "h100-sxm-80g", 2, 1, 1, kept},
		// HGX B200: NVSwitch, Blackwell.
		{"B200 TP 8", "b200", 8, 1, 1, kept},
		// An NVLink-bridged pair may report no multicast (no NVSwitch),
		// which the class cannot say: kept, the safe side.
		{"H100 NVL TP 2", "h100-nvl", 2, 1, 1, kept},
		{"H200 NVL TP 2", "h200-nvl", 2, 1, 1, kept},
		// GH200 superchips joined by NVLink (NVL2 in one node): Hopper,
		// and multicast the class cannot rule out: kept.
		{"GH200 TP 2", "gh200", 2, 1, 1, kept},
		// GB200 trays of 4 GPUs: TP 4 on one tray keeps it; TP 8 spans
		// two trays, each a node (--nnodes 2), and is built disabled.
		{"GB200 TP 4", "gb200", 4, 1, 1, kept},
		{"GB200 TP 8 on 2 nodes", "gb200", 8, 1, 2, 0},
		// HGX A100: NVSwitch, but Ampere has no multicast.
		{"A100 SXM TP 2", "a100-80g", 2, 1, 1, 0},
		// PCIe with peer access: no multicast, Hopper or not.
		{"H100 PCIe TP 2", "h100-pcie-80g", 2, 1, 1, 0},
		{"L40S TP 4", "l40s", 4, 1, 1, 0},
		// PCIe without peer access.
		{"RTX 4090 TP 2", "rtx-4090", 2, 1, 1, 0},
		// ROCm: PyTorch builds no multicast there.
		{"MI300X TP 8", "mi300x", 8, 1, 1, 0},
		// Two nodes of 8 GPUs, TP 16: every TP group spans both nodes,
		// and the gatherer is built disabled (triton_symm_mem_ag.py:
		// 478-487).
		{"H100 SXM TP 16 on 2 nodes", "h100-sxm-80g", 16, 1, 2, 0},
		// TP 8 x PP 2 on 2 nodes: 8 ranks a node, a whole TP group each.
		{"H100 SXM TP 8 PP 2 on 2 nodes", "h100-sxm-80g", 8, 2, 2, kept},
		// One GPU a node: TP 2 spans 2 nodes, and no peer either way.
		{"Jetson AGX Orin TP 2 on 2 nodes", "jetson-agx-orin-64g", 2, 1, 2, 0},
	} {
		for _, p := range []string{"v0.5.15", "v0.5.16", "v0.5.17", "v0.5.18"} {
			r := Resolved{Serve: Serve{TPSize: tt.tp, PPSize: tt.pp, Dtype: "bfloat16"}, Profile: mustProfile(p)}
			r.Nodes.NNodes = tt.nnodes
			if got := logitsAllGatherBytes(llama, class(t, tt.class), r); got != tt.want {
				t.Errorf("%s at %s: %d B, want %d", tt.name, p, got, tt.want)
			}
		}
	}
}

// TestVocabShardsByHand: a --tp-size that does not divide the vocabulary
// padded to 64 is refused by name, as SGLang's VocabParallelEmbedding
// asserts when it builds the model (divide(),
// distributed/utils.py:59-70; vocab_parallel_embedding.py:281-288,
// 316-318 at v0.5.15), instead of a logits all-gather of tp-th of the
// rows rounded down; the draft's own head the same.
func TestVocabShardsByHand(t *testing.T) {
	for _, tt := range []struct {
		name             string
		vocab, headVocab uint64 // headVocab 0: no draft
		tp               uint64
		refused          string // "" where it builds
	}{
		// 128256 = 64 x 2004 = 64 x 3 x 668: 42752 rows a rank at TP 3,
		// 21376 at TP 6.
		{"Llama 3 TP 3", 128256, 0, 3, ""},
		{"Llama 3 TP 6", 128256, 0, 6, ""},
		// 151936 = 64 x 2374, and 2374 = 3 x 791 + 1: TP 3 and TP 6
		// refused; TP 8 (18992 a rank) builds.
		{"Qwen3 TP 3", 151936, 0, 3, "151936 rows padded to 151936"},
		{"Qwen3 TP 6", 151936, 0, 6, "151936 rows padded to 151936"},
		{"Qwen3 TP 8", 151936, 0, 8, ""},
		// 32001 pads to 32064 = 64 x 501 = 64 x 3 x 167: TP 3 builds
		// (10688 a rank); 32000 = 64 x 500 does not split in 3.
		{"32001 TP 3", 32001, 0, 3, ""},
		{"32000 TP 3", 32000, 0, 3, "32000 rows padded to 32000"},
		// 129280 = 64 x 2020, 2020 = 3 x 673 + 1: TP 6 refused.
		{"DeepSeek-V3 TP 6", 129280, 0, 6, "129280 rows padded to 129280"},
		// TP 1 splits nothing.
		{"Qwen3 TP 1", 151936, 0, 1, ""},
		// A Llama 3 target with an EAGLE-3 head of 32000 rows at TP 3:
		// the target splits, the draft's head does not.
		{"EAGLE-3 head TP 3", 128256, 32000, 3, "the speculative draft's head, 32000 rows"},
		{"EAGLE-3 head TP 2", 128256, 32000, 2, ""},
	} {
		a := &model.Arch{Vocab: tt.vocab, Source: "m"}
		r := Resolved{Serve: Serve{TPSize: tt.tp}}
		if tt.headVocab > 0 {
			r.Draft = &specDraft{HeadVocab: tt.headVocab}
		}
		err := r.checkVocabShards(a)
		var se *engine.SettingError
		switch {
		case tt.refused == "" && err != nil:
			t.Errorf("%s: %v, want it to build", tt.name, err)
		case tt.refused != "" && (!errors.As(err, &se) || se.Flag != "tp-size" || !strings.Contains(err.Error(), tt.refused)):
			t.Errorf("%s: %v, want --tp-size refused naming %q", tt.name, err, tt.refused)
		}
	}
}
