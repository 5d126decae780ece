package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// batchAnswers runs the request lines through batch (one job, out-dir
// dir) and returns the answers, one a line, and the exit status.
func batchAnswers(t *testing.T, dir string, reqs ...string) ([]string, int) {
	t.Helper()
	a := testApp()
	a.outDir = dir
	var out, errOut bytes.Buffer
	code := a.serveBatch(&out, &errOut, strings.NewReader(strings.Join(reqs, "\n")), 1)
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"), code
}

// TestBatchRequestsAreStrict: a request whose JSON does not say one thing
// is refused naming the key, never answered for another question (issue
// 19, defects 4 and 5). Before the fix, "svg": true took the next flag as
// its value (answered at TP 1, an SVG named --tensor-parallel-size=2
// written in the working directory), and of two values the last won.
func TestBatchRequestsAreStrict(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, req, want string
	}{
		{"true for a flag that takes a value",
			`{"command":"frontier","model":"Qwen/Qwen3-0.6B","class":"l4","svg":true,"tensor-parallel-size":2}`,
			`{"line":1,"command":"frontier","exit":2,"error":"membudget frontier: \"svg\": --svg takes a value, got true"}`},
		{"false for a flag that takes a value",
			`{"command":"max-seqs","model":"Qwen/Qwen3-0.6B","class":"l4","length":false}`,
			`{"line":1,"command":"max-seqs","exit":2,"error":"membudget max-seqs: \"length\": --length takes a value, got false"}`},
		{"a string for a flag that takes none",
			`{"command":"report","model":"Qwen/Qwen3-0.6B","class":"l4","enforce-eager":"yes"}`,
			`{"line":1,"command":"report","exit":2,"error":"membudget report: \"enforce-eager\": --enforce-eager takes true or false, got \"yes\""}`},
		{"a number for a flag that takes none (the flag package would read 1 as true)",
			`{"command":"report","model":"Qwen/Qwen3-0.6B","class":"l4","enforce-eager":1}`,
			`{"line":1,"command":"report","exit":2,"error":"membudget report: \"enforce-eager\": --enforce-eager takes true or false, got 1"}`},
		{"a duplicate flag key",
			`{"command":"max-seqs","model":"Qwen/Qwen3-0.6B","class":"l4","length":4096,"length":8192}`,
			`{"line":1,"exit":2,"error":"\"length\": the key is given twice"}`},
		{"a duplicate command",
			`{"command":"budget","class":"l4","command":"classes"}`,
			`{"line":1,"exit":2,"error":"\"command\": the key is given twice"}`},
		{"a flag given as a field and in args",
			`{"command":"max-seqs","model":"Qwen/Qwen3-0.6B","class":"l4","length":4096,"args":["--length=8192"]}`,
			`{"line":1,"command":"max-seqs","exit":2,"error":"\"length\": given twice, as a field and in \"args\""}`},
		{"a key that is no flag name",
			`{"command":"budget","class":"l4","gpu-memory-utilization=0.5 --x":1}`,
			`{"line":1,"command":"budget","exit":2,"error":"\"gpu-memory-utilization=0.5 --x\": not a flag name (want lower-case letters, digits and dashes)"}`},
		{"json other than true",
			`{"command":"budget","class":"l4","json":false}`,
			`{"line":1,"command":"budget","exit":2,"error":"\"json\": batch always answers in JSON; give true or leave it out, got false"}`},
		{"a key with a terminal escape is quoted escaped",
			"{\"command\":\"budget\",\"\\u001b[2J\":1}",
			`{"line":1,"command":"budget","exit":2,"error":"\"\\x1b[2J\": not a flag name (want lower-case letters, digits and dashes)"}`},
	} {
		lines, code := batchAnswers(t, "", c.req)
		if diff := cmp.Diff([]string{c.want}, lines); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", c.name, diff)
		}
		if code != exitBadArgs {
			t.Errorf("%s: exit %d, want %d", c.name, code, exitBadArgs)
		}
	}
}

