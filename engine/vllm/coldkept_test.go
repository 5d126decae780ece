package vllm

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/model"
	"membudget/model/hub"
)

// TestColdKeptSegment pins the table copy's allocator segment a first
// start can keep from vLLM 0.26.1 (coldKeptSegment): the copy's bytes
// (vLLM's vocabulary padded to 64, over TP, x hidden x 2 B) rounded up to
// kRoundLarge, 2 MiB, a segment of its own (above kMinLargeAlloc, 10 MiB).
// By hand:
//   - Qwen3-14B: 151,936 x 5120 x 2 B = 1,555,824,640 B = 741.87 x 2 MiB
//     -> 742 x 2,097,152 = 1,556,086,784 B (1.449 GiB);
//   - Qwen3-8B: 151,936 x 4096 x 2 B = 1,244,659,712 B = 593.5 x 2 MiB ->
//     594 x 2,097,152 = 1,245,708,288 B;
//   - Qwen3-32B at TP 2: 75,968 x 5120 x 2 B = 777,912,320 B = 370.94 x
//     2 MiB -> 371 x 2,097,152 = 778,043,392 B;
//   - Qwen2.5-VL-7B served as text only: 152,064 x 3584 x 2 B =
//     1,089,994,752 B = 519.75 x 2 MiB -> 520 x 2,097,152 = 1,090,519,040
//     B; multimodal, its lookup runs outside the compiled forward: none;
//   - none on a later pipeline stage, and none before 0.26.1 (PR #49208),
//     where vLLM charges no such segment;
//   - none for a copy under kMinLargeAlloc, 10 MiB, which has no segment
//     of its own (a block of a shared 2 or 20 MiB pool segment): Qwen3-8B's
//     config with a 256-token vocabulary and hidden 64, 256 x 64 x 2 B =
//     32,768 B (the small pool's 2 MiB before this was mended), and with
//     5056 tokens and hidden 1024, 5056 x 1024 x 2 B = 10,354,688 B,
//     128 KiB under 10 MiB (a 20 MiB segment before); at 5120 tokens,
//     5120 x 1024 x 2 B = 10,485,760 B, 10 MiB exactly, a segment of its
//     own, 5 x 2 MiB.
func TestColdKeptSegment(t *testing.T) {
	archs := shipped(t)
	first := model.Sharding{TP: 1, First: true, Last: true}
	resized := func(name string, vocab, hidden uint64) {
		a := *archs["Qwen__Qwen3-8B"]
		a.Vocab, a.Hidden = vocab, hidden
		archs[name] = &a
	}
	resized("tiny", 256, 64)
	resized("under 10 MiB", 5056, 1024)
	resized("10 MiB", 5120, 1024)
	for _, tc := range []struct {
		name, model, version string
		st                   model.Sharding
		textOnly             bool
		want                 uint64 // by hand, above
	}{
		{"a 32 KiB table", "tiny", "0.28.0", first, false, 0},
		{"a table 128 KiB under 10 MiB", "under 10 MiB", "0.28.0", first, false, 0},
		{"a 10 MiB table", "10 MiB", "0.28.0", first, false, 5 * 2 << 20},
		{"Qwen3-14B", "Qwen__Qwen3-14B", "0.28.0", first, false, 742 * 2 << 20},
		{"Qwen3-14B at 0.26.1", "Qwen__Qwen3-14B", "0.26.1", first, false, 1556086784},
		{"Qwen3-14B at 0.26.0", "Qwen__Qwen3-14B", "0.26.0", first, false, 0},
		{"Qwen3-8B", "Qwen__Qwen3-8B", "0.27.1", first, false, 594 * 2 << 20},
		{"Qwen3-32B TP 2", "Qwen__Qwen3-32B", "0.27.1", model.Sharding{TP: 2, First: true, Last: true}, false, 778043392},
		{"Qwen3-8B last stage", "Qwen__Qwen3-8B", "0.28.0", model.Sharding{TP: 1, Last: true}, false, 0},
		{"Qwen2.5-VL-7B multimodal", "Qwen__Qwen2.5-VL-7B-Instruct", "0.28.0", first, false, 0},
		{"Qwen2.5-VL-7B text only", "Qwen__Qwen2.5-VL-7B-Instruct", "0.28.0", first, true, 1090519040},
	} {
		a := archs[tc.model]
		if a == nil {
			t.Fatalf("%s: no config for %s", tc.name, tc.model)
		}
		r := &Resolved{Profile: mustProfile(tc.version), DtypeBytes: 2}
		r.Encoder.TextOnly = tc.textOnly
		if got := coldKeptSegment(a, r, tc.st); got != tc.want {
			t.Errorf("%s: %d B, want %d by hand", tc.name, got, tc.want)
		}
	}
}

