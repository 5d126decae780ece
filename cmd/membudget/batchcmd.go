package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"membudget/budget"
	"membudget/internal/untrusted"
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
	outDir := fs.String("out-dir", "", "the `directory` under which requests may have files written (frontier's svg, a path inside it); without it a request writes none")
	if status, ok := a.parseFlags(fs, args, false); !ok {
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
	if *outDir != "" {
		if st, err := os.Stat(*outDir); err != nil || !st.IsDir() {
			if err == nil {
				err = errors.New("not a directory")
			}
			return fail(stderr, "batch", exitBadArgs, fmt.Errorf("--out-dir %s: %w", untrusted.Text(*outDir), err))
		}
	}
	a.outDir = *outDir
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
		lines []requestLine
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
				for i, l := range c.lines {
					if l.err != nil {
						a.answers[i], a.exits[i] = lineError(buffers, c.first+i, l.err)
						continue
					}
					a.answers[i], a.exits[i] = shared.answerRequest(buffers, c.first+i, l.text)
				}
				answers <- a
			}
		})
	}
	// The reader numbers the lines; a line too long is skipped to its end
	// and answered with an error naming it, and the stream goes on.
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
				if errors.Is(err, errLineTooLong) {
					line++
					c.lines = append(c.lines, requestLine{err: err})
					continue
				}
				if err != nil {
					if err != io.EOF {
						line++
						readErr = err
					}
					done = true
					break
				}
				line++
				c.lines = append(c.lines, requestLine{text: text})
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

// requestLine is one line of a batch's input: its text, or why it has
// none (errLineTooLong).
type requestLine struct {
	text []byte
	err  error
}

// lineError is the answer to a line that could not be read as a request.
func lineError(buffers *sync.Pool, line int, err error) (*answerBuffer, int) {
	o := buffers.Get().(*answerBuffer)
	o.Reset()
	b, _ := json.Marshal(batchError{Line: line, Exit: exitBadArgs, Error: err.Error()})
	o.Write(b)
	o.WriteByte('\n')
	return o, exitBadArgs
}

// errLineTooLong answers a batch line longer than [maxBatchLine].
var errLineTooLong = fmt.Errorf("line too long: a line is at most %d bytes", maxBatchLine)

// readLine returns the next line of r without its line ending (\n or
// \r\n; a last line may have none), or io.EOF when there is none. A line
// is at most maxBatchLine bytes: a longer one is read to its end without
// being kept (memory stays bounded by the bound and r's buffer) and
// returned as errLineTooLong, so that the next call reads the next line.
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
				return nil, skipLine(r)
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

// skipLine reads r to the end of the current line (its '\n' or the end of
// the input), keeping nothing, and returns errLineTooLong; a read error
// other than io.EOF is returned instead.
func skipLine(r *bufio.Reader) error {
	for {
		_, err := r.ReadSlice('\n')
		switch {
		case err == nil || err == io.EOF:
			return errLineTooLong
		case errors.Is(err, bufio.ErrBufferFull):
		default:
			return err
		}
	}
}

// chunkLines is the most lines a chunk of batch's takes.
const chunkLines = 32

// chunkSize is how many lines batch's next chunk takes: the lines r holds
// already read, shared among the jobs so that a few slow requests (plans,
// models fetched from the Hub) still run side by side, from 1 to
// chunkLines. A chunk never waits for input to fill it.
func chunkSize(r *bufio.Reader, jobs int) int {
	jobs = max(jobs, 1)
	b, _ := r.Peek(r.Buffered())
	// Counted only as far as a full chunk for every job: the buffer holds
	// some 64 KiB, and a chunk is read every 32 lines.
	lines := 0
	for lines < chunkLines*jobs {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		lines++
		b = b[i+1:]
	}
	return min(chunkLines, max(1, lines/jobs))
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
	encode := func(e batchError) (*answerBuffer, int) {
		o.Reset()
		b, _ := json.Marshal(e)
		o.Write(b)
		o.WriteByte('\n')
		return o, e.Exit
	}
	cmd, args, fields, err := requestArgs(text)
	if err != nil {
		return encode(batchError{Line: line, Command: cmd, Exit: exitBadArgs, Error: err.Error()})
	}
	code, msg, answered := a.runRequest(o, cmd, args, fields)
	if answered && code != exitBadArgs {
		return o, code
	}
	return encode(batchError{Line: line, Command: cmd, Exit: code, Error: msg})
}

