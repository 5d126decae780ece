package sglang

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
)

// splitSWA is v0.5.6.post2's rules with the sliding-window split on: no
// release read splits a model membudget sizes (see [Profile.HybridSWA]), so
// the split's arithmetic is checked on it until v0.5.8's gpt-oss pool (PR
// #17261) is read.
var splitSWA = func() Profile {
	p := current
	p.Name, p.Describes = "split", "v0.5.6.post2's rules with the sliding-window split"
	p.HybridSWA = true
	return p
}()

// TestProfile056Post3IsPost2: v0.5.6.post3 changes no memory file against
// v0.5.6.post2 (git diff --stat v0.5.6.post2 v0.5.6.post3: entrypoints,
// parsers, tokenizer manager, pyproject), so every rule is post2's.
func TestProfile056Post3IsPost2(t *testing.T) {
	post3 := mustProfile("v0.5.6.post3")
	want := renamedAs(current, "v0.5.6.post3", "112ddbce3102729bb12aaa0f304f48de37f46852", post3)
	if diff := cmp.Diff(want, post3); diff != "" {
		t.Errorf("v0.5.6.post3 against v0.5.6.post2's rules (-want +got):\n%s", diff)
	}
}

// TestProfile057Rules: the rules v0.5.7 changed, and only those.
func TestProfile057Rules(t *testing.T) {
	p := mustProfile("v0.5.7")
	want := renamedAs(current, "v0.5.7", p.Commit, p)
	want.TRTLLMSM100Only = true // PR #14842
	want.TRTLLMMLABF16 = true   // PR #15986
	want.Native = native057
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("v0.5.7 against v0.5.6.post2's rules (-want +got):\n%s", diff)
	}
	for _, arch := range []string{"GlmAsrForConditionalGeneration", "MiDashengLMModel", "MiMoV2FlashForCausalLM", "LlamaForCausalLM"} {
		if !strings.Contains(strings.Join(p.Native, " "), arch) {
			t.Errorf("v0.5.7 lacks native %s", arch)
		}
	}
	if len(p.Native) != len(native056)+3 {
		t.Errorf("v0.5.7 has %d native architectures, want v0.5.6.post2's %d + 3", len(p.Native), len(native056))
	}
}

// TestProfile057Defaults: v0.5.7's defaults, by hand. gpu_mem is
// floor(memory_bytes / MiB): 32112 for rtx-5090 (33672543601 B), 81080 for
// h100-sxm-80g, 182633 for b200.
func TestProfile057Defaults(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	p057 := mustProfile("v0.5.7")
	tests := []struct {
		name      string
		class     string
		s         Serve
		msf       float64
		chunked   int64
		graphBS   uint64
		page      uint64
		backend   string
		reasoning string
	}{
		{"rtx-5090", "rtx-5090", Serve{}, 0.883, 2048, 24, 1, "",
			"under 35 GiB: chunked 2048, graph bs 24 at TP1; 512 + 1.5 x 2048 + 2 x 24 + 1/8 x 1024 = 3760 MiB, no 10 GiB floor under 60 GiB; " +
				"28352/32112 = 0.88291 -> 0.883; SM120 is not is_sm100_supported(), so flashinfer (page 1), not trtllm_mha"},
		{"h100", "h100-sxm-80g", Serve{}, 0.834, 8192, 256, 1, "",
			"512 + 12288 + 512 + 128 = 13440 MiB of 81080: 0.83424, as v0.5.6.post2"},
		{"b200", "b200", Serve{}, 0.856, 16384, 512, 64, "trtllm_mha",
			"512 + 24576 + 1024 + 128 = 26240 of 182633: 0.85632; SM100 keeps trtllm_mha, page 64"},
	}
	for _, tt := range tests {
		r, err := Resolve(tt.s, llama, class(t, tt.class), p057)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		checkServerDefaults(t, tt.name, tt.reasoning, &r, serverDefaults{tt.msf, tt.chunked, tt.graphBS, tt.page, tt.backend})
	}
	// v0.5.6.post2 and .post3 choose trtllm_mha on SM120 and then refuse it.
	for _, p := range []Profile{current, mustProfile("v0.5.6.post3")} {
		if _, err := Resolve(Serve{}, llama, class(t, "rtx-5090"), p); err == nil || !strings.Contains(err.Error(), "#14842") {
			t.Errorf("%s on rtx-5090: %v; want trtllm_mha refused naming #14842", p.Name, err)
		}
	}
	// Given on SM120, trtllm_mha is still refused (server_args.py:1624-1632).
	if _, err := Resolve(Serve{AttentionBackend: "trtllm_mha"}, llama, class(t, "rtx-5090"), p057); err == nil || !strings.Contains(err.Error(), "needs SM100") {
		t.Errorf("v0.5.7 trtllm_mha on rtx-5090: %v; want it refused", err)
	}
}