// TestColdKeptRows206 sizes the first start of rows 206 and 207 of
// corpus/observed/vllm.csv (Qwen/Qwen3-14B-AWQ on one RTX 5090, vLLM
// 0.28.0, util 0.70, windows 32768 and 16384, both cold starts) with the
// table copy's segment kept, as the warm report's first-start line says.
// By hand, from TestColdCompileRows206's cold figures: 11,568,556,389 B
// left, less the segment 742 x 2 MiB = 1,556,086,784 B: 10,012,469,605 B
// over pages of 2,621,440 B, 3819 blocks (3819.45), 61,104 tokens
// (concurrency 3819 / 2048 pages x 32,768, exact; the same at 16,384).
//
// vLLM logs 60,768 tokens (3798 blocks): the estimate is 21 blocks, 336
// tokens (0.55%), over the log. The log's consumed memory is 11.22 GiB,
// the model's with the segment 11.16 (weights 9,987,061,760 B, non-torch
// 268,435,456 B, V2 request state 169,930,756 B and the segment:
// 11,981,514,756 B, 11.159 GiB), 0.06 GiB short, and its peak activation
// 1.468 GiB where the log rounds 1.46: 0.053 GiB, 21 blocks of 2.5 MiB.
// What the rest of consumed memory is on that start is not read (the
// notes give no weights line); the segment less the 20-32 MiB a pinning
// block has of its own on a warm start would leave 0.09 GiB unexplained
// (coldcompile.go). The estimate is so not on the safe side of this row by
// that 0.55%, and the test says so: it must stay within 1% of the log.
func TestColdKeptRows206(t *testing.T) {
	const logged = 60768 // rows 206 and 207: GPU KV cache size
	for _, tc := range []struct {
		row    string
		maxLen uint64
	}{{"206", 32768}, {"207", 16384}} {
		sz := sizeRow206(t, tc.row, tc.maxLen, false)
		var w bytes.Buffer
		sz.writeColdCompile(&w)
		line := w.String()
		for _, want := range []string{
			"which leaves 70608 tokens instead of 78080",
			"; from vLLM 0.26.1 a first start can also keep that copy's allocator segment reserved (1.45 GiB, counted in vLLM's consumed memory where a live block pins it",
			"which would leave 61104 tokens\n",
		} {
			if !strings.Contains(line, want) {
				t.Errorf("row %s: line %q, want %q", tc.row, line, want)
			}
		}
		f := sz.coldCompileField()
		if len(f) != 1 {
			t.Fatalf("row %s: fields %+v, want first_start_cold_compile", tc.row, f)
		}
		j := f[0].Value.(coldCompileJSON)
		type kept struct {
			Bytes, Tokens uint64
			Starts        bool
		}
		if diff := cmp.Diff(kept{1556086784, 61104, true}, kept{j.KeptSegmentBytes, j.TokensIfKept, j.StartsIfKept}); diff != "" {
			t.Errorf("row %s: kept (-want +got):\n%s", tc.row, diff)
		}
		if off := float64(j.TokensIfKept)/logged - 1; off > 0.01 || off < -0.01 {
			t.Errorf("row %s: %d tokens with the segment kept, %d logged: %+.2f%%", tc.row, j.TokensIfKept, logged, 100*off)
		}
	}
}

