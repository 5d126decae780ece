package sglang

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixtureFlag is one option string of a release's server_args.py as
// testdata/server_args-TAG.txt lists it.
type fixtureFlag struct {
	line  int
	arity string
	// first is the first option string of its add_argument, without
	// dashes; dest the attribute the call names, if any.
	first, dest string
	// def is its default where the fixture gives one (a ServerArgs field
	// of a plain string or number); not compared with the table's rows.
	def string
}

// readFixture reads testdata/server_args-TAG.txt for release p: its header
// must name p's tag and commit.
func readFixture(t *testing.T, p Profile) map[string]fixtureFlag {
	t.Helper()
	path := "testdata/server_args-" + p.Name + ".txt"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]fixtureFlag{}
	header := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := sc.Text()
		if strings.HasPrefix(text, "#") {
			header += text + "\n"
			continue
		}
		fields := strings.Fields(text)
		if len(fields) < 3 {
			t.Fatalf("%s: %q: want a line, an arity and option strings", path, text)
		}
		n, err := strconv.Atoi(fields[0])
		if err != nil {
			t.Fatalf("%s: %q: %v", path, text, err)
		}
		opts, dest, def := fields[2:], "", ""
		if d, ok := strings.CutPrefix(opts[len(opts)-1], "dest="); ok {
			opts, dest = opts[:len(opts)-1], d
		}
		if d, ok := strings.CutPrefix(opts[len(opts)-1], "default="); ok {
			opts, def = opts[:len(opts)-1], d
		}
		for _, o := range opts {
			name, ok := strings.CutPrefix(o, "--")
			if !ok {
				t.Fatalf("%s: %q: option string %q without --", path, text, o)
			}
			if _, dup := got[name]; dup {
				t.Fatalf("%s: --%s twice", path, name)
			}
			got[name] = fixtureFlag{line: n, arity: fields[1], first: strings.TrimPrefix(fields[2], "--"), dest: dest, def: def}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(header, "at tag "+p.Name+" ") || !strings.Contains(header, p.Commit) {
		t.Fatalf("%s: its header names neither tag %s nor commit %s:\n%s", path, p.Name, p.Commit, header)
	}
	return got
}

// arityWord is the fixture's word for an arity.
var arityWord = map[arity]string{noValue: "switch", oneValue: "one", manyValues: "many", optValue: "optional"}

