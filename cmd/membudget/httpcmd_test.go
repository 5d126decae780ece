package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/internal/untrusted"
)

// newTestServer starts serve's handler for a on the loopback, under opts
// (a minute and two jobs when opts is the zero value).
func newTestServer(t testing.TB, a *app, opts serveOptions) *httptest.Server {
	t.Helper()
	if opts.timeout == 0 {
		opts.timeout = time.Minute
	}
	if opts.jobs == 0 {
		opts.jobs = 2
	}
	srv := httptest.NewServer(a.newHandler(opts))
	t.Cleanup(srv.Close)
	return srv
}

// post sends body to srv's path and returns the status, the exit header
// and the body of the answer.
func post(t testing.TB, srv *httptest.Server, path, body string) (int, string, string) {
	t.Helper()
	resp, err := srv.Client().Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get(exitHeader), string(b)
}

// batchOf is batch's answer to one request line and its exit status, as
// `membudget batch` prints it (main's escaping included).
func batchOf(t testing.TB, a *app, line string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := a.serveBatch(untrusted.Writer(&out), &errOut, strings.NewReader(line+"\n"), 1)
	return out.String(), code
}

// serveAnswered are requests of each batch command that batch answers
// (exit 0 and 1); serveRefused requests it refuses (exit 2), with its
// message; serveRequests both, for the API's agreement with batch.
var serveAnswered = []string{
	`{"command":"report","model":"Qwen/Qwen3-8B","class":"l4","max-model-len":4096,"seqs":4}`,
	`{"command":"report","model":"meta-llama/Llama-3.1-70B-Instruct","class":"l4"}`,
	`{"command":"report","engine":"sglang","model":"Qwen/Qwen3-8B","class":"h100-sxm-80g","context-length":8192}`,
	`{"command":"report","model":"Qwen/Qwen3-8B","class":"l4","args":["vllm","serve","Qwen/Qwen3-8B","--max-model-len","8192","--enforce-eager"]}`,
	`{"command":"max-seqs","model":"Qwen/Qwen3-8B","class":"l4","length":4096}`,
	`{"command":"max-len","model":"Qwen/Qwen3-8B","class":"a100-40g","seqs":16}`,
	`{"command":"frontier","model":"microsoft/phi-4","class":"l40s","max-model-len":16384}`,
	`{"command":"plan","model":"Qwen/Qwen3-8B","length":8192,"concurrency":16,"classes":"l4,a100-80g","top":3}`,
	`{"command":"budget","class":"h100-sxm-80g","gpu-memory-utilization":0.9}`,
	`{"command":"classes"}`,
	// A string in vLLM's human-readable form is a length vLLM takes (4k is
	// 4000 tokens; TestBatchReadsHumanReadableLength checks the figure).
	`{"command":"report","model":"Qwen/Qwen3-8B","class":"l4","max-model-len":"4k"}`,
}

var serveRefused = []string{
	`{"command":"report","model":"Qwen/Qwen3-8B","class":"tpu-v9"}`,
	// Not an integer, nor one in vLLM's human-readable form.
	`{"command":"report","model":"Qwen/Qwen3-8B","class":"l4","max-model-len":"4x"}`,
	`{"command":"max-seqs","model":"Qwen/Qwen3-8B","class":"l4","length":4096,"enforce-eager":"yes"}`,
	`{"command":"report","model":"Qwen/Qwen3-8B","class":"l4","no-such-flag":1}`,
	`{"command":"report","class":"l4"}`,
	// Help is no answer (FuzzServeBody found a 500 here).
	`{"command":"budget","h":0}`,
	`{"command":"max-len","args":["-help"]}`,
	// A model id with a C1 control and a bidi override: escaped as the
	// command line escapes it.
	`{"command":"report","model":"acme/evil\u009b31m\u202e","class":"l4"}`,
}

var serveRequests = slices.Concat(serveAnswered, serveRefused)

