package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBatchAgreesWithSingleCommands replays every golden case through
// batch: each answer line is what the single command prints with --json,
// or, when it prints none, its exit status and message.
func TestBatchAgreesWithSingleCommands(t *testing.T) {
	t.Parallel()
	var cases []cliCase
	for _, list := range [][]cliCase{classesCases, sizingCases, planCases} {
		for _, c := range list {
			if len(c.args) > 0 && slices.Contains(batchCommands(), c.args[0]) {
				cases = append(cases, c)
			}
		}
	}
	var in bytes.Buffer
	for _, c := range cases {
		req, _ := json.Marshal(map[string]any{"command": c.args[0], "args": c.args[1:]})
		in.Write(req)
		in.WriteByte('\n')
	}
	var out, errOut bytes.Buffer
	testApp().serveBatch(&out, &errOut, &in, 4)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("%d answers for %d requests", len(lines), len(cases))
	}
	for i, c := range cases {
		if diff := cmp.Diff(singleAnswer(t, i+1, c.args), lines[i]); diff != "" {
			t.Errorf("%s: batch answer differs from the single command (-single +batch):\n%s", c.name, diff)
		}
	}
}

// singleAnswer is batch's answer to the request on line n for args, as the
// single command gives it: its --json output compacted, or, when it prints
// none, its exit status and message.
func singleAnswer(t *testing.T, n int, args []string) string {
	t.Helper()
	var single, singleErr bytes.Buffer
	code := run(&single, &singleErr, append([]string{args[0], "--json"}, args[1:]...))
	if code != exitBadArgs && json.Valid(single.Bytes()) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, single.Bytes()); err != nil {
			t.Fatal(err)
		}
		return compact.String()
	}
	b, _ := json.Marshal(batchError{Line: n, Command: args[0], Exit: code, Error: strings.TrimSpace(singleErr.String())})
	return string(b)
}