// TestFlagTableIsTheReleases: the table holds every option string of each
// release's server_args.py (the fixtures extracted from it), at its line,
// with its arity and the flag argparse names it by, and no option string a
// release has not; a second option string is judged as its first is.
func TestFlagTableIsTheReleases(t *testing.T) {
	for _, p := range profiles {
		fix := readFixture(t, p)
		// v0.4.9.post2's add_cli_args adds 168 flags under 174 option
		// strings, v0.5.6.post2's (and v0.5.6.post3's) 292 under 300,
		// v0.5.7's 313 under 321, v0.5.8's (and v0.5.8.post1's) 328 under
		// 336 (grep -c add_argument and the aliases: --model, --tp-size,
		// --pp-size, --dp-size, --nccl-init-addr, --ep-size, and from
		// v0.5.6.post2 --ep and --speculative-draft-model), v0.5.9's (and
		// v0.5.9.post1's) 331 under 341: v0.5.8.post1's 328, less
		// --disaggregation-decode-enable-fake-auto, with
		// --attention-context-parallel-size (alias --attn-cp-size),
		// --moe-data-parallel-size (alias --moe-dp-size), --mamba-backend
		// and --extra-metric-labels: 328 - 1 + 4 = 331 calls, 336 - 1 + 6 =
		// 341 option strings. v0.5.10's (and v0.5.10.post1's): v0.5.9's
		// 331, less 10 (--disable-hicache-numa-detect, three
		// --disaggregation-decode/prefill sizes, --hierarchical-sparse-
		// attention-extra-config, two --mm-* limits, three
		// --speculative-ngram-* windows), with 33 new (piecewise graphs,
		// hisparse, linear attention, SSL, ...): 354 calls; 341 - 10 + 33 =
		// 364 option strings, and --no-experts-shared-outer-loras, the
		// second string argparse's BooleanOptionalAction adds: 365.
		// v0.5.11's: v0.5.10's 354 calls, less 7 (double sparsity's six
		// and --multi-item-scoring-delimiter), with 27 new: 374 calls;
		// 365 - 7 + 27 = 385 option strings, and the --no- forms of
		// --lora-strict-loading and --record-nolora-graph: 387.
		// v0.5.12's (and v0.5.12.post1's): 387 + 13 new calls (the
		// fixture's 387 calls) with --hierarchical-sparse-attention-extra-
		// config back as --hisparse-config's second string and
		// --speculative-dflash-draft-window-size now
		// --speculative-draft-window-size's: 387 + 13 + 2 = 402.
		// v0.5.13's (and v0.5.13.post1's): 387 calls less 2
		// (--enable-nan-detection, --record-nolora-graph), with 20 new and
		// --speculative-dflash-draft-window-size its own again: 406 calls;
		// 402 less 3 (--no-record-nolora-graph too), with 20: 419.
		// v0.5.14's: 393 dataclass fields and the 27 calls add_cli_args
		// keeps, 420 lines; v0.5.13.post1's 419 less 4
		// (--custom-sigquit-handler, --debug-tensor-dump-inject,
		// --enable-piecewise-cuda-graph, --hybrid-kvcache-ratio), with 18
		// new (the per-phase CUDA graph flags, prefill CP, int8 Mamba
		// checkpoints, ...): 433.
		// v0.5.15's (and v0.5.15.post1's): 410 dataclass fields (dcp_size
		// declared twice, at server_args.py:823 and :877, one field) and
		// the 27 calls, 437 lines; v0.5.14's 433 with 18 new option
		// strings (17 fields, --dcp-size with its alias
		// --decode-context-parallel-size), none gone: 451.
		// v0.5.16's: 433 dataclass fields (dcp_size declared twice again,
		// at server_args.py:895 and :949, one field) and the 27 calls,
		// 460 lines; v0.5.15's 451 with 27 new option strings (26 fields,
		// --dllm-fdfo with its --no- form) and 2 gone
		// (--enable-deepep-waterfill, --optimistic-prefill-retries): 476.
		// v0.5.17's: 446 dataclass fields that are flags (458 annotated,
		// 7 no_cli, 5 with a namespace marker alone, which
		// add_cli_args_from_dataclass skips) and the 28 calls, 474 lines;
		// v0.5.16's 476 with 15 new option strings (13 fields,
		// --dcp-replicate-q-proj with its --no- form; --enable-gdn-
		// replayssm-spec now a call beside its new name), none gone: 491.
		// v0.5.18's: 488 lines, 459 dataclass fields that are flags and
		// the 29 calls (--enable-expert-distribution-metrics now a call,
		// server_args.py:8706); v0.5.17's 491 with 16 new option strings
		// (15 flags, --enable-tp-lm-head-all-to-all with its --no- form)
		// and --torchao-config gone: 506.
		want := map[string]int{"v0.5.18": 506, "v0.5.17": 491, "v0.5.16": 476, "v0.5.15": 451, "v0.5.15.post1": 451, "v0.5.14": 433, "v0.4.9.post2": 174, "v0.5.6.post2": 300, "v0.5.6.post3": 300,
			"v0.5.7": 321, "v0.5.8": 336, "v0.5.8.post1": 336, "v0.5.9": 341, "v0.5.9.post1": 341,
			"v0.5.10": 365, "v0.5.10.post1": 365, "v0.5.11": 387, "v0.5.12": 402, "v0.5.12.post1": 402, "v0.5.13": 419, "v0.5.13.post1": 419}[p.Name]
		if len(fix) != want {
			t.Errorf("%s: the fixture has %d option strings, want %d", p.Name, len(fix), want)
		}
		got := map[string]fixtureFlag{}
		for _, fl := range flagTable {
			if !fl.in(p) {
				continue
			}
			first := fl.name
			if of := fl.ofAt(p); of != "" {
				first = of
			}
			got[fl.name] = fixtureFlag{line: fl.at.line(p), arity: arityWord[fl.arityAt(p)], first: first, dest: fl.destAt(p)}
		}
		for name, f := range fix {
			f.def = ""
			fix[name] = f
		}
		if diff := cmp.Diff(fix, got, cmp.AllowUnexported(fixtureFlag{})); diff != "" {
			t.Errorf("%s: the table against server_args.py (-want +got):\n%s", p.Name, diff)
		}
	}
	idx := flagIndex()
	for _, fl := range flagTable {
		if fl.since() == "" {
			t.Errorf("--%s is in no release", fl.name)
		}
		if fl.kind == refused && fl.what == "" || fl.kind != refused && (fl.what != "" || fl.neutral != nil) {
			t.Errorf("--%s: kind %d with what %q and neutral %q", fl.name, fl.kind, fl.what, fl.neutral)
		}
		for _, of := range []string{fl.of, fl.ofAt(Profile{Name: "v0.5.12"})} {
			if of == "" {
				continue
			}
			first, ok := idx[of]
			if !ok || first.kind != fl.kind || first.what != fl.what || !slices.Equal(first.neutral, fl.neutral) {
				t.Errorf("--%s is judged otherwise than --%s, its first option string", fl.name, of)
			}
		}
	}
	if len(idx) != len(flagTable) {
		t.Errorf("%d rows under %d names: a name twice", len(flagTable), len(idx))
	}
}

// TestNeutralIsTheDefault: a refused flag is listed as ignored only at
// the default of every release that has it, as server_args.py gives it.
// --device's default is None, which ServerArgs resolves to get_device(),
// "cuda" on every GPU membudget sizes (NVIDIA's, and AMD's under ROCm's
// torch) (server_args.py:722 at v0.5.6.post2, :271 at v0.4.9.post2).
func TestNeutralIsTheDefault(t *testing.T) {
	resolved := map[string]string{"device": "cuda"}
	for _, p := range profiles {
		fix := readFixture(t, p)
		for _, fl := range flagTable {
			if len(fl.neutral) == 0 || !fl.in(p) {
				continue
			}
			def, ok := resolved[fl.name]
			if !ok {
				def = fix[fl.name].def
			}
			if diff := cmp.Diff([]string{def}, fl.neutral); diff != "" {
				t.Errorf("%s: --%s's neutral values against its default (-want +got):\n%s", p.Name, fl.name, diff)
			}
		}
	}
}