// TestServeAgreesWithBatch: each endpoint answers a request with batch's
// answer to the same request, byte for byte, the exit status in its
// header; a refused request with 400 and batch's exit status and message.
// Each request is first checked to be answered or refused as it is listed:
// were batch to refuse an answered one, serve agreeing with it would prove
// nothing, and a refused one answered would leave the refusal unchecked.
func TestServeAgreesWithBatch(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, testApp(), serveOptions{})
	for i, line := range serveRequests {
		var req map[string]any
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatal(err)
		}
		cmd := req["command"].(string)
		want, code := batchOf(t, testApp(), line)
		var be batchError
		refused := json.Unmarshal([]byte(want), &be) == nil && be.Error != ""
		if listed := i >= len(serveAnswered); refused != listed {
			t.Errorf("%s: listed as refused %v, but batch refused it %v (exit %d): %s", line, listed, refused, code, want)
		}
		// The body may name the command or leave it out.
		delete(req, "command")
		body, _ := json.Marshal(req)
		for _, b := range []string{line, string(body)} {
			status, exit, got := post(t, srv, "/api/"+cmd, b)
			if refused {
				// batch printed no answer: serve's error carries the same.
				var he httpError
				if err := json.Unmarshal([]byte(got), &he); err != nil {
					t.Fatalf("%s: %v in %q", b, err, got)
				}
				wantErr := httpError{Status: http.StatusBadRequest, Command: cmd, Exit: be.Exit, Error: be.Error}
				if diff := cmp.Diff(wantErr, he); diff != "" || status != http.StatusBadRequest {
					t.Errorf("%s: status %d (-batch +serve):\n%s", b, status, diff)
				}
				continue
			}
			if status != http.StatusOK || exit != fmt.Sprint(code) {
				t.Errorf("%s: status %d, exit %q; want 200, exit %d", b, status, exit, code)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: (-batch +serve):\n%s", b, diff)
			}
		}
	}
}

// TestBatchReadsHumanReadableLength: a request's "max-model-len" given as
// a string is read as vLLM reads its flag (vllm/engine/arg_utils.py
// human_readable_int): 4k is 4 x 1000 tokens, 4K 4 x 1024; a suffix vLLM
// does not know is refused naming the flag.
func TestBatchReadsHumanReadableLength(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		want  uint64
		err   string
	}{
		{"4k", 4 * 1000, ""},
		{"4K", 4 * 1024, ""},
		{"4x", 0, `invalid value "4x" for flag -max-model-len: "4x" is not an integer`},
	} {
		line := `{"command":"report","model":"Qwen/Qwen3-8B","class":"l4","max-model-len":"` + tc.value + `"}`
		got, code := batchOf(t, testApp(), line)
		if tc.err != "" {
			var be batchError
			if err := json.Unmarshal([]byte(got), &be); err != nil || code != exitBadArgs || !strings.Contains(be.Error, tc.err) {
				t.Errorf("%s: exit %d, %s; want exit %d and an error with %q", tc.value, code, got, exitBadArgs, tc.err)
			}
			continue
		}
		var r reportJSON
		if err := json.Unmarshal([]byte(got), &r); err != nil {
			t.Fatalf("%s: %v in %s", tc.value, err, got)
		}
		if r.Serve.MaxModelLen != tc.want {
			t.Errorf("%s: max_model_len %d, want %d", tc.value, r.Serve.MaxModelLen, tc.want)
		}
	}
}

// TestServeExplainAndCheck: explain and check read the log and the
// manifest from the request and answer what the command prints with
// --json (--format json) for the same text on its standard input.
func TestServeExplainAndCheck(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, testApp(), serveOptions{})
	for _, tc := range []struct {
		cmd, file string
		fields    map[string]any
		cli       []string
	}{
		{"explain", logsDir + "vllm-0.19-v1-tp2-debug.log", nil, []string{"explain", "--json", "-"}},
		{"explain", logsDir + "vllm-0.10-v1.log", map[string]any{"class": "a100-40g"}, []string{"explain", "--json", "--class", "a100-40g", "-"}},
		{"explain", logsDir + "sglang.log", map[string]any{"class": "h100-sxm-80g"}, []string{"explain", "--json", "--class", "h100-sxm-80g", "-"}},
		{"check", "../../check/testdata/two-servers.yaml", nil, []string{"check", "--format", "json", "-"}},
		{"check", "testdata/check-advice/serve.sh", map[string]any{"class": "l4"}, []string{"check", "--format", "json", "--class", "l4", "-"}},
		// A server check cannot read: exit 2, and its JSON says why.
		{"check", "", map[string]any{"class": "l4"}, []string{"check", "--format", "json", "--class", "l4", "-"}},
	} {
		text := []byte("#!/bin/sh\nvllm serve acme/not-cached --max-model-len 4096\n")
		if tc.file != "" {
			var err error
			if text, err = os.ReadFile(tc.file); err != nil {
				t.Fatal(err)
			}
		}
		a := testApp()
		a.stdin = bytes.NewReader(text)
		var stdout, stderr bytes.Buffer
		code := a.run(&stdout, &stderr, tc.cli)
		var want bytes.Buffer
		if err := json.Compact(&want, stdout.Bytes()); err != nil {
			t.Fatalf("%v: exit %d, %v; stderr %s", tc.cli, code, err, stderr.String())
		}
		want.WriteByte('\n')
		if tc.cmd == "check" && !strings.Contains(want.String(), `"servers":[{`) {
			t.Errorf("%s: the CLI found no server: %s", tc.file, want.String())
		}
		req := map[string]any{textField(tc.cmd): string(text)}
		for k, v := range tc.fields {
			req[k] = v
		}
		body, _ := json.Marshal(req)
		status, exit, got := post(t, srv, "/api/"+tc.cmd, string(body))
		if status != http.StatusOK || exit != fmt.Sprint(code) {
			t.Errorf("%v: status %d, exit %q; want 200, exit %d (%s)", tc.cli, status, exit, code, got)
		}
		if diff := cmp.Diff(want.String(), got); diff != "" {
			t.Errorf("%v: (-cli +serve):\n%s", tc.cli, diff)
		}
	}
}

