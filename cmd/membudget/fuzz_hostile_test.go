package main

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// FuzzRequestArgs: the batch line's flag mapping. Whatever the line,
// requestArgs returns an error or a command batch runs, --json first, and
// each field as one --name=value word (so that no flag can take the next
// word as its value), each name once and a flag name; the fields it
// returns are those words' names. The line bound (maxBatchLine) is
// batch's reader's, tested there.
func FuzzRequestArgs(f *testing.F) {
	for _, s := range []string{
		`{"command":"frontier","model":"m","class":"l4","svg":true,"tensor-parallel-size":2}`,
		`{"command":"max-seqs","length":4096,"length":8192}`,
		`{"command":"budget","command":"classes"}`,
		`{"command":"report","args":["vllm","serve","m","--max-model-len","-0"],"enforce-eager":false}`,
		`{"command":"budget","gpu-memory-utilization=0.5 --x":1}`,
		`{"command":"budget","class":"\u001b[2J\u202e"}`,
		`{"command":"plan","length":1e400,"concurrency":-0}`,
		`[] {} null "x" 1`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		cmd, args, fields, err := requestArgs(line)
		if err != nil {
			if msg := err.Error(); strings.ContainsFunc(msg, unicode.IsControl) || len(msg) > 4096 {
				t.Fatalf("error of %d bytes not escaped or not bounded: %.300q", len(msg), msg)
			}
			return
		}
		if !slices.Contains(batchCommands(), cmd) || len(args) == 0 || args[0] != "--json" {
			t.Fatalf("command %q, args %q", cmd, args)
		}
		seen := map[string]bool{}
		next := 1 // the word of args the next field that is not false gives
		for i, fl := range fields {
			if seen[fl.name] || !flagName(fl.name) {
				t.Fatalf("field %d (%q) twice or not a flag name", i, fl.name)
			}
			seen[fl.name] = true
			if b, isBool := fl.value.(bool); isBool && !b {
				continue // false leaves the flag out
			}
			word := args[next]
			next++
			name, value, ok := strings.Cut(strings.TrimPrefix(word, "--"), "=")
			if !strings.HasPrefix(word, "--") || !ok || name != fl.name {
				t.Fatalf("field %d (%q) became %q in %q", i, fl.name, word, args)
			}
			if _, isBool := fl.value.(bool); isBool && value != "true" {
				t.Fatalf("field %q = %v became %q", fl.name, fl.value, word)
			}
		}
	})
}

// FuzzLaunchLine: the launch-line parser, as a pasted `vllm serve` or
// SGLang line reaches it. Whatever the words after the model, the command
// answers with exit 0, 1 or 2 and, when it answers 0 or 1, one JSON value;
// it neither panics nor hangs, and never reads a word as another flag's
// value silently (a refused word is exit 2). TestMain keeps it offline.
func FuzzLaunchLine(f *testing.F) {
	for _, s := range []string{
		"--max-model-len -0",
		"--max-model-len 4k --enforce-eager",
		"--gpu-memory-utilization 0x1p-1",
		"--gpu_memory_utilization=0.5 --port 8000",
		"--tensor-parallel-size --max-model-len 1",
		"--revision main --revision other",
		"-- --max-model-len 1",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, words string, sglang bool) {
		if len(words) > 4096 {
			return
		}
		args := []string{"report", "--json", "--class", "l4"}
		if sglang {
			args = append(args, "--engine", "sglang", "python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-0.6B")
		} else {
			args = append(args, "vllm", "serve", "Qwen/Qwen3-0.6B")
		}
		args = append(args, strings.Fields(words)...)
		var out bytes.Buffer
		code := testApp().run(&out, io.Discard, args)
		switch code {
		case exitOK, exitNoFit:
			if !json.Valid(out.Bytes()) {
				t.Fatalf("exit %d with output that is not JSON: %.300q", code, out.String())
			}
		case exitBadArgs:
		default:
			t.Fatalf("%q: exit %d", args, code)
		}
	})
}