// TestSinceUntil: a flag's since and until follow from its lines.
func TestSinceUntil(t *testing.T) {
	for _, tc := range []struct{ name, since, until string }{
		{"host", "v0.4.9.post2", ""},                                   // lines 589 and 2238
		{"enable-lora", "v0.5.6.post2", ""},                            // v0.5.6.post2's line 2872 only
		{"impl", "v0.4.9.post2", "v0.5.6.post2"},                       // v0.4.9.post2's line 773 only
		{"ep", "v0.5.6.post2", ""},                                     // v0.5.6.post2's line 3148
		{"ep-size", "v0.4.9.post2", ""},                                // lines 1221 and 3148
		{"pdlb-url", "v0.4.9.post2", "v0.5.6.post2"},                   // v0.4.9.post2's line 1665 only
		{"enable-dynamic-chunking", "v0.5.7", ""},                      // v0.5.7's 2732, v0.5.8's 2877
		{"enable-flashinfer-autotune", "v0.5.6.post2", "v0.5.7"},       // v0.5.6.post2's and post3's 3007 only
		{"load-watch-interval", "v0.5.6.post2", "v0.5.7"},              // v0.5.6.post2's and post3's 2831 only
		{"fp4-gemm-backend", "v0.5.8", ""},                             // v0.5.8's and post1's 3580
		{"prefill-delayer-max-delay-passes", "v0.5.8", ""},             // v0.5.8's and post1's 2969
		{"hybrid-kvcache-ratio", "v0.4.9.post2", "v0.5.14"},            // every release to v0.5.13.post1, a switch from v0.5.8
		{"cuda-graph-config", "v0.5.14", ""},                           // v0.5.14's field at line 1918
		{"attn-cp-size", "v0.5.9", ""},                                 // v0.5.9's and post1's 3308
		{"disaggregation-decode-enable-fake-auto", "v0.5.7", "v0.5.9"}, // v0.5.7's 4298, v0.5.8's and post1's 4561
	} {
		fl := flagIndex()[tc.name]
		if got := [2]string{fl.since(), fl.until()}; got != [2]string{tc.since, tc.until} {
			t.Errorf("--%s: since, until %q, want %q", tc.name, got, [2]string{tc.since, tc.until})
		}
	}
}

