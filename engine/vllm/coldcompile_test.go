package vllm

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget"
	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/hub"
)

// TestColdCompileScratch pins the cold compile's scratch
// (coldCompileScratch) to the rows whose cold start logged its peak
// activation, read from corpus/observed/vllm.csv (not from the code), each
// worked by hand: the first stage's embedding table (vLLM's vocabulary,
// padded to a multiple of 64, over the TP ranks, x hidden x 2 B) and the
// lookup's output (the batched tokens x hidden x 2 B):
//   - row 212 (Qwen3-8B on one RTX 4090, 0.27.1, 2048 batched tokens):
//     151,936 x 4096 x 2 B = 1,244,659,712 B and 2048 x 4096 x 2 B =
//     16,777,216 B: 1,261,436,928 B, 1.175 GiB, where the log has 1.18;
//   - row 206 (Qwen3-14B-AWQ on one RTX 5090, 0.28.0, 2048 tokens, the
//     embedding in float16): 151,936 x 5120 x 2 B = 1,555,824,640 B and
//     2048 x 5120 x 2 B = 20,971,520 B: 1,576,796,160 B, 1.468 GiB, where
//     the log has 1.46.
//
// Each must be within the log's 0.01 GiB rounding and 0.01 more; and the
// rule's shape: half the table at TP 2, nothing on a later pipeline stage.
func TestColdCompileScratch(t *testing.T) {
	rows := map[string]observedRow{}
	for _, r := range readObservedTables(t).Rows {
		rows[r["id"]] = r
	}
	archs := observedArchs(t)
	cases := []struct {
		row, model string
		st         model.Sharding
		want       uint64 // by hand, above
		logged     bool   // the row logs its peak activation
	}{
		{"212", "Qwen__Qwen3-8B", model.Sharding{TP: 1, First: true, Last: true}, 1261436928, true},
		{"206", "Qwen__Qwen3-14B-AWQ", model.Sharding{TP: 1, First: true, Last: true}, 1576796160, true},
		// Row 212's serve at TP 2: 75,968 x 4096 x 2 B = 622,329,856 B
		// and the same output: 639,107,072 B.
		{"212", "Qwen__Qwen3-8B", model.Sharding{TP: 2, First: true, Last: true}, 639107072, false},
		// The last stage of two holds no embedding.
		{"212", "Qwen__Qwen3-8B", model.Sharding{TP: 1, First: false, Last: true}, 0, false},
	}
	for _, tc := range cases {
		a := archs[tc.model]
		if a == nil {
			t.Fatalf("row %s: no config for %s", tc.row, tc.model)
		}
		r := &Resolved{Serve: Serve{MaxNumBatchedTokens: 2048}, DtypeBytes: 2}
		got := coldCompileScratch(a, r, tc.st)
		if got != tc.want {
			t.Errorf("row %s at %+v: %d B, want %d by hand", tc.row, tc.st, got, tc.want)
		}
		if !tc.logged {
			continue
		}
		v, ok := rows[tc.row].Num("activation_peak_gib")
		if !ok {
			t.Fatalf("row %s: no activation_peak_gib", tc.row)
		}
		if off := float64(got)/(1<<30) - v; off > 0.02 || off < -0.02 {
			t.Errorf("row %s: %.3f GiB of scratch, the cold start logs %.2f", tc.row, float64(got)/(1<<30), v)
		}
	}
}