// TestServeRefusesLocalPaths: without --models-dir a request names no
// local path, in any field or launch line; with it, only paths under it,
// its symbolic links resolved first; and a request writes nothing.
func TestServeRefusesLocalPaths(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	models := filepath.Join(root, "models")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(models, "tiny"), filepath.Join(outside, "tiny")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "config.json"), []byte(tinyLlamaConfig), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A link under the directory to a model outside it.
	if err := os.Symlink(filepath.Join(outside, "tiny"), filepath.Join(models, "escape")); err != nil {
		t.Fatal(err)
	}
	yaml := filepath.Join(root, "flags.yaml")
	if err := os.WriteFile(yaml, []byte("max-model-len: 4096\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(logsDir + "vllm-0.10-v1.log")
	if err != nil {
		t.Fatal(err)
	}
	noDir := "serve reads no local path unless it was started with --models-dir DIR, and was not (shipped and cached models and shipped classes need none)"
	notUnder := "serve reads existing paths under its --models-dir directories only, and this is not one"
	in := func(p string) string { return filepath.Join(models, p) }
	policy, err := newPathPolicy([]string{models})
	if err != nil {
		t.Fatal(err)
	}
	closed := newTestServer(t, testApp(), serveOptions{})
	open := newTestServer(t, testApp(), serveOptions{paths: policy})
	for _, tc := range []struct {
		name string
		srv  *httptest.Server
		cmd  string
		req  map[string]any
		want string // the error; "" for an answer
	}{
		{"model directory", closed, "report", map[string]any{"model": in("tiny"), "class": "l4"}, "membudget report: --model " + in("tiny") + ": " + noDir},
		{"model config.json", closed, "report", map[string]any{"model": in("tiny/config.json"), "class": "l4"}, "membudget report: --model " + in("tiny/config.json") + ": " + noDir},
		{"relative model", closed, "max-seqs", map[string]any{"model": "./testdata", "class": "l4"}, "membudget max-seqs: --model ./testdata: " + noDir},
		{"model in a launch line", closed, "report", map[string]any{"class": "l4", "args": []string{"vllm", "serve", "/etc"}}, "membudget report: --model /etc: " + noDir},
		{"plan's model", closed, "plan", map[string]any{"model": "/etc", "length": 1024, "concurrency": 1}, "membudget plan: --model /etc: " + noDir},
		{"kernels", closed, "report", map[string]any{"model": "Qwen/Qwen3-8B", "class": "l4", "kernels": "../../kernels"}, "membudget report: --kernels ../../kernels: " + noDir},
		{"classes' kernels", closed, "budget", map[string]any{"class": "l4", "kernels": "/"}, "membudget budget: --kernels /: " + noDir},
		{"config file", closed, "report", map[string]any{"model": "Qwen/Qwen3-8B", "class": "l4", "config": yaml}, `"--config=` + yaml + `": serve reads no file a request names; give the file's flags in the request`},
		{"config file in args", open, "report", map[string]any{"model": "Qwen/Qwen3-8B", "class": "l4", "args": []string{"--config", yaml}}, `"--config": serve reads no file a request names; give the file's flags in the request`},
		{"config file, underscores", closed, "report", map[string]any{"model": "Qwen/Qwen3-8B", "class": "l4", "args": []string{"-_config=" + yaml}}, `"-_config=` + yaml + `": serve reads no file a request names; give the file's flags in the request`},
		{"config file in a manifest", closed, "check", map[string]any{"class": "l4", "manifest": "#!/bin/sh\nvllm serve Qwen/Qwen3-8B --config " + yaml + "\n"}, ""},
		{"svg", closed, "frontier", map[string]any{"model": "Qwen/Qwen3-8B", "class": "l4", "svg": "plot.svg"}, `membudget frontier: --svg: "plot.svg": serve writes no file; the answer's points are the plot's data (the page draws them)`},
		{"calibrate", open, "explain", map[string]any{"log": string(log), "class": "a100-40g", "calibrate": models}, "membudget explain: --calibrate: serve writes no file; run membudget explain --calibrate on the command line"},
		{"explain's args", closed, "explain", map[string]any{"log": "x", "args": []string{"/etc/passwd"}}, `"args": explain takes its flags as fields and its text as "log"`},
		{"check's args", closed, "check", map[string]any{"manifest": "x", "args": []string{"/etc"}}, `"args": check takes its flags as fields and its text as "manifest"`},
		{"explain without a log", closed, "explain", map[string]any{"class": "l4"}, `"log" is required: the engine's startup log to read, as a string`},
		// With --models-dir: under it, yes; outside, through .. or a
		// link, no.
		{"under --models-dir", open, "report", map[string]any{"model": in("tiny"), "class": "l4"}, ""},
		{"kernels under --models-dir", open, "classes", map[string]any{"kernels": models}, ""},
		{"outside --models-dir", open, "report", map[string]any{"model": filepath.Join(outside, "tiny"), "class": "l4"}, "membudget report: --model " + filepath.Join(outside, "tiny") + ": " + notUnder},
		{"dot-dot out of --models-dir", open, "report", map[string]any{"model": in("../outside/tiny"), "class": "l4"}, "membudget report: --model " + in("../outside/tiny") + ": " + notUnder},
		{"a link out of --models-dir", open, "report", map[string]any{"model": in("escape"), "class": "l4"}, "membudget report: --model " + in("escape") + ": " + notUnder},
		{"a missing path", open, "report", map[string]any{"model": in("../nothing/config.json"), "class": "l4"}, "membudget report: --model " + in("../nothing/config.json") + ": " + notUnder},
		// An EAGLE-3 draft's directory, in a launch line: refused before
		// it is read.
		{"a draft directory", closed, "report", map[string]any{"class": "l4", "args": []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--enforce-eager",
			"--speculative-config", `{"method": "eagle3", "model": "` + in("tiny") + `", "num_speculative_tokens": 3}`}}, "membudget report: --speculative-config " + in("tiny") + ": " + noDir},
		{"a draft outside --models-dir", open, "report", map[string]any{"class": "l4", "args": []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--enforce-eager",
			"-sc", `{"method": "eagle3", "model": "` + filepath.Join(outside, "tiny") + `", "num_speculative_tokens": 3}`}}, "membudget report: --sc " + filepath.Join(outside, "tiny") + ": " + notUnder},
		// A LoRA adapter's directory (--lora-modules reads its
		// adapter_config.json as it is parsed): refused before it is read,
		// in each form the flag takes.
		{"an adapter directory", closed, "report", map[string]any{"model": "meta-llama/Llama-3.1-8B-Instruct", "class": "l4", "enable-lora": true, "lora-modules": "sql=" + in("tiny")},
			"membudget report: --lora-modules " + in("tiny") + ": " + noDir},
		{"a JSON adapter in args", closed, "max-seqs", map[string]any{"model": "meta-llama/Llama-3.1-8B-Instruct", "class": "l4", "args": []string{"--enable-lora", "--lora_modules", `{"name": "a", "path": "/etc"}`}},
			"membudget max-seqs: --lora-modules /etc: " + noDir},
		{"plan's adapter", closed, "plan", map[string]any{"model": "meta-llama/Llama-3.1-8B-Instruct", "length": 1024, "concurrency": 1, "enable-lora": true, "lora-modules": "a=/etc"},
			"membudget plan: --lora-modules /etc: " + noDir},
		{"an adapter outside --models-dir", open, "report", map[string]any{"model": "meta-llama/Llama-3.1-8B-Instruct", "class": "l4", "args": []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--enable-lora", "--lora-modules", "a=" + in("tiny"), "b=" + filepath.Join(outside, "tiny")}},
			"membudget report: --lora-modules " + filepath.Join(outside, "tiny") + ": " + notUnder},
	} {
		body, _ := json.Marshal(tc.req)
		status, _, got := post(t, tc.srv, "/api/"+tc.cmd, string(body))
		if tc.want == "" {
			if status != http.StatusOK {
				t.Errorf("%s: status %d: %s", tc.name, status, got)
			}
			if tc.cmd == "check" && !strings.Contains(got, `"status":"unreadable"`) || !strings.Contains(got, `serve reads no file a request names`) && tc.cmd == "check" {
				t.Errorf("%s: the server is not refused: %s", tc.name, got)
			}
			continue
		}
		var he httpError
		if err := json.Unmarshal([]byte(got), &he); err != nil {
			t.Fatalf("%s: %v in %q", tc.name, err, got)
		}
		if diff := cmp.Diff(tc.want, he.Error); diff != "" || status != http.StatusBadRequest {
			t.Errorf("%s: status %d, error (-want +got):\n%s", tc.name, status, diff)
		}
	}
	// A manifest's launch line with an adapter: that server is unreadable,
	// naming the flag and the path.
	body, _ := json.Marshal(map[string]any{"class": "l4", "manifest": "#!/bin/sh\nvllm serve meta-llama/Llama-3.1-8B-Instruct --enable-lora --lora-modules a=/etc\n"})
	if status, _, got := post(t, closed, "/api/check", string(body)); status != http.StatusOK || !strings.Contains(got, `"status":"unreadable"`) || !strings.Contains(got, "--lora-modules /etc: "+noDir) {
		t.Errorf("an adapter in a manifest: status %d, %s; want the server unreadable, naming --lora-modules /etc", status, got)
	}
	if entries, err := os.ReadDir("."); err == nil && slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == "plot.svg" }) {
		t.Error("a request wrote plot.svg")
	}
}

