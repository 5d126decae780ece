package vllm

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
)

// run returns the sizes 1, 2, 4, then every 8 from 8 below 256, then every
// 16 from 256, up to largest: the default list, written out by hand.
func run(largest uint64) []uint64 {
	var out []uint64
	for _, s := range []uint64{1, 2, 4} {
		if s <= largest {
			out = append(out, s)
		}
	}
	for s := uint64(8); s <= largest && s < 256; s += 8 {
		out = append(out, s)
	}
	for s := uint64(256); s <= largest; s += 16 {
		out = append(out, s)
	}
	return out
}

// TestGraphsByHand resolves the CUDA graphs of Llama-3.1-8B for settings
// of several releases, each against vLLM's _set_cudagraph_sizes
// (vllm/config/vllm.py:1925-2038) and the dispatcher's modes
// (vllm/v1/cudagraph_dispatcher.py:166-231) worked by hand.
func TestGraphsByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	with := func(sizes ...uint64) []uint64 { return sizes }
	cases := []struct {
		name    string
		version string
		s       Serve
		// mode, the sizes, and the mixed and FULL decode counts.
		mode          string
		sizes         []uint64
		mixed, decode uint64
		fullAsBoth    bool
	}{
		// min(2 x 1024, 512) = 512: 3 + 31 + 17 = 51 sizes, all decode
		// sizes (<= 1024 sequences).
		{"main's default", "main", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192},
			graphsFullAndPiecewise, run(512), 51, 51, false},
		// min(2 x 64, 512) = 128: 1, 2, 4 and 8 to 128 (16) = 19; the
		// decode sizes up to 64: 3 + 8 = 11.
		{"64 sequences", "main", Serve{MaxNumSeqs: 64, MaxNumBatchedTokens: 8192},
			graphsFullAndPiecewise, run(128), 19, 11, false},
		// 0.22.0 (PR #40734): min(512, 300 tokens) = 300; the run to 288
		// (3 + 31 + 3 = 37) and 300 itself: 38; decode up to 256: 35.
		{"batched tokens captured from 0.22.0", "0.22.0", Serve{MaxNumSeqs: 256, MaxNumBatchedTokens: 300},
			graphsFullAndPiecewise, append(run(288), 300), 38, 35, false},
		// 0.21.0 before PR #40734: the run to 288 alone.
		{"batched tokens not captured in 0.21.0", "0.21.0", Serve{MaxNumSeqs: 256, MaxNumBatchedTokens: 300},
			graphsFullAndPiecewise, run(288), 37, 35, false},
		// -O1: PIECEWISE (vllm/config/vllm.py:257), every size mixed.
		{"-O1", "main", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: Compilation{Level: "1"}},
			graphsPiecewise, run(512), 51, 0, false},
		{"-O3 is -O2", "0.14.0", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: Compilation{Level: "3"}},
			graphsFullAndPiecewise, run(512), 51, 51, false},
		// -O0: no graphs (vllm/config/vllm.py:234).
		{"-O0", "main", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: Compilation{Level: "0"}},
			graphsNone, nil, 0, 0, false},
		// -O0 with FULL_DECODE_ONLY: full graphs need no piecewise
		// compilation, so the mode stands (vllm/config/vllm.py:1416-1427);
		// 16 sequences: the run to 32 (7 sizes), decode up to 16 (5).
		{"-O0 with FULL_DECODE_ONLY", "main", Serve{MaxNumSeqs: 16, MaxNumBatchedTokens: 8192, Compilation: Compilation{Level: "0", GraphMode: graphsFullDecodeOnly}},
			graphsFullDecodeOnly, run(32), 0, 5, false},
		// A compilation mode other than VLLM_COMPILE cannot compile
		// piecewise: FULL_AND_PIECEWISE becomes NONE.
		{"mode 2 with the default graphs", "main", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: Compilation{Mode: "2"}},
			graphsNone, nil, 0, 0, false},
		{"cudagraph_mode NONE", "main", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: Compilation{GraphMode: graphsNone}},
			graphsNone, nil, 0, 0, false},
		{"--enforce-eager over FULL", "main", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, EnforceEager: true, Compilation: Compilation{GraphMode: graphsFull}},
			graphsNone, nil, 0, 0, false},
		// FULL: charged as FULL_AND_PIECEWISE, what it falls back to.
		{"FULL", "main", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: Compilation{GraphMode: graphsFull}},
			graphsFull, run(512), 51, 51, true},
		// Sizes given: without duplicates, 9000 above the 8192 tokens
		// dropped, sorted.
		{"sizes given", "main", Serve{MaxNumSeqs: 2, MaxNumBatchedTokens: 8192, Compilation: Compilation{SizesKey: "4 1 4 9000"}},
			graphsFullAndPiecewise, with(1, 4), 2, 1, false},
		{"sizes by flag", "0.19.0", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: Compilation{SizesFlag: "1 2 4 8"}},
			graphsFullAndPiecewise, with(1, 2, 4, 8), 4, 4, false},
		// The largest given alone, 500: the run to 496 (3 + 31 + 16 = 50),
		// the largest lowered to 496 ("Truncating").
		{"the largest size given", "main", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: Compilation{MaxFlag: 500}},
			graphsFullAndPiecewise, run(500), 50, 50, false},
		// Above the default ceiling, up to the tokens: 1024 x 2 = 2048, the
		// largest 1024 given: 3 + 31 + 49 = 83.
		{"the largest above 512", "main", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: Compilation{MaxKey: 1024}},
			graphsFullAndPiecewise, run(1024), 83, 83, false},
		// Before 0.14.0 the release's default: -O3 was its compilation level.
		{"0.13.0's default", "0.13.0", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: Compilation{Level: "2"}},
			graphsFullAndPiecewise, run(512), 51, 51, false},
		{"0.10.2's -O3", "0.10.2", Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: Compilation{Level: "3"}},
			graphsFullAndPiecewise, run(512), 51, 51, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolve(tc.s, a, bigClass, mustProfile(tc.version))
			if err != nil {
				t.Fatal(err)
			}
			g := r.Graphs
			if g.Mode != tc.mode || g.FullAsBoth != tc.fullAsBoth {
				t.Errorf("mode %s (as both %v), want %s (%v)", g.Mode, g.FullAsBoth, tc.mode, tc.fullAsBoth)
			}
			if tc.mode != graphsNone {
				if diff := cmp.Diff(tc.sizes, g.Sizes); diff != "" {
					t.Errorf("sizes (-want +got):\n%s", diff)
				}
			}
			if mixed, decode := g.counts(); mixed != tc.mixed || decode != tc.decode {
				t.Errorf("graphs %d mixed, %d decode; want %d, %d", mixed, decode, tc.mixed, tc.decode)
			}
		})
	}
}

