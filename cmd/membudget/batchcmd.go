package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// maxBatchLine bounds one request line of `membudget batch`.
const maxBatchLine = 1 << 20

// batchError is the answer to a request that printed no JSON: the exit
// status the command gave, and what it said on stderr.
type batchError struct {
	Line    int    `json:"line"`
	Command string `json:"command,omitempty"`
	Exit    int    `json:"exit"`
	Error   string `json:"error"`
}

func runBatch(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("batch", stderr)
	input := fs.String("input", "-", "the requests, one JSON object per line: a `file`, or - for standard input")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "requests answered at once (the answers keep the requests' order)")
	if status, ok := parseFlags(fs, args, false); !ok {
		return status
	}
	in := io.Reader(os.Stdin)
	if *input != "-" {
		f, err := os.Open(*input)
		if err != nil {
			return fail(stderr, "batch", exitBadArgs, fmt.Errorf("--input: %w", err))
		}
		defer f.Close()
		in = f
	}
	if *jobs < 1 {
		return fail(stderr, "batch", exitBadArgs, fmt.Errorf("--jobs %d: want 1 or more", *jobs))
	}
	return batch(stdout, stderr, in, *jobs)
}

// batch answers each request line with one JSON line: what the command
// prints with --json, compacted, or a batchError. A malformed line is an
// answer too; the stream goes on. jobs requests run at once; the answers
// come out in the order of the requests.
func batch(stdout, stderr io.Writer, in io.Reader, jobs int) int {
	// The requests share the models and classes they load.
	defer loads.enable()()
	jobs = max(jobs, 1)
	type request struct {
		line int
		text []byte
	}
	type answer struct {
		line int
		out  []byte
		exit int
	}
	requests := make(chan request)
	answers := make(chan answer)
	// At most this many lines are read ahead of the first unanswered one,
	// so that a slow request (a model fetched from the Hub) does not let
	// the answers behind it pile up.
	window := make(chan struct{}, 64*jobs)
	var workers sync.WaitGroup
	for range jobs {
		workers.Go(func() {
			for r := range requests {
				out, exit := answerRequest(r.line, r.text)
				answers <- answer{r.line, out, exit}
			}
		})
	}
	// The reader numbers the lines; a line too long ends the input with
	// its own answer (the scanner cannot find where the next one starts).
	lines := make(chan int, 1) // the last line number, once read
	var readErr error
	go func() {
		defer close(requests)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), maxBatchLine)
		line := 0
		for sc.Scan() {
			line++
			window <- struct{}{}
			requests <- request{line, bytes.Clone(sc.Bytes())}
		}
		if err := sc.Err(); err != nil {
			line++
			readErr = err
		}
		lines <- line
	}()
	go func() {
		workers.Wait()
		close(answers)
	}()
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	status := exitOK
	pending := map[int]answer{}
	next := 1
	for a := range answers {
		pending[a.line] = a
		for {
			a, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-window
			if a.out == nil {
				continue // a blank line
			}
			status = max(status, a.exit)
			_, _ = out.Write(a.out)
		}
	}
	last := <-lines
	if readErr != nil {
		_ = json.NewEncoder(out).Encode(batchError{Line: last, Exit: exitBadArgs, Error: fmt.Sprintf("input: %v (a line is at most %d bytes)", readErr, maxBatchLine)})
		return exitBadArgs
	}
	return status
}

// answerRequest runs one request line and returns its answer line and the
// exit status the command gave; a blank line has no answer.
func answerRequest(line int, text []byte) ([]byte, int) {
	text = bytes.TrimSpace(text)
	if len(text) == 0 {
		return nil, exitOK
	}
	encode := func(e batchError) []byte {
		b, _ := json.Marshal(e)
		return append(b, '\n')
	}
	cmd, args, err := requestArgs(text)
	if err != nil {
		return encode(batchError{Line: line, Command: cmd, Exit: exitBadArgs, Error: err.Error()}), exitBadArgs
	}
	var o answerBuffer
	o.Grow(4 << 10) // a query's answer: about 3 KiB
	var e bytes.Buffer
	code := run(&o, &e, append([]string{cmd}, args...))
	// The commands write their JSON on one line here (writeJSON), which
	// counts it: an answer is stdout holding that one line and nothing else.
	if b := o.Bytes(); code != exitBadArgs && o.values == 1 && bytes.IndexByte(b, '\n') == len(b)-1 {
		return b, code
	}
	return encode(batchError{Line: line, Command: cmd, Exit: code, Error: strings.TrimSpace(e.String())}), code
}

// batchCommands are the commands a batch may run: every command that has
// --json, except batch itself.
var batchCommands = []string{"budget", "classes", "frontier", "max-len", "max-seqs", "plan", "report"}

// requestArgs turns one request into a command and its flags: "command"
// names it, "args" (a list of strings) is passed as it is, and every other
// field is a flag by its name: a string or number is its value, true sets
// a flag that takes none, false leaves it out. --json is always added.
func requestArgs(line []byte) (string, []string, error) {
	var req map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return "", nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if dec.More() {
		return "", nil, errors.New("more than one JSON value on the line")
	}
	if req == nil {
		return "", nil, errors.New("not a JSON object: null")
	}
	raw, ok := req["command"]
	if !ok {
		return "", nil, fmt.Errorf(`"command" is required: one of %s`, strings.Join(batchCommands, ", "))
	}
	cmd, _ := raw.(string)
	if !slices.Contains(batchCommands, cmd) {
		return cmd, nil, fmt.Errorf(`"command": want one of %s, got %s`, strings.Join(batchCommands, ", "), jsonText(raw))
	}
	args := []string{"--json"}
	keys := make([]string, 0, len(req))
	for k := range req {
		if k != "command" && k != "args" && k != "json" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		flag := "--" + k
		switch v := req[k].(type) {
		case bool:
			if v {
				args = append(args, flag)
			}
		case string:
			args = append(args, flag+"="+v)
		case json.Number:
			if _, err := strconv.ParseFloat(v.String(), 64); err != nil {
				return cmd, nil, fmt.Errorf("%q: want a string, a number or true/false, got %s", k, v)
			}
			args = append(args, flag+"="+v.String())
		default:
			return cmd, nil, fmt.Errorf("%q: want a string, a number or true/false, got %s", k, jsonText(v))
		}
	}
	if raw, ok := req["args"]; ok {
		list, ok := raw.([]any)
		if !ok {
			return cmd, nil, fmt.Errorf(`"args": want a list of strings, got %s`, jsonText(raw))
		}
		for _, a := range list {
			s, ok := a.(string)
			if !ok {
				return cmd, nil, fmt.Errorf(`"args": want a list of strings, got %s`, jsonText(raw))
			}
			args = append(args, s)
		}
	}
	// Flags come before a trailing `vllm serve` line, where --json would be
	// read as one of vLLM's.
	return cmd, args, nil
}

// jsonText is a decoded JSON value as the request wrote it, for messages.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