// TestServeReachesTheHubOnlyWithHub: a Hub id not in the cache is
// resolved offline unless serve was started with --hub, whatever the
// environment says; the Hub sees no request without it.
func TestServeReachesTheHubOnlyWithHub(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t, "")
	h.repos["acme/tiny-llama"] = tinyLlamaFiles(t)
	env := map[string]string{"HOME": t.TempDir(), "HF_ENDPOINT": h.srv.URL}
	body := `{"model":"acme/tiny-llama","class":"l4"}`
	status, _, got := post(t, newTestServer(t, envApp(env), serveOptions{}), "/api/report", body)
	if status != http.StatusBadRequest || !strings.Contains(got, "HF_HUB_OFFLINE=1") {
		t.Errorf("without --hub: status %d, %s; want 400 naming HF_HUB_OFFLINE=1", status, got)
	}
	h.mu.Lock()
	if len(h.log) != 0 {
		t.Errorf("without --hub the Hub saw %q", h.log)
	}
	h.mu.Unlock()
	status, exit, got := post(t, newTestServer(t, envApp(env), serveOptions{hub: true}), "/api/report", body)
	if status != http.StatusOK || exit != "0" {
		t.Fatalf("with --hub: status %d, exit %q: %s", status, exit, got)
	}
	var rep reportJSON
	if err := json.Unmarshal([]byte(got), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Model.Source.Kind != "hub" {
		t.Errorf("with --hub: source %+v, want the Hub", rep.Model.Source)
	}
}