// TestGraphTermByHand pins the graph term of Llama-3.1-8B (32 layers,
// 118784 B a token in the forward pass) for two serves:
// PIECEWISE over 1, 2, 4 and 8: 324 MiB + 8 x 118784 B for the first
// capture and 3 more graphs of 32 layers at 153 KiB;
// FULL_DECODE_ONLY up to 64: 11 sizes, 324 MiB + 64 x 118784 B and 10
// more graphs.
func TestGraphTermByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	cases := []struct {
		name string
		c    Compilation
		want uint64
	}{
		{"PIECEWISE, 4 sizes", Compilation{Level: "1", SizesKey: "1 2 4 8"}, 324<<20 + 8*118784 + 3*32*(153<<10)},
		{"FULL_DECODE_ONLY to 64", Compilation{GraphMode: graphsFullDecodeOnly, MaxFlag: 64}, 324<<20 + 64*118784 + 10*32*(153<<10)},
		// FULL_AND_PIECEWISE to 8: 4 + 4 graphs, 3 more per mode.
		{"FULL_AND_PIECEWISE, 4 sizes", Compilation{SizesFlag: "8 4 2 1"}, 324<<20 + 8*118784 + 6*32*(153<<10)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolve(Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: tc.c}, a, bigClass, current)
			if err != nil {
				t.Fatal(err)
			}
			st := stageOf(&r, 0)
			if per := forwardBytesPerToken(a, 1, 2); per != 118784 {
				t.Fatalf("forward pass %d B a token, want 118784", per)
			}
			if got := graphBytes(&r, st, 118784); got != tc.want {
				t.Errorf("graph term %d B, want %d", got, tc.want)
			}
		})
	}
}

