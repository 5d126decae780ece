package sglang

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// TestProfile0518Rules: v0.5.18 is v0.5.17's rules but the two it
// changed, and the newest modelled; drafts and the Mamba pool stay
// unread there (specReleases and gdnReleases, other files' lists, do not
// name it), and its fusion list is v0.5.17's with DeepSeek-V4.
func TestProfile0518Rules(t *testing.T) {
	p := mustProfile("v0.5.18")
	want := renamedAs(mustProfile("v0.5.17"), "v0.5.18", "71de97b264b04dcd514cf904003028aefe9775c8", p)
	want.BreakableMLAKept = true // the MLA case gone from server_args.py:4666-4717
	want.MMRuntimeReserve = true // kv_cache_configurator.py:130-147, 1785-1789
	want.MMIPCByDefault = false  // cpu unset on one node again, server_args.py:7911-7912
	want.Native = native0518
	want.UnreadModels = slices.Concat(new059, new0510, new0511, new0512, new0513, new0514, new0515, new0516, new0517, new0518)
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("v0.5.18 against v0.5.17's rules (-want +got):\n%s", diff)
	}
	// Three classes new by the EntryClass lists (InternS2-Mobius,
	// MuseGlimmer's text and multimodal classes; the draft
	// MuseGlimmerAssistantModel left out), none gone.
	checkNewNative(t, "v0.5.18", native0517, new0518, native0518, 3)
	if p, err := ProfileFor("latest"); err != nil || p.Name != "v0.5.18" {
		t.Errorf("latest = %q, %v; want v0.5.18", p.Name, err)
	}
	// The Mamba pool is read at v0.5.18 (mamba.go's gdnReleases; its
	// figures in TestMambaReleases).
	if !slices.Contains(gdnReleases, "v0.5.18") || !slices.Contains(gdnPaddingCharged, "v0.5.18") {
		t.Errorf("the Mamba pool is read at v0.5.18, its padding slot charged: gdnReleases = %v, gdnPaddingCharged = %v", gdnReleases, gdnPaddingCharged)
	}
	// Drafts read at v0.5.18 (spec.go, TestSpec0518AgainstV0517).
	if !slices.Contains(specReleases, "v0.5.18") {
		t.Errorf("speculative decoding is read at v0.5.18: specReleases = %v", specReleases)
	}
	// overrides.py:1959-1979 at v0.5.18: v0.5.17's sixteen and
	// DeepseekV4ForCausalLM (:1962), seventeen.
	fusion := arFusionUnread["v0.5.18"]
	if len(fusion) != 17 || !slices.Contains(fusion, "DeepseekV4ForCausalLM") || !slices.Equal(fusion[:16], arFusionUnread["v0.5.17"]) {
		t.Errorf("v0.5.18's fusion list = %v; want v0.5.17's and DeepseekV4ForCausalLM", fusion)
	}
}

// TestProfile0518DefaultServeRefused: Llama 3.1 8B on an H100 without
// flags still captures its breakable prefill graphs (v0.5.18's cases,
// server_args.py:4666-4717, are DeepSeek-V4, context parallelism, decode
// context parallelism, two-batch overlap, an all-to-all outside four and a
// multimodal model off the allowlist, none of which the serve meets): 58
// sizes up to the chunked prefill size 8192, 8 MiB each in the reserve
// (server_args.py:5100-5104), 464 MiB; refused naming
// --disable-piecewise-cuda-graph, as at v0.5.17.
func TestProfile0518DefaultServeRefused(t *testing.T) {
	checkBreakableRefused(t, "v0.5.18", "SGLang v0.5.18", "58 sizes up to 8192 tokens", "464 MiB", "pass --disable-piecewise-cuda-graph")
}