// TestServeBadRequests: every error is JSON with its status, the body
// bounded in size and in time, the answer in time.
func TestServeBadRequests(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, testApp(), serveOptions{loopback: true})
	big := `{"command":"report","model":"` + strings.Repeat("x", maxSizingBody) + `"}`
	for _, tc := range []struct {
		name, method, path, body string
		contentType, host        string
		want                     httpError
	}{
		{"not JSON", "POST", "/api/report", "not json", "", "", httpError{Status: 400, Command: "report", Exit: 2, Error: "not a JSON object: invalid character 'o' in literal null (expecting 'u')"}},
		{"two values", "POST", "/api/report", `{} {}`, "", "", httpError{Status: 400, Command: "report", Exit: 2, Error: "more than one JSON value on the line"}},
		{"another command", "POST", "/api/report", `{"command":"plan"}`, "", "", httpError{Status: 400, Command: "report", Exit: 2, Error: `"command": "plan", but the endpoint is /api/report; give the same or leave it out`}},
		{"a duplicate key", "POST", "/api/report", `{"class":"l4","class":"l40s"}`, "", "", httpError{Status: 400, Command: "report", Exit: 2, Error: `"class": the key is given twice`}},
		{"json false", "POST", "/api/report", `{"json":false}`, "", "", httpError{Status: 400, Command: "report", Exit: 2, Error: `"json": batch always answers in JSON; give true or leave it out, got false`}},
		{"check's format", "POST", "/api/check", `{"manifest":"","format":"junit"}`, "", "", httpError{Status: 400, Command: "check", Exit: 2, Error: `"format": serve answers in JSON; give "json" or leave it out, got "junit"`}},
		{"too large", "POST", "/api/report", big, "", "", httpError{Status: 413, Command: "report", Error: fmt.Sprintf("the request's body is larger than %d bytes", maxSizingBody)}},
		{"GET a command", "GET", "/api/report", "", "", "", httpError{Status: 405, Error: `GET "/api/report": want POST`}},
		{"POST the page", "POST", "/", "", "", "", httpError{Status: 405, Error: `POST "/": want GET`}},
		{"serve is no endpoint", "POST", "/api/serve", "{}", "", "", httpError{Status: 404, Error: `"/api/serve": no such endpoint; the commands are POST /api/<command>, one of budget, classes, frontier, max-len, max-seqs, plan, report, explain, check`}},
		{"a form", "POST", "/api/report", "model=x", "application/x-www-form-urlencoded", "", httpError{Status: 415, Command: "report", Error: `Content-Type "application/x-www-form-urlencoded": want application/json`}},
		{"text/plain", "POST", "/api/report", `{"model":"x"}`, "text/plain;charset=UTF-8", "", httpError{Status: 415, Command: "report", Error: `Content-Type "text/plain;charset=UTF-8": want application/json`}},
		{"another site's host", "GET", "/healthz", "", "", "rebound.example:8080", httpError{Status: 421, Error: `Host "rebound.example:8080": serve on the loopback answers requests to localhost, 127.0.0.1 or [::1] only`}},
	} {
		req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if tc.contentType != "" {
			req.Header.Set("Content-Type", tc.contentType)
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var got httpError
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v in %q", tc.name, err, b)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" || resp.StatusCode != tc.want.Status {
			t.Errorf("%s: status %d (-want +got):\n%s", tc.name, resp.StatusCode, diff)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", tc.name, ct)
		}
	}
}