// TestNoneIsEnforceEager: cudagraph_mode NONE and -O0 leave the ledger
// exactly as --enforce-eager does (no graph item), fewer sizes a smaller
// term, and the default's term is the one of its sizes given explicitly.
func TestNoneIsEnforceEager(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	items := func(s Serve) []budget.Item {
		t.Helper()
		s.MaxNumSeqs, s.MaxNumBatchedTokens = 1024, 8192
		r, err := Resolve(s, a, bigClass, current)
		if err != nil {
			t.Fatal(err)
		}
		return peakItems(a, &r, stageOf(&r, 0))
	}
	eager := items(Serve{EnforceEager: true})
	for _, c := range []Compilation{{GraphMode: graphsNone}, {Level: "0"}, {Mode: "0"}} {
		if diff := cmp.Diff(eager, items(Serve{Compilation: c})); diff != "" {
			t.Errorf("%+v against --enforce-eager (-want +got):\n%s", c, diff)
		}
	}
	graph := func(s Serve) uint64 {
		for _, it := range items(s) {
			if it.Term == budget.TermGraphPool {
				return it.Bytes
			}
		}
		return 0
	}
	def := graph(Serve{})
	explicit := graph(Serve{Compilation: Compilation{SizesKey: sprintSizes(run(512))}})
	if def != explicit {
		t.Errorf("the default's term %d B, its sizes given %d B", def, explicit)
	}
	if fewer := graph(Serve{Compilation: Compilation{SizesKey: "1 2 4 8"}}); fewer >= def {
		t.Errorf("4 sizes: %d B, not below the default's 51: %d B", fewer, def)
	}
}

// sprintSizes writes sizes as sizesString does.
func sprintSizes(sizes []uint64) string {
	parts := make([]string, len(sizes))
	for i, s := range sizes {
		parts[i] = strconv.FormatUint(s, 10)
	}
	return strings.Join(parts, " ")
}

// TestCompilationRefusals: what vLLM refuses, and what membudget does not
// size, each naming its flag.
func TestCompilationRefusals(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	cases := []struct {
		name    string
		version string
		s       Serve
		flag    string
		reason  string
	}{
		{"sizes twice", "main", Serve{Compilation: Compilation{SizesKey: "1", SizesFlag: "1"}}, "cudagraph-capture-sizes", "mutually exclusive"},
		{"largest twice", "main", Serve{Compilation: Compilation{MaxKey: 8, MaxFlag: 8}}, "max-cudagraph-capture-size", "mutually exclusive"},
		// vllm/config/vllm.py:2005-2014: both given, inconsistent.
		{"largest not the sizes'", "main", Serve{Compilation: Compilation{SizesKey: "1 2 4", MaxKey: 8}}, "compilation-config", "must be the largest of cudagraph_capture_sizes (4"},
		{"the old level key", "main", Serve{Compilation: Compilation{Mode: "3", OldLevelKey: true}}, "compilation-config", `removed the deprecated "level"`},
		{"-O1 before 0.14.0", "0.13.0", Serve{Compilation: Compilation{Level: "1"}}, "optimization-level", "not modelled for vLLM 0.13.0"},
		{"sizes before 0.14.0", "0.13.0", Serve{Compilation: Compilation{SizesFlag: "1 2"}}, "cudagraph-capture-sizes", "not modelled for vLLM 0.13.0"},
		{"-O3 on V0", "0.8.5:v0", Serve{Compilation: Compilation{Level: "3"}}, "optimization-level", "not modelled for vLLM 0.8.5"},
		{"override before 0.20.2", "0.20.1", Serve{NumGPUBlocksOverride: 100}, "num-gpu-blocks-override", "not modelled for vLLM 0.20.1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(tc.s, a, bigClass, mustProfile(tc.version))
			var se *engine.SettingError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a setting error of --%s", err, tc.flag)
			}
			if se.Flag != tc.flag || !strings.Contains(se.Reason, tc.reason) {
				t.Errorf("got --%s: %s; want --%s saying %q", se.Flag, se.Reason, tc.flag, tc.reason)
			}
		})
	}
}