// TestColdCompileCapacity: a compiled serve's first start loses to the
// compile what its scratch takes beyond the forward's peak, and the report
// says what it leaves; a serve that compiles nothing, or pins its KV
// cache, has no such line.
//
// Llama-3.1-8B at 2048 batched tokens, by hand: the scratch is its table,
// 128,256 x 4096 x 2 B = 1,050,673,152 B, and the lookup's output, 2048 x
// 4096 x 2 B = 16,777,216 B: 1,067,450,368 B; the forward's peak 2048 x
// (4 x 4096 + 3 x 14,336) x 2 B = 243,269,632 B and the 52 MiB residual,
// 297,795,584 B, with no sampler above it (16 sequences' logits under the
// forward); so 769,654,784 B more, 367 pages of 16 tokens x 32 layers x 8
// KV heads x 128 x 2 (K, V) x 2 B = 2 MiB exactly: 367 blocks, 5,872
// tokens.
func TestColdCompileCapacity(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	m := &hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}
	base := Serve{GPUMemoryUtilization: 0.35, MaxModelLen: 4096, MaxNumSeqs: 16, MaxNumBatchedTokens: 2048}
	v0, err := ProfileFor("0.8.5:v0")
	if err != nil {
		t.Fatal(err)
	}
	old, err := ProfileFor("0.19.0")
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		Line                   bool
		BlocksLost, TokensLost uint64
	}
	cases := []struct {
		name string
		edit func(*Serve)
		prof Profile
		want result
	}{
		// The default -O2 compiles (VLLM_COMPILE): 367 blocks, 5,872 tokens.
		{"main default", func(*Serve) {}, current, result{true, 367, 5872}},
		// 0.19 compiles its first forward inside the same window
		// (gpu_worker.py:384-388 at 39474513f): the same 367 blocks.
		{"0.19.0 default", func(*Serve) {}, old, result{true, 367, 5872}},
		{"-O3", func(s *Serve) { s.Compilation.Level = "3" }, current, result{true, 367, 5872}},
		// At 8192 batched tokens the forward's peak, 8192 x 118,784 B and
		// the residual = 1,027,604,480 B, covers all but 1,117,782,016 -
		// 1,027,604,480 = 90,177,536 B of the scratch: 43 blocks, 688
		// tokens.
		{"8192 tokens", func(s *Serve) { s.MaxNumBatchedTokens = 8192 }, current, result{true, 43, 688}},
		// At 16,384 it covers all of it (2,109,734,912 B of forward): the
		// line says so, and no block is lost.
		{"16384 tokens", func(s *Serve) { s.MaxNumBatchedTokens = 16384 }, current, result{true, 0, 0}},
		// -O0 sets the mode to NONE; --enforce-eager too.
		{"-O0", func(s *Serve) { s.Compilation.Level = "0" }, current, result{}},
		{"enforce eager", func(s *Serve) { s.EnforceEager = true }, current, result{}},
		// mode 0 under the default level: NONE, and the graphs with it.
		{"mode NONE", func(s *Serve) { s.Compilation.Mode = "0" }, current, result{}},
		// A pinned KV cache is not profiled.
		{"kv-cache-memory-bytes", func(s *Serve) { s.KVCacheMemoryBytes = 8 << 30 }, current, result{}},
		// V0 compiles nothing by default (8192 batched tokens: V0 without
		// chunked prefill takes a whole 4096-token prompt in one batch).
		{"V0", func(s *Serve) { s.MaxNumBatchedTokens = 8192 }, v0, result{}},
	}
	for _, tc := range cases {
		s := base
		tc.edit(&s)
		sz, err := Size(m, testClass(false), s, tc.prof)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		cold, ok := sz.coldCapacity()
		got := result{Line: ok}
		if ok {
			got.BlocksLost = sz.capacity.Blocks - cold.Blocks
			got.TokensLost = sz.capacity.LoggedTokens - cold.LoggedTokens
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		var w bytes.Buffer
		sz.writeColdCompile(&w)
		if line := w.String(); (line != "") != tc.want.Line {
			t.Errorf("%s: line %q, want one: %v", tc.name, line, tc.want.Line)
		}
	}
}

// sizeSpare128 sizes Llama-3.1-8B on the test class at util 0.35, 16
// sequences and 2048 batched tokens, at the length that leaves the start
// 128 blocks (256 MiB) to spare, warm or under --compile-cache cold; it
// returns that sizing and the blocks of the first, at 4096 tokens. The
// length's own terms (the V2 runner's block tables) move the memory by
// KBs, far under the 256 MiB margin.
func sizeSpare128(t *testing.T, cold bool) (*Sizing, uint64) {
	t.Helper()
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	m := &hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}
	s := Serve{GPUMemoryUtilization: 0.35, MaxModelLen: 4096, MaxNumSeqs: 16, MaxNumBatchedTokens: 2048, ColdCompileCache: cold}
	sz, err := Size(m, testClass(false), s, current)
	if err != nil {
		t.Fatal(err)
	}
	blocks := sz.capacity.Blocks
	s.MaxModelLen = (blocks - 128) * 16
	if sz, err = Size(m, testClass(false), s, current); err != nil {
		t.Fatal(err)
	}
	return sz, blocks
}