// runRequest runs command cmd of a request (batch's line, or an HTTP
// request of serve's) with args, its fields checked against the command's
// flags, writing into o; code is its exit status and msg what it said on
// stderr. answered is true when o holds its JSON on one line and nothing
// else. A command may answer with exit 2 (classes listing the classes
// that parse beside one that does not): batch and serve answer that with
// the message.
func (a *app) runRequest(o *answerBuffer, cmd string, args []string, fields []requestField) (code int, msg string, answered bool) {
	o.Reset()
	o.values = 0
	var e bytes.Buffer
	ra := *a
	ra.compact = true
	ra.written = &o.values
	ra.inBatch, ra.request = true, fields
	code = ra.run(o, untrusted.Writer(&e), append([]string{cmd}, args...))
	// The commands write their JSON on one line here (writeJSON), which
	// counts it: an answer is stdout holding that one line and nothing else.
	b := o.Bytes()
	return code, strings.TrimSpace(e.String()), o.values == 1 && bytes.IndexByte(b, '\n') == len(b)-1
}

// batchCommands are the commands a batch may run: every command that has
// --json, except batch itself (and explain, which reads a log).
func batchCommands() []string {
	return []string{"budget", "classes", "frontier", "max-len", "max-seqs", "plan", "report"}
}

// requestField is one flag of a batch request: its name, and its value as
// the JSON wrote it (a bool, a string or a json.Number).
type requestField struct {
	name  string
	value any
}

// requestArgs turns one request into a command, its flags and the fields
// they came from: "command" names it, "args" (a list of strings) is passed
// as it is, and every other field is a flag by its name: a string or
// number is its value, true sets a flag that takes none and false leaves
// it out (which flag takes which is checked once the command's flags are
// known, see [checkRequest]). --json is always added. A duplicate key, a key
// that is not a flag name, and a flag given both as a field and in "args"
// are errors: the last of two values never silently wins.
func requestArgs(line []byte) (string, []string, []requestField, error) {
	req, err := decodeRequest(line)
	if err != nil {
		return "", nil, nil, err
	}
	raw, ok := req["command"]
	if !ok {
		return "", nil, nil, fmt.Errorf(`"command" is required: one of %s`, strings.Join(batchCommands(), ", "))
	}
	cmd, _ := raw.(string)
	if !slices.Contains(batchCommands(), cmd) {
		return untrusted.Text(cmd), nil, nil, fmt.Errorf(`"command": want one of %s, got %s`, strings.Join(batchCommands(), ", "), untrusted.Text(jsonText(raw)))
	}
	args, fields, err := requestFlags(req)
	return cmd, args, fields, err
}

// requestFlags turns a decoded request, its command known, into the
// command's arguments and the fields they came from, as [requestArgs]
// describes; the key "command" is skipped.
func requestFlags(req map[string]any) ([]string, []requestField, error) {
	var list []string
	if raw, ok := req["args"]; ok {
		items, ok := raw.([]any)
		if !ok {
			return nil, nil, fmt.Errorf(`"args": want a list of strings, got %s`, untrusted.Text(jsonText(raw)))
		}
		for _, a := range items {
			s, ok := a.(string)
			if !ok {
				return nil, nil, fmt.Errorf(`"args": want a list of strings, got %s`, untrusted.Text(jsonText(raw)))
			}
			list = append(list, s)
		}
	}
	if v, ok := req["json"]; ok && v != true {
		return nil, nil, fmt.Errorf(`"json": batch always answers in JSON; give true or leave it out, got %s`, untrusted.Text(jsonText(v)))
	}
	args := []string{"--json"}
	keys := make([]string, 0, len(req))
	for k := range req {
		if k != "command" && k != "args" && k != "json" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var fields []requestField
	for _, k := range keys {
		if !flagName(k) {
			return nil, nil, fmt.Errorf("%s: not a flag name (want lower-case letters, digits and dashes)", untrusted.Quote(k))
		}
		if givenIn(list, k) {
			return nil, nil, fmt.Errorf(`%q: given twice, as a field and in "args"`, k)
		}
		flag := "--" + k
		switch v := req[k].(type) {
		case bool:
			// true as --flag=true, so that a flag that takes a value cannot
			// take the next flag as it (checkRequest names the mismatch
			// first); false leaves the flag out, its default.
			if v {
				args = append(args, flag+"=true")
			}
		case string:
			args = append(args, flag+"="+v)
		case json.Number:
			if _, err := strconv.ParseFloat(v.String(), 64); err != nil {
				return nil, nil, fmt.Errorf("%q: want a string, a number or true/false, got %s", k, untrusted.Text(v.String()))
			}
			args = append(args, flag+"="+v.String())
		default:
			return nil, nil, fmt.Errorf("%q: want a string, a number or true/false, got %s", k, untrusted.Text(jsonText(v)))
		}
		fields = append(fields, requestField{name: k, value: req[k]})
	}
	// Flags come before a trailing `vllm serve` line, where --json would be
	// read as one of vLLM's.
	return append(args, list...), fields, nil
}

// decodeRequest decodes a request line: one JSON object and nothing after
// it, each key once. A line in the common form is decoded by decodeFlat;
// any other line token by token, which names what is wrong with it.
func decodeRequest(line []byte) (map[string]any, error) {
	if req, ok := decodeFlat(line); ok {
		return req, nil
	}
	return decodeRequestStrictly(line)
}

// decodeRequestStrictly decodes a request line token by token, so that a
// line that is not one object of distinct keys is refused by what is wrong.
func decodeRequestStrictly(line []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object: %s", untrusted.Text(jsonText(tok)))
	}
	req := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not a JSON object: %v", err)
		}
		key := tok.(string) // an object's tokens alternate key, value
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("not a JSON object: %v", err)
		}
		if _, dup := req[key]; dup {
			return nil, fmt.Errorf("%s: the key is given twice", untrusted.Quote(key))
		}
		req[key] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value on the line")
	}
	return req, nil
}

