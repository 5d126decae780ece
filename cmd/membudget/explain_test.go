package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget"
	"membudget/engine/vllm"
	"membudget/internal/observed"
	"membudget/model/explain"
	"membudget/model/logs"
)

// logsDir holds the whole startup logs model/logs is tested on.
const logsDir = "../../model/logs/testdata/"

// TestExplainGoldens explains the whole logs of model/logs/testdata as a
// user would, and the errors a user meets.
func TestExplainGoldens(t *testing.T) {
	t.Parallel()
	runGolden(t, explainCases)
}

var explainCases = []cliCase{
	// vLLM 0.19, TP2, debug lines: every term logged; the CUDA-graph
	// estimate is the gap. The total, 79.19 GiB, is no class's: a class of
	// that total is made from h100-sxm-80g.
	{"explain-vllm-0.19-tp2", []string{"explain", logsDir + "vllm-0.19-v1-tp2-debug.log"}, exitNoFit},
	{"explain-vllm-0.19-tp2-json", []string{"explain", "--json", logsDir + "vllm-0.19-v1-tp2-debug.log"}, exitNoFit},
	// V0 0.7.2: the V0 profile line; the total 79.22 GiB is no class's.
	{"explain-vllm-0.7.2-v0", []string{"explain", logsDir + "vllm-0.7.2-v0.log"}, exitNoFit},
	// V0 0.6.4 at TP2 on an RTX 3090: ranks log different KV memory.
	{"explain-vllm-0.6.4-v0-tp2", []string{"explain", logsDir + "vllm-0.6.4-v0-tp2.log"}, exitNoFit},
	// 0.10.1.1 states no total: --class; flags follow the log.
	{"explain-vllm-0.10-v1", []string{"explain", logsDir + "vllm-0.10-v1.log", "--class", "a100-40g"}, exitNoFit},
	// 0.26 on Windows names a local path: --model; 15.92 GiB is no class's.
	{"explain-vllm-0.26-windows", []string{"explain", "--model", "Qwen/Qwen3-0.6B", logsDir + "vllm-0.26-v1-windows.log"}, exitNoFit},
	// 0.4.2 is older than any profile: V0 of 0.7.3, said; the log's
	// Meta-Llama-3-8B-Instruct is not shipped, so --model.
	{"explain-vllm-0.4.2-v0", []string{"explain", "--class", "a100-80g", "--model", "meta-llama/Llama-3.1-8B-Instruct", logsDir + "vllm-0.4.2-v0.log"}, exitOK},
	// Two failed starts in one log, no model named.
	{"explain-startup-errors", []string{"explain", "--model", "meta-llama/Llama-3.1-8B-Instruct", logsDir + "vllm-v1-startup-errors.log"}, exitNoFit},
	// SGLang: server_args, the pool's tokens and K/V sizes.
	{"explain-sglang", []string{"explain", "--class", "h100-sxm-80g", logsDir + "sglang.log"}, exitNoFit},

	// Errors: each names the flag that supplies what is missing.
	{"explain-no-total", []string{"explain", logsDir + "vllm-0.10-v1.log"}, exitBadArgs},
	{"explain-no-model", []string{"explain", logsDir + "vllm-v1-startup-errors.log"}, exitBadArgs},
	{"explain-model-unresolved", []string{"explain", logsDir + "vllm-0.26-v1-windows.log"}, exitBadArgs},
	{"explain-unknown-class", []string{"explain", "--class", "tpu-v9", logsDir + "vllm-0.10-v1.log"}, exitBadArgs},
	{"explain-missing-file", []string{"explain", "no-such.log"}, exitBadArgs},
	{"explain-two-logs", []string{"explain", logsDir + "vllm-0.10-v1.log", logsDir + "sglang.log"}, exitBadArgs},
	{"explain-sglang-vllm-flag", []string{"explain", "--class", "h100-sxm-80g", "--max-model-len", "4096", logsDir + "sglang.log"}, exitBadArgs},
}