// TestProfile0518PrefillGraphsOffByHand walks Llama 3.1 8B on an H100
// (81080 MiB) at v0.5.18 with its prefill graphs off, against v0.5.17.
// Llama is a text model (LlamaForCausalLM is on no multimodal list and its
// config has no text sub-config, configs/model_config.py:445-459), so
// mm_runtime_reservation_gb is 0 (kv_cache_configurator.py:136-137); the
// reserve's terms are v0.5.17's (reserve_for_graph_mb, server_args.py:
// 5078-5118), the cell (pool_configurator.py, KV heads over tp // dcp =
// tp), distributed init and what follows the pool are v0.5.17's:
//
//   - --disable-piecewise-cuda-graph at TP 1: 512 + 1.5 x 8192 + 1 x 1 / 8
//     x 1024 + 2 x 256 = 13440 MiB, (81080 - 13440) / 81080 = 0.83424 ->
//     0.834; F0 = 85018542080 - 603979776 (the driver's); 128 KiB a token.
//   - TP 2: the parallel term 256: 13568 MiB, 0.83266 -> 0.833; F0 =
//     82634080256 B (the custom all-reduce v2's 84 MiB on SM90); 64 KiB a
//     token; the logits all-gather 128 x 128256 x 2 = 32833536 B.
//
// Every figure and item equals v0.5.17's.
func TestProfile0518PrefillGraphsOffByHand(t *testing.T) {
	for _, tt := range []poolRow{
		{"TP1 --disable-piecewise-cuda-graph", Serve{DisablePiecewiseCudaGraph: true}, 0.834, 13440, 131072, 85018542080 - 603979776, 0},
		{"TP2 --disable-piecewise-cuda-graph", Serve{TPSize: 2, DisablePiecewiseCudaGraph: true}, 0.833, 13568, 65536, 82634080256, 32833536},
	} {
		c, o := checkPoolRow(t, "v0.5.18", "v0.5.17", tt)
		if diff := cmp.Diff(o, c); diff != "" {
			t.Errorf("%s: v0.5.18's pool against v0.5.17's (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestProfile0518MultimodalReserveByHand: Qwen2.5-VL-7B on an H100 with no
// flags. It is multimodal (Qwen2_5_VLForConditionalGeneration on
// multimodal_model_archs, configs/model_config.py:1822-1893), so the
// breakable runner's multimodal case turns its prefill graphs off at both
// releases (it is on neither allowlist) and the reserve is 512 + 12288 +
// 512 + 128 = 13440 MiB, 0.834, which the VLM factor scales by 0.95 x
// 0.94375 (TestVLMFactorReadsTheVisionConfig): msf = 0.834 x 0.95 x
// 0.94375 at both.
//
//   - The cell: 28 layers x 4 KV heads x 128 x 2 (K, V) x 2 bytes = 57344
//     B.
//   - v0.5.17: T = floor((F1 - F0 x (1 - msf)) / 57344), F0 =
//     85018542080 - 603979776 as Llama's (no TP).
//   - v0.5.18: rest_memory less 100 / 1024 GiB (SGLANG_VLM_CACHE_SIZE_MB,
//     environ.py:1146; kv_cache_configurator.py:1785-1789), then int(rest
//     x 2^30) (:1811): T = floor((rest x 2^30 - 104857600) / 57344), 100
//     MiB / 57344 = 1828.6 tokens fewer, 1828 or 1829 by the remainders.
//   - The budget stays msf x F0 (the reservation is in it, for the
//     embedding cache allocated after the pool): the ledger carries
//     multimodal_reservation 104857600 B, and the KV pool's tensors are
//     (T18 + 1) x 57344 B, (T17 - T18) x 57344 fewer than v0.5.17's.
func TestProfile0518MultimodalReserveByHand(t *testing.T) {
	vl := shipped(t)["Qwen__Qwen2.5-VL-7B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	const cell = 28 * 4 * 128 * 2 * 2
	msf := 0.834 * 0.95 * 0.94375
	// v0.5.17 with the host transport, which v0.5.18 picks unset (its own
	// unset cuda_ipc is refused, TestMMTransport).
	old := ref(t, vl, Serve{MMFeatureTransport: "cpu"}, h100, mustProfile("v0.5.17"))
	cur := ref(t, vl, Serve{}, h100, mustProfile("v0.5.18"))
	co, cc := old.Capacity(), cur.Capacity()
	for _, c := range []Capacity{co, cc} {
		if math.Abs(c.MemFractionStatic-msf) > 1e-12 || c.F0Bytes != 85018542080-603979776 || c.CellBytes != cell {
			t.Errorf("msf %v, F0 %d, cell %d; want %v, %d, %d", c.MemFractionStatic, c.F0Bytes, c.CellBytes, msf, uint64(85018542080-603979776), cell)
		}
	}
	if !strings.Contains(cur.Serve.PiecewiseOff, "multimodal") || cur.Serve.ReservedMiB != 13440 {
		t.Errorf("prefill graphs off for %q, reserved %v MiB; want the multimodal case, 13440", cur.Serve.PiecewiseOff, cur.Serve.ReservedMiB)
	}
	t17 := poolTokensByHand(co, msf, cell, false)
	f0, f1 := float64(cc.F0Bytes), float64(cc.F0Bytes-cc.LoadedBytes)
	t18 := int64(math.Floor((f1/gib-f0/gib*(1-msf)-100.0/1024)*gib)) / cell
	if co.MaxTotalNumTokens != t17 || cc.MaxTotalNumTokens != t18 || t17-t18 < 1828 || t17-t18 > 1829 {
		t.Errorf("T %d at v0.5.17, %d at v0.5.18; want %d and %d, 1828 or 1829 apart", co.MaxTotalNumTokens, cc.MaxTotalNumTokens, t17, t18)
	}
	if cc.MMReserveBytes != 104857600 || co.MMReserveBytes != 0 || cc.KVRestBytes != co.KVRestBytes-104857600 || cc.RestBytes != co.RestBytes {
		t.Errorf("reservation %d (v0.5.17 %d), KV rest %d against %d, rest %d against %d; want 104857600 off the KV rest alone",
			cc.MMReserveBytes, co.MMReserveBytes, cc.KVRestBytes, co.KVRestBytes, cc.RestBytes, co.RestBytes)
	}
	if cc.KBytes+cc.VBytes != uint64(t18+1)*cell || co.KBytes+co.VBytes-(cc.KBytes+cc.VBytes) != uint64(t17-t18)*cell {
		t.Errorf("KV tensors %d at v0.5.18, %d at v0.5.17; want (%d + 1) x %d, %d x %d fewer", cc.KBytes+cc.VBytes, co.KBytes+co.VBytes, t18, cell, t17-t18, cell)
	}
	if old.Budget() != cur.Budget() {
		t.Errorf("budget %d at v0.5.18, %d at v0.5.17; want msf x F0 at both", cur.Budget(), old.Budget())
	}
	var mm uint64
	for _, it := range cur.EvaluateStage(0, 1, 1024).Items {
		if it.Name == "multimodal_reservation" {
			mm += it.Bytes
		}
	}
	if mm != 104857600 {
		t.Errorf("the ledger's multimodal_reservation %d, want 104857600", mm)
	}
}

// TestMMReserve0518Multimodal: the 100 MiB is SGLANG_VLM_CACHE_SIZE_MB's
// default (environ.py:1146). Whom it applies to: sglMultimodal reads
// v0.5.10's list, so every architecture v0.5.18's list adds must be one
// the profile refuses (not native, or native but unread), or a serve of
// it would get the text model's pool; and every shipped model v0.5.18
// sizes whose config has a vision tower (the mark of a text sub-config in
// the corpus: text_config, llm_config) is either multimodal by the list or
// off by mm_disabled_models (Gemma 3, Llama 4).
func TestMMReserve0518Multimodal(t *testing.T) {
	if vlmCacheMiB != 100 {
		t.Errorf("vlmCacheMiB = %d, want SGLANG_VLM_CACHE_SIZE_MB's 100", vlmCacheMiB)
	}
	p := mustProfile("v0.5.18")
	for _, arch := range mmArchsAdded0518 {
		if slices.Contains(multimodalArchs, arch) {
			t.Errorf("%s is on v0.5.10's list already", arch)
		}
		if slices.Contains(p.Native, arch) && !slices.Contains(p.UnreadModels, arch) {
			t.Errorf("%s, multimodal at v0.5.18, is sized there without sglMultimodal knowing it", arch)
		}
	}
	h100 := class(t, "h100-sxm-80g")
	for name, a := range shipped(t) {
		if a.Vision == nil || sglMultimodal(a) || slices.Contains(mmDisabledArchs, a.Architectures[0]) {
			continue
		}
		if _, err := Resolve(Serve{DisablePiecewiseCudaGraph: true}, a, h100, p); err == nil {
			t.Errorf("%s (%v) has a vision tower, is not multimodal by the list and is sized at v0.5.18", name, a.Architectures)
		}
	}
	// v0.5.18's breakable allowlist adds InternS2-Mobius, MuseGlimmer,
	// Kimi-K3 and Kimi-K2.5 (configs/model_config.py:1921-1928; Kimi-K2.5
	// is then on both lists and stays breakable, _apply_cuda_graph_
	// compatibility, server_args.py:4558-4574), which membudget's v0.5.16
	// lists do not know: each must be a model the profile refuses.
	for _, arch := range []string{"InternS2MobiusForConditionalGeneration", "MuseGlimmerForConditionalGeneration", "KimiK3ForConditionalGeneration", "KimiK25ForConditionalGeneration"} {
		if slices.Contains(p.Native, arch) && !slices.Contains(p.UnreadModels, arch) {
			t.Errorf("%s, on v0.5.18's breakable allowlist, is sized there", arch)
		}
	}
	if got := mmReserveBytes(shipped(t)["meta-llama__Llama-3.1-8B-Instruct"], p); got != 0 {
		t.Errorf("Llama 3.1 8B reserves %d, want none", got)
	}
	if got := mmReserveBytes(shipped(t)["Qwen__Qwen2.5-VL-7B-Instruct"], mustProfile("v0.5.17")); got != 0 {
		t.Errorf("v0.5.17 reserves %d for Qwen2.5-VL, want none", got)
	}
}

// TestPropertyMMReserveOnlyShrinks: over drawn serves of Qwen2.5-VL-7B and
// Llama 3.1 8B on an H100, v0.5.18's pool is v0.5.17's less
// floor-or-ceil(100 MiB / cell) tokens for the VLM and v0.5.17's for the
// text model, and the fraction, F0 and the budget are the same.
func TestPropertyMMReserveOnlyShrinks(t *testing.T) {
	archs := shipped(t)
	h100 := class(t, "h100-sxm-80g")
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom([]string{"Qwen__Qwen2.5-VL-7B-Instruct", "meta-llama__Llama-3.1-8B-Instruct"}).Draw(t, "model")
		s := Serve{
			DisablePiecewiseCudaGraph: true,
			TPSize:                    rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MemFractionStatic:         rapid.SampledFrom([]float64{0, 0.7, 0.8, 0.88}).Draw(t, "msf"),
			ContextLength:             rapid.SampledFrom([]uint64{0, 4096, 32768}).Draw(t, "context"),
		}
		s17 := s
		s17.MMFeatureTransport = "cpu" // v0.5.18's unset transport; v0.5.17's unset cuda_ipc is refused
		old, errO := NewReference(archs[name], s17, h100, mustProfile("v0.5.17"))
		cur, errC := NewReference(archs[name], s, h100, mustProfile("v0.5.18"))
		if (errO == nil) != (errC == nil) {
			t.Fatalf("%s %+v: v0.5.17 %v, v0.5.18 %v", name, s, errO, errC)
		}
		if errO != nil {
			return
		}
		co, cc := old.Capacity(), cur.Capacity()
		if co.MemFractionStatic != cc.MemFractionStatic || co.F0Bytes != cc.F0Bytes || old.Budget() != cur.Budget() {
			t.Fatalf("%s %+v: msf, F0 or budget moved", name, s)
		}
		fewer := co.ProfiledTokens - cc.ProfiledTokens
		if name == "meta-llama__Llama-3.1-8B-Instruct" {
			if fewer != 0 {
				t.Fatalf("Llama %+v: %d tokens fewer, want none", s, fewer)
			}
			return
		}
		lo := int64(104857600 / cc.CellBytes)
		if fewer < lo || fewer > lo+1 {
			t.Fatalf("Qwen2.5-VL %+v: %d tokens fewer, want %d or %d (100 MiB of %d B cells)", s, fewer, lo, lo+1, cc.CellBytes)
		}
	})
}

// TestProfile0518MLAPrefillKept: DeepSeek-V2-Lite (MLA, no index_topk) on
// an H100 keeps its breakable prefill graphs at v0.5.18 (no MLA case):
// its default serve is refused naming --disable-piecewise-cuda-graph, at
// TP 1 and TP 2, with an MLA model's sizes up to 2048 (piecewiseSizes:
// 4 to 32 by 4 (8), 48 to 256 by 16 (14), 288 to 512 by 32 (8), 576 to
// 1024 by 64 (8), 1280 to 2048 by 256 (4), 42) and the 1.5 GiB the reserve
// keeps for them. With the flag the serve is v0.5.17's default serve
// (there the MLA case turned them off): 512 + 12288 + 512 + 128 = 13440
// MiB, (81080 - 13440) / 81080 -> 0.834, DeepSeek-V2-Lite is no
// multimodal model, so the pool is v0.5.17's. A DeepSeek-V3 config without
// an indexer keeps them too; a DSA model is refused for its indexer first.
func TestProfile0518MLAPrefillKept(t *testing.T) {
	lite := shipped(t)["deepseek-ai__DeepSeek-V2-Lite"]
	h100 := class(t, "h100-sxm-80g")
	for _, tp := range []uint64{1, 2} {
		_, err := Resolve(Serve{TPSize: tp}, lite, h100, mustProfile("v0.5.18"))
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "disable-piecewise-cuda-graph" {
			t.Errorf("TP %d default serve: %v; want refused naming --disable-piecewise-cuda-graph", tp, err)
			continue
		}
		for _, m := range []string{"SGLang v0.5.18", "MLA", "42 sizes up to 2048 tokens", "1.5 GiB", "server_args.py:4666-4717", "pass --disable-piecewise-cuda-graph"} {
			if !strings.Contains(se.Reason, m) {
				t.Errorf("TP %d: %q does not name %q", tp, se.Reason, m)
			}
		}
		cur := ref(t, lite, Serve{TPSize: tp, DisablePiecewiseCudaGraph: true}, h100, mustProfile("v0.5.18"))
		old := ref(t, lite, Serve{TPSize: tp}, h100, mustProfile("v0.5.17"))
		if tp == 1 && (cur.Serve.MemFractionStatic != 0.834 || cur.Serve.ReservedMiB != 13440) {
			t.Errorf("TP 1 with the flag: msf %v, reserved %v MiB; want 0.834, 13440", cur.Serve.MemFractionStatic, cur.Serve.ReservedMiB)
		}
		if diff := cmp.Diff(old.Capacity(), cur.Capacity()); diff != "" {
			t.Errorf("TP %d: v0.5.18 with the flag against v0.5.17's default (-want +got):\n%s", tp, diff)
		}
	}
	v3 := *lite
	v3.Architectures = []string{"DeepseekV3ForCausalLM"}
	dsa := v3
	dsa.Architectures = []string{"DeepseekV32ForCausalLM"}
	dsa.Indexer = &model.IndexerShape{HeadDim: 128, NumHeads: 64, TopK: 2048}
	for _, a := range []*model.Arch{lite, &v3, &dsa} {
		r := Resolved{Serve: Serve{}, Profile: mustProfile("v0.5.18")}
		if got := r.breakableOffWhy(a, h100); got != "" {
			t.Errorf("%v at v0.5.18: prefill graphs off for %q, want kept", a.Architectures, got)
		}
		r.Profile = mustProfile("v0.5.17")
		if got := r.breakableOffWhy(a, h100); a != &dsa && !strings.Contains(got, "MLA") {
			t.Errorf("%v at v0.5.17: off for %q, want the MLA case", a.Architectures, got)
		}
	}
}

// TestProfile0518MMFeatureTransport: over several GB200 or GB300 nodes a
// multimodal model whose class opts into the CUDA VMM transport
// (Qwen3-VL, models/qwen3_vl.py:1213) may get it by default at v0.5.18
// (server_args.py:7861-8021), 1024 MiB more off the KV budget: refused
// naming --nnodes. Qwen3-VL-32B at TP 16 (above TP 8, where the custom
// all-reduce v2's multi-node refusal stops) over 4 nodes: refused at
// v0.5.18, sized at v0.5.17 (no such default there) and on one node;
// LLaVA 1.5 (no opt-in) and Llama 3.1 8B (no multimodal model) sized over
// 4 nodes; an H100 (no fabric device) sized.
func TestProfile0518MMFeatureTransport(t *testing.T) {
	archs := shipped(t)
	gb200, h100 := class(t, "gb200"), class(t, "h100-sxm-80g")
	qwen, llava, llama := archs["Qwen__Qwen3-VL-32B-Instruct"], archs["llava-hf__llava-1.5-7b-hf"], archs["meta-llama__Llama-3.1-8B-Instruct"]
	for _, tt := range []struct {
		name    string
		a       *model.Arch
		p       string
		h100    bool
		nnodes  uint64
		refused bool
	}{
		{"Qwen3-VL v0.5.18 4 nodes", qwen, "v0.5.18", false, 4, true},
		{"Qwen3-VL v0.5.17 4 nodes", qwen, "v0.5.17", false, 4, false},
		{"Qwen3-VL v0.5.18 1 node", qwen, "v0.5.18", false, 1, false},
		{"LLaVA v0.5.18 4 nodes", llava, "v0.5.18", false, 4, false},
		{"Llama v0.5.18 4 nodes", llama, "v0.5.18", false, 4, false},
		{"Qwen3-VL v0.5.18 H100 4 nodes", qwen, "v0.5.18", true, 4, false},
	} {
		c := gb200
		if tt.h100 {
			c = h100
		}
		s := Serve{TPSize: 16, DisablePiecewiseCudaGraph: true, Nodes: Nodes{NNodes: tt.nnodes}}
		_, err := Resolve(s, tt.a, c, mustProfile(tt.p))
		var se *engine.SettingError
		refused := errors.As(err, &se) && se.Flag == "nnodes" && strings.Contains(se.Reason, "CUDA VMM")
		if refused != tt.refused || !tt.refused && err != nil {
			t.Errorf("%s: %v; want refused naming --nnodes: %v", tt.name, err, tt.refused)
		}
		if refused && !strings.Contains(se.Reason, "1024 MiB") {
			t.Errorf("%s: %q does not name the 1024 MiB", tt.name, se.Reason)
		}
	}
}

// TestProfile0518Flags: the 16 new option strings of v0.5.18 are judged
// (docs/sglang.md, "v0.5.18"): the NPU DeepSeek-V4 C128 page, MLX
// sampling, HTTP/2 streams, media fetching limits, the host preprocessing
// cache, content-hash trust and the global cache's backend (read only
// under --enable-mm-global-cache, refused) ignored; the TP LM-head
// all-to-all (both forms), the decode node's retraction backup and
// --language-model-only refused; the draft's KV dtype modelled; the balancedness
// report, the image processor backend and the start-up load mode refused
// but at their defaults off, auto and serial. --torchao-config is gone.
func TestProfile0518Flags(t *testing.T) {
	refuses := refusesUnder("v0.5.18")
	checkJudged(t, "v0.5.18", []judgeCase{
		{[]string{"--disable-piecewise-cuda-graph"}, ""},
		{[]string{"--c128-page-size", "32"}, ""},
		{[]string{"--mlx-enable-sampling"}, ""},
		{[]string{"--http2-max-concurrent-streams", "100"}, ""},
		{[]string{"--allowed-media-domains", "example.com"}, ""},
		{[]string{"--media-url-max-file-size-mb", "16"}, ""},
		{[]string{"--mm-preprocess-cache-size-mb", "512"}, ""},
		{[]string{"--trust-mm-content-hashes"}, ""},
		{[]string{"--mm-global-cache-backend", "mooncake"}, ""},
		{[]string{"--enable-tp-lm-head-all-to-all"}, "--enable-tp-lm-head-all-to-all: " + whatTPLMHeadA2A + refuses},
		{[]string{"--no-enable-tp-lm-head-all-to-all"}, "--no-enable-tp-lm-head-all-to-all: " + whatTPLMHeadA2A + refuses},
		// Modelled (spec.go, specDraftKVDtypeFrom; TestSpec0518DraftKVDtype).
		{[]string{"--speculative-draft-kv-cache-dtype", "fp8_e4m3"}, ""},
		{[]string{"--expert-balancedness-report-mode", "off"}, ""},
		{[]string{"--expert-balancedness-report-mode", "per_pass"}, "--expert-balancedness-report-mode: " + whatBalancedness + refuses},
		{[]string{"--image-processor-backend", "auto"}, ""},
		{[]string{"--image-processor-backend", "pil"}, "--image-processor-backend: " + whatImageProcessor + refuses},
		{[]string{"--disaggregation-decode-retraction-backup", "host"}, "--disaggregation-decode-retraction-backup: " + whatRetractionBackup + refuses},
		{[]string{"--language-model-only"}, "--language-model-only: " + whatLMOnly + refuses},
		{[]string{"--startup-weight-load-mode", "serial"}, ""},
		{[]string{"--startup-weight-load-mode", "overlap"}, "--startup-weight-load-mode: " + whatOverlapLoad + refuses},
		{[]string{"--torchao-config", "int4wo-128"}, "--torchao-config is not a flag of SGLang v0.5.18 (it is v0.5.17's, server_args.py:2015 there, and gone by v0.5.18): its nearest is --deepep-config"},
	})
}

// TestMMFeatureTransportInherited0518: supports_cuda_vmm_feature_transport
// is a class attribute read with getattr on the resolved class
// (model_loader/utils.py:240-242 at v0.5.18), so a subclass of Qwen3-VL's
// class opts in too: InternS1Pro (interns1pro.py:191, a
// Qwen3VLMoeForConditionalGeneration), on v0.5.10's multimodal list, is
// refused over 4 GB200 nodes as Qwen3-VL-MoE is; Qwen3-Omni's EntryClass
// (qwen3_omni_moe.py:542) is a PreTrainedModel that only holds a thinker of
// that class, and does not. The check is called directly: InternS1Pro is
// refused earlier at v0.5.18 as a model whose file is not read.
func TestMMFeatureTransportInherited0518(t *testing.T) {
	gb200 := class(t, "gb200")
	base := *shipped(t)["Qwen__Qwen3-VL-30B-A3B-Instruct"]
	for _, tt := range []struct {
		arch    string
		refused bool
	}{
		{"Qwen3VLMoeForConditionalGeneration", true},
		{"InternS1ProForConditionalGeneration", true},
		{"Qwen3OmniMoeForConditionalGeneration", false},
	} {
		a := base
		a.Architectures = []string{tt.arch}
		if !sglMultimodal(&a) {
			t.Fatalf("%s is not multimodal by v0.5.10's list", tt.arch)
		}
		r := Resolved{Serve: Serve{TPSize: 16, Nodes: Nodes{NNodes: 4}}, Profile: mustProfile("v0.5.18")}
		err := r.checkMMFeatureTransport(&a, gb200)
		var se *engine.SettingError
		if refused := errors.As(err, &se) && se.Flag == "nnodes"; refused != tt.refused || !tt.refused && err != nil {
			t.Errorf("%s over 4 GB200 nodes: %v; want refused naming --nnodes: %v", tt.arch, err, tt.refused)
		}
	}
}

// TestProfile0518MMReserveLeavesNoRest: the reservation is taken before
// _profile_available_bytes checks the rest (rest_memory = available -
// slack - mm_reservation_gb, then rest_memory <= 0 raises,
// kv_cache_configurator.py:1785-1808 at v0.5.18), so a multimodal serve
// whose rest is under 100 MiB starts at v0.5.17 and fails at v0.5.18.
// Qwen2.5-VL-7B on an H100 with --mem-fraction-static set so that the
// rest is 50 MiB (msf = 1 - (F1 - 50 MiB) / F0, F0 and the load read off
// the serve, which the fraction does not move): v0.5.17 holds
// floor(52428800 / 57344) = 914 tokens and starts; v0.5.18's rest is
// -50 MiB, -52428800 // 57344 = -915 (a floor division), and it fails
// first: "Loaded weights leave no GPU memory". At a rest of 150 MiB,
// v0.5.17 holds floor(157286400 / 57344) = 2742 tokens, v0.5.18 the 50
// MiB left, 914, and both start.
func TestProfile0518MMReserveLeavesNoRest(t *testing.T) {
	vl := shipped(t)["Qwen__Qwen2.5-VL-7B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	// --mm-feature-transport cpu at both: v0.5.18's unset transport, and
	// v0.5.17's unset cuda_ipc is refused (TestMMTransport).
	c := ref(t, vl, Serve{DisablePiecewiseCudaGraph: true, MMFeatureTransport: "cpu"}, h100, mustProfile("v0.5.17")).Capacity()
	f0, f1 := float64(c.F0Bytes), float64(c.F0Bytes-c.LoadedBytes)
	for _, tt := range []struct {
		restMiB       float64
		t17, t18      int64
		starts18      bool
		failurePrefix string
	}{
		{50, 914, -915, false, "Loaded weights leave no GPU memory for the KV cache"},
		{150, 2742, 914, true, ""},
	} {
		s := Serve{DisablePiecewiseCudaGraph: true, MMFeatureTransport: "cpu", MemFractionStatic: 1 - (f1-tt.restMiB*mib)/f0}
		c17 := ref(t, vl, s, h100, mustProfile("v0.5.17")).Capacity()
		c18 := ref(t, vl, s, h100, mustProfile("v0.5.18")).Capacity()
		if c17.ProfiledTokens != tt.t17 || !c17.Starts {
			t.Errorf("rest %v MiB at v0.5.17: %d tokens, starts %v (%s); want %d, starts", tt.restMiB, c17.ProfiledTokens, c17.Starts, c17.Failure, tt.t17)
		}
		if c18.ProfiledTokens != tt.t18 || c18.Starts != tt.starts18 || !strings.HasPrefix(c18.Failure, tt.failurePrefix) {
			t.Errorf("rest %v MiB at v0.5.18: %d tokens, starts %v (%q); want %d, starts %v, failure %q", tt.restMiB, c18.ProfiledTokens, c18.Starts, c18.Failure, tt.t18, tt.starts18, tt.failurePrefix)
		}
	}
}

// TestMMReserveBeforeMambaPool: v0.5.18 takes the reservation off the rest
// before handle_max_mamba_cache, which is given and names what is left
// (kv_cache_configurator.py:1785-1791, 2116-2125). v0.5.18's Mamba pool is
// not read (gdnReleases), so the profile here is v0.5.17's with the
// reservation on, for Qwen3.5-27B (a multimodal hybrid, mamba_cache_per_req
// 153944064 B = 146.81 MiB) on an H100 with its prefill graphs off, the
// fraction set so that the rest is 110 MiB (msf = 1 - (F1 - 110 MiB) / F0):
// 10 MiB is left, the pool's share 10 x 0.9 / 1.9 = 4.7 MiB holds no slot
// beside the padding slot, and SGLang's error names
// total_rest_memory=0.01 GB (10 / 1024 GiB), not the 0.11 of the rest
// before the reservation. The report's line says what the Mamba pool was
// given: the rest less the 100 MiB.
func TestMMReserveBeforeMambaPool(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3.5-27B"]
	h100 := class(t, "h100-sxm-80g")
	p := mustProfile("v0.5.17")
	p.MMRuntimeReserve = true
	p.MMIPCByDefault = false // v0.5.18's cpu unset (server_args.py:7911-7912)
	c := ref(t, a, Serve{DisablePiecewiseCudaGraph: true}, h100, p).Capacity()
	f0, f1 := float64(c.F0Bytes), float64(c.F0Bytes-c.LoadedBytes)
	r := ref(t, a, Serve{DisablePiecewiseCudaGraph: true, MemFractionStatic: 1 - (f1-110*mib)/f0}, h100, p)
	if got := r.Capacity(); got.MambaPerReq != 153944064 || got.Starts || !strings.Contains(got.Failure, "(total_rest_memory=0.01 GB, mamba_cache_per_req=146.81 MB)") {
		t.Errorf("rest 110 MiB: per request %d, starts %v, %q; want 153944064, not, total_rest_memory=0.01 GB", got.MambaPerReq, got.Starts, got.Failure)
	}
	ok := ref(t, a, Serve{DisablePiecewiseCudaGraph: true}, h100, p)
	var b strings.Builder
	section{&Sizing{Ref: ok, Class: h100, capacity: ok.Capacity()}}.WriteBefore(&b, budget.Footprint{})
	if want := "GiB, less 100 MiB for the multimodal embedding cache (SGLANG_VLM_CACHE_SIZE_MB), gives the Mamba pool"; !strings.Contains(b.String(), want) {
		t.Errorf("the report's pool line does not say %q:\n%s", want, b.String())
	}
}

// TestProfile0518LMOnlyCheckpoint: a Qwen3-VL checkpoint whose config.json
// says language_model_only: true is a text model to v0.5.18
// (configs/model_config.py:331, 452-459; PR #22867): its breakable prefill
// graphs kept, no reservation, no vision headroom, no vision tower. It is
// refused naming --model at v0.5.18, with or without
// --disable-piecewise-cuda-graph; v0.5.17 ignores the key (no
// is_lm_only there) and sizes it as the multimodal model; Llama 3.1 8B with
// the key is a text model either way, sized.
func TestProfile0518LMOnlyCheckpoint(t *testing.T) {
	archs := shipped(t)
	h100 := class(t, "h100-sxm-80g")
	vl, llama := *archs["Qwen__Qwen3-VL-32B-Instruct"], *archs["meta-llama__Llama-3.1-8B-Instruct"]
	vl.LanguageModelOnly, llama.LanguageModelOnly = true, true
	for _, s := range []Serve{{TPSize: 2}, {TPSize: 2, DisablePiecewiseCudaGraph: true}} {
		_, err := Resolve(s, &vl, h100, mustProfile("v0.5.18"))
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "model" || !strings.Contains(se.Reason, "language_model_only: true") || !strings.Contains(se.Reason, "SGLang v0.5.18") {
			t.Errorf("%+v at v0.5.18: %v; want refused naming --model and the key", s, err)
		}
		s17 := s
		s17.MMFeatureTransport = "cpu" // v0.5.17's unset cuda_ipc is refused (TestMMTransport)
		if _, err := Resolve(s17, &vl, h100, mustProfile("v0.5.17")); err != nil {
			t.Errorf("%+v at v0.5.17: %v; want sized (the key not read)", s, err)
		}
	}
	if _, err := Resolve(Serve{DisablePiecewiseCudaGraph: true}, &llama, h100, mustProfile("v0.5.18")); err != nil {
		t.Errorf("Llama with the key at v0.5.18: %v; want sized", err)
	}
}