// TestColdCompileRefuses: a length that fits the warm start's KV cache but
// not the cold one's is said to be refused on a first start. The length is
// set 256 MiB under the warm start's memory (128 blocks of 2 MiB, 2,048
// tokens), so a first start, 367 blocks short at 2048 batched tokens
// (TestColdCompileCapacity), has 239 blocks too few.
func TestColdCompileRefuses(t *testing.T) {
	sz, blocks := sizeSpare128(t, false)
	if sz.Serve.MaxModelLen > 131072 {
		t.Fatalf("warm start holds %d blocks: the length %d is over Llama-3.1's 131,072; lower the util", blocks, sz.Serve.MaxModelLen)
	}
	if !sz.capacity.Starts {
		t.Fatalf("the warm start of %d tokens does not start: %+v", sz.Serve.MaxModelLen, sz.capacity)
	}
	var w bytes.Buffer
	sz.writeColdCompile(&w)
	if !strings.Contains(w.String(), "; vLLM refuses that start: one request of") {
		t.Errorf("line %q: want the cold start refused", w.String())
	}
	// The JSON says so too: 769,654,784 B more activation, 367 blocks of
	// 2 MiB fewer. On main (0.28.0, from 0.26.1) the table copy's segment
	// a first start can also keep: 128,256 x 4096 x 2 B = 1,050,673,152
	// B, 501 x 2 MiB exactly, 501 blocks of 2 MiB fewer again, still
	// refused.
	f := sz.coldCompileField()
	if len(f) != 1 {
		t.Fatalf("fields %+v, want first_start_cold_compile", f)
	}
	want := coldCompileJSON{ExtraActivationBytes: 769654784, Blocks: sz.capacity.Blocks - 367, LoggedTokens: sz.capacity.LoggedTokens - 367*16, Starts: false,
		KeptSegmentBytes: 1050673152, TokensIfKept: sz.capacity.LoggedTokens - (367+501)*16, StartsIfKept: false}
	if diff := cmp.Diff(want, f[0].Value); diff != "" {
		t.Errorf("first_start_cold_compile (-want +got):\n%s", diff)
	}
}