// TestExplainRowGoldens explains rows of corpus/observed/vllm.csv on their
// quote through stdin, with the flags a user would add for what the quote
// does not state: the examples of docs/explain.md.
func TestExplainRowGoldens(t *testing.T) {
	t.Parallel()
	quotes := observedQuotes(t)
	cases := []struct {
		id   string
		args []string
		want int
	}{
		// vLLM 0.19 on an H100, every term logged: all within.
		{"139", nil, exitOK},
		// vLLM 0.7.2 (V0) on a T4 at util 0.5: the graph capture is the gap.
		{"25", []string{"--model", "Qwen/Qwen2.5-1.5B-Instruct", "--vllm-version", "0.7.2:v0"}, exitNoFit},
		// vLLM 0.13 (NGC) on a GB10, unified memory: the KV figures are off
		// and no logged term explains it.
		{"110", []string{"--class", "gb10", "--vllm-version", "0.13.0"}, exitNoFit},
	}
	for _, tc := range cases {
		t.Run("row-"+tc.id, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := newApp(func(k string) string { return testEnv[k] }, strings.NewReader(quotes[tc.id])).explain(&out, &errb, append(append([]string{"--quote"}, tc.args...), "-"))
			if code != tc.want {
				t.Errorf("exit %d, want %d: %s", code, tc.want, errb.String())
			}
			golden(t, "explain-row-"+tc.id+".stdout", out.String())
			golden(t, "explain-row-"+tc.id+".stderr", errb.String())
		})
	}
}

// observedQuotes returns the quote of every row of corpus/observed/vllm.csv
// by id.
func observedQuotes(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../../corpus/observed/vllm.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	id, quote := -1, -1
	for i, h := range recs[0] {
		switch h {
		case "id":
			id = i
		case "quote":
			quote = i
		}
	}
	out := map[string]string{}
	for _, rec := range recs[1:] {
		out[rec[id]] = rec[quote]
	}
	return out
}

// explainStdin runs explain on stdin.
func explainStdin(t *testing.T, in string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = newApp(func(k string) string { return testEnv[k] }, strings.NewReader(in)).explain(&out, &errb, append(args, "-"))
	return out.String(), errb.String(), code
}

// TestExplainRefusesWhatIsNotALog: empty input, binary garbage, prose and a
// log without a model each exit 2 with a message that says why.
func TestExplainRefusesWhatIsNotALog(t *testing.T) {
	t.Parallel()
	garbage := string([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0xff, 0xfe, 0x00, 0x13})
	cases := []struct {
		name, in string
		args     []string
		want     string
	}{
		{"empty", "", nil, "stdin: the log is empty"},
		{"blank", "\n \r\n\t\n", nil, "stdin: the log is empty"},
		{"binary", garbage, nil, "not a text log (binary data)"},
		{"prose", "INFO server starting\nready to serve requests\n", nil, "no line of a vLLM or SGLang startup log"},
		{"no model", "INFO Free memory on device (78.66/79.19 GiB) on startup. Desired GPU memory utilization is (0.9, 71.27 GiB).\nINFO Available KV cache memory: 50.00 GiB\n", nil,
			"the log does not name the model (no model= setting): pass --model"},
		{"no total", "INFO non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct'}\nINFO Available KV cache memory: 50.00 GiB\n", nil,
			"the log does not state the device's total memory"},
		{"unknown class", "INFO Available KV cache memory: 50.00 GiB\n", []string{"--class", "tpu-v9"}, `--class: class "tpu-v9": no such class`},
		{"logged setting refused", "INFO non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 999999999}\nINFO Free memory on device (78.66/79.18 GiB) on startup.\nINFO Available KV cache memory: 50.00 GiB\n", nil,
			"the log's max_model_len=999999999 (line 1, non-default args): --max-model-len 999999999: above the derived max_model_len 131072"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := explainStdin(t, tc.in, tc.args...)
			if code != exitBadArgs {
				t.Errorf("exit %d, want %d", code, exitBadArgs)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not say %q", stderr, tc.want)
			}
		})
	}
}

// handLog is a vLLM 0.19 log whose KV figures follow from the page
// arithmetic alone: --kv-cache-memory-bytes fixes the KV cache, so no
// modelled peak enters them.
const handLog = `INFO 04-22 18:00:00 [api_server.py:1805] vLLM API server version 0.19.0
INFO 04-22 18:00:01 [utils.py:263] non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 8192, 'kv_cache_memory_bytes': 10737418240}
INFO 04-22 18:00:50 [gpu_worker.py:790] Free memory on device (78.66/79.18 GiB) on startup. Desired GPU memory utilization is (0.9, 71.27 GiB).
INFO 04-22 18:00:51 [gpu_worker.py:565] Available KV cache memory: 10.0 GiB
INFO 04-22 18:00:52 [kv_cache_utils.py:1305] GPU KV cache size: 81,920 tokens
INFO 04-22 18:00:52 [kv_cache_utils.py:1310] Maximum concurrency for 8,192 tokens per request: 10.00x
`