// TestProfile057PoolByHand walks Llama 3.1 8B on one RTX 5090 at v0.5.7's
// defaults as its profile_max_num_token and init_memory_pool do
// (model_runner_kv_cache_mixin.py), from the reference's own load, so the
// arithmetic is checked apart from the estimates that feed it.
func TestProfile057PoolByHand(t *testing.T) {
	r := ref(t, shipped(t)["meta-llama__Llama-3.1-8B-Instruct"], Serve{}, class(t, "rtx-5090"), mustProfile("v0.5.7"))
	c := r.Capacity()
	// F0: 33672543601 - 576 MiB (driver_fixed_bytes), no distributed init
	// at TP1 = 33068563825 bytes.
	if c.F0Bytes != 33672543601-576*mib {
		t.Errorf("F0 %d, want %d", c.F0Bytes, 33672543601-576*mib)
	}
	// The cell: 8 KV heads x (head_dim 128 + v_head_dim 128) x 32 layers x
	// 2 B = 131072 (get_cell_size_per_token). One rank: no float32 pass.
	// rest = F1 - F0 x (1 - 0.883) in GiB; T = int(rest x 2^30) // 131072,
	// page 1.
	f0, f1 := float64(c.F0Bytes), float64(c.F0Bytes-c.LoadedBytes)
	rest := f1/gib - f0/gib*(1-0.883)
	wantT := int64(math.Floor(rest*gib)) / 131072
	if c.CellBytes != 131072 || c.MaxTotalNumTokens != wantT || wantT <= 0 {
		t.Errorf("cell %d, tokens %d; want 131072 and %d", c.CellBytes, c.MaxTotalNumTokens, wantT)
	}
	// max_num_reqs = min(max(int(T / 131072 x 512), 2048), 4096): 2048 for
	// any T under 524288; max_running_requests = min(T // 2, 2048).
	if c.MaxNumReqs != 2048 || c.MaxRunningRequests != uint64(min(wantT/2, 2048)) {
		t.Errorf("max_num_reqs %d, max_running_requests %d; want 2048, %d", c.MaxNumReqs, c.MaxRunningRequests, min(wantT/2, 2048))
	}
	// K: (T + 1) rows x 8 heads x 128 x 2 B x 32 layers; V the same.
	if c.KBytes != uint64(wantT+1)*8*128*2*32 || c.VBytes != c.KBytes {
		t.Errorf("K %d, V %d; want %d each", c.KBytes, c.VBytes, uint64(wantT+1)*8*128*2*32)
	}
	want := "max_total_num_tokens=" + strconv.FormatInt(wantT, 10) + ", chunked_prefill_size=2048, max_prefill_tokens=16384, max_running_requests=" + strconv.FormatInt(min(wantT/2, 2048), 10) + ", context_len=131072"
	if lines := c.LogLines(); len(lines) != 2 || lines[1] != want {
		t.Errorf("log lines %q; want the scheduler's %q", lines, want)
	}
}