// TestColdCompileOption: --compile-cache cold charges every stage's
// activation of a serve that compiles and whose KV cache the profile
// sizes with what its scratch (the first stage's embedding table over TP
// and the lookup's output, in bf16) takes beyond the stage's warm peak,
// nothing otherwise; the compiler agrees with the
// reference; and the cold serve's KV cache is what the warm report's
// first-start line says.
func TestColdCompileOption(t *testing.T) {
	models := shipped(t)
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B", "google__gemma-2-9b-it"}
	profiles := []Profile{current, mustProfile("0.19.0"), mustProfile("0.8.5:v0")}
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom(names).Draw(t, "model")]
		p := rapid.SampledFrom(profiles).Draw(t, "profile")
		c := testClass(false)
		s := Serve{
			TensorParallelSize:   rapid.SampledFrom([]uint64{1, 2}).Draw(t, "tp"),
			PipelineParallelSize: rapid.SampledFrom([]uint64{1, 2}).Draw(t, "pp"),
			MaxModelLen:          rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:           rapid.Uint64Range(1, 256).Draw(t, "seqs"),
			EnforceEager:         rapid.Bool().Draw(t, "eager"),
		}
		if rapid.Bool().Draw(t, "pinned") {
			s.KVCacheMemoryBytes = 4 << 30
		}
		if p.Era == V1 && rapid.Bool().Draw(t, "O0") {
			s.Compilation.Level = "0"
		}
		cold := s
		cold.ColdCompileCache = true
		compilerIsReference(t, a, cold, c, p)
		m := &hub.Loaded{Name: a.Source, Arch: a}
		warmSz, err := Size(m, c, s, p)
		if err != nil {
			t.Skip(err)
		}
		coldSz, err := Size(m, c, cold, p)
		if err != nil {
			t.Fatalf("cold refused where warm is sized: %v", err)
		}
		compiles := p.Era == V1 && !s.EnforceEager && s.Compilation.Level != "0" && s.KVCacheMemoryBytes == 0
		anyMore := false
		for i := range warmSz.plan.Stages {
			w, k := warmSz.plan.Stages[i].Fixed, coldSz.plan.Stages[i].Fixed
			want := uint64(0)
			if st := stageOf(warmSz.Serve, i); compiles && st.First {
				tp := warmSz.Serve.TensorParallelSize
				scratch := (a.Vocab+63)/64*64/tp*a.Hidden*2 + warmSz.Serve.MaxNumBatchedTokens*a.Hidden*2
				if peak := w[budget.TermActivation] + w[budget.TermSampler]; scratch > peak {
					want = scratch - peak
				}
			}
			anyMore = anyMore || want > 0
			if got := k[budget.TermActivation] - w[budget.TermActivation]; got != want {
				t.Fatalf("stage %d: activation grows by %d B, want %d", i, got, want)
			}
			w[budget.TermActivation], k[budget.TermActivation] = 0, 0
			if w != k {
				t.Fatalf("stage %d: other terms moved: %v -> %v", i, w, k)
			}
		}
		if line, ok := warmSz.coldCapacity(); ok != compiles {
			t.Fatalf("warm report's first-start line: %v, want %v", ok, compiles)
		} else if ok && !anyMore && line.Blocks != warmSz.capacity.Blocks {
			t.Fatalf("no stage's scratch over its peak, yet a first start holds %d blocks, not %d", line.Blocks, warmSz.capacity.Blocks)
		} else if ok && (line.Blocks != coldSz.capacity.Blocks || line.LoggedTokens != coldSz.capacity.LoggedTokens) {
			t.Fatalf("warm report says %d blocks, %d tokens on a first start; --compile-cache cold sizes %d, %d",
				line.Blocks, line.LoggedTokens, coldSz.capacity.Blocks, coldSz.capacity.LoggedTokens)
		}
		if _, ok := coldSz.coldCapacity(); ok {
			t.Fatal("a serve sized cold still has the first-start line")
		}
	})
}

// TestColdCompileRows: the rows whose start compiled cold, sized with
// --compile-cache cold (and the settings the row names), log within 2% of
// the tokens predicted: row 307 (-0.6%) and rows 322-323 (+1.2%), whose
// logs state no cold peak to set the rule on (rows 212 and 206 do,
// TestColdCompileScratch). Row 212 is sized in TestColdCompileRow212.
func TestColdCompileRows(t *testing.T) {
	archs := observedArchs(t)
	catalog := membudget.Kernels()
	cases := []struct {
		row, model, class, version string
		s                          Serve
		logged                     uint64 // corpus/observed/vllm.csv kv_cache_tokens
	}{
		{"307", "Qwen__Qwen3-8B", "rtx-5090", "0.24.0", Serve{GPUMemoryUtilization: 0.92, MaxModelLen: 32768}, 89040},
		{"322", "openai__gpt-oss-20b", "l40", "0.28.0", Serve{GPUMemoryUtilization: 0.9, MaxModelLen: 8192, MaxNumSeqs: 16, KVCacheDtype: "auto"}, 698207},
		{"323", "openai__gpt-oss-20b", "l40", "0.28.0", Serve{GPUMemoryUtilization: 0.9, MaxModelLen: 8192, MaxNumSeqs: 16, KVCacheDtype: "fp8"}, 1396414},
	}
	for _, tc := range cases {
		a := archs[tc.model]
		if a == nil {
			t.Fatalf("row %s: no config for %s", tc.row, tc.model)
		}
		c, err := catalog.Load(tc.class)
		if err != nil {
			t.Fatal(err)
		}
		tc.s.ColdCompileCache = true
		sz, err := Size(&hub.Loaded{Name: a.Source, Arch: a}, c, tc.s, mustProfile(tc.version))
		if err != nil {
			t.Fatalf("row %s: %v", tc.row, err)
		}
		got := sz.capacity.LoggedTokens
		t.Logf("row %s: %d tokens sized cold, %d logged", tc.row, got, tc.logged)
		if off := float64(got)/float64(tc.logged) - 1; off > 0.02 || off < -0.02 {
			t.Errorf("row %s: %d tokens sized cold, %d logged: %+.1f%%", tc.row, got, tc.logged, 100*off)
		}
	}
}