// TestCompilationFlags parses the flags as a line gives them: JSON keys
// merged, dotted forms, the neutral keys listed, the others refused.
func TestCompilationFlags(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		want    Compilation
		listed  []string
		wantErr string
	}{
		{"every key", []string{`--compilation-config={"cudagraph_mode":"full_decode_only","mode":"VLLM_COMPILE","cudagraph_capture_sizes":[8,1],"max_cudagraph_capture_size":8}`},
			Compilation{GraphMode: graphsFullDecodeOnly, Mode: "3", SizesKey: "8 1", MaxKey: 8}, nil, ""},
		{"dotted forms merge", []string{`-cc={"cudagraph_mode":1}`, `-cc={"max_cudagraph_capture_size":16}`},
			Compilation{GraphMode: graphsPiecewise, MaxKey: 16}, nil, ""},
		{"flags", []string{"--optimization-level=O1", "--cudagraph-capture-sizes=1 2 4", "--max-cudagraph-capture-size=4"},
			Compilation{Level: "1", SizesFlag: "1 2 4", MaxFlag: 4}, nil, ""},
		{"a neutral key listed", []string{`--compilation-config={"cache_dir":"/c","cudagraph_mode":"NONE"}`},
			Compilation{GraphMode: graphsNone}, []string{`--compilation-config.cache_dir "/c"`}, ""},
		{"a key refused", []string{`--compilation-config={"splitting_ops":[]}`}, Compilation{}, nil, `key "splitting_ops"`},
		{"a mode of none", []string{`--compilation-config={"cudagraph_mode":"HALF"}`}, Compilation{}, nil, `"HALF" is not one of`},
		{"an empty list", []string{`--compilation-config={"cudagraph_capture_sizes":[]}`}, Compilation{}, nil, "at least one size"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c Compilation
			var listed []string
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			registerCompilation(fs, &c, &listed)
			err := fs.Parse(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c); diff != "" {
				t.Errorf("compilation (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.listed, listed); diff != "" {
				t.Errorf("listed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCompilationLineReadsBack: the printed flags, read again, give the
// same settings.
func TestCompilationLineReadsBack(t *testing.T) {
	for _, c := range []Compilation{
		{Level: "1"},
		{GraphMode: graphsFullDecodeOnly, Mode: "3", SizesKey: "8 1 4", MaxKey: 8},
		{SizesFlag: "1 2 4", MaxFlag: 4},
	} {
		var b strings.Builder
		writeCompilationFlags(&b, c)
		args := (Engine{}).Respell(shellSplit(t, b.String()))
		var got Compilation
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		registerCompilation(fs, &got, new([]string))
		if err := fs.Parse(args); err != nil {
			t.Fatalf("%q: %v", b.String(), err)
		}
		if diff := cmp.Diff(c, got); diff != "" {
			t.Errorf("%q read back (-want +got):\n%s", b.String(), diff)
		}
	}
}

// shellSplit splits a printed line's flags: single quotes hold a JSON
// object whole.
func shellSplit(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '\'' {
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				t.Fatalf("unclosed quote in %q", s)
			}
			out = append(out, s[1:end+1])
			s = s[end+2:]
			continue
		}
		f, rest, _ := strings.Cut(s, " ")
		out, s = append(out, f), rest
	}
	return out
}

// TestLoggedCompilation reads the compilation config of an engine config
// line (a Python dict) and of JSON.
func TestLoggedCompilation(t *testing.T) {
	cases := []struct {
		value, read string
		want        Compilation
	}{
		{"{'mode': <CompilationMode.VLLM_COMPILE: 3>, 'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'cudagraph_capture_sizes': [8, 4, 2, 1]}",
			"cudagraph_mode=FULL_AND_PIECEWISE, 4 capture sizes", Compilation{GraphMode: graphsFullAndPiecewise, SizesKey: "8 4 2 1"}},
		{"{'cudagraph_mode': <CUDAGraphMode.NONE: 0>}", "cudagraph_mode=NONE", Compilation{GraphMode: graphsNone}},
		{`{"splitting_ops":[],"cudagraph_capture_sizes":[256,248],"max_capture_size":256}`, "2 capture sizes", Compilation{SizesKey: "256 248"}},
		{"{'level': 3}", "", Compilation{}},
	}
	for _, tc := range cases {
		var c Compilation
		read, err := applyLoggedCompilation(&c, tc.value)
		if err != nil {
			t.Fatalf("%s: %v", tc.value, err)
		}
		if read != tc.read || c != tc.want {
			t.Errorf("%s: read %q %+v, want %q %+v", tc.value, read, c, tc.read, tc.want)
		}
	}
}

// TestBlocksOverrideCapacity: Llama-3.1-8B's block is 32 layers x 2 x 8
// heads x 128 x 2 B x 16 tokens = 2 MiB; 10000 blocks hold 160000 tokens
// in 20000 MiB whatever the util leaves, and 1000 blocks (16000 tokens)
// refuse a 131072-token request, with 16000 as vLLM's estimate.
func TestBlocksOverrideCapacity(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	cases := []struct {
		blocks, maxLen uint64
		starts         bool
		estimate       uint64
	}{
		{10000, 8192, true, 0},
		{1000, 131072, false, 16000},
	}
	for _, tc := range cases {
		r, err := NewReference(a, Serve{MaxModelLen: tc.maxLen, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, NumGPUBlocksOverride: tc.blocks}, testClass(false), current)
		if err != nil {
			t.Fatal(err)
		}
		c := r.Capacity()
		if c.Blocks != tc.blocks || c.AvailableBytes != tc.blocks*(2<<20) || c.Tokens != tc.blocks*16 {
			t.Errorf("%d blocks: capacity %d blocks, %d B, %d tokens", tc.blocks, c.Blocks, c.AvailableBytes, c.Tokens)
		}
		if c.Starts != tc.starts || !tc.starts && c.EstimatedMaxModelLen != tc.estimate {
			t.Errorf("%d blocks at %d: starts %v (estimate %d), want %v (%d)", tc.blocks, tc.maxLen, c.Starts, c.EstimatedMaxModelLen, tc.starts, tc.estimate)
		}
		// The compiled plan holds the same blocks.
		_, plan, err := NewCompiler(a).Compile(Serve{MaxModelLen: tc.maxLen, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, NumGPUBlocksOverride: tc.blocks}, testClass(false), current)
		if err != nil {
			t.Fatal(err)
		}
		if got := kvCacheBytes(plan); got != tc.blocks*(2<<20) {
			t.Errorf("%d blocks: the plan's KV cache %d B, want %d", tc.blocks, got, tc.blocks*(2<<20))
		}
	}
}

// TestCapturingMoreSizesNeverShrinksFootprint: a list of capture sizes and
// any list that holds it, under any mode, charge the larger graph term to
// the superset, and so no smaller footprint.
func TestCapturingMoreSizesNeverShrinksFootprint(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	rapid.Check(t, func(t *rapid.T) {
		base := rapid.SliceOfNDistinct(rapid.Uint64Range(1, 8192), 1, 40, rapid.ID).Draw(t, "base")
		extra := rapid.SliceOfN(rapid.Uint64Range(1, 9000), 0, 40).Draw(t, "extra")
		mode := rapid.SampledFrom(graphModes).Draw(t, "mode")
		seqs := rapid.Uint64Range(1, 2048).Draw(t, "max_num_seqs")
		more := append(slices.Clone(base), extra...)
		term := func(sizes []uint64) uint64 {
			s := Serve{MaxNumSeqs: seqs, MaxNumBatchedTokens: 8192, Compilation: Compilation{GraphMode: mode, SizesKey: sprintSizes(sizes)}}
			r, err := Resolve(s, a, bigClass, current)
			if err != nil {
				t.Fatal(err)
			}
			var n uint64
			for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
				n = budget.SatAdd(n, it.Bytes)
			}
			return n
		}
		if small, big := term(base), term(more); big < small {
			t.Fatalf("%d sizes: %d B; %d sizes holding them: %d B", len(base), small, len(more), big)
		}
	})
}

// TestBuildServeReadsCompilation: a log's non-default args (-O, the
// capture-size flags) and its engine config's compilation_config fill the
// serve; the resolved sizes stand for a largest size given, and before
// 0.14.0 the log's compilation is left to the release's default.
func TestBuildServeReadsCompilation(t *testing.T) {
	log := "INFO non-default args: {'model': 'm', 'optimization_level': 1, 'max_cudagraph_capture_size': 500, 'num_gpu_blocks_override': 2048}\n" +
		"INFO Initializing a V1 LLM engine (v0.22.0) with config: model='m', compilation_config={'mode': <CompilationMode.VLLM_COMPILE: 3>, 'cudagraph_mode': <CUDAGraphMode.PIECEWISE: 1>, 'cudagraph_capture_sizes': [1, 2, 4, 496]}\n"
	got, err := buildServe(logSource(t, log).Log, Serve{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got.dropUnsizedCompilation(mustProfile("0.22.0"), nil)
	want := Compilation{Level: "1", GraphMode: graphsPiecewise, SizesKey: "1 2 4 496"}
	if diff := cmp.Diff(want, got.Serve.Compilation); diff != "" {
		t.Errorf("compilation (-want +got):\n%s", diff)
	}
	if got.Serve.NumGPUBlocksOverride != 2048 || got.From["num-gpu-blocks-override"].Line != 1 || got.From["compilation-config"].Line != 2 {
		t.Errorf("override %d, sources %+v", got.Serve.NumGPUBlocksOverride, got.From)
	}
	old, err := buildServe(logSource(t, log).Log, Serve{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	old.dropUnsizedCompilation(mustProfile("0.13.0"), nil)
	if old.Serve.Compilation.Given() || old.Serve.NumGPUBlocksOverride != 0 {
		t.Errorf("0.13.0 kept %+v, override %d", old.Serve.Compilation, old.Serve.NumGPUBlocksOverride)
	}
	if len(old.Warnings) != 1 || !strings.Contains(old.Warnings[0], "num_gpu_blocks_override") {
		t.Errorf("warnings %q, want the override's (PIECEWISE is a default mode)", old.Warnings)
	}
}

// TestCompilationReport: the report's JSON and the ledger's graph line
// name the mode and the sizes when a setting was given, and say nothing
// new otherwise.
func TestCompilationReport(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	size := func(c Compilation) *Sizing {
		r, err := Resolve(Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, Compilation: c}, a, bigClass, current)
		if err != nil {
			t.Fatal(err)
		}
		return &Sizing{Serve: &r}
	}
	line := []engine.FootprintLine{{Label: "weights"}, {Label: "CUDA graph pool", Beside: true}}
	sz := size(Compilation{GraphMode: graphsFull, SizesFlag: "1 2 4 8"})
	want := &compilationJSON{CUDAGraphMode: graphsFull, ChargedAs: graphsFullAndPiecewise, CaptureSizes: []uint64{1, 2, 4, 8}, MaxCaptureSize: 8}
	if diff := cmp.Diff(want, sz.compilationJSON()); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	got := sz.labelGraphs(slices.Clone(line))
	if want := "CUDA graph pool (FULL, charged as FULL_AND_PIECEWISE: 4 sizes up to 8, 4 decode up to 8)"; got[1].Label != want {
		t.Errorf("graph line %q, want %q", got[1].Label, want)
	}
	sz = size(Compilation{Level: "0"})
	if want := (&compilationJSON{OptimizationLevel: "0", CUDAGraphMode: graphsNone, CaptureSizes: []uint64{}}); !cmp.Equal(want, sz.compilationJSON()) {
		t.Errorf("-O0 JSON %+v, want %+v", sz.compilationJSON(), want)
	}
	if sz := size(Compilation{}); sz.compilationJSON() != nil || sz.labelGraphs(slices.Clone(line))[1].Label != "CUDA graph pool" {
		t.Errorf("the default serve: JSON %+v, graph line %q; want none and the plain label", sz.compilationJSON(), sz.labelGraphs(slices.Clone(line))[1].Label)
	}
}

// FuzzCompilationConfig: any --compilation-config value is read or refused
// with an error, never a panic, and what is read resolves or is refused
// naming a flag.
func FuzzCompilationConfig(f *testing.F) {
	for _, seed := range []string{
		`{"cudagraph_mode":"FULL","cudagraph_capture_sizes":[1,2,4],"max_cudagraph_capture_size":4}`,
		`{"mode":0,"cudagraph_mode":2}`, `{"cache_dir":"/c"}`, `{"cudagraph_capture_sizes":[0]}`,
		`{"cudagraph_capture_sizes":[99999999999999999999]}`, `{"level":3}`, `[]`, `{`,
	} {
		f.Add(seed)
	}
	a := shipped(f)["meta-llama__Llama-3.1-8B-Instruct"]
	f.Fuzz(func(t *testing.T, value string) {
		if len(value) > 1<<12 {
			return
		}
		var c Compilation
		if (&compilationConfigFlag{c: &c, listed: new([]string)}).Set(value) != nil {
			return
		}
		_, err := Resolve(Serve{MaxNumSeqs: 64, MaxNumBatchedTokens: 2048, Compilation: c}, a, bigClass, current)
		var se *engine.SettingError
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("%s: %v is not a setting error", value, err)
		}
	})
}

// TestDefaultSizesShareNoWrites: defaultSizes cuts one shared list, capped
// so that a caller's append (graphSizes adds max_num_batched_tokens) copies
// it rather than writing the next size; above the shared list's end it
// builds its own. 51 sizes up to 512: 1, 2, 4, 31 multiples of 8 below 256
// and 17 multiples of 16 from 256 to 512.
func TestDefaultSizesShareNoWrites(t *testing.T) {
	short := defaultSizes(8)
	_ = append(short, 9)
	if got := defaultSizes(16); got[4] != 16 {
		t.Fatalf("defaultSizes(16)[4] = %d after an append to defaultSizes(8); want 16", got[4])
	}
	if got := defaultSizes(512); len(got) != 51 || got[50] != 512 {
		t.Errorf("defaultSizes(512): %d sizes up to %d; want 51 up to 512", len(got), got[len(got)-1])
	}
	if got := defaultSizes(2048); got[len(got)-1] != 2048 || len(got) != 51+96 {
		// 1024 adds 32 multiples of 16 above 512, 2048 64 more: 51 + 96.
		t.Errorf("defaultSizes(2048): %d sizes up to %d; want %d up to 2048", len(got), got[len(got)-1], 51+96)
	}
	if got := defaultSizes(0); len(got) != 0 {
		t.Errorf("defaultSizes(0) = %v; want none", got)
	}
}