// TestExplainHandComputed checks the KV figures of handLog against values
// worked out by hand, and that a log every figure of which agrees exits 0.
func TestExplainHandComputed(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := explainStdin(t, handLog, "--json")
	if code != exitOK {
		t.Fatalf("exit %d, want 0: %s\n%s", code, stderr, stdout)
	}
	var got explainJSON
	if err := jsonUnmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	// Llama-3.1-8B keeps 32 layers x 8 KV heads x 128 x 2 (K and V) x 2
	// bytes (bf16) = 131072 B a token; a block of 16 tokens is 2 MiB. The
	// KV cache is --kv-cache-memory-bytes, 10 GiB: 10 GiB / 2 MiB = 5120
	// blocks, 5120 x 16 = 81920 tokens. One request of 8192 tokens needs
	// 8192 / 16 = 512 blocks: 5120 / 512 = 10.00x.
	want := map[string]float64{"kv_cache_tokens": 81920, "max_concurrency": 10}
	for _, r := range got.Figures {
		if w, ok := want[r.Figure]; ok {
			if r.Predicted == nil || *r.Predicted != w || !r.Within {
				t.Errorf("%s: predicted %v, within %t; want %v", r.Figure, r.Predicted, r.Within, w)
			}
			delete(want, r.Figure)
		}
		if r.Figure == "available_kv_memory" && (r.PredictedBytes == nil || *r.PredictedBytes != 10<<30) {
			t.Errorf("available KV memory predicted %v, want the 10737418240 B of --kv-cache-memory-bytes", r.PredictedBytes)
		}
	}
	if len(want) > 0 {
		t.Errorf("figures not compared: %v", want)
	}
	// vLLM prints GiB with two places (format_gib prints 10.00 as "10.0"):
	// 10.0 GiB is 10.00 +- 0.005 GiB, 5368710 B rounded up. In blocks of 2
	// MiB: floor(9.995 x 512) = 5117 to floor(10.005 x 512) = 5122; the
	// logged 81920 tokens / 16 = 5120 is among them.
	wantBlocks := &explain.BlocksCheck{AvailableText: "Available KV cache memory: 10.0 GiB", AvailableLine: 4, AvailableBytes: 10 << 30,
		RoundingBytes: 5368710, BlockBytes: 2 << 20, Low: 5117, High: 5122, LoggedBlocks: 5120, BlocksLine: 5,
		From: "the logged KV cache size, 81920 tokens, over the block size 16", Exact: true}
	if diff := cmp.Diff(wantBlocks, got.Blocks); diff != "" {
		t.Errorf("blocks check (-want +got):\n%s", diff)
	}
	// 79.18 GiB is h100-sxm-80g's 85018542080 B within the log's +-0.005
	// GiB (5368710 B): 79.18 x 2^30 = 85018877624.32, 335544 B away.
	if got.Class.Name != "h100-sxm-80g" || got.Class.How != explain.ClassMatched {
		t.Errorf("class %s (%s), want h100-sxm-80g matched", got.Class.Name, got.Class.How)
	}
	if got.LargestGap == nil {
		t.Error("no largest gap named")
	}
}