// TestColdCompileRow212 sizes the two starts of corpus/observed/vllm.csv
// rows 212 and 324: one RunPod RTX 4090 worker, vLLM 0.27.1 on the V2 model
// runner, Qwen3-8B bf16 at 0.27.1's default util 0.92 (the logs' "Desired
// GPU memory utilization is (0.92, 21.64 GiB)") and max_model_len 8192,
// 256 sequences and 2048 batched tokens (the 4090's defaults). Row 212
// compiled cold (torch.compile 38.96 s, peak activation 1.18 GiB), row 324
// is the next start on the same worker, its compile cache loaded (0.30 s,
// 0.19 GiB). By hand:
//   - budget: ceil(0.92 x 25,286,410,240 B, the rtx-4090 class) =
//     23,263,497,421 B (vllm/v1/worker/utils.py request_memory rounds up);
//   - weights 16,391,956,480 B (the logs' 15.27 GiB);
//   - beside them: activation 2048 tokens x 106,496 B + the 52 MiB
//     residual = 272,629,760 B (peaks.go), non-torch growth 256 MiB =
//     268,435,456 B, V2 request state 169,930,756 B (v2state.go): 710,995,972
//     B, about 0.66 GiB where the warm log leaves 15.54 - 15.27 + 0.19 = 0.46;
//   - left: 23,263,497,421 - 16,391,956,480 - 710,995,972 = 6,160,544,969 B,
//     over pages of 16 tokens x 36 layers x 8 KV heads x 128 x 2 (K, V) x 2 B
//     = 2,359,296 B: 2611 blocks (2611.18), 41,776 tokens warm;
//   - cold: the scratch, the table 151,936 x 4096 x 2 B = 1,244,659,712 B
//     and the output 2048 x 4096 x 2 B = 16,777,216 B, 1,261,436,928 B,
//     less the forward's 272,629,760 B: 988,807,168 B more activation,
//     which leaves 5,171,737,801 B, 2192 blocks (2192.07), 35,072 tokens.
//
// vLLM logs 43,040 tokens warm (2690 blocks) and 35,792 cold (2237): the
// model is 2.9% and 2.0% under, on the safe side. The cold peak modelled,
// 1,261,436,928 B (1.175 GiB), is the log's 1.18 within its rounding; the
// compile's share, 419 blocks where the logs' is 453, is short by what the
// warm activation is charged over the log's (0.25 GiB, 0.19 logged).
func TestColdCompileRow212(t *testing.T) {
	a := observedArchs(t)["Qwen__Qwen3-8B"]
	if a == nil {
		t.Fatal("no config for Qwen3-8B")
	}
	c := kernelClass(t, "rtx-4090")
	type got struct{ Blocks, Tokens uint64 }
	size := func(cold bool) (*Sizing, got) {
		s := Serve{GPUMemoryUtilization: 0.92, MaxModelLen: 8192, ColdCompileCache: cold}
		sz, err := Size(&hub.Loaded{Name: a.Source, Arch: a}, c, s, mustProfile("0.27.1"))
		if err != nil {
			t.Fatal(err)
		}
		return sz, got{sz.capacity.Blocks, sz.capacity.LoggedTokens}
	}
	warmSz, warm := size(false)
	_, cold := size(true)
	if diff := cmp.Diff(got{2611, 41776}, warm); diff != "" {
		t.Errorf("warm start (row 324) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(got{2192, 35072}, cold); diff != "" {
		t.Errorf("cold start (row 212) (-want +got):\n%s", diff)
	}
	const loggedWarm, loggedCold = 2690, 2237 // 43,040 and 35,792 tokens / 16
	if warm.Blocks > loggedWarm || cold.Blocks > loggedCold {
		t.Errorf("sized %d and %d blocks, over the %d and %d vLLM logs", warm.Blocks, cold.Blocks, loggedWarm, loggedCold)
	}
	// The cold peak: the scratch of the serve as sized (its defaults'
	// 2048 batched tokens on the 4090), over the forward's 272,629,760 B,
	// the hand figure above and within the log's 0.01 GiB of its 1.18.
	const peak, logged = 1261436928, 1.18
	if got := warmSz.coldScratch(); got != peak {
		t.Errorf("cold peak %d B, want %d by hand", got, uint64(peak))
	}
	if off := float64(warmSz.coldScratch())/(1<<30) - logged; off > 0.01 || off < -0.01 {
		t.Errorf("cold peak %.3f GiB, the log's %.2f", float64(warmSz.coldScratch())/(1<<30), logged)
	}
}

// TestCompileCacheNote: plan's note on the compile cache follows the
// report's rule (Resolved.compiles), so that no note names a first start's
// compile where no deployment compiles. By hand: V0 compiles nothing by
// default (0.8.5:v0); -O0 sets mode NONE; --compilation-config's mode
// overrides -O, so -O0 with mode 3 compiles and mode 0 with -O3 does not.
func TestCompileCacheNote(t *testing.T) {
	v0 := mustProfile("0.8.5:v0")
	const none, warm, cold = "", "each command is sized for a start whose torch.compile cache is filled", "each command is sized for a first start with an empty torch.compile cache"
	for _, tc := range []struct {
		name string
		p    Profile
		c    Compilation
		cold bool
		want string
	}{
		{"main default, warm", current, Compilation{}, false, warm},
		{"main default, cold", current, Compilation{}, true, cold},
		{"main -O0, cold", current, Compilation{Level: "0"}, true, none},
		{"main mode 0 over -O3", current, Compilation{Level: "3", Mode: "0"}, true, none},
		{"main mode 3 over -O0", current, Compilation{Level: "0", Mode: "3"}, true, cold},
		{"V0, warm", v0, Compilation{}, false, none},
		{"V0, cold", v0, Compilation{}, true, none},
		// 0.11.0 runs torch 2.8: no combo-kernel benchmark, the first
		// start not modelled (coldScratchSince); plan refuses it cold
		// (TestColdUnmodelledRelease).
		{"0.11.0, warm", mustProfile("0.11.0"), Compilation{}, false, warm + ": what a first start's torch.compile allocates is not modelled"},
		{"0.11.1, warm", mustProfile("0.11.1"), Compilation{}, false, warm + ": a first start with an empty one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := compileCacheNote(tc.p, tc.c, tc.cold)
			if !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
				t.Errorf("note = %q, want it to start %q", got, tc.want)
			}
		})
	}
}

