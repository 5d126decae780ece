package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHelpDescribesEveryCommand: `membudget help NAME` opens with what the
// command does and an example of it, then its flags (issue 20: it printed
// the flags alone); the example names the command, and an example that
// reads nothing but shipped data runs and succeeds.
func TestHelpDescribesEveryCommand(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(&stdout, &stderr, []string{"help", c.name}); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			want := "membudget " + c.name + ": " + c.summary + "\n\nexample:\n  " + c.example + "\n\nusage of membudget " + c.name + ":\n"
			if got := stdout.String(); !strings.HasPrefix(got, want) {
				t.Errorf("help %s begins\n%q\nwant\n%q", c.name, got[:min(len(got), len(want))], want)
			}
			fields := strings.Fields(c.example)
			if !strings.Contains(c.example, "membudget "+c.name) {
				t.Fatalf("the example %q does not run %s", c.example, c.name)
			}
			if fields[0] != "membudget" {
				return // a pipe
			}
			wantCode := exitOK
			if c.name == "explain" {
				// The user's log: a shipped one of the same vLLM stands in;
				// its figures beside membudget's may be over a tolerance
				// (exit 1), never a usage error.
				fields[len(fields)-1] = "../../model/logs/testdata/vllm-0.19-v1-tp2-debug.log"
				wantCode = exitNoFit
			}
			a := testApp()
			if c.name == "serve" {
				// A server runs until it is stopped: the example runs on a
				// free port of the loopback, stopped as it starts.
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				a.ctx = ctx
				fields = append(slices.Clone(fields), "--addr", "127.0.0.1:0")
			}
			stdout.Reset()
			stderr.Reset()
			if code := a.run(&stdout, &stderr, fields[1:]); code != wantCode && code != exitOK {
				t.Errorf("the example %q exits %d: %s", c.example, code, stderr.String())
			}
		})
	}
}

// TestVersion: `membudget version` names the module's version as the
// build stamped it ("(devel)" in a test binary) and each engine's default
// release.
func TestVersion(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"version"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "membudget") {
		t.Fatalf("version printed:\n%s", stdout.String())
	}
	want := []string{
		"  vllm    default rules: vLLM main at commit d18bb7b (2026-08-14)",
		"  sglang  default rules: SGLang v0.5.6.post2 (commit 5c8bd8b, 2025-12-11)",
	}
	if diff := cmp.Diff(want, lines[1:]); diff != "" {
		t.Errorf("engines (-want +got):\n%s", diff)
	}
	if code := run(&stdout, &stderr, []string{"version", "now"}); code != exitBadArgs {
		t.Errorf("version now: exit %d, want %d", code, exitBadArgs)
	}
}

// TestHelpListsTheEngineFlags: a sizing command's help lists the flags its
// engine sizes by, however help is asked for, though a request registers
// only the flags it names (a request's cost).
func TestHelpListsTheEngineFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"help", "report"}, {"report", "-h"}, {"max-seqs", "--help"}, {"max-len", "-help"},
	} {
		var stdout, stderr bytes.Buffer
		run(&stdout, &stderr, args)
		out := stdout.String() + stderr.String()
		for _, flag := range []string{"-gpu-memory-utilization", "-kv-cache-dtype", "-enable-lora", "-tensor-parallel-size", "-disable-custom-all-reduce"} {
			if !strings.Contains(out, flag) {
				t.Errorf("membudget %s: the help does not list %s", strings.Join(args, " "), flag)
			}
		}
	}
	var stdout, stderr bytes.Buffer
	run(&stdout, &stderr, []string{"report", "--engine", "sglang", "-h"})
	if out := stdout.String() + stderr.String(); !strings.Contains(out, "-mem-fraction-static") {
		t.Errorf("membudget report --engine sglang -h does not list -mem-fraction-static")
	}
}