// TestExplainBlocksCheckByHand is the exact check on the TP2 log: 63.76 GiB
// +- 0.005 GiB of KV memory on rank 0, in blocks of 16 tokens x 32 layers x
// 4 KV heads per rank (8 over TP2) x 128 x 2 (K, V) x 2 bytes = 1 MiB, holds
// floor(63.755 x 1024) = 65285 to floor(63.765 x 1024) = 65295 blocks; the
// log's 65293 is among them. The class is made of the logged 79.19 GiB:
// round(79.19 x 2^30) = 85029615043 B, 11072963 B from h100-sxm-80g's, more
// than the log's rounding of 5368710 B.
func TestExplainBlocksCheckByHand(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := run(&out, &errb, []string{"explain", "--json", logsDir + "vllm-0.19-v1-tp2-debug.log"})
	if code == exitBadArgs {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got explainJSON
	if err := jsonUnmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	b := got.Blocks
	if b == nil || b.BlockBytes != 1<<20 || b.Low != 65285 || b.High != 65295 || b.LoggedBlocks != 65293 || !b.Exact {
		t.Errorf("blocks check %+v, want 1 MiB blocks, 65285..65295 holding 65293", b)
	}
	if got.Class.How != explain.ClassSynthesized || got.Class.Base != "h100-sxm-80g" || got.Class.MemoryBytes != 85029615043 {
		t.Errorf("class %+v, want one of 85029615043 B made from h100-sxm-80g", got.Class)
	}
	// Requested memory: ceil(85029615043 x 0.95) = 80778134291 B = 75.23 GiB,
	// as logged.
	for _, r := range got.Figures {
		if r.Figure == "requested_memory" && (r.PredictedBytes == nil || *r.PredictedBytes != 80778134291) {
			t.Errorf("requested memory %v, want 80778134291", r.PredictedBytes)
		}
	}
}

// TestExplainExitStatus: 0 when every figure agrees, 1 when one does not,
// 2 when the log cannot be explained.
func TestExplainExitStatus(t *testing.T) {
	t.Parallel()
	over := strings.Replace(handLog, "Available KV cache memory: 10.0 GiB", "Available KV cache memory: 12.0 GiB", 1)
	cases := []struct {
		name, log string
		want      int
	}{
		{"every figure within", handLog, exitOK},
		{"available KV over", over, exitNoFit},
		{"no model", strings.Replace(handLog, "'model': 'meta-llama/Llama-3.1-8B-Instruct', ", "", 1), exitBadArgs},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, stderr, code := explainStdin(t, tc.log); code != tc.want {
				t.Errorf("exit %d, want %d: %s", code, tc.want, stderr)
			}
		})
	}
}

// TestExplainFlagsOverrideTheLog: a flag beats the logged setting, and the
// setting says so.
func TestExplainFlagsOverrideTheLog(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := explainStdin(t, handLog, "--json", "--max-model-len", "4096")
	if code == exitBadArgs {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got explainJSON
	if err := jsonUnmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	sources := map[string]string{}
	for _, s := range got.Settings {
		sources[s.Flag] = s.Source + " " + s.Value
	}
	want := map[string]string{"max-model-len": "flag 4096", "kv-cache-memory-bytes": "logged 10737418240", "block-size": "vLLM default 16"}
	for k, w := range want {
		if sources[k] != w {
			t.Errorf("--%s: %q, want %q", k, sources[k], w)
		}
	}
}

// TestCalibrateRoundTrips writes a class from the 0.26 log, lists it with
// classes --kernels and sizes a report on it, then refuses to overwrite it
// without --force and refuses a DIR that is not a directory.
func TestCalibrateRoundTrips(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logPath := logsDir + "vllm-0.26-v1-windows.log"
	var out, errb bytes.Buffer
	args := []string{"explain", "--model", "Qwen/Qwen3-0.6B", "--calibrate", dir, "--calibrate-name", "my-card", "--json", logPath}
	if code := run(&out, &errb, args); code == exitBadArgs {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got explainJSON
	if err := jsonUnmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// The log: "Free memory on device (14.55/15.92 GiB) on startup" at TP1.
	// memory_bytes = round(15.92 x 2^30) = 17093969838. The device held
	// 15.92 - 14.55 = 1.37 GiB, plus both roundings (0.01 GiB) = 1.38 GiB
	// = 1413.12 MiB, rounded up to 64 MiB: 23 x 64 = 1472 MiB = 1543503872 B.
	// The rest is rtx-4080's (15.55 GiB, the nearest class): 2 per mille,
	// not unified, PCIe without peer access, 76 SMs (its sm_count: 9728
	// CUDA cores / 128 a Ada SM). Its ceiling, 0.95, does not load with this context: the
	// budget at u, 1.4375 GiB fixed and 2 per mille of the budget must fit
	// in 15.92 GiB; at 0.91, 14.487 + 1.4375 + 0.029 = 15.95 GiB does not,
	// at 0.90, 14.328 + 1.4375 + 0.029 = 15.79 GiB does.
	want := classJSON{Name: "my-card", Device: "NVIDIA GeForce RTX 4080", Vendor: "nvidia", ComputeCapability: "8.9", MemoryBytes: 17093969838,
		UtilCeiling: 0.9, DriverFixedBytes: 1543503872, DriverBudgetPerMille: 2, Interconnect: "pcie", SMCount: 76}
	if got.Calibration == nil {
		t.Fatal("no calibration in the answer")
	}
	if diff := cmp.Diff(want, got.Calibration.Class); diff != "" {
		t.Errorf("calibrated class (-want +got):\n%s", diff)
	}
	path := filepath.Join(dir, "my-card", "HARDWARE.toml")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// rtx-4080's 76 SMs come with the rest, copied: the log does not state
	// them.
	for _, s := range []string{"vllm-0.26-v1-windows.log", "line 13", "an estimate", "\nsm_count = 76\n", "\nsm_count = \"76, copied from class rtx-4080"} {
		if !bytes.Contains(text, []byte(s)) {
			t.Errorf("%s does not name %q in its provenance", path, s)
		}
	}

	// classes --kernels DIR lists it.
	out.Reset()
	errb.Reset()
	if code := run(&out, &errb, []string{"classes", "--kernels", dir, "--json"}); code != exitOK {
		t.Fatalf("classes --kernels: exit %d: %s", code, errb.String())
	}
	var listed []classJSON
	if err := jsonUnmarshal(out.Bytes(), &listed); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]classJSON{want}, listed); diff != "" {
		t.Errorf("classes --kernels (-want +got):\n%s", diff)
	}
	// report --kernels DIR --class my-card sizes on it.
	out.Reset()
	errb.Reset()
	if code := run(&out, &errb, []string{"report", "--kernels", dir, "--class", "my-card", "--model", "Qwen/Qwen3-0.6B", "--max-model-len", "4096", "--gpu-memory-utilization", "0.8", "--json"}); code != exitOK {
		t.Fatalf("report --kernels: exit %d: %s", code, errb.String())
	}
	var rep reportJSON
	if err := jsonUnmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Class != want || rep.Footprint.Device != want.MemoryBytes {
		t.Errorf("report's class %+v, device %d; want the calibrated class", rep.Class, rep.Footprint.Device)
	}

	// Again without --force: refused; with it: written.
	errb.Reset()
	if code := run(&out, &errb, args); code != exitBadArgs || !strings.Contains(errb.String(), "exists; pass --force to overwrite it") {
		t.Errorf("second --calibrate without --force: exit %d, %q", code, errb.String())
	}
	errb.Reset()
	if code := run(&out, &errb, append([]string{"explain", "--force"}, args[1:]...)); code == exitBadArgs {
		t.Errorf("--calibrate --force: exit %d: %s", code, errb.String())
	}
	// A DIR that is a file, or absent, is refused naming --calibrate.
	for _, bad := range []string{path, filepath.Join(dir, "absent")} {
		errb.Reset()
		code := run(&out, &errb, []string{"explain", "--model", "Qwen/Qwen3-0.6B", "--calibrate", bad, logPath})
		if code != exitBadArgs || !strings.Contains(errb.String(), "--calibrate: "+bad) {
			t.Errorf("--calibrate %s: exit %d, %q", bad, code, errb.String())
		}
	}
}