// TestColdKeptClause: the first-start line bears the kept segment's clause
// from vLLM 0.26.1 wherever a table is copied, the scratch under the
// forward's peak included (row 241's Qwen3-32B at TP 2 on 0.27.1: 371 x 2
// MiB, 0.72 GiB, TestColdKeptSegment), and not before 0.26.1 (0.26.0),
// nor on a multimodal serve, whose compile copies no table; the JSON's
// tokens_if_kept is then logged_tokens. A segment that leaves too little
// says vLLM refuses: Llama-3.1-8B at the length TestColdCompileRefuses
// sets (the cold start refused already) loses 501 x 2 MiB more
// (128,256 x 4096 x 2 B = 1,050,673,152 B, 501 x 2 MiB exactly).
func TestColdKeptClause(t *testing.T) {
	archs := observedArchs(t)
	c5090 := kernelClass(t, "rtx-5090")
	cPro := kernelClass(t, "rtx-pro-6000")
	const clause = "; from vLLM 0.26.1 a first start can also keep that copy's allocator segment reserved"
	for _, tc := range []struct {
		name, model, version string
		s                    Serve
		textOnly             bool
		want                 string // in the clause, "" for none
		under                bool   // the scratch stays under the forward's peak
	}{
		{"Qwen3-14B-AWQ 0.26.1", "Qwen__Qwen3-14B-AWQ", "0.26.1", Serve{GPUMemoryUtilization: 0.70, MaxModelLen: 32768}, false, "(1.45 GiB,", false},
		{"Qwen3-14B-AWQ 0.26.0", "Qwen__Qwen3-14B-AWQ", "0.26.0", Serve{GPUMemoryUtilization: 0.70, MaxModelLen: 32768}, false, "", false},
		{"row 241 under the forward", "Qwen__Qwen3-32B", "0.27.1", Serve{TensorParallelSize: 2, GPUMemoryUtilization: 0.426, MaxModelLen: 32768}, false, "(0.72 GiB,", true},
		{"Qwen2.5-VL-7B multimodal", "Qwen__Qwen2.5-VL-7B-Instruct", "0.28.0", Serve{GPUMemoryUtilization: 0.70, MaxModelLen: 4096, MaxNumSeqs: 16, MaxNumBatchedTokens: 2048}, false, "", false},
		{"Qwen2.5-VL-7B text only", "Qwen__Qwen2.5-VL-7B-Instruct", "0.28.0", Serve{GPUMemoryUtilization: 0.70, MaxModelLen: 4096, MaxNumSeqs: 16, MaxNumBatchedTokens: 2048}, true, "(1.02 GiB,", false},
	} {
		a := archs[tc.model]
		if a == nil {
			t.Fatalf("%s: no config for %s", tc.name, tc.model)
		}
		cls := c5090
		if tc.s.TensorParallelSize > 1 {
			cls = cPro
		}
		f := &flagServe{given: map[string]bool{}}
		f.version = tc.version
		f.s = tc.s
		f.s.MM.LanguageModelOnly = tc.textOnly
		got, err := f.Size(&hub.Loaded{Name: a.Source, Arch: a}, cls)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sz := got.(*Sizing)
		var w bytes.Buffer
		sz.writeColdCompile(&w)
		line := w.String()
		if line == "" {
			t.Fatalf("%s: no first-start line", tc.name)
		}
		if tc.want == "" && strings.Contains(line, clause) || tc.want != "" && !strings.Contains(line, clause+" "+tc.want) {
			t.Errorf("%s: line %q, want the clause %v (%q)", tc.name, line, tc.want != "", tc.want)
		}
		if under := strings.Contains(line, "stays under the forward pass's peak"); under != tc.under {
			t.Errorf("%s: line %q, want the scratch under the forward's peak: %v", tc.name, line, tc.under)
		}
		fs := sz.coldCompileField()
		if len(fs) != 1 {
			t.Fatalf("%s: fields %+v", tc.name, fs)
		}
		j := fs[0].Value.(coldCompileJSON)
		if tc.want == "" && (j.KeptSegmentBytes != 0 || j.TokensIfKept != j.LoggedTokens || j.StartsIfKept != j.Starts) {
			t.Errorf("%s: %+v, want no segment and the first start's figures", tc.name, j)
		}
		if tc.want != "" && (j.KeptSegmentBytes == 0 || j.TokensIfKept >= j.LoggedTokens) {
			t.Errorf("%s: %+v, want a segment and fewer tokens", tc.name, j)
		}
	}

	// The refusal: TestColdCompileRefuses's serve.
	sz, _ := sizeSpare128(t, false)
	var w bytes.Buffer
	sz.writeColdCompile(&w)
	line := w.String()
	keptAt := strings.Index(line, clause+" (0.98 GiB,")
	if keptAt < 0 || !strings.Contains(line[keptAt:], "; vLLM refuses that start: one request of") {
		t.Errorf("line %q: want the kept segment's clause (0.98 GiB) and its start refused", line)
	}
}