// TestJudgeByRelease judges flags of each kind under each release, with
// the exact words of each refusal.
func TestJudgeByRelease(t *testing.T) {
	const (
		d056    = "SGLang v0.5.6.post2 (commit 5c8bd8b, 2025-12-11)"
		d049    = "SGLang v0.4.9.post2 (commit eb118d8, 2025-07-11)"
		refuses = ": not modelled for {D}; membudget refuses it rather than size a server SGLang would contradict"
	)
	both := []string{"v0.5.6.post2", "v0.4.9.post2"}
	describe := map[string]string{"v0.5.6.post2": d056, "v0.4.9.post2": d049}
	for _, p := range profiles {
		if describe[p.Name] == "" {
			describe[p.Name] = p.Describes
		}
	}
	cases := []struct {
		releases []string
		args     []string
		// want is the refusal, {D} standing for the release's description
		// and {R} for its name.
		want string
	}{
		// Modelled, and listed as ignored.
		{both, []string{"--mem-fraction-static", "0.8"}, ""},
		{both, []string{"--tensor-parallel-size", "2"}, ""},
		{both, []string{"--revision", "main"}, ""},
		{both, []string{"--host", "0.0.0.0"}, ""},
		{both, []string{"--trust-remote-code"}, ""},
		// --tp is the one option string it prefixes in both (--tp-size),
		// which membudget registers.
		{both, []string{"--tp", "2"}, ""},
		// Refused, in every release that has it, and at its default not.
		{both, []string{"--cpu-offload-gb", "4"}, "--cpu-offload-gb: " + whatOffload + refuses},
		{both, []string{"--cpu-offload-gb=0"}, ""}, // ServerArgs.cpu_offload_gb = 0
		{both, []string{"--disaggregation-mode", "decode"}, "--disaggregation-mode: " + whatDisagg + refuses},
		{both, []string{"--disaggregation-mode", "null"}, ""},
		{both, []string{"--lora-paths=a b"}, "--lora-paths: " + whatLora + refuses},
		{both, []string{"--speculative-algorithm", "EAGLE"}, ""},
		{both, []string{"--speculative-token-map", "m.txt"}, "--speculative-token-map: " + whatSpec + refuses},
		{both, []string{"--enable-hierarchical-cache"}, "--enable-hierarchical-cache: " + whatHiCache + refuses},
		{both, []string{"--enable-eplb"}, "--enable-eplb: " + whatEplb + refuses},
		{both, []string{"--cuda-graph-bs=1 2 4"}, "--cuda-graph-bs: " + whatGraphs + refuses},
		{[]string{"v0.5.6.post2"}, []string{"--enable-lora"}, "--enable-lora: " + whatLora + refuses},
		{[]string{"v0.5.6.post2"}, []string{"--ep", "8"}, "--ep: " + whatEP + refuses},
		{[]string{"v0.5.6.post2"}, []string{"--config", "x.yaml"}, "--config: " + whatYaml + refuses},
		{[]string{"v0.5.6.post2"}, []string{"--numa-node=0 1"}, ""},
		{[]string{"v0.4.9.post2"}, []string{"--impl", "transformers"}, "--impl: " + whatImpl + refuses},
		{[]string{"v0.4.9.post2"}, []string{"--impl", "auto"}, ""},
		// Not a flag of the release: the other release's line, and the
		// nearest. "lora" to "eplb" is four substitutions, and no flag of
		// v0.4.9.post2 is nearer --enable-lora.
		{[]string{"v0.4.9.post2"}, []string{"--enable-lora"}, "--enable-lora is not a flag of SGLang v0.4.9.post2 (it came in v0.5.6.post2, server_args.py:2872 there): its nearest is --enable-eplb"},
		{[]string{"v0.5.6.post2"}, []string{"--impl", "auto"}, "--impl is not a flag of SGLang v0.5.6.post2 (it is v0.4.9.post2's, server_args.py:773 there, and gone by v0.5.6.post2): its nearest is --model-impl"},
		{[]string{"v0.5.6.post2"}, []string{"--max-micro-batch-size=4"}, "--max-micro-batch-size is not a flag of SGLang v0.5.6.post2 (it is v0.4.9.post2's, server_args.py:871 there, and gone by v0.5.6.post2): its nearest is --pp-max-micro-batch-size"},
		// A flag of no release: "hots" is two substitutions from "host".
		{both, []string{"--hots"}, "--hots is not a flag of SGLang {R}: its nearest is --host"},
		// argparse takes dashes only; the nearest is the dashed name, one
		// substitution away.
		{both, []string{"--tp_size", "2"}, "--tp_size is not a flag of SGLang {R} (its argparse reads dashes, not underscores): its nearest is --tp-size"},
		// Abbreviations, as argparse reads them: one flag, or several.
		{both, []string{"--mem-frac", "0.8"}, "--mem-frac: {D}'s argparse takes it for --mem-fraction-static, by abbreviation; membudget reads a flag by its full name: give --mem-fraction-static"},
		{[]string{"v0.5.6.post2"}, []string{"--pp", "2"}, "--pp: {D} refuses it as ambiguous (argparse: --pp-max-micro-batch-size, --pp-size): give one in full"},
		{[]string{"v0.4.9.post2"}, []string{"--pp", "2"}, ""},
		// v0.4.9.post2 has no --ep: argparse reads it as a prefix of its
		// three --ep- flags and its three --eplb- ones.
		{[]string{"v0.4.9.post2"}, []string{"--ep", "8"}, "--ep: {D} refuses it as ambiguous (argparse: --ep-dispatch-algorithm, --ep-num-redundant-experts, --ep-size, --eplb-algorithm, --eplb-rebalance-layers-per-chunk, --eplb-rebalance-num-iterations): give one in full"},
		// The attribute argparse stores --fp8-gemm-backend in is no flag.
		{[]string{"v0.5.6.post2"}, []string{"--fp8-gemm-runner-backend", "cutlass"}, "--fp8-gemm-runner-backend is not a flag of SGLang v0.5.6.post2 (fp8_gemm_runner_backend is where argparse stores --fp8-gemm-backend, server_args.py:2991): its nearest is --fp8-gemm-backend"},
		{[]string{"v0.5.6.post2"}, []string{"--fp8_gemm_runner_backend", "cutlass"}, "--fp8_gemm_runner_backend is not a flag of SGLang v0.5.6.post2 (fp8_gemm_runner_backend is where argparse stores --fp8-gemm-backend, server_args.py:2991): its nearest is --fp8-gemm-backend"},
		// The releases after v0.5.6.post2: new flags refused by what
		// they add, and at their default not (pp_async_batch_depth = 0;
		// attn_cp_size = moe_dp_size = 1 and mamba_backend = "triton" at
		// v0.5.9).
		{[]string{"v0.5.7", "v0.5.8", "v0.5.8.post1"}, []string{"--enable-return-routed-experts"}, "--enable-return-routed-experts: " + whatRouted + refuses},
		{[]string{"v0.5.7", "v0.5.8"}, []string{"--language-only"}, "--language-only: " + whatEPD + refuses},
		{[]string{"v0.5.7", "v0.5.8"}, []string{"--pp-async-batch-depth", "2"}, "--pp-async-batch-depth: " + whatMicro + refuses},
		{[]string{"v0.5.7", "v0.5.8"}, []string{"--pp-async-batch-depth", "0"}, ""},
		{[]string{"v0.5.7", "v0.5.8"}, []string{"--prefill-max-requests", "8"}, ""},
		// --nsa-prefill-cp-mode acts only under
		// --enable-nsa-prefill-context-parallel, which is refused: either
		// mode is ignored, whichever is the release's default (in-seq-split
		// at v0.5.8, round-robin-split at v0.5.9).
		{[]string{"v0.5.8", "v0.5.8.post1", "v0.5.9"}, []string{"--nsa-prefill-cp-mode", "round-robin-split"}, ""},
		{[]string{"v0.5.8", "v0.5.8.post1", "v0.5.9"}, []string{"--nsa-prefill-cp-mode", "in-seq-split"}, ""},
		{[]string{"v0.5.8", "v0.5.9.post1"}, []string{"--enable-nsa-prefill-context-parallel"}, "--enable-nsa-prefill-context-parallel: " + whatNSACP + refuses},
		{[]string{"v0.5.8.post1"}, []string{"--enable-prefill-delayer"}, ""},
		{[]string{"v0.5.9", "v0.5.9.post1"}, []string{"--attention-context-parallel-size", "2"}, "--attention-context-parallel-size: " + whatAttnCP + refuses},
		{[]string{"v0.5.9", "v0.5.9.post1"}, []string{"--attn-cp-size=2"}, "--attn-cp-size: " + whatAttnCP + refuses},
		{[]string{"v0.5.9"}, []string{"--attn-cp-size", "1"}, ""},
		{[]string{"v0.5.9"}, []string{"--moe-dp-size", "2"}, "--moe-dp-size: " + whatMoEDP + refuses},
		{[]string{"v0.5.9"}, []string{"--moe-data-parallel-size", "1"}, ""},
		{[]string{"v0.5.9"}, []string{"--mamba-backend", "flashinfer"}, "--mamba-backend: " + whatMamba + refuses},
		{[]string{"v0.5.9"}, []string{"--mamba-backend", "triton"}, ""},
		{[]string{"v0.5.9", "v0.5.9.post1"}, []string{"--extra-metric-labels", `{"a": "b"}`}, ""},
		// v0.5.9's flags are not v0.5.8.post1's ("moe-" dropped is four
		// deletions to --dp-size; --moe-dense-tp-size is six insertions
		// away); its dropped one is gone (the only other
		// --disaggregation-decode-enable- flag is the nearest).
		{[]string{"v0.5.8.post1"}, []string{"--moe-dp-size", "2"}, "--moe-dp-size is not a flag of SGLang v0.5.8.post1 (it came in v0.5.9, server_args.py:3315 there): its nearest is --dp-size"},
		{[]string{"v0.5.9"}, []string{"--disaggregation-decode-enable-fake-auto"}, "--disaggregation-decode-enable-fake-auto is not a flag of SGLang v0.5.9 (it is v0.5.8.post1's, server_args.py:4561 there, and gone by v0.5.9): its nearest is --disaggregation-decode-enable-offload-kvcache"},
		// v0.5.6.post3 has v0.5.6.post2's flags: v0.5.7's are not its.
		// "en" to "dis" in front is three edits (two substitutions and an
		// insertion), and no flag of v0.5.6.post3 is nearer.
		{[]string{"v0.5.6.post2", "v0.5.6.post3"}, []string{"--disable-flashinfer-autotune"}, "--disable-flashinfer-autotune is not a flag of SGLang {R} (it came in v0.5.7, server_args.py:3356 there): its nearest is --enable-flashinfer-autotune"},
		// Gone in v0.5.7: the newest release that had it is named.
		{[]string{"v0.5.7", "v0.5.8"}, []string{"--enable-flashinfer-autotune"}, "--enable-flashinfer-autotune is not a flag of SGLang {R} (it is v0.5.6.post3's, server_args.py:3007 there, and gone by {R}): its nearest is --disable-flashinfer-autotune"},
		// fp8 to fp4 is one substitution.
		{[]string{"v0.5.7"}, []string{"--fp4-gemm-backend", "auto"}, "--fp4-gemm-backend is not a flag of SGLang v0.5.7 (it came in v0.5.8, server_args.py:3580 there): its nearest is --fp8-gemm-backend"},
		{[]string{"v0.5.8"}, []string{"--fp4-gemm-runner-backend", "auto"}, "--fp4-gemm-runner-backend is not a flag of SGLang v0.5.8 (fp4_gemm_runner_backend is where argparse stores --fp4-gemm-backend, server_args.py:3580): its nearest is --fp4-gemm-backend"},
		// --hybrid-kvcache-ratio takes an optional value up to v0.5.7 and
		// none from v0.5.8 (a DeprecatedAction, server_args.py:2940).
		{[]string{"v0.5.7"}, []string{"--hybrid-kvcache-ratio=0.5"}, "--hybrid-kvcache-ratio: " + whatHybridRatio + refuses},
		{[]string{"v0.5.8", "v0.5.8.post1"}, []string{"--hybrid-kvcache-ratio=0.5"}, "--hybrid-kvcache-ratio=0.5: {D} takes --hybrid-kvcache-ratio as a switch (SGLang's DeprecatedAction, of no value), which takes no value"},
		// A switch takes no value in argparse: an ignored one is refused
		// so given; a modelled one on membudget's own line is membudget's
		// flag, Go's =true form standing (in a pasted line it is refused:
		// TestSwitchValueInALine).
		{both, []string{"--enable-metrics=true"}, "--enable-metrics=true: {D} takes --enable-metrics as a switch (argparse's store_true), which takes no value"},
		{both, []string{"--trust-remote-code=true"}, ""},
	}
	for _, tc := range cases {
		for _, r := range tc.releases {
			args := append([]string{"--sglang-version", r}, tc.args...)
			want := ""
			if tc.want != "" {
				want = strings.NewReplacer("{D}", describe[r], "{R}", r).Replace(tc.want)
			}
			got := ""
			if err := (&flagServe{}).Judge(args, 2); err != nil {
				got = err.Error()
			}
			if got != want {
				t.Errorf("Judge(%q):\n got %q\nwant %q", args, got, want)
			}
		}
	}
	// In a pasted launch line a single dash is no flag of SGLang's; on
	// membudget's own line the flag package takes either.
	line := []string{"--sglang-version", "v0.4.9.post2", "-tp", "2", "python", "-m", "sglang.launch_server", "-tp", "2"}
	if err := (&flagServe{}).Judge(line, 2); err != nil {
		t.Errorf("Judge(%q, 2): %v, want -tp taken on membudget's line", line, err)
	}
	// Its nearest is the flag two dashes make of it: --tp, which
	// abbreviates --tp-size.
	want := "-tp is not a flag of SGLang v0.4.9.post2 (its argparse reads two dashes): its nearest is --tp-size"
	if err := (&flagServe{}).Judge(line, 7); err == nil || err.Error() != want {
		t.Errorf("Judge(%q, 7): %v, want %q", line, err, want)
	}
	line[7] = "-page-size=16"
	want = "-page-size is not a flag of SGLang v0.4.9.post2 (its argparse reads two dashes): its nearest is --page-size"
	if err := (&flagServe{}).Judge(line, 7); err == nil || err.Error() != want {
		t.Errorf("Judge(%q, 7): %v, want %q", line, err, want)
	}
	// Without --sglang-version the default release judges.
	if err := (&flagServe{}).Judge([]string{"--enable-lora"}, 0); err == nil || !strings.Contains(err.Error(), d056) {
		t.Errorf("Judge(--enable-lora) under the default: %v, want the refusal of %s", err, d056)
	}
}