// TestTRTLLMMLABF16: --kv-cache-dtype bf16 with the TensorRT-LLM MLA
// backend (DeepSeek-V3's default on SM100) is refused by v0.5.6.post2
// (server_args.py:1460-1463) and taken by v0.5.7 (PR #15986,
// server_args.py:1619); bfloat16 is refused by both.
func TestTRTLLMMLABF16(t *testing.T) {
	ds := shipped(t)["deepseek-ai__DeepSeek-V3"]
	b200 := class(t, "b200")
	s := Serve{TPSize: 8, KVCacheDtype: "bf16", JITDeepGEMM: engine.Off}
	if _, err := Resolve(s, ds, b200, current); err == nil || !strings.Contains(err.Error(), "fp8_e4m3 or auto") {
		t.Errorf("v0.5.6.post2 bf16 trtllm_mla: %v; want refused", err)
	}
	r, err := Resolve(s, ds, b200, mustProfile("v0.5.7"))
	if err != nil || r.AttentionBackend != "trtllm_mla" || r.KVDtypeBytes != 2 || r.PageSize != 64 {
		t.Errorf("v0.5.7 bf16 trtllm_mla: %v, backend %q, kv bytes %d, page %d; want trtllm_mla, 2, 64", err, r.AttentionBackend, r.KVDtypeBytes, r.PageSize)
	}
	s.KVCacheDtype = "bfloat16"
	if _, err := Resolve(s, ds, b200, mustProfile("v0.5.7")); err == nil || !strings.Contains(err.Error(), "fp8_e4m3, bf16 or auto") {
		t.Errorf("v0.5.7 bfloat16 trtllm_mla: %v; want refused", err)
	}
}

// TestProfile058Rules: v0.5.8 is v0.5.7's rules but gpt-oss's split pool
// (PRs #17261, #17429) and its new native architectures; v0.5.8.post1
// changes no memory file.
func TestProfile058Rules(t *testing.T) {
	p := mustProfile("v0.5.8")
	want := renamedAs(mustProfile("v0.5.7"), "v0.5.8", "0189f41c30ede088a040a711a384f3024b8d7af5", p)
	want.GptOssSplit = true
	want.Native = native058
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("v0.5.8 against v0.5.7's rules (-want +got):\n%s", diff)
	}
	if len(native058) != len(native057)+4 {
		t.Errorf("v0.5.8 has %d native architectures, want v0.5.7's %d + 4", len(native058), len(native057))
	}
	post1 := mustProfile("v0.5.8.post1")
	want = renamedAs(p, "v0.5.8.post1", "c1f2241a32b69be69828288b61331887c5647a4b", post1)
	if diff := cmp.Diff(want, post1); diff != "" {
		t.Errorf("v0.5.8.post1 against v0.5.8's rules (-want +got):\n%s", diff)
	}
}