// TestColdCompileLabelFits: the ledger line's label is within the label
// column, so that its figures line up with the other rows' (the first
// label, 48 characters, pushed them 22 columns right).
func TestColdCompileLabelFits(t *testing.T) {
	if len(coldCompileLabel) > words.Width {
		t.Errorf("%q: %d characters, the column holds %d", coldCompileLabel, len(coldCompileLabel), words.Width)
	}
}

// TestColdCompileUnderForward: where the forward's peak is larger than the
// compile's scratch, a first start takes nothing more, and the report says
// the same tokens: rows 241 and 240 of corpus/observed/vllm.csv (RTX PRO
// 6000, 0.27.1, 8192 batched tokens, both cold starts). By hand:
//   - row 241 (Qwen3-32B at TP 2): the scratch is half the table, 75,968 x
//     5120 x 2 B = 777,912,320 B, and the output, 8192 x 5120 x 2 B =
//     83,886,080 B: 861,798,400 B, under the forward's 8192 x (4 x 5120 +
//     3 x 12,800) x 2 B = 964,689,920 B and the 52 MiB residual,
//     1,019,215,872 B;
//   - row 240 (Qwen3-235B-A22B-FP8 at TP 4, 32 sequences): a quarter of
//     151,936 x 4096 x 2 B, 311,164,928 B, and 8192 x 4096 x 2 B =
//     67,108,864 B: 378,273,792 B, under a forward of 0.94 GiB.
func TestColdCompileUnderForward(t *testing.T) {
	archs := observedArchs(t)
	c := kernelClass(t, "rtx-pro-6000")
	for _, tc := range []struct {
		row, model string
		s          Serve
		scratch    uint64 // by hand, above
	}{
		{"241", "Qwen__Qwen3-32B", Serve{TensorParallelSize: 2, GPUMemoryUtilization: 0.426, MaxModelLen: 32768}, 861798400},
		{"240", "Qwen__Qwen3-235B-A22B-FP8", Serve{TensorParallelSize: 4, GPUMemoryUtilization: 0.9, MaxModelLen: 32768, MaxNumSeqs: 32}, 378273792},
	} {
		a := archs[tc.model]
		if a == nil {
			t.Fatalf("row %s: no config for %s", tc.row, tc.model)
		}
		m := &hub.Loaded{Name: a.Source, Arch: a}
		warm, err := Size(m, c, tc.s, mustProfile("0.27.1"))
		if err != nil {
			t.Fatalf("row %s: %v", tc.row, err)
		}
		if got := warm.coldScratch(); got != tc.scratch {
			t.Errorf("row %s: scratch %d B, want %d by hand", tc.row, got, tc.scratch)
		}
		if got := warm.coldExtra(); got != 0 {
			t.Errorf("row %s: the compile adds %d B, want none", tc.row, got)
		}
		tc.s.ColdCompileCache = true
		cold, err := Size(m, c, tc.s, mustProfile("0.27.1"))
		if err != nil {
			t.Fatalf("row %s cold: %v", tc.row, err)
		}
		if cold.capacity.Blocks != warm.capacity.Blocks {
			t.Errorf("row %s: %d blocks cold, %d warm; want the same", tc.row, cold.capacity.Blocks, warm.capacity.Blocks)
		}
		var w bytes.Buffer
		warm.writeColdCompile(&w)
		if !strings.Contains(w.String(), "stays under the forward pass's peak") {
			t.Errorf("row %s: line %q, want the scratch under the forward's peak", tc.row, w.String())
		}
	}
}