// TestBatchMalformedLines: a bad line is an answer, and the stream goes on.
func TestBatchMalformedLines(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"command": "classes", "kernels": "/nonexistent"}`,
		`not json`,
		`{"command": "serve"}`,
		`{"model": "Qwen/Qwen3-8B"}`,
		`{"command": "budget", "class": "h100-sxm-80g", "gpu-memory-utilization": [0.9]}`,
		``,
		`{"command": "budget", "class": "H100-SXM-80G", "gpu-memory-utilization": 0.9}`,
		`{"command": "report", "model": "Qwen/Qwen3-0.6B", "class": "l4", "max-model-len": "4k", "enforce-eager": true, "async-scheduling": false}`,
		`{"command": "report"} {"command": "report"}`,
	}, "\n")
	var out, errOut bytes.Buffer
	code := testApp().serveBatch(&out, &errOut, strings.NewReader(in), 4)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		`{"line":1,"command":"classes","exit":2,"error":"membudget classes: kernels directory /nonexistent: no such file or directory"}`,
		`{"line":2,"exit":2,"error":"not a JSON object: invalid character 'o' in literal null (expecting 'u')"}`,
		`{"line":3,"command":"serve","exit":2,"error":"\"command\": want one of budget, classes, frontier, max-len, max-seqs, plan, report, got \"serve\""}`,
		`{"line":4,"exit":2,"error":"\"command\" is required: one of budget, classes, frontier, max-len, max-seqs, plan, report"}`,
		`{"line":5,"command":"budget","exit":2,"error":"\"gpu-memory-utilization\": want a string, a number or true/false, got [0.9]"}`,
	}
	if diff := cmp.Diff(want, lines[:5]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(lines) != 8 || !strings.HasPrefix(lines[5], `{"class":"h100-sxm-80g"`) || !strings.HasPrefix(lines[6], `{"model":{"name":"Qwen/Qwen3-0.6B"`) ||
		!strings.HasPrefix(lines[7], `{"line":9,"exit":2,"error":"more than one JSON value`) {
		t.Errorf("the stream did not go on past the bad lines:\n%s", out.String())
	}
	if code != exitBadArgs {
		t.Errorf("exit %d, want %d: a request was bad input", code, exitBadArgs)
	}
}

// TestBatchLineTooLong: a line over maxBatchLine is answered with an error
// naming its line and the bound, and the stream goes on (issue 20: batch
// stopped answering after such a line), a long last line without its
// newline included.
func TestBatchLineTooLong(t *testing.T) {
	t.Parallel()
	long := `{"command": "budget", "class": "` + strings.Repeat("x", maxBatchLine) + `"}`
	ok := `{"command": "budget", "class": "l4"}`
	in := ok + "\n" + long + "\n" + ok + "\n" + long
	var out, errOut bytes.Buffer
	code := testApp().serveBatch(&out, &errOut, strings.NewReader(in), 2)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	tooLong := func(n int) string {
		return fmt.Sprintf(`{"line":%d,"exit":2,"error":"line too long: a line is at most %d bytes"}`, n, maxBatchLine)
	}
	if len(lines) != 4 || !strings.HasPrefix(lines[0], `{"class":"l4"`) || lines[1] != tooLong(2) || !strings.HasPrefix(lines[2], `{"class":"l4"`) || lines[3] != tooLong(4) {
		t.Errorf("got %d lines:\n%.300s\nwant an answer, %s, an answer, %s", len(lines), out.String(), tooLong(2), tooLong(4))
	}
	if code != exitBadArgs {
		t.Errorf("exit %d, want %d", code, exitBadArgs)
	}
}

// TestBatchLineAtTheBound: a line of exactly maxBatchLine bytes is read,
// with or without its newline.
func TestBatchLineAtTheBound(t *testing.T) {
	t.Parallel()
	req := `{"command": "budget", "class": "l4"}`
	line := req + strings.Repeat(" ", maxBatchLine-len(req))
	for _, in := range []string{line, line + "\n", line + "\r\n"} {
		var out, errOut bytes.Buffer
		if code := testApp().serveBatch(&out, &errOut, strings.NewReader(in), 1); code != exitOK || !strings.HasPrefix(out.String(), `{"class":"l4"`) {
			t.Errorf("%d bytes: exit %d, answer %.100q", len(in), code, out.String())
		}
	}
}

// TestBatchAnswersEachLineAsItComes: a script that waits for each answer
// before it sends the next request gets it, though the input stays open.
func TestBatchAnswersEachLineAsItComes(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- testApp().serveBatch(outW, io.Discard, inR, 2)
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	for i, class := range []string{"l4", "h100-sxm-80g", "nope"} {
		fmt.Fprintf(inW, `{"command": "budget", "class": %q}`+"\n", class)
		got := make(chan string, 1)
		go func() {
			line, _ := answers.ReadString('\n')
			got <- line
		}()
		select {
		case line := <-got:
			if !strings.Contains(line, class) {
				t.Errorf("request %d: answer %q does not name %s", i+1, line, class)
			}
		case <-time.After(time.Minute): // a deadlock guard, not a timing claim
			t.Fatalf("request %d: no answer while the input stays open", i+1)
		}
	}
	inW.Close()
	if code := <-done; code != exitBadArgs {
		t.Errorf("exit %d, want %d (the last class does not exist)", code, exitBadArgs)
	}
}

// FuzzBatch: any input gets one answer per line that is not blank, in
// order, each a JSON value on a line of its own, and an exit status of 0, 1
// or 2; batch neither panics nor hangs. TestMain keeps every request off
// the network. Seeds: requests of each kind, CRLF and blank lines, a last
// line without its newline, malformed JSON.
func FuzzBatch(f *testing.F) {
	for _, seed := range []string{
		`{"command": "budget", "class": "l4"}` + "\n",
		`{"command": "max-seqs", "model": "Qwen/Qwen3-0.6B", "class": "l4", "length": 4096}` + "\r\n\r\n" + `{"command": "max-len", "model": "Qwen/Qwen3-0.6B", "class": "L4", "seqs": 2}`,
		`{"command": "report", "args": ["vllm", "serve", "Qwen/Qwen3-0.6B", "--max-model-len", "4k"], "class": "l4"}` + "\n \n\t\n",
		"not json\n{\"command\": 7}\n{}\n[]\nnull\n{\"command\": \"classes\", \"json\": false}\n",
		`{"command": "frontier", "model": "Qwen/Qwen3-0.6B", "class": "l4", "max-model-len": 8}` + "\n" + `{"command": "plan", "model": "Qwen/Qwen3-0.6B", "length": 128, "concurrency": 1, "classes": "l4"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return // the line bound has its own tests; keep each run short
		}
		var out bytes.Buffer
		code := testApp().serveBatch(&out, io.Discard, bytes.NewReader(data), 2)
		want := 0
		for line := range bytes.SplitSeq(data, []byte{'\n'}) {
			if len(bytes.TrimSpace(line)) > 0 {
				want++
			}
		}
		got := 0
		for line := range strings.Lines(out.String()) {
			got++
			if !strings.HasSuffix(line, "\n") || !json.Valid([]byte(line)) {
				t.Fatalf("answer %d is not one JSON value on its line: %q", got, line)
			}
		}
		if got != want {
			t.Fatalf("%d answers for %d lines that are not blank:\n%s", got, want, out.String())
		}
		if code != exitOK && code != exitNoFit && code != exitBadArgs {
			t.Fatalf("exit %d", code)
		}
	})
}

// TestChunkSize: a chunk takes the lines already read, shared among the
// jobs, from 1 to chunkLines: 20 plans read at once with 16 jobs go one to
// a job, not 20 to one.
func TestChunkSize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lines, jobs, want int
	}{
		{0, 4, 1},     // nothing read yet: the chunk waits for one line
		{1, 4, 1},     // a script's one line
		{20, 16, 1},   // 20 slow requests, 16 jobs: one each
		{20, 2, 10},   // two jobs share them
		{1000, 2, 32}, // a stream: chunks of chunkLines
		{1000, 0, 32}, // jobs below 1 count as 1
	} {
		r := bufio.NewReaderSize(strings.NewReader(strings.Repeat("{}\n", c.lines)), 64<<10)
		if c.lines > 0 {
			if _, err := r.Peek(1); err != nil {
				t.Fatal(err)
			}
		}
		if got := chunkSize(r, c.jobs); got != c.want {
			t.Errorf("%d lines read, %d jobs: chunk of %d, want %d", c.lines, c.jobs, got, c.want)
		}
	}
}