// TestServeSlowBody: a body that stops coming is answered 408 at the
// request's --timeout, not waited for.
func TestServeSlowBody(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, testApp(), serveOptions{timeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 100 bytes announced, 10 sent.
	fmt.Fprintf(conn, "POST /api/report HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"class\":")
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	want := httpError{Status: http.StatusRequestTimeout, Command: "report", Error: "the request's body was not read whole within --timeout 300ms"}
	var got httpError
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v in %q", err, b)
	}
	if diff := cmp.Diff(want, got); diff != "" || resp.StatusCode != 408 {
		t.Errorf("status %d (-want +got):\n%s", resp.StatusCode, diff)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("answered after %v", d)
	}
}

// TestServeTimeout: a request that gets no answer within --timeout (here,
// every job slot held) is answered 504, naming the flag.
func TestServeTimeout(t *testing.T) {
	t.Parallel()
	h := testApp().newHandler(serveOptions{timeout: 2 * time.Second, jobs: 1}).(*handler)
	h.slots <- struct{}{} // the one slot, busy
	srv := httptest.NewServer(h)
	defer srv.Close()
	status, _, got := post(t, srv, "/api/max-seqs", `{"model":"Qwen/Qwen3-8B","class":"l4","length":4096}`)
	want := httpError{Status: http.StatusGatewayTimeout, Command: "max-seqs", Error: "no answer within --timeout 2s"}
	var he httpError
	if err := json.Unmarshal([]byte(got), &he); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, he); diff != "" || status != 504 {
		t.Errorf("status %d (-want +got):\n%s", status, diff)
	}
	<-h.slots
	if status, _, got := post(t, srv, "/api/max-seqs", `{"model":"Qwen/Qwen3-8B","class":"l4","length":4096}`); status != 200 {
		t.Errorf("once the slot is free: status %d, %s", status, got)
	}
}