// TestRespellJoinsValues: a flag of several values is one argument, as the
// flag package parses it; nargs "*" with none stays as given.
func TestRespellJoinsValues(t *testing.T) {
	// "-inf" parses as a float but is no value to argparse, whose
	// _negative_number_matcher ('^-\d+$|^-\d*\.\d+$', Python's argparse.py) wants a digit after
	// the dash: it ends --cuda-graph-bs's values.
	in := []string{"--cuda-graph-bs", "1", "2", "4", "--host", "x", "--numa-node", "0", "-1", "--lora-paths", "--tp", "2", "--cuda-graph-bs", "8", "-inf", "--", "--numa-node", "3", "4"}
	want := []string{"--cuda-graph-bs=1 2 4", "--host", "x", "--numa-node=0 -1", "--lora-paths", "--tp", "2", "--cuda-graph-bs=8", "-inf", "--", "--numa-node", "3", "4"}
	if diff := cmp.Diff(want, Engine{}.Respell(in)); diff != "" {
		t.Errorf("Respell (-want +got):\n%s", diff)
	}
}

// TestRespellExpandsTheLine: in a pasted launch line an abbreviation the
// release's argparse takes for one flag is that flag (--mem-frac,
// --trust-remote), with its value; --tp and --pp stay as registered, an
// ambiguous prefix stays for Judge to refuse, and before the line nothing
// is expanded (--json is membudget's, not --json-model-override-args).
func TestRespellExpandsTheLine(t *testing.T) {
	for _, tc := range []struct {
		release string
		in      []string
		want    []string
	}{
		{"v0.4.9.post2",
			[]string{"--json", "--mem-frac", "0.8", "python", "-m", "sglang.launch_server", "--mem-frac", "0.8", "--trust-remote", "--tp", "2", "--pp=2", "--mod", "x", "--cuda-graph-b", "1", "2"},
			[]string{"--json", "--mem-frac", "0.8", "python", "-m", "sglang.launch_server", "--mem-fraction-static", "0.8", "--trust-remote-code", "--tp", "2", "--pp=2", "--mod", "x", "--cuda-graph-bs=1 2"}},
		// --piecewise-cuda-graph-tokens takes one value up to v0.5.7 and
		// several from v0.5.8 (nargs "+", server_args.py:4279).
		{"v0.5.7",
			[]string{"python", "-m", "sglang.launch_server", "--piecewise-cuda-graph-tokens", "1024", "2048"},
			[]string{"python", "-m", "sglang.launch_server", "--piecewise-cuda-graph-tokens", "1024", "2048"}},
		{"v0.5.8",
			[]string{"python", "-m", "sglang.launch_server", "--piecewise-cuda-graph-tokens", "1024", "2048"},
			[]string{"python", "-m", "sglang.launch_server", "--piecewise-cuda-graph-tokens=1024 2048"}},
		// v0.5.6.post2 has --enable-lora and --enable-lmcache: --enable-l
		// is ambiguous there; --max-lora-r is --max-lora-rank.
		{"v0.5.6.post2",
			[]string{"python", "-m", "sglang.launch_server", "--enable-l", "--max-lora-r=8"},
			[]string{"python", "-m", "sglang.launch_server", "--enable-l", "--max-lora-rank=8"}},
	} {
		in := append([]string{"--sglang-version", tc.release}, tc.in...)
		want := append([]string{"--sglang-version", tc.release}, tc.want...)
		if diff := cmp.Diff(want, Engine{}.Respell(in)); diff != "" {
			t.Errorf("%s: Respell (-want +got):\n%s", tc.release, diff)
		}
	}
}