// TestKeptNote: plan's compile-cache note names the kept segment from
// vLLM 0.26.1 (main, 0.28.0), warm and cold, and not before (0.26.0,
// 0.19.0).
func TestKeptNote(t *testing.T) {
	const kept = "can also keep that copy's allocator segment reserved"
	for _, tc := range []struct {
		version string
		cold    bool
		want    bool
	}{
		{"main", false, true},
		{"main", true, true},
		{"0.26.1", false, true},
		{"0.26.0", false, false},
		{"0.19.0", true, false},
	} {
		note := compileCacheNote(mustProfile(tc.version), Compilation{}, tc.cold)
		if strings.Contains(note, kept) != tc.want {
			t.Errorf("%s cold %v: note %q, want the kept segment: %v", tc.version, tc.cold, note, tc.want)
		}
	}
}

// TestColdKeptProperties: the kept segment is the table copy rounded up to
// a whole number of 2 MiB pieces (at least the copy, less than 2 MiB over
// it), 0 where no copy is made, where the copy is under 10 MiB (no segment
// of its own; tables drawn from 64 to 65,536 tokens x hidden 64 to 4096
// over TP 1 to 8, 8 KiB to 512 MiB, either side of that edge) or before
// 0.26.1; keeping it never leaves more tokens than the first start
// without it, nor starts a serve that start does not; and the serve sized
// cold (--compile-cache cold) logs the first start's tokens and states
// the same segment, tokens and start (cold_start_kept_segment) as the
// warm report's first_start_cold_compile.
func TestColdKeptProperties(t *testing.T) {
	models := shipped(t)
	rapid.Check(t, func(t *rapid.T) {
		a := *models["Qwen__Qwen3-8B"]
		a.Vocab = rapid.Uint64Range(1, 1024).Draw(t, "vocab/64") * 64
		a.Hidden = rapid.Uint64Range(1, 64).Draw(t, "hidden/64") * 64
		version := rapid.SampledFrom([]string{"main", "0.26.1", "0.26.0"}).Draw(t, "version")
		r := &Resolved{Profile: mustProfile(version), DtypeBytes: 2}
		st := model.Sharding{TP: rapid.SampledFrom([]uint64{1, 2, 4, 8}).Draw(t, "tp"), First: true, Last: true}
		table, seg := coldTableCopy(&a, r, st), coldKeptSegment(&a, r, st)
		switch {
		case table < 10<<20 || !r.Profile.ConsumedSinceSnapshot:
			if seg != 0 {
				t.Fatalf("segment %d B for a copy of %d B (%s)", seg, table, version)
			}
		case seg%(2<<20) != 0 || seg < table || seg-table >= 2<<20:
			t.Fatalf("segment %d B for a copy of %d B", seg, table)
		}
	})
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B", "Qwen__Qwen3-14B", "google__gemma-2-9b-it", "Qwen__Qwen2.5-VL-7B-Instruct"}
	versions := []string{"main", "0.27.1", "0.26.1", "0.26.0", "0.19.0"}
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom(names).Draw(t, "model")]
		version := rapid.SampledFrom(versions).Draw(t, "version")
		f := &flagServe{given: map[string]bool{}}
		f.version = version
		f.s = Serve{
			TensorParallelSize:   rapid.SampledFrom([]uint64{1, 2}).Draw(t, "tp"),
			PipelineParallelSize: rapid.SampledFrom([]uint64{1, 2}).Draw(t, "pp"),
			MaxModelLen:          rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:           rapid.Uint64Range(1, 256).Draw(t, "seqs"),
		}
		f.s.MM.LanguageModelOnly = rapid.Bool().Draw(t, "textOnly")
		got, err := f.Size(&hub.Loaded{Name: a.Source, Arch: a}, testClass(false))
		if err != nil {
			t.Skip(err)
		}
		sz := got.(*Sizing)
		for i := range sz.Serve.Stages {
			st := stageOf(sz.Serve, i)
			table, seg := coldTableCopy(a, sz.Serve, st), coldKeptSegment(a, sz.Serve, st)
			switch {
			case table < 10<<20 || !sz.Serve.Profile.ConsumedSinceSnapshot:
				if seg != 0 {
					t.Fatalf("stage %d: segment %d B where no copy is counted (table %d B, %s)", i, seg, table, version)
				}
			case seg%(2<<20) != 0 || seg < table || seg-table >= 2<<20:
				t.Fatalf("stage %d: segment %d B for a copy of %d B", i, seg, table)
			}
		}
		fs := sz.coldCompileField()
		if len(fs) == 0 {
			return
		}
		j := fs[0].Value.(coldCompileJSON)
		if j.TokensIfKept > j.LoggedTokens || j.StartsIfKept && !j.Starts {
			t.Fatalf("kept: %d tokens, starts %v; first start: %d, %v", j.TokensIfKept, j.StartsIfKept, j.LoggedTokens, j.Starts)
		}
		// The same serve sized cold (--compile-cache cold) is the first
		// start the warm report's line speaks of: where vLLM starts it,
		// its cold_start_kept_segment says what that line's clause says.
		f.s.ColdCompileCache = true
		got, err = f.Size(&hub.Loaded{Name: a.Source, Arch: a}, testClass(false))
		if err != nil {
			t.Fatalf("sized cold: %v", err)
		}
		cold := got.(*Sizing)
		if cold.capacity.LoggedTokens != j.LoggedTokens {
			t.Fatalf("sized cold: %d tokens, the warm report's first start %d", cold.capacity.LoggedTokens, j.LoggedTokens)
		}
		ck := cold.coldKeptField()
		if !cold.capacity.Starts || j.KeptSegmentBytes == 0 {
			if len(ck) != 0 {
				t.Fatalf("sized cold: %+v where the cold start starts %v, segment %d B", ck, cold.capacity.Starts, j.KeptSegmentBytes)
			}
			return
		}
		if len(ck) != 1 {
			t.Fatalf("sized cold: fields %+v, want cold_start_kept_segment", ck)
		}
		want := coldKeptJSON{j.KeptSegmentBytes, j.TokensIfKept, j.StartsIfKept}
		if diff := cmp.Diff(want, ck[0].Value.(coldKeptJSON)); diff != "" {
			t.Fatalf("sized cold, kept (-warm report's +cold report's):\n%s", diff)
		}
	})
}