// TestGptOssPoolByRelease: gpt-oss-20b keeps one pool of every layer under
// v0.5.6.post2 (server_args.py:1176 disables the split) and v0.5.7 (PR
// #15877); v0.5.8 splits it unless its attention is trtllm_mha (PR
// #17429), so on an H100 (fa3) it is refused, and on a B200, whose
// default is trtllm_mha, it is one pool as before. The one pool of the
// earlier releases is checked on a B200 under triton's attention (page 1),
// since gpt-oss's MXFP4 off Blackwell is refused (see
// TestMXFP4OffBlackwellRefused).
func TestGptOssPoolByRelease(t *testing.T) {
	oss := shipped(t)["openai__gpt-oss-20b"]
	h100, b200 := class(t, "h100-sxm-80g"), class(t, "b200")
	for _, p := range []Profile{current, mustProfile("v0.5.7")} {
		c := ref(t, oss, Serve{AttentionBackend: "triton"}, b200, p).Capacity()
		if c.HybridSWA || c.SWATokens != 0 || c.MaxTotalNumTokens != c.ProfiledTokens {
			t.Errorf("%s gpt-oss on b200 with triton: split %v, tokens %d of %d profiled, swa %d; want one pool of the profiled tokens", p.Name, c.HybridSWA, c.MaxTotalNumTokens, c.ProfiledTokens, c.SWATokens)
		}
	}
	for _, name := range []string{"v0.5.8", "v0.5.8.post1"} {
		p := mustProfile(name)
		if _, err := Resolve(Serve{}, oss, h100, p); err == nil || !strings.Contains(err.Error(), "#17261") {
			t.Errorf("%s gpt-oss on h100: %v; want the split pool refused naming #17261", name, err)
		}
		if _, err := Resolve(Serve{AttentionBackend: "triton"}, oss, b200, p); err == nil || !strings.Contains(err.Error(), "#17261") {
			t.Errorf("%s gpt-oss on b200 with triton: %v; want the split pool refused", name, err)
		}
		// page 64 under trtllm_mha: T is the profiled tokens rounded down
		// to a page.
		c := ref(t, oss, Serve{}, b200, p).Capacity()
		if c.HybridSWA || c.PageSize != 64 || c.MaxTotalNumTokens != c.ProfiledTokens/64*64 {
			t.Errorf("%s gpt-oss on b200: split %v, page %d, tokens %d of %d profiled; want one pool, page 64, %d", name, c.HybridSWA, c.PageSize, c.MaxTotalNumTokens, c.ProfiledTokens, c.ProfiledTokens/64*64)
		}
	}
	// Llama 3.1 8B on an H100 is sized alike by v0.5.7 and v0.5.8.
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	a, b := ref(t, llama, Serve{}, h100, mustProfile("v0.5.7")).Capacity(), ref(t, llama, Serve{}, h100, mustProfile("v0.5.8")).Capacity()
	if a.MaxTotalNumTokens != b.MaxTotalNumTokens || a.MemFractionStatic != b.MemFractionStatic || a.MemFractionStatic != 0.834 {
		t.Errorf("Llama on h100: v0.5.7 %d tokens at %v, v0.5.8 %d at %v; want the same, at 0.834", a.MaxTotalNumTokens, a.MemFractionStatic, b.MaxTotalNumTokens, b.MemFractionStatic)
	}
}

// renamedAs returns base's rules under the release name and commit given
// and got's description: the profile a release that changed none of base's
// rules would be, which each per-release Rules test then edits by the
// changes it names (the name and commit stay literals, so a profile filed
// under the wrong tag still fails).
func renamedAs(base Profile, name, commit string, got Profile) Profile {
	base.Name, base.Commit, base.Describes = name, commit, got.Describes
	return base
}

// poolTokensByHand returns the pool's token count worked by hand from a
// capacity's F0 (free memory before loading) and loaded bytes: T =
// floor((F1 - F0 x (1 - msf)) / cell), F1 = F0 less the weights, in GiB
// as the pool tests work it; f32 rounds F0 and F1 through float32 first
// (the world group's minimum under TP, v0.5.15 on). msf and cell stay the
// caller's literals, each worked beside its test.
func poolTokensByHand(c Capacity, msf float64, cell uint64, f32 bool) int64 {
	f0, f1 := float64(c.F0Bytes), float64(c.F0Bytes-c.LoadedBytes)
	if f32 {
		f0, f1 = float64(float32(f0)), float64(float32(f1))
	}
	return int64(math.Floor((f1/gib-f0/gib*(1-msf))*gib)) / int64(cell)
}

// judgeCase is one line of a release's flag table: the arguments after
// --sglang-version and the error Judge must give ("" for none).
type judgeCase struct {
	args []string
	want string
}

// refusesUnder returns the tail of Judge's refusal of a flag not modelled
// under release (flagjudge.go's text), after the flag and what it sets.
func refusesUnder(release string) string {
	return ": not modelled for " + mustProfile(release).Describes + "; membudget refuses it rather than size a server SGLang would contradict"
}

// checkJudged judges each case's arguments under release on a pasted
// line and checks the error against the case's own expected text.
func checkJudged(t *testing.T, release string, cases []judgeCase) {
	t.Helper()
	for _, tt := range cases {
		args := append([]string{"--sglang-version", release}, tt.args...)
		got := ""
		if err := (&flagServe{}).Judge(args, 2); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("Judge(%q):\n got %q\nwant %q", args, got, tt.want)
		}
	}
}
