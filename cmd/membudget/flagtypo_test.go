package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestMistypedOwnFlagNamesIt: a flag neither membudget's command nor the
// engine takes names membudget's own flag where it is nearer than any of
// the engine's (an edit distance of 1 from --strict, 3 from --dtype), the
// engine's where it is as near or nearer, and exits 2 either way.
func TestMistypedOwnFlagNamesIt(t *testing.T) {
	t.Parallel()
	cases := []struct{ args, want string }{
		{"--stict", "--stict is not a flag of membudget max-seqs or vLLM main at commit d18bb7b (2026-08-14): its nearest is --strict"},
		{"--jsn", "its nearest is --json"},
		{"--kernel x", "its nearest is --kernels"},
		{"--engine sglang --stict", "--stict is not a flag of membudget max-seqs or SGLang v0.5.6.post2"},
		// --max-model-len is the engine's flag, registered on the command:
		// the engine's own wording stays.
		{"--max-model-le 4096", "--max-model-le is not a flag of vLLM main at commit d18bb7b (2026-08-14): its nearest is --max-model-len"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		args := append([]string{"max-seqs", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "l4", "--length", "4096"}, strings.Fields(c.args)...)
		if code := run(&out, &errb, args); code != exitBadArgs {
			t.Errorf("%s: exit %d, want %d", c.args, code, exitBadArgs)
		}
		if !strings.Contains(errb.String(), c.want) {
			t.Errorf("%s: stderr %q, want it to hold %q", c.args, errb.String(), c.want)
		}
	}
}