// TestTableFlagsParse: every flag of the table parses, those listed as
// ignored and the refused ones at a neutral value listed as given; a
// refused one at another value is refused by its Set where no Judge ran.
func TestTableFlagsParse(t *testing.T) {
	s := Engine{}.NewServe().(*flagServe)
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var model string
	s.Register(fs, &model)
	for _, fl := range flagTable {
		if fs.Lookup(fl.name) == nil && fl.name != "model" && fl.name != "revision" {
			t.Errorf("--%s is not registered", fl.name)
		}
	}
	if err := fs.Parse([]string{"--numa-node=0 1", "--cpu-offload-gb", "0", "--skip-server-warmup"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"--numa-node 0 1", "--cpu-offload-gb 0", "--skip-server-warmup"}, s.Listed); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	err := fs.Parse([]string{"--cpu-offload-gb", "4"})
	if want := "--cpu-offload-gb: " + whatOffload + ": not modelled for SGLang v0.5.6.post2 (commit 5c8bd8b, 2025-12-11)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("--cpu-offload-gb 4: %v, want %q", err, want)
	}
}

var update = flag.Bool("update", false, "rewrite the flag table of docs/sglang.md from flagtable.go (review the diff before committing)")

// Markers of the section of docs/sglang.md that flagDocs writes.
const (
	docsBegin = "<!-- The table below is generated from engine/sglang/flagtable.go by `go test ./engine/sglang -run TestFlagDocs -update`: do not edit it by hand. -->"
	docsEnd   = "<!-- end of the generated flag table -->"
)

