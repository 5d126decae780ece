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
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"membudget/budget"
)

// maxBatchLine bounds one request line of `membudget batch`.
const maxBatchLine = 1 << 20

// batchGCPercent is the GOGC batch runs with when the environment sets
// none: BenchmarkBatch measured twice the answers a second at 400 as at
// 100 on 2 cores (61,000-66,000 against 30,000-32,000), the process's peak
// RSS 30 MiB for four models.
const batchGCPercent = 400

// batchError is the answer to a request that printed no JSON: the exit
// status the command gave, and what it said on stderr.
type batchError struct {
	Line    int    `json:"line"`
	Command string `json:"command,omitempty"`
	Exit    int    `json:"exit"`
	Error   string `json:"error"`
}

func (a *app) batch(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("batch", stderr)
	input := fs.String("input", "-", "the requests, one JSON object per line: a `file`, or - for standard input")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "requests answered at once (the answers keep the requests' order)")
	if status, ok := parseFlags(fs, args, false); !ok {
		return status
	}
	in := a.stdin
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
	// A batch's live heap is small (the models and classes it loaded) and
	// each answer's garbage dies with it: at Go's default GOGC of 100 the
	// collector runs every few hundred answers and the scavenger hands back
	// pages the next answers fault in again. A user's GOGC is kept.
	if _, set := os.LookupEnv("GOGC"); !set {
		defer debug.SetGCPercent(debug.SetGCPercent(batchGCPercent))
	}
	return a.serveBatch(stdout, stderr, in, *jobs)
}

// serveBatch answers each request line with one JSON line: what the command
// prints with --json, compacted, or a batchError. A malformed line is an
// answer too; the stream goes on. jobs requests run at once; the answers
// come out in the order of the requests, each written as soon as the
// answers before it are (a script may wait for one before it sends the
// next).
func (a *app) serveBatch(stdout, stderr io.Writer, in io.Reader, jobs int) int {
	// The requests share the models and classes they load.
	shared := *a
	shared.loads = &loads{classes: map[classKey]budget.Class{}}
	shared.compact = true
	buffers := newAnswerBuffers()
	jobs = max(jobs, 1)
	// The lines are handed to the workers in chunks of those already read
	// (see chunkSize), so that a fast stream pays one hand-off for many
	// requests while a script that sends one line at a time gets its answer
	// at once.
	type chunk struct {
		seq   int
		first int // the first line's number
		lines [][]byte
	}
	type answered struct {
		seq     int
		answers []*answerBuffer // nil for a blank line
		exits   []int
	}
	chunks := make(chan chunk)
	answers := make(chan answered, jobs)
	// At most this many chunks are read ahead of the first unanswered one,
	// so that a slow request (a model fetched from the Hub) does not let
	// the answers behind it pile up.
	window := make(chan struct{}, 2*jobs+2)
	var workers sync.WaitGroup
	for range jobs {
		workers.Go(func() {
			for c := range chunks {
				a := answered{seq: c.seq, answers: make([]*answerBuffer, len(c.lines)), exits: make([]int, len(c.lines))}
				for i, text := range c.lines {
					a.answers[i], a.exits[i] = shared.answerRequest(buffers, c.first+i, text)
				}
				answers <- a
			}
		})
	}
	// The reader numbers the lines; a line too long ends the input with
	// its own answer (where the next line starts cannot be found).
	lines := make(chan int, 1) // the last line number, once read
	var readErr error
	go func() {
		defer close(chunks)
		r := bufio.NewReaderSize(in, 64<<10)
		line := 0
		for seq, done := 0, false; !done; seq++ {
			c := chunk{seq: seq, first: line + 1}
			size := chunkSize(r, jobs)
			for len(c.lines) < size && (len(c.lines) == 0 || lineBuffered(r)) {
				text, err := readLine(r)
				if err != nil {
					if err != io.EOF {
						line++
						readErr = err
					}
					done = true
					break
				}
				line++
				c.lines = append(c.lines, text)
			}
			if len(c.lines) > 0 {
				window <- struct{}{}
				chunks <- c
			}
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
	pending := map[int]answered{}
	next := 0 // the chunk to write next
	for a := range answers {
		pending[a.seq] = a
		for {
			a, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-window
			for i, ab := range a.answers {
				if ab == nil {
					continue // a blank line
				}
				status = max(status, a.exits[i])
				_, _ = out.Write(ab.Bytes())
				buffers.Put(ab)
			}
		}
		if len(answers) == 0 {
			_ = out.Flush() // nothing else is ready: the script may be waiting
		}
	}
	last := <-lines
	if readErr != nil {
		_ = json.NewEncoder(out).Encode(batchError{Line: last, Exit: exitBadArgs, Error: fmt.Sprintf("input: %v", readErr)})
		return exitBadArgs
	}
	return status
}

// errLineTooLong ends a batch whose line is longer than [maxBatchLine].
var errLineTooLong = fmt.Errorf("line too long: a line is at most %d bytes", maxBatchLine)

// readLine returns the next line of r without its line ending (\n or
// \r\n; a last line may have none), or io.EOF when there is none; a line
// is at most maxBatchLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		line = append(line, frag...)
		switch {
		case err == nil:
			line = bytes.TrimSuffix(line[:len(line)-1], []byte{'\r'})
		case errors.Is(err, bufio.ErrBufferFull):
			if len(line) > maxBatchLine+1 { // +1: a '\r' the '\n' may follow
				return nil, errLineTooLong
			}
			continue
		case err == io.EOF && len(line) > 0:
		default:
			return nil, err
		}
		if len(line) > maxBatchLine {
			return nil, errLineTooLong
		}
		return line, nil
	}
}