// TestBatchWritesOnlyUnderOutDir: a request's svg is written under
// batch's --out-dir and nowhere else: without --out-dir, outside it (an
// absolute path, "..", a symbolic link out of it) it is refused, and
// nothing is written.
func TestBatchWritesOnlyUnderOutDir(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	dir := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	req := func(svg string) string {
		b, _ := json.Marshal(map[string]any{"command": "frontier", "model": "Qwen/Qwen3-0.6B", "class": "l4", "max-model-len": 64, "svg": svg})
		return string(b)
	}
	for _, c := range []struct {
		name, dir, svg, error string
	}{
		{"no --out-dir", "", "a.svg", `"a.svg": a batch request writes files only under batch's --out-dir, and none was given`},
		{"an absolute path", dir, filepath.Join(outside, "a.svg"), `want a path inside --out-dir (relative, without ..)`},
		{"dot-dot", dir, "../a.svg", `"../a.svg": want a path inside --out-dir (relative, without ..)`},
		{"a link out of the directory", dir, "link/a.svg", `"link/a.svg": `},
	} {
		lines, code := batchAnswers(t, c.dir, req(c.svg))
		var got batchError
		if err := json.Unmarshal([]byte(lines[0]), &got); err != nil || len(lines) != 1 {
			t.Fatalf("%s: answer %q", c.name, lines)
		}
		if code != exitBadArgs || got.Exit != exitBadArgs || !strings.Contains(got.Error, c.error) {
			t.Errorf("%s: exit %d, error %q, want exit 2 and an error holding %q", c.name, code, got.Error, c.error)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("written outside --out-dir: %v", entries)
	}
	lines, code := batchAnswers(t, dir, req("plots.svg"))
	if code != exitOK || !strings.HasPrefix(lines[0], "[") {
		t.Fatalf("a name inside --out-dir: exit %d, answer %.200s", code, lines[0])
	}
	if b, err := os.ReadFile(filepath.Join(dir, "plots.svg")); err != nil || !bytes.HasPrefix(b, []byte("<svg")) {
		t.Errorf("plots.svg under --out-dir: %v, %.40q", err, b)
	}
}

// TestBatchOutDirMustBeADirectory: batch's --out-dir is checked when batch
// starts, naming the flag.
func TestBatchOutDirMustBeADirectory(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := testApp().run(&out, &errOut, []string{"batch", "--out-dir", file})
	if code != exitBadArgs || !strings.Contains(errOut.String(), "--out-dir "+file+": not a directory") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

// TestHubDeadlineFlag: --hub-deadline bounds a whole resolution: a Hub
// that never answers is given up at the deadline with an error naming the
// flag; a value out of its bounds is refused naming it.
func TestHubDeadlineFlag(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run(&out, &errOut, []string{"max-seqs", "--model", "org/m", "--class", "l4", "--hub-deadline", "0s"}); code != exitBadArgs ||
		!strings.Contains(errOut.String(), `invalid value "0s" for flag -hub-deadline: want a duration from 1s to 1h0m0s`) {
		t.Errorf("--hub-deadline 0s: exit %d, stderr %q", code, errOut.String())
	}
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // never answers within the deadline
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	env := map[string]string{"HOME": t.TempDir(), "HF_ENDPOINT": srv.URL}
	out.Reset()
	errOut.Reset()
	code := envApp(env).run(&out, &errOut, []string{"max-seqs", "--model", "org/m", "--class", "l4", "--hub-deadline", "1s"})
	if code != exitBadArgs || !strings.Contains(errOut.String(), "no whole answer within --hub-deadline 1s") {
		t.Errorf("a Hub that never answers: exit %d, stderr %q", code, errOut.String())
	}
}

// TestBatchErrorsEscaped: what a request sends is escaped in its error
// answer, a bidirectional override included (JSON leaves U+202E as it is,
// and a terminal showing the answer would obey it).
func TestBatchErrorsEscaped(t *testing.T) {
	t.Parallel()
	lines, _ := batchAnswers(t, "", "{\"command\":\"budget\",\"class\":\"l4\",\"args\":[\"--\u202ex\"]}")
	if len(lines) != 1 || strings.Contains(lines[0], "\u202e") || !strings.Contains(lines[0], `-\\u202ex`) {
		t.Errorf("answer %q: want the override escaped", lines)
	}
}