// TestColdUnmodelledRelease: vLLM turns on Inductor's combo-kernel
// benchmarks, whose copy of the embedding table a cold compile's scratch
// is, only on torch 2.9 or later, first shipped in vLLM 0.11.1 (PR
// #26682 on a torch 2.8.0 main; torch 2.9.0 for v0.11.1, PR #26416). On
// 0.11.0 a cold start of a compiled serve is refused naming the flag or
// the variable that asks for it, and the warm report says the first start
// is not modelled rather than charging the table; 0.11.1 sizes it. A serve
// that compiles nothing (--enforce-eager) or whose KV cache is pinned has
// nothing to refuse.
func TestColdUnmodelledRelease(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	m := &hub.Loaded{Name: a.Source, Arch: a}
	c := testClass(false)
	tests := []struct {
		name, version string
		cold          bool
		env           string // VLLM_DISABLE_COMPILE_CACHE, "" unset
		eager         bool
		pinned        uint64
		refused       string // the flag or variable named, "" where sized
		line          string // in the report's text, where sized
	}{
		{"0.11.0 cold", "0.11.0", true, "", false, 0, "compile-cache", ""},
		{"0.11.0 env", "0.11.0", false, "1", false, 0, compileCacheEnv, ""},
		{"0.11.0 warm", "0.11.0", false, "", false, 0, "", "is not modelled for vLLM 0.11.0"},
		{"0.11.0 cold eager", "0.11.0", true, "", true, 0, "", ""},
		{"0.11.0 cold pinned", "0.11.0", true, "", false, 8 << 30, "", ""},
		{"0.11.1 cold", "0.11.1", true, "", false, 0, "", ""},
		{"0.11.1 warm", "0.11.1", false, "", false, 0, "", "Inductor benchmarks its kernels"},
	}
	for _, tt := range tests {
		f := &flagServe{given: map[string]bool{}}
		f.version = tt.version
		f.s = Serve{MaxModelLen: 4096, MaxNumSeqs: 16, MaxNumBatchedTokens: 2048, ColdCompileCache: tt.cold, EnforceEager: tt.eager, KVCacheMemoryBytes: tt.pinned}
		if tt.env != "" {
			f.SetEnv(compileCacheEnv, tt.env, "the environment")
		}
		got, err := f.Size(m, c)
		if tt.refused != "" {
			var se *engine.SettingError
			if !errors.As(err, &se) || se.Flag != tt.refused || !strings.Contains(se.Reason, "not modelled for vLLM 0.11.0") {
				t.Errorf("%s: %v, want refused naming %s", tt.name, err, tt.refused)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		sz := got.(*Sizing)
		var b bytes.Buffer
		sz.writeColdCompile(&b)
		if tt.line == "" && b.Len() > 0 || !strings.Contains(b.String(), tt.line) {
			t.Errorf("%s: the first-start line %q, want one holding %q", tt.name, b.String(), tt.line)
		}
		if _, ok := sz.coldCapacity(); ok && !sz.Serve.coldModelled() {
			t.Errorf("%s: a first start sized on a release before %s", tt.name, coldScratchSince)
		}
	}
	// plan refuses it by name before searching, where every deployment's
	// Resolve would refuse it and the search report that none holds.
	p := &planSearch{version: "0.11.0", coldCompile: true}
	_, err := p.Search(m, engine.Need{Length: 4096, Concurrency: 8}, engine.PlanSpace{}, nil)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "compile-cache" {
		t.Errorf("plan --vllm-version 0.11.0 --compile-cache cold: %v, want refused naming compile-cache", err)
	}
}

// TestColdScratchMultimodal: a multimodal serve's runners look the input
// embeddings up outside the compiled model and pass it inputs_embeds (V1
// gpu_model_runner.py:6189-6190, V2 gpu/model_runner.py:1521-1555 at
// d18bb7b), so no compiled kernel takes the embedding table and its
// compile benchmarks no copy of it: the scratch is 0 and the report says
// why. Served as text only (--language-model-only) the runners feed token
// ids and the table is charged: Qwen2.5-VL-7B's 152,064 (a multiple of 64)
// x 3584 x 2 B = 1,089,994,752 B (152,064 x 7168: 1,064,448,000 +
// 25,546,752) and the output 2048 x 3584 x 2 B =
// 14,680,064 B: 1,104,674,816 B.
func TestColdScratchMultimodal(t *testing.T) {
	a := shipped(t)["Qwen__Qwen2.5-VL-7B-Instruct"]
	m := &hub.Loaded{Name: a.Source, Arch: a}
	for _, tc := range []struct {
		name     string
		textOnly bool
		want     uint64 // by hand, above
	}{
		{"multimodal", false, 0},
		{"--language-model-only", true, 1104674816},
	} {
		f := &flagServe{given: map[string]bool{}}
		f.version = "main"
		f.s = Serve{MaxModelLen: 4096, MaxNumSeqs: 16, MaxNumBatchedTokens: 2048}
		f.s.MM.LanguageModelOnly = tc.textOnly
		got, err := f.Size(m, testClass(false))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sz := got.(*Sizing)
		if s := coldCompileScratch(a, sz.Serve, stageOf(sz.Serve, 0)); s != tc.want {
			t.Errorf("%s: scratch %d B, want %d", tc.name, s, tc.want)
		}
		var b bytes.Buffer
		sz.writeColdCompile(&b)
		if outside := strings.Contains(b.String(), "runs outside the compiled forward"); outside != (tc.want == 0) {
			t.Errorf("%s: the first-start line %q", tc.name, b.String())
		}
	}
}