// TestServeConcurrentRequests: requests sent at once are answered each
// with its own answer (go test -race checks that they share nothing but
// what they only read).
func TestServeConcurrentRequests(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, testApp(), serveOptions{jobs: 4})
	type want struct {
		cmd, body, answer string
	}
	var wants []want
	for _, line := range serveAnswered[:8] {
		var req map[string]any
		_ = json.Unmarshal([]byte(line), &req)
		ans, _ := batchOf(t, testApp(), line)
		wants = append(wants, want{req["command"].(string), line, ans})
	}
	var wg sync.WaitGroup
	for i := range 4 * len(wants) {
		w := wants[i%len(wants)]
		wg.Go(func() {
			status, _, got := post(t, srv, "/api/"+w.cmd, w.body)
			if status != http.StatusOK || got != w.answer {
				t.Errorf("%s: status %d, answer differs from batch's", w.body, status)
			}
		})
	}
	wg.Wait()
}

// TestServeCommand runs `membudget serve` itself on the loopback: it says
// where it listens, answers, and stops when its context ends.
func TestServeCommand(t *testing.T) {
	t.Parallel()
	url, stop := startServe(t, testApp())
	resp, err := http.Get(url + "healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "{\"status\":\"ok\"}\n" {
		t.Errorf("/healthz: %q", b)
	}
	resp, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(page, pageHTML) || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("GET /: %s, %d bytes; want the page", resp.Header.Get("Content-Type"), len(page))
	}
	if code := stop(); code != exitOK {
		t.Errorf("exit %d once stopped", code)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--timeout", "0s"}, "membudget serve: --timeout 0s: want a duration above 0\n"},
		{[]string{"serve", "--jobs", "0"}, "membudget serve: --jobs 0: want 1 or more\n"},
		{[]string{"serve", "--models-dir", "/nonexistent-dir"}, "membudget serve: --models-dir /nonexistent-dir: lstat /nonexistent-dir: no such file or directory\n"},
		{[]string{"serve", "--addr", "not-an-address"}, "membudget serve: --addr: listen tcp: address not-an-address: missing port in address\n"},
	} {
		var stderr bytes.Buffer
		if code := testApp().run(io.Discard, &stderr, tc.args); code != exitBadArgs || stderr.String() != tc.want {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// startServe runs `membudget serve --addr 127.0.0.1:0` for a, and returns
// its URL and a function that stops it and returns its exit status.
func startServe(t testing.TB, a *app, args ...string) (string, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	a.ctx = ctx
	r, w := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		exit <- a.run(io.Discard, w, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...))
		w.Close()
	}()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("serve: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, r) }()
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "membudget serve: listening on ")
	if !ok {
		cancel()
		t.Fatalf("serve said %q", line)
	}
	stopped := false
	stop := func() int {
		if stopped {
			return exitOK
		}
		stopped = true
		cancel()
		return <-exit
	}
	t.Cleanup(func() { stop() })
	return url, stop
}

// TestServeOwnFault: membudget's own fault is a 500 naming it, never a
// dropped connection or a 400: a command that panics, one that exits 3
// (an evaluator found not monotone), one that stops with neither an
// answer nor a message. The server goes on answering.
func TestServeOwnFault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		run  func(*app, *answerBuffer, string, []string, []requestField) (int, string, bool)
		want httpError
	}{
		{"panic", func(*app, *answerBuffer, string, []string, []requestField) (int, string, bool) { panic("a bug") },
			httpError{Status: 500, Command: "report", Exit: exitInternal, Error: "internal error: a bug"}},
		{"exit 3", func(*app, *answerBuffer, string, []string, []requestField) (int, string, bool) {
			return exitInternal, "membudget max-seqs: the evaluator is not monotone", false
		}, httpError{Status: 500, Command: "report", Exit: exitInternal, Error: "membudget max-seqs: the evaluator is not monotone"}},
		{"exit 1, no answer", func(*app, *answerBuffer, string, []string, []requestField) (int, string, bool) {
			return exitNoFit, "", false
		},
			httpError{Status: 500, Command: "report", Exit: exitNoFit, Error: "membudget report exited 1 without an answer"}},
	} {
		h := testApp().newHandler(serveOptions{timeout: time.Minute, jobs: 1}).(*handler)
		h.run = tc.run
		srv := httptest.NewServer(h)
		status, _, got := post(t, srv, "/api/report", `{"model":"Qwen/Qwen3-8B","class":"l4"}`)
		var he httpError
		if err := json.Unmarshal([]byte(got), &he); err != nil {
			t.Fatalf("%s: %v in %q", tc.name, err, got)
		}
		if diff := cmp.Diff(tc.want, he); diff != "" || status != 500 {
			t.Errorf("%s: status %d (-want +got):\n%s", tc.name, status, diff)
		}
		// The slot was given back: the next request is answered.
		h.run = (*app).runRequest
		if status, _, got := post(t, srv, "/api/report", `{"model":"Qwen/Qwen3-8B","class":"l4"}`); status != 200 {
			t.Errorf("%s: the next request: status %d, %s", tc.name, status, got)
		}
		srv.Close()
	}
}