// TestCalibrateWithoutModel: --calibrate needs only the log's device
// figures; a log whose model does not resolve still gets its class, and
// the answer says the figures were not explained.
func TestCalibrateWithoutModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run(&out, &errb, []string{"explain", "--calibrate", dir, logsDir + "vllm-0.26-v1-windows.log"})
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// No class has 15.92 GiB: the default name is the nearest's with the
	// total.
	if _, err := os.Stat(filepath.Join(dir, "rtx-4080-15.92gib", "HARDWARE.toml")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(out.String(), "not explained: the log names the model") {
		t.Errorf("stdout does not say the figures were not explained:\n%s", out.String())
	}
}

// oldestProfiled is the oldest release [vllm.ProfileFor] sizes (v0_6_0 in
// engine/vllm/version.go): a row of an older one is explained as a user
// would pass it, under v0; a newer one that ProfileFor refuses, explain
// must refuse too.
var oldestProfiled = vllm.Version{Minor: 6}

var rowRelease = regexp.MustCompile(`(?:^|[^0-9.])v?(0\.[0-9]+(?:\.[0-9]+)?)`)

// TestExplainObservedRows explains every row of corpus/observed/vllm.csv
// whose quote is a vLLM log, on its quote through stdin, with the config
// that stands for its model in corpus/observed/models.csv (TestObserved's)
// as --model. What the quote does not state comes from the row's columns
// as flags, as a user would pass them: the class (gpus.csv, when the quote
// states no total), the version and the settings. Each row must predict
// every figure it logs that membudget models and name a largest gap; a row
// that cannot be sized says why. A row of a release membudget refuses by
// name (0.30 on) must be refused naming --vllm-version, never sized under
// another release's rules.
func TestExplainObservedRows(t *testing.T) {
	t.Parallel()
	tables, err := observed.Read("../../corpus/observed")
	if err != nil {
		t.Fatal(err)
	}
	explained, skipped, refused, releaseRefused := 0, 0, 0, 0
	t.Logf("%-4s %-38s %-22s %-10s %4s %4s  %s", "row", "model", "class", "vllm", "cmp", "over", "largest gap")
	for _, row := range tables.Rows {
		id, modelID, quote := row["id"], row["model_hf_id"], row["quote"]
		if row["engine"] != "vllm" {
			continue
		}
		l, err := logs.Limits{}.ParseQuote(quote)
		if err != nil || l.Engine != logs.EngineVLLM {
			skipped++
			t.Logf("%-4s skipped: the quote is not a vLLM log", id)
			continue
		}
		// The config that stands for the logged id, as the observed table
		// of engine/vllm has it: a user passes it as --model.
		m, ok := tables.Models[modelID]
		if !ok {
			skipped++
			t.Logf("%-4s skipped: no config stands for %s", id, modelID)
			continue
		}
		if _, _, ok := membudget.ModelConfig(m.Config); !ok {
			skipped++
			t.Logf("%-4s skipped: %s stands for %s and is not shipped", id, m.Config, modelID)
			continue
		}
		args := []string{"--json", "--quote", "--model", m.Config}
		if _, ok := l.DeviceTotal(); !ok {
			g, ok := tables.GPUOf(row["gpu_model"])
			if !ok || g.Class == "" {
				skipped++
				t.Logf("%-4s skipped: the quote states no device total and no class stands for the GPU (%q)", id, row["gpu_model"])
				continue
			}
			args = append(args, "--class", g.Class)
		}
		refusedSpec := "" // a release membudget refuses, which explain must refuse
		if l.EngineVersion == "" {
			v := row["vllm_version"]
			if m := rowRelease.FindStringSubmatch(v); m != nil {
				spec := m[1]
				if strings.Contains(v, "V0") {
					spec += ":v0"
				}
				if _, err := vllm.ProfileFor(spec); err != nil {
					if rv, perr := vllm.ParseVersion(m[1]); perr == nil && rv.AtLeast(oldestProfiled) {
						// Refused by name (0.30 on: rules not read, or V0
						// after 0.11.0 removed it): never another's rules.
						refusedSpec = spec
					} else {
						spec = "v0" // older than any profile: V0 of 0.7.3, as a user would pass it
					}
				}
				args = append(args, "--vllm-version", spec)
			} else if strings.Contains(v, "V0") {
				args = append(args, "--vllm-version", "v0")
			}
		}
		for _, c := range []struct{ column, key, flag string }{
			{"gpu_mem_util", "gpu_memory_utilization", "gpu-memory-utilization"},
			{"max_model_len", "max_model_len", "max-model-len"},
			{"max_num_seqs", "max_num_seqs", "max-num-seqs"},
			{"max_num_batched_tokens", "max_num_batched_tokens", "max-num-batched-tokens"},
			{"block_size", "block_size", "block-size"},
			{"tp", "tensor_parallel_size", "tensor-parallel-size"},
			{"pp", "pipeline_parallel_size", "pipeline-parallel-size"},
		} {
			v := row.NumText(c.column)
			if _, logged := l.Setting(c.key); logged || v == "" {
				continue
			}
			if c.key == "gpu_memory_utilization" {
				if _, ok := l.First(logs.KindUtilization); ok {
					continue
				}
			}
			if c.key == "max_model_len" {
				if _, ok := l.First(logs.KindMaxModelLen); ok {
					continue
				}
			}
			args = append(args, "--"+c.flag, v)
		}
		if _, logged := l.Setting("quantization"); !logged && m.Quantization != "" {
			args = append(args, "--quantization", m.Quantization)
		}
		var out, errb bytes.Buffer
		code := newApp(func(k string) string { return testEnv[k] }, strings.NewReader(quote)).explain(&out, &errb, append(args, "-"))
		if refusedSpec != "" {
			msg := strings.TrimSpace(errb.String())
			if want := "--vllm-version " + refusedSpec + ": "; code != exitBadArgs || !strings.Contains(msg, want) {
				t.Errorf("row %s: release %s: exit %d, %q; want exit %d refusing %q", id, refusedSpec, code, msg, exitBadArgs, want)
				continue
			}
			releaseRefused++
			t.Logf("%-4s %-38.38s refused as membudget refuses vLLM %s: %s", id, modelID, refusedSpec, msg)
			continue
		}
		if code == exitBadArgs {
			msg := strings.TrimSpace(errb.String())
			if q, _ := l.Setting("quantization"); q.Value != "" && strings.Contains(msg, "needs a checkpoint quantized with") && !strings.EqualFold(m.Config, strings.ReplaceAll(modelID, "/", "__")) {
				// The log's quantization needs the checkpoint's config; the
				// unquantized config that stands for it has none, and explain
				// refuses to guess it.
				skipped++
				t.Logf("%-4s skipped: the log's quantization %s needs the checkpoint's config; %s stands for it", id, q.Value, m.Config)
				continue
			}
			refused++
			t.Logf("%-4s %-38.38s not sized: %s", id, modelID, msg)
			continue
		}
		var got explainJSON
		if err := jsonUnmarshal(out.Bytes(), &got); err != nil {
			t.Errorf("row %s: %v", id, err)
			continue
		}
		explained++
		for _, r := range got.Figures {
			if !r.IsPredicted && !knownUnpredicted(r) {
				t.Errorf("row %s: %s logged on line %d not predicted: %s", id, r.Label, r.Line, r.Note)
			}
		}
		if got.LargestGap == nil {
			t.Errorf("row %s: no largest gap named", id)
			continue
		}
		if (code == exitOK) != got.Within {
			t.Errorf("row %s: exit %d with within=%t", id, code, got.Within)
		}
		gap := got.LargestGap.Sentence
		if i := strings.Index(gap, ", within its"); i > 0 {
			gap = gap[:i] + " (within)"
		} else if i := strings.Index(gap, ", over its"); i > 0 {
			gap = gap[:i] + " (OVER)"
		}
		t.Logf("%-4s %-38.38s %-22.22s %-10.10s %4d %4d  %s", id, modelID, got.Class.Name, got.Rules.Profile, got.Compared, got.Over, gap)
	}
	t.Logf("%d rows explained, %d not sized (reason above), %d of releases membudget refuses refused, %d skipped", explained, refused, releaseRefused, skipped)
	// 59 rows have a vLLM quote, a shipped config that stands for the
	// model and a known device (2026-12); every one must be sized.
	if explained < 59 || refused > 0 {
		t.Errorf("%d rows explained, %d not sized: want at least 59 and none refused", explained, refused)
	}
	// Row 218 logs vLLM 0.31.0 (2026-12).
	if releaseRefused < 1 {
		t.Errorf("%d rows of a release membudget refuses were refused, want at least 1", releaseRefused)
	}
}