// flagDocs is the table of docs/sglang.md's section on flags: every row of
// the table, with its line in each release and what membudget does.
func flagDocs() string {
	var b strings.Builder
	// One column per release, oldest first, as lines holds them.
	b.WriteString("| flag |")
	for _, p := range oldestFirst() {
		b.WriteString(" " + p.Name + " |")
	}
	b.WriteString(" membudget |\n|---|" + strings.Repeat("---|", len(profiles)) + "---|\n")
	cell := func(n int) string {
		if n == 0 {
			return "—"
		}
		return strconv.Itoa(n)
	}
	for _, fl := range flagTable {
		name := "`--" + fl.name + "`"
		if fl.of != "" {
			name += " (`--" + fl.of + "`)"
		}
		if fl.dest != "" {
			name += " (stored in `" + fl.dest + "`)"
		}
		var does string
		switch fl.kind {
		case modelled:
			does = "modelled"
		case ignored:
			does = "ignored: does not change memory"
		case refused:
			does = "refused: " + fl.what
			if len(fl.neutral) > 0 {
				does += " (at its default `" + strings.Join(fl.neutral, "`, `") + "`: ignored)"
			}
		}
		if c := fl.changed; c != nil && c.arity != fl.arity {
			does += " (from " + c.from + " " + arityDoc[c.arity] + ")"
		}
		if c := fl.changed; c != nil && c.dest != "" {
			does += " (from " + c.from + " stored in `" + c.dest + "`)"
		}
		if vr := fl.refuses; vr != nil {
			does += " (from " + vr.from + " `" + strings.Join(vr.values, "`, `") + "` refused: " + vr.what + ")"
		}
		b.WriteString("| " + name + " |")
		for _, n := range fl.at {
			b.WriteString(" " + cell(n) + " |")
		}
		fmt.Fprintf(&b, " %s |\n", strings.ReplaceAll(does, "|", "\\|"))
	}
	return b.String()
}

// arityDoc says, in docs/sglang.md, how a flag whose arity a release
// changed reads from it on.
var arityDoc = map[arity]string{noValue: "a switch", oneValue: "one value", manyValues: "several values", optValue: "an optional value"}

