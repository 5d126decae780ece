package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkData is the check package's manifests, one of each kind.
const checkData = "../../check/testdata"

func TestCheckGolden(t *testing.T) {
	t.Parallel()
	runGolden(t, []cliCase{
		// Two servers of the manifests fail (the GPU count that
		// disagrees with TP, the 70B on one L4): exit 1.
		{"check-text", []string{"check", "--class", "h100-sxm-80g", checkData}, exitNoFit},
		{"check-json", []string{"check", "--format", "json", "--class", "h100-sxm-80g", checkData}, exitNoFit},
		{"check-github", []string{"check", "--format", "github", "--class", "h100-sxm-80g", checkData}, exitNoFit},
		{"check-junit", []string{"check", "--format", "junit", "--class", "h100-sxm-80g", checkData}, exitNoFit},
		// Flags after the path are read too.
		{"check-fits", []string{"check", checkData + "/deployment.yaml", "--format", "github"}, exitOK},
		{"check-no-class", []string{"check", checkData + "/compose.yaml"}, exitBadArgs},
		{"check-missing-file", []string{"check", "testdata/no-such-manifest.yaml"}, exitBadArgs},
		{"check-no-path", []string{"check"}, exitBadArgs},
		{"check-bad-format", []string{"check", "--format", "sarif", checkData}, exitBadArgs},
		{"check-bad-class", []string{"check", "--class", "tpu-v5", checkData}, exitBadArgs},
		{"check-alias-bomb", []string{"check", "testdata/check-hostile/bomb.yaml"}, exitBadArgs},
		{"check-deep", []string{"check", "testdata/check-hostile/deep.yaml"}, exitBadArgs},
		{"check-no-class-github", []string{"check", "--format", "github", checkData + "/compose.yaml"}, exitBadArgs},
		{"check-no-class-junit", []string{"check", "--format", "junit", checkData + "/compose.yaml"}, exitBadArgs},
		// vLLM refuses the line; the advice names the flags, and those
		// that take more GPUs say so.
		{"check-advice", []string{"check", "--class", "l4", "testdata/check-advice"}, exitNoFit},
		// A chart's templates are skipped, named on stderr; the rendered
		// output beside it is checked.
		{"check-helm", []string{"check", "--format", "github", "testdata/check-helm"}, exitOK},
		{"help-check", []string{"help", "check"}, exitOK},
		{"check-bad-flag", []string{"check", "--formats", "json", checkData}, exitBadArgs},
		{"check-no-server", []string{"check", "testdata/check-none"}, exitOK},
	})
}

// checkJSON is check --format json, as the test reads it back.
type checkJSON struct {
	Servers []struct {
		File     string         `json:"file"`
		Line     int            `json:"line"`
		Status   string         `json:"status"`
		Class    string         `json:"class"`
		GPUs     uint64         `json:"gpus"`
		Problems []checkProblem `json:"problems"`
	} `json:"servers"`
	Summary checkSummary `json:"summary"`
}

// TestCheckVerdicts pins each server's verdict, class, GPUs and the lines
// its problems are reported at.
func TestCheckVerdicts(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"check", "--format", "json", "--class", "h100-sxm-80g", checkData}); code != exitNoFit {
		t.Fatalf("exit %d, want 1: %s", code, stderr.String())
	}
	var got checkJSON
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	type verdict struct {
		Where        string
		Status       string
		Class        string
		GPUs         uint64
		ProblemLines []int
	}
	var gotV []verdict
	for _, s := range got.Servers {
		v := verdict{Where: s.File[len(checkData)+1:] + ":" + strconv.Itoa(s.Line), Status: s.Status, Class: s.Class, GPUs: s.GPUs}
		for _, p := range s.Problems {
			v.ProblemLines = append(v.ProblemLines, p.Line)
		}
		gotV = append(gotV, v)
	}
	want := []verdict{
		// compose: --class; one GPU each.
		{"compose.yaml:6", checkFits, "h100-sxm-80g", 1, nil},
		{"compose.yaml:19", checkFits, "h100-sxm-80g", 1, nil},
		{"deployment.yaml:23", checkFits, "h100-sxm-80g", 1, nil},
		// TP 4 takes 4 GPUs; the Job requests 2 on line 26.
		{"gpu-mismatch.yaml:22", checkFails, "h100-sxm-80g", 4, []int{26}},
		// TP 2.
		{"inferenceservice.yaml:14", checkFits, "a100-80g", 2, nil},
		// TP 8 x PP 2 = 16 = 8 on the leader + 8 on the one worker.
		{"leaderworkerset.yaml:22", checkFits, "a100-80g", 16, nil},
		{"serve.sh:7", checkFits, "h100-sxm-80g", 1, nil},
		{"two-servers.yaml:16", checkFits, "l4", 1, nil},
		// 70B of bf16 weights (about 131 GiB) on one 22 GiB L4: vLLM
		// does not start, reported at the launch line.
		{"two-servers.yaml:43", checkFails, "l4", 1, []int{43}},
	}
	if diff := cmp.Diff(want, gotV); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(checkSummary{Servers: 9, Fit: 7, Fail: 2}, got.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

// TestCheckReadsStdin: - reads the manifest from standard input, named -
// in the output.
func TestCheckReadsStdin(t *testing.T) {
	t.Parallel()
	manifest := "kind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n  containers:\n" +
		"  - name: c\n    command: [vllm, serve, Qwen/Qwen3-0.6B, --max-model-len, '4096']\n    resources: {limits: {nvidia.com/gpu: 1}}\n"
	a := newApp(func(k string) string { return testEnv[k] }, strings.NewReader(manifest))
	var stdout, stderr bytes.Buffer
	if code := a.run(&stdout, &stderr, []string{"check", "--format", "github", "-"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	// The launch line is on line 7 of the manifest.
	if want := "::notice file=-,line=7,"; !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("stdout %q does not begin %q", stdout.String(), want)
	}
}

// TestGitHubEscape: a message's % and newlines, and a property's : and ,
// are escaped as the Actions runner reads them.
func TestGitHubEscape(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in    string
		props bool
		want  string
	}{
		{"50% of a\nline\r", false, "50%25 of a%0Aline%0D"},
		{"Job/a, container b: c", true, "Job/a%2C container b%3A c"},
		{"a: b, c", false, "a: b, c"},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, githubEscape(tc.in, tc.props)); diff != "" {
			t.Errorf("githubEscape(%q, %v) (-want +got):\n%s", tc.in, tc.props, diff)
		}
	}
}