// knownUnpredicted are the figures membudget does not model for a profile:
// the capture when the profile logs the estimate.
func knownUnpredicted(r explain.Row) bool {
	return r.Figure == "cuda_graph" && strings.Contains(r.Note, "membudget predicts the estimate")
}

// TestExplainQuoteOnStdin reads a corpus quote with --quote and as lines:
// the same figures either way.
func TestExplainQuoteOnStdin(t *testing.T) {
	t.Parallel()
	quote := "Loading model weights took 14.9888 GB / Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90 / GPU blocks: 1952, # CPU blocks: 2048 / Maximum concurrency for 20000 tokens per request: 1.56x"
	args := []string{"--json", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--vllm-version", "0.6.4"}
	a, errA, codeA := explainStdin(t, quote, append(args, "--quote")...)
	b, errB, codeB := explainStdin(t, strings.ReplaceAll(quote, " / ", "\n"), args...)
	if codeA == exitBadArgs || codeB == exitBadArgs {
		t.Fatalf("exit %d, %d: %s %s", codeA, codeB, errA, errB)
	}
	var ga, gb explainJSON
	if err := jsonUnmarshal([]byte(a), &ga); err != nil {
		t.Fatal(err)
	}
	if err := jsonUnmarshal([]byte(b), &gb); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ga.Figures, gb.Figures); diff != "" {
		t.Errorf("--quote and lines differ (-quote +lines):\n%s", diff)
	}
	// Row 1 of corpus/observed/vllm.csv: 23.58 GiB is rtx-3090's
	// 25318916096 B (23.5800 GiB) within the log's rounding.
	if ga.Class.Name != "rtx-3090" {
		t.Errorf("class %s, want rtx-3090", ga.Class.Name)
	}
}