// TestFlagDocs: docs/sglang.md's flag table is the table's, so that the
// two cannot drift.
func TestFlagDocs(t *testing.T) {
	const path = "../../docs/sglang.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	before, rest, ok1 := strings.Cut(doc, docsBegin+"\n")
	got, after, ok2 := strings.Cut(rest, docsEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s: no section between %q and %q", path, docsBegin, docsEnd)
	}
	want := "\n" + flagDocs() + "\n"
	if *update {
		if err := os.WriteFile(path, []byte(before+docsBegin+"\n"+want+docsEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s's flag table is not flagtable.go's; run go test ./engine/sglang -run TestFlagDocs -update (-want +got):\n%s", path, diff)
	}
}

// TestEveryFlagJudged judges every row of the table under every release:
// a modelled or ignored flag of the release passes (an ignored one parses,
// listed as given), a refused one is refused naming itself and what it
// would add, and one the release has not is refused naming itself.
func TestEveryFlagJudged(t *testing.T) {
	for _, p := range profiles {
		for _, fl := range flagTable {
			args := []string{"--sglang-version", p.Name, "--" + fl.name}
			if fl.arity != noValue {
				args = append(args, "x") // no flag's neutral value
			}
			err := (&flagServe{}).Judge(args, 2)
			switch {
			case !fl.in(p) && err == nil && len(prefixed(p, fl.name)) == 1 && registeredNames()[fl.name]:
				// argparse reads it as the abbreviation of the one flag
				// it prefixes (--speculative-draft-model of
				// --speculative-draft-model-path in v0.4.9.post2), which
				// membudget registers.
			case !fl.in(p):
				if err == nil || !strings.HasPrefix(err.Error(), "--"+fl.name+" ") && !strings.HasPrefix(err.Error(), "--"+fl.name+":") {
					t.Errorf("%s: --%s, not its flag: %v", p.Name, fl.name, err)
				}
			case fl.kind == refused:
				if want := "--" + fl.name + ": " + fl.what + ": not modelled for " + p.Describes; err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("%s: --%s: %v, want %q", p.Name, fl.name, err, want)
				}
			case err != nil:
				t.Errorf("%s: --%s: %v, want it taken", p.Name, fl.name, err)
			case fl.kind == ignored:
				s := &flagServe{version: p.Name}
				fs := flag.NewFlagSet("t", flag.ContinueOnError)
				fs.SetOutput(io.Discard)
				var model string
				s.Register(fs, &model)
				if err := fs.Parse(args); err != nil || len(s.Listed) != 1 {
					t.Errorf("%s: --%s: parse %v, listed %q", p.Name, fl.name, err, s.Listed)
				}
			}
		}
	}
}

// FuzzJudge: any flag, under any release named, is judged without a
// panic, and a refusal begins with the flag as given.
func FuzzJudge(f *testing.F) {
	for _, seed := range []string{"--tp", "--pp", "--ep", "--enable-lora", "--tp_size", "--mem-frac=0.8", "--trust-remote-code=1", "---", "--", "--=x", "-", "--fp8-gemm-runner-backend"} {
		f.Add("v0.4.9.post2", seed, "x")
		f.Add("v0.5.6.post2", seed, "")
	}
	f.Fuzz(func(t *testing.T, release, flagArg, value string) {
		if !strings.HasPrefix(flagArg, "-") {
			return
		}
		args := []string{"--sglang-version", release, flagArg, value}
		err := (&flagServe{}).Judge(args, 2)
		if asGiven, _, _ := strings.Cut(flagArg, "="); err != nil && !strings.HasPrefix(err.Error(), asGiven) {
			t.Errorf("Judge(%q): %q does not begin with %q", args, err, asGiven)
		}
	})
}

// TestSwitchValueInALine: in a pasted launch line a modelled switch given
// a value is refused, as SGLang's argparse refuses it (store_true takes no
// value), though Go's flag package would read it.
func TestSwitchValueInALine(t *testing.T) {
	line := []string{"--sglang-version", "v0.5.6.post2", "python", "-m", "sglang.launch_server", "--model-path", "m", "--trust-remote-code=true"}
	want := "--trust-remote-code=true: SGLang v0.5.6.post2 (commit 5c8bd8b, 2025-12-11) takes --trust-remote-code as a switch (argparse's store_true), which takes no value"
	if err := (&flagServe{}).Judge(line, 7); err == nil || err.Error() != want {
		t.Errorf("Judge(%q, 7): %v, want %q", line, err, want)
	}
	line[7] = "--trust-remote-code"
	if err := (&flagServe{}).Judge(line, 7); err != nil {
		t.Errorf("Judge(%q, 7): %v, want the switch taken", line, err)
	}
}

// TestLinesSpanEveryRelease: a flag's lines hold one cell for each
// release profiles lists, the oldest first, so that line(p) reads p's: the
// first cell is v0.4.9.post2's (the oldest read) and the last the newest's.
func TestLinesSpanEveryRelease(t *testing.T) {
	if got, want := len(lines{}), len(profiles); got != want {
		t.Fatalf("lines has %d cells, profiles %d releases", got, want)
	}
	l := lines{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	for _, tc := range []struct {
		release string
		want    int
	}{{"v0.4.9.post2", 1}, {"v0.5.6.post2", 2}, {"v0.5.6.post3", 3}, {"v0.5.7", 4}, {"v0.5.8", 5}, {"v0.5.8.post1", 6}, {"v0.5.9", 7}, {"v0.5.9.post1", 8}, {"v0.5.10", 9}, {"v0.5.10.post1", 10}, {"v0.5.11", 11}, {"v0.5.12", 12}, {"v0.5.12.post1", 13}, {"v0.5.13", 14}, {"v0.5.13.post1", 15}, {"v0.5.14", 16}, {"v0.5.15", 17}, {"v0.5.15.post1", 18}, {"v0.5.16", 19}, {"v0.5.17", 0}, {"v0.5.13.post2", 0}} {
		if got := l.line(Profile{Name: tc.release}); got != tc.want {
			t.Errorf("line(%s) = %d, want %d", tc.release, got, tc.want)
		}
	}
}

// TestFlagTableReleasesNamed: every release a flag's change, value
// refusal, alias or dest span names is a profile's. older panics on a
// name no profile has (it ranked one below every release, which left the
// change silently unapplied at every release), so a misspelt one would
// panic where the flag is judged: this test finds it first.
func TestFlagTableReleasesNamed(t *testing.T) {
	known := map[string]bool{}
	for _, p := range profiles {
		known[p.Name] = true
	}
	for _, fl := range flagTable {
		var names []string
		if c := fl.changed; c != nil {
			names = append(names, c.from)
		}
		if vr := fl.refuses; vr != nil {
			names = append(names, vr.from)
		}
		if a := fl.alias; a != nil {
			names = append(names, a.from)
			if a.until != "" {
				names = append(names, a.until)
			}
		}
		if d := fl.redest; d != nil {
			names = append(names, d.from)
			if d.until != "" {
				names = append(names, d.until)
			}
		}
		for _, n := range names {
			if !known[n] {
				t.Errorf("--%s names release %q, which no profile has", fl.name, n)
			}
		}
	}
}
