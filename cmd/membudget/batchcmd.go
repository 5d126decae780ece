package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
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
	return batch(stdout, stderr, in)
}

// batch answers each request line with one JSON line: what the command
// prints with --json, compacted, or a batchError. A malformed line is an
// answer too; the stream goes on.
func batch(stdout, stderr io.Writer, in io.Reader) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxBatchLine)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	status := exitOK
	line := 0
	for {
		ok := sc.Scan()
		if !ok {
			if err := sc.Err(); err != nil {
				line++
				// A line longer than the bound ends the input: the scanner
				// cannot find where the next one starts.
				_ = enc.Encode(batchError{Line: line, Exit: exitBadArgs, Error: fmt.Sprintf("input: %v (a line is at most %d bytes)", err, maxBatchLine)})
				return exitBadArgs
			}
			return status
		}
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		cmd, args, err := requestArgs(text)
		if err != nil {
			_ = enc.Encode(batchError{Line: line, Command: cmd, Exit: exitBadArgs, Error: err.Error()})
			status = max(status, exitBadArgs)
			continue
		}
		var o, e bytes.Buffer
		code := run(&o, &e, append([]string{cmd}, args...))
		status = max(status, code)
		if code != exitBadArgs && json.Valid(o.Bytes()) {
			var c bytes.Buffer
			if err := json.Compact(&c, o.Bytes()); err == nil {
				c.WriteByte('\n')
				_, _ = out.Write(c.Bytes())
				continue
			}
		}
		_ = enc.Encode(batchError{Line: line, Command: cmd, Exit: code, Error: strings.TrimSpace(e.String())})
	}
}

// batchCommands are the commands a batch may run: every command that has
// --json, except batch itself.
var batchCommands = []string{"budget", "classes", "frontier", "max-len", "max-seqs", "plan", "report"}

// requestArgs turns one request into a command and its flags: "command"
// names it, "args" (a list of strings) is passed as it is, and every other
// field is a flag by its name: a string or number is its value, true sets
// a flag that takes none, false leaves it out. --json is always added.
func requestArgs(line []byte) (string, []string, error) {
	var req map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return "", nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if dec.More() {
		return "", nil, errors.New("more than one JSON value on the line")
	}
	var cmd string
	if raw, ok := req["command"]; !ok {
		return "", nil, fmt.Errorf(`"command" is required: one of %s`, strings.Join(batchCommands, ", "))
	} else if err := json.Unmarshal(raw, &cmd); err != nil || !slices.Contains(batchCommands, cmd) {
		return cmd, nil, fmt.Errorf(`"command": want one of %s, got %s`, strings.Join(batchCommands, ", "), raw)
	}
	var args []string
	keys := make([]string, 0, len(req))
	for k := range req {
		if k != "command" && k != "args" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "json" {
			continue
		}
		flag := "--" + k
		switch v := decodeValue(req[k]).(type) {
		case bool:
			if v {
				args = append(args, flag)
			}
		case string:
			args = append(args, flag+"="+v)
		case json.Number:
			args = append(args, flag+"="+v.String())
		default:
			return cmd, nil, fmt.Errorf("%q: want a string, a number or true/false, got %s", k, req[k])
		}
	}
	if raw, ok := req["args"]; ok {
		var extra []string
		if err := json.Unmarshal(raw, &extra); err != nil {
			return cmd, nil, fmt.Errorf(`"args": want a list of strings, got %s`, raw)
		}
		args = append(args, extra...)
	}
	// Flags come before a trailing `vllm serve` line, where --json would be
	// read as one of vLLM's.
	return cmd, append([]string{"--json"}, args...), nil
}

func decodeValue(raw json.RawMessage) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	if n, ok := v.(json.Number); ok {
		if _, err := strconv.ParseFloat(n.String(), 64); err != nil {
			return nil
		}
	}
	return v
}
