package main

import (
	"bytes"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestSeldomFlagsAreTheLazyOnes: seldomFlags, which a mistyped flag is
// offered from, are exactly the command's own flags that serveFlags
// registers where help is asked and not where no flag is named (the
// engine's own flags, registered by the engine, set aside).
func TestSeldomFlagsAreTheLazyOnes(t *testing.T) {
	t.Parallel()
	a := newApp(func(string) string { return "" }, nil)
	registered := func(args []string) map[string]bool {
		fs := flag.NewFlagSet("max-seqs", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		if _, err := a.serveFlags(fs, args, nil); err != nil {
			t.Fatalf("serveFlags(%q): %v", args, err)
		}
		m := map[string]bool{}
		fs.VisitAll(func(f *flag.Flag) { m[f.Name] = true })
		return m
	}
	fs := flag.NewFlagSet("engine", flag.ContinueOnError)
	var model string
	a.engines.Default().NewServe().Register(fs, &model)
	var lazy []string
	few := registered(nil)
	for n := range registered([]string{"-h"}) {
		if !few[n] && fs.Lookup(n) == nil {
			lazy = append(lazy, n)
		}
	}
	if d := cmp.Diff(slices.Sorted(slices.Values(seldomFlags)), slices.Sorted(slices.Values(lazy))); d != "" {
		t.Errorf("seldomFlags (-want +got):\n%s", d)
	}
}