// flagName reports whether k can name a flag: lower-case letters, digits
// and dashes (or underscores, which vLLM's flags also take), starting with a
// letter; nothing the flag package would read as a value or a second dash.
func flagName(k string) bool {
	if k == "" || k[0] < 'a' || k[0] > 'z' {
		return false
	}
	for _, c := range []byte(k) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// givenIn reports whether list sets the flag name, in any of the forms the
// flag package reads (-name, --name, with or without =value).
func givenIn(list []string, name string) bool {
	for _, a := range list {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// checkRequest checks a batch request's fields against the flags of the
// command that runs it: true or false only for a flag that takes none, and
// a string or number only for one that takes a value. It runs before the
// flags are parsed, so that `"svg": true` is an error naming --svg, not a
// flag that takes the next one as its value. A field no flag has is left
// to the flag package, which names it.
func checkRequest(fs *flag.FlagSet, fields []requestField) error {
	for _, f := range fields {
		fl := fs.Lookup(f.name)
		if fl == nil {
			continue
		}
		b, ok := fl.Value.(interface{ IsBoolFlag() bool })
		isBool := ok && b.IsBoolFlag()
		_, jsonBool := f.value.(bool)
		switch {
		case isBool && !jsonBool:
			return fmt.Errorf("%q: --%s takes true or false, got %s", f.name, f.name, untrusted.Text(jsonText(f.value)))
		case !isBool && jsonBool:
			return fmt.Errorf("%q: --%s takes a value, got %s", f.name, f.name, jsonText(f.value))
		}
	}
	return nil
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

// writeFile writes a file a command was asked for (frontier's --svg). On
// the command line path is the user's; a batch request's path is a local
// path under batch's --out-dir, written through an [os.Root] so that
// neither "..", an absolute path nor a symbolic link leads out of it, and
// without --out-dir a request writes nothing; serve's requests write
// nothing ever.
func (a *app) writeFile(path string, data []byte) error {
	if a.serving {
		return fmt.Errorf("%s: serve writes no file; the answer's points are the plot's data (the page draws them)", untrusted.Quote(path))
	}
	if !a.inBatch {
		return os.WriteFile(path, data, 0o644)
	}
	if a.outDir == "" {
		return fmt.Errorf("%s: a batch request writes files only under batch's --out-dir, and none was given", untrusted.Quote(path))
	}
	if !filepath.IsLocal(path) {
		return fmt.Errorf("%s: want a path inside --out-dir (relative, without ..)", untrusted.Quote(path))
	}
	root, err := os.OpenRoot(a.outDir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.WriteFile(path, data, 0o644); err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err // its Path is the request's, quoted here
		}
		return fmt.Errorf("%s: %w", untrusted.Quote(path), err)
	}
	return nil
}