// FuzzServeBody: whatever a body holds, every endpoint answers with valid
// JSON and 200, 400 or 413, an error's status in its body; never 500
// (membudget's own fault) and never a panic.
func FuzzServeBody(f *testing.F) {
	for _, line := range serveRequests {
		f.Add(uint8(0), line)
	}
	f.Add(uint8(7), `{"log":"INFO 01-01 vllm version 0.19.0","class":"l4"}`)
	f.Add(uint8(8), `{"manifest":"#!/bin/sh\nvllm serve Qwen/Qwen3-8B --config x.yaml\n"}`)
	f.Add(uint8(1), `{"model":"../../corpus/models/Qwen__Qwen3-8B.json","class":"l4"}`)
	f.Add(uint8(2), `{"args":["vllm","serve","/etc","--_config","a.yaml"]}`)
	f.Add(uint8(3), `{"command":"plan","model":"Qwen/Qwen3-8B","length":-1}`)
	h := testApp().newHandler(serveOptions{timeout: time.Minute, jobs: 2})
	cmds := serveCommands()
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		cmd := cmds[int(which)%len(cmds)]
		if which == 0 {
			// A batch line: the endpoint its "command" names.
			var req struct{ Command string }
			if json.Unmarshal([]byte(body), &req) == nil && slices.Contains(cmds, req.Command) {
				cmd = req.Command
			}
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/api/"+cmd, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, req)
		got := rec.Body.Bytes()
		if !json.Valid(got) {
			t.Fatalf("%s %q: the answer is not JSON: %q", cmd, body, got)
		}
		switch rec.Code {
		case http.StatusOK:
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			var he httpError
			if err := json.Unmarshal(got, &he); err != nil || he.Status != rec.Code || he.Error == "" {
				t.Fatalf("%s %q: status %d, answer %s", cmd, body, rec.Code, got)
			}
		default:
			t.Fatalf("%s %q: status %d, answer %s", cmd, body, rec.Code, got)
		}
	})
}

// TestServeMemoIsBounded: serve keeps at most its limit of model specs and
// classes; one beyond it is still answered, loaded for its request only.
func TestServeMemoIsBounded(t *testing.T) {
	t.Parallel()
	a := testApp()
	a.loads = &loads{classes: map[classKey]budget.Class{}, limit: 1, kept: map[string]bool{}}
	first, err := a.load("Qwen/Qwen3-8B")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := a.load("Qwen/Qwen3-8B")
	// The same shipped model in another case: beyond the limit of one.
	other, err := a.load("qwen/qwen3-8b")
	if err != nil {
		t.Fatal(err)
	}
	otherAgain, _ := a.load("qwen/qwen3-8b")
	if first != again || other == otherAgain || len(a.loads.kept) != 1 {
		t.Errorf("kept %v: the first spec loaded once (%v), the second each time (%v)", a.loads.kept, first == again, other != otherAgain)
	}
	for _, name := range []string{"l4", "L4", "l40s"} {
		if _, err := a.class(kernelsFlag{}, name); err != nil {
			t.Fatal(err)
		}
	}
	if len(a.loads.classes) != 1 {
		t.Errorf("%d classes kept; want the limit, 1", len(a.loads.classes))
	}
}