// TestExplainColdKeptNote explains rows of corpus/observed/vllm.csv sized
// cold (--compile-cache cold, as their compile_cache cells say) and checks
// the note on the embedding-table copy's segment a first start can keep
// from vLLM 0.26.1 (engine/vllm coldKeptSegment), by hand:
//   - Qwen3-14B-AWQ and Qwen3-32B both have a 151,936-token vocabulary (a
//     multiple of vLLM's padding of 64) and hidden 5120, 2-byte tables
//     (float16, bfloat16): 151,936 x 5120 x 2 = 1,555,824,640 B at TP 1
//     and on PP's first stage, over 10 MiB, so a segment of its own
//     rounded up to 2 MiB: 742 x 2,097,152 = 1,556,086,784 B = 1.449 GiB,
//     "1.45 GiB".
//   - Rows 206 and 207 log 9.27 GiB of available KV memory where
//     membudget predicts 10.77 cold (the observed table's
//     qwen3AWQRows028): 1.50 GiB below, over half the segment, so the
//     note says the segment accounts for 1.45 GiB of it, leaving 1.50 -
//     1.449 = 0.05 GiB.
//   - Row 242 (PP 2) logs 6.92 GiB where membudget predicts 7.36 for the
//     first stage: 0.44 GiB, under half the segment (0.72), so the note
//     names the segment alone.
//   - Sized warm, on 0.26.0 (no segment counted before 0.26.1) or for a
//     multimodal model (its lookup runs outside the compiled forward: no
//     table copied), there is no note.
func TestExplainColdKeptNote(t *testing.T) {
	t.Parallel()
	quotes := observedQuotes(t)
	const seg = "cold start's kept segment: from vLLM 0.26.1 a first start can also keep the allocator segment of Inductor's benchmark copy of the embedding table reserved (1.45 GiB, "
	const gap = "; the logged available KV memory (line 1) is 1.50 GiB below membudget's: kept, the segment would account for 1.45 GiB of it, leaving 0.05 GiB unexplained"
	awq := []string{"--model", "Qwen__Qwen3-14B-AWQ", "--class", "rtx-5090", "--gpu-memory-utilization", "0.7"}
	cases := []struct {
		name, row string
		args      []string
		// want is the note's start and end; "" where there is no note.
		wantStart, wantEnd string
	}{
		{"row 206 cold", "206", append(slices.Clone(awq), "--max-model-len", "32768", "--vllm-version", "0.28.0", "--compile-cache", "cold"), seg, gap},
		{"row 207 cold", "207", append(slices.Clone(awq), "--max-model-len", "16384", "--vllm-version", "0.28.0", "--compile-cache", "cold"), seg, gap},
		{"row 242 cold, PP 2", "242", []string{"--model", "Qwen__Qwen3-32B", "--class", "rtx-pro-6000", "--gpu-memory-utilization", "0.426", "--max-model-len", "32768", "--pipeline-parallel-size", "2", "--vllm-version", "0.27.1", "--compile-cache", "cold"}, seg, "an estimate membudget does not charge (coldcompile.go)"},
		{"row 206 warm", "206", append(slices.Clone(awq), "--max-model-len", "32768", "--vllm-version", "0.28.0"), "", ""},
		{"row 206 cold on 0.26.0", "206", append(slices.Clone(awq), "--max-model-len", "32768", "--vllm-version", "0.26.0", "--compile-cache", "cold"), "", ""},
		{"multimodal cold", "206", []string{"--model", "Qwen__Qwen2.5-VL-7B-Instruct", "--class", "rtx-5090", "--gpu-memory-utilization", "0.7", "--max-model-len", "4096", "--vllm-version", "0.28.0", "--compile-cache", "cold"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := explainStdin(t, quotes[tc.row], append([]string{"--json", "--quote"}, tc.args...)...)
			if code == exitBadArgs {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var got explainJSON
			if err := jsonUnmarshal([]byte(stdout), &got); err != nil {
				t.Fatal(err)
			}
			var note string
			for _, n := range got.Notes {
				if strings.HasPrefix(n, "cold start's kept segment") {
					note = n
				}
			}
			if tc.wantStart == "" {
				if note != "" {
					t.Errorf("note %q, want none", note)
				}
				return
			}
			if !strings.HasPrefix(note, tc.wantStart) || !strings.HasSuffix(note, tc.wantEnd) {
				t.Errorf("note %q\nwant it to start %q\nand end %q", note, tc.wantStart, tc.wantEnd)
			}
		})
	}
}