// checkStrictJSON is check --format json, every field named: decoded
// strictly, so that a field cannot appear or vanish unseen. kv is the
// engine's own (report --json's kv_capacity or kv_pool).
type checkStrictJSON struct {
	Servers []struct {
		File      string                     `json:"file"`
		Line      int                        `json:"line"`
		Where     string                     `json:"where"`
		Status    string                     `json:"status"`
		Engine    string                     `json:"engine"`
		Model     string                     `json:"model"`
		Class     string                     `json:"class"`
		ClassFrom string                     `json:"class_from"`
		Command   string                     `json:"command"`
		GPUs      uint64                     `json:"gpus"`
		Requested *json.RawMessage           `json:"requested"`
		Starts    *bool                      `json:"starts"`
		Fits      *bool                      `json:"fits"`
		Length    uint64                     `json:"length"`
		MaxSeqs   *uint64                    `json:"max_seqs"`
		KV        map[string]json.RawMessage `json:"kv"`
		Problems  []checkProblem             `json:"problems"`
		Advice    []suggestionJSON           `json:"advice"`
		Searched  []string                   `json:"searched"`
	} `json:"servers"`
	Summary checkSummary `json:"summary"`
}

// TestCheckSizesAsReport: a server check finds is sized exactly as report
// sizes its launch line: the same launch line printed, the same KV cache,
// and max-seqs's answer at its length.
func TestCheckSizesAsReport(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"check", "--format", "json", checkData + "/deployment.yaml"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got checkStrictJSON
	if err := jsonUnmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Servers) != 1 {
		t.Fatalf("%d servers, want 1", len(got.Servers))
	}
	srv := got.Servers[0]
	// The Deployment's args, after the image's vllm serve.
	line := []string{"vllm", "serve", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "32768", "--gpu-memory-utilization", "0.9"}
	stdout.Reset()
	if code := run(&stdout, &stderr, append([]string{"report", "--json", "--class", "h100-sxm-80g"}, line...)); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, stderr.String())
	}
	var rep struct {
		Serve      struct{ Command string } `json:"serve"`
		KVCapacity json.RawMessage          `json:"kv_capacity"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep.Serve.Command, srv.Command); diff != "" {
		t.Errorf("command (-report +check):\n%s", diff)
	}
	var repKV, checkKV any
	if err := json.Unmarshal(rep.KVCapacity, &repKV); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(srv.KV["kv_capacity"], &checkKV); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(repKV, checkKV); diff != "" {
		t.Errorf("kv_capacity (-report +check):\n%s", diff)
	}
	stdout.Reset()
	if code := run(&stdout, &stderr, append([]string{"max-seqs", "--json", "--class", "h100-sxm-80g", "--length", "32768"}, line...)); code != exitOK {
		t.Fatalf("max-seqs: exit %d: %s", code, stderr.String())
	}
	var ms struct {
		Answer uint64 `json:"answer"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &ms); err != nil {
		t.Fatal(err)
	}
	if srv.MaxSeqs == nil || *srv.MaxSeqs != ms.Answer || ms.Answer == 0 {
		t.Errorf("max_seqs %v, max-seqs answers %d", srv.MaxSeqs, ms.Answer)
	}
}