// chunkLines is the most lines a chunk of batch's takes.
const chunkLines = 32

// chunkSize is how many lines batch's next chunk takes: the lines r holds
// already read, shared among the jobs so that a few slow requests (plans,
// models fetched from the Hub) still run side by side, from 1 to
// chunkLines. A chunk never waits for input to fill it.
func chunkSize(r *bufio.Reader, jobs int) int {
	b, _ := r.Peek(r.Buffered())
	return min(chunkLines, max(1, bytes.Count(b, []byte{'\n'})/max(jobs, 1)))
}

// lineBuffered reports whether r holds a whole line already read, so that
// taking it does not wait for input.
func lineBuffered(r *bufio.Reader) bool {
	b, _ := r.Peek(r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// newAnswerBuffers returns a batch's pool of answer buffers, reused once
// written out.
func newAnswerBuffers() *sync.Pool {
	return &sync.Pool{New: func() any {
		ab := new(answerBuffer)
		ab.Grow(4 << 10) // a query's answer: about 3 KiB
		return ab
	}}
}

// answerRequest runs one request line and returns its answer line, in a
// buffer of buffers, and the exit status the command gave; a blank
// line has no answer.
func (a *app) answerRequest(buffers *sync.Pool, line int, text []byte) (*answerBuffer, int) {
	text = bytes.TrimSpace(text)
	if len(text) == 0 {
		return nil, exitOK
	}
	o := buffers.Get().(*answerBuffer)
	o.Reset()
	o.values = 0
	encode := func(e batchError) (*answerBuffer, int) {
		o.Reset()
		b, _ := json.Marshal(e)
		o.Write(b)
		o.WriteByte('\n')
		return o, e.Exit
	}
	cmd, args, err := requestArgs(text)
	if err != nil {
		return encode(batchError{Line: line, Command: cmd, Exit: exitBadArgs, Error: err.Error()})
	}
	var e bytes.Buffer
	ra := *a
	ra.written = &o.values
	code := ra.run(o, &e, append([]string{cmd}, args...))
	// The commands write their JSON on one line here (writeJSON), which
	// counts it: an answer is stdout holding that one line and nothing else.
	if b := o.Bytes(); code != exitBadArgs && o.values == 1 && bytes.IndexByte(b, '\n') == len(b)-1 {
		return o, code
	}
	return encode(batchError{Line: line, Command: cmd, Exit: code, Error: strings.TrimSpace(e.String())})
}

// batchCommands are the commands a batch may run: every command that has
// --json, except batch itself (and explain, which reads a log).
func batchCommands() []string {
	return []string{"budget", "classes", "frontier", "max-len", "max-seqs", "plan", "report"}
}

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
		return "", nil, fmt.Errorf(`"command" is required: one of %s`, strings.Join(batchCommands(), ", "))
	}
	cmd, _ := raw.(string)
	if !slices.Contains(batchCommands(), cmd) {
		return cmd, nil, fmt.Errorf(`"command": want one of %s, got %s`, strings.Join(batchCommands(), ", "), jsonText(raw))
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

// answerBuffer is the stdout batch gives each request: the command writes
// its JSON on one line there, and counts it in values.
type answerBuffer struct {
	bytes.Buffer
	values int
}