// TestColdKeptColdReport: a serve sized cold (--compile-cache cold), whose
// report has no first-start line, states the kept segment on a line of
// its own under "vLLM starts", and its JSON in cold_start_kept_segment.
// By hand:
//   - Llama-3.1-8B on an H100 at util 0.9 (report-llama8b-h100-cold-
//     compile): the table 128,256 x 4096 x 2 B = 1,050,673,152 B, 501 x 2
//     MiB exactly, a segment of 501 x 2 MiB; the KV block is 2 MiB (32
//     layers x 16 tokens x 8 heads x 128 x 2 (K, V) x 2 B), so the segment
//     takes 501 of the cold start's 27,875 blocks: 27,374 blocks, 16 tokens
//     a block (concurrency 27,374 / 8192 pages x 131,072), 437,984 tokens
//     of 446,000; the warm report's first-start clause says the same
//     437,984;
//   - rows 206 and 207 sized cold (Qwen3-14B-AWQ on an RTX 5090, 0.28.0,
//     util 0.70): 61,104 tokens of 70,608 (TestColdKeptRows206's by-hand
//     figures: 10,012,469,605 B over 2,621,440 B pages, 3819 blocks);
//   - none at 0.26.0 (no segment counted before PR #49208) nor for a
//     multimodal serve (its compile copies no table);
//   - a length the cold start holds with 128 blocks to spare
//     (TestColdKeptClause's trick) is refused with the 501 blocks kept.
func TestColdKeptColdReport(t *testing.T) {
	archs := observedArchs(t)
	h100 := kernelClass(t, "h100-sxm-80g")
	c5090 := kernelClass(t, "rtx-5090")
	const line = "  from vLLM 0.26.1 this cold start can also keep the allocator segment of Inductor's benchmark copy of the embedding table reserved ("
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	qwenAWQ := archs["Qwen__Qwen3-14B-AWQ"]
	vl := shipped(t)["Qwen__Qwen2.5-VL-7B-Instruct"]
	if llama == nil || qwenAWQ == nil || vl == nil {
		t.Fatal("missing a config")
	}
	for _, tc := range []struct {
		name    string
		a       *model.Arch
		version string
		s       Serve
		want    *coldKeptJSON // by hand, above; nil for no line
		leaves  string
	}{
		{"Llama-3.1-8B H100", llama, "main", Serve{GPUMemoryUtilization: 0.9}, &coldKeptJSON{501 * 2 << 20, 437984, true},
			"(0.98 GiB, " + keptEvidence + "), an estimate not charged above, which would leave 437984 tokens instead of 446000; vLLM still starts it\n"},
		{"Llama-3.1-8B H100 0.26.0", llama, "0.26.0", Serve{GPUMemoryUtilization: 0.9}, nil, ""},
		{"row 206 cold", qwenAWQ, "0.28.0", Serve{GPUMemoryUtilization: 0.70, MaxModelLen: 32768}, &coldKeptJSON{742 * 2 << 20, 61104, true},
			"which would leave 61104 tokens instead of 70608; vLLM still starts it\n"},
		{"row 207 cold", qwenAWQ, "0.28.0", Serve{GPUMemoryUtilization: 0.70, MaxModelLen: 16384}, &coldKeptJSON{742 * 2 << 20, 61104, true},
			"which would leave 61104 tokens instead of 70608; vLLM still starts it\n"},
		{"Qwen2.5-VL-7B multimodal", vl, "0.28.0", Serve{GPUMemoryUtilization: 0.70, MaxModelLen: 4096, MaxNumSeqs: 16, MaxNumBatchedTokens: 2048}, nil, ""},
	} {
		cls := h100
		if tc.a == qwenAWQ {
			cls = c5090
		}
		tc.s.ColdCompileCache = true
		sz, err := Size(&hub.Loaded{Name: tc.a.Source, Arch: tc.a}, cls, tc.s, mustProfile(tc.version))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !sz.capacity.Starts {
			t.Fatalf("%s: the cold start is refused", tc.name)
		}
		var w bytes.Buffer
		sz.writeColdCompile(&w)
		got := w.String()
		fs := sz.coldKeptField()
		if tc.want == nil {
			if got != "" || len(fs) != 0 {
				t.Errorf("%s: line %q, fields %+v, want none", tc.name, got, fs)
			}
			continue
		}
		if !strings.HasPrefix(got, line) || !strings.HasSuffix(got, tc.leaves) {
			t.Errorf("%s: line %q, want %q ... %q", tc.name, got, line, tc.leaves)
		}
		if len(fs) != 1 || fs[0].Key != "cold_start_kept_segment" {
			t.Fatalf("%s: fields %+v, want cold_start_kept_segment", tc.name, fs)
		}
		if diff := cmp.Diff(*tc.want, fs[0].Value.(coldKeptJSON)); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tc.name, diff)
		}
		if cf := sz.coldCompileField(); len(cf) != 0 {
			t.Errorf("%s: first_start_cold_compile %+v in a cold report", tc.name, cf)
		}
	}

	// The refusal: a length the cold start holds with 128 blocks to spare.
	sz, _ := sizeSpare128(t, true)
	if !sz.capacity.Starts {
		t.Fatalf("the cold start at %d tokens is refused", sz.Serve.MaxModelLen)
	}
	var w bytes.Buffer
	sz.writeColdCompile(&w)
	if got := w.String(); !strings.HasPrefix(got, line+"0.98 GiB,") || !strings.Contains(got, "; vLLM refuses that start: one request of") {
		t.Errorf("line %q: want the kept segment (0.98 GiB) and its start refused", got)
	}
	if fs := sz.coldKeptField(); len(fs) != 1 || fs[0].Value.(coldKeptJSON).StartsIfKept {
		t.Errorf("fields %+v: want starts_if_kept false", fs)
	}
}
