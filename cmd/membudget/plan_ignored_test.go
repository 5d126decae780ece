package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlanListsIgnoredCompilationKeys: the keys of --compilation-config
// that change no memory (cache_dir, debug_dump_path) are kept by no
// command plan prints, so plan lists them as ignored, in the words and
// order a report lists them (the keys sorted, each value as given), in
// its text and in its JSON's "ignored"; the keys it sizes stay in each
// command.
func TestPlanListsIgnoredCompilationKeys(t *testing.T) {
	t.Parallel()
	args := []string{"plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--length", "8192", "--concurrency", "8",
		"--classes", "h100-sxm-80g", "--max-gpus", "1", "--top", "1",
		"--compilation-config", `{"debug_dump_path": "/d", "cudagraph_mode": "FULL_DECODE_ONLY", "cache_dir": "/c"}`}
	// Sorted by key, each value as the JSON held it.
	want := []string{`--compilation-config.cache_dir "/c"`, `--compilation-config.debug_dump_path "/d"`}

	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, append(args, "--json")); code != exitOK {
		t.Fatalf("plan --json: exit %d: %s", code, stderr.String())
	}
	var plan planJSON
	if err := jsonUnmarshal(stdout.Bytes(), &plan); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, plan.Ignored); diff != "" {
		t.Errorf(`plan --json "ignored" (-want +got):\n%s`, diff)
	}
	if len(plan.Rows) == 0 {
		t.Fatal("plan --json: no rows for an 8B model on an H100")
	}
	for _, r := range plan.Rows {
		if !strings.Contains(r.Command, `"cudagraph_mode":"FULL_DECODE_ONLY"`) || strings.Contains(r.Command, "cache_dir") {
			t.Errorf("plan: %s: want the sized key kept and the ignored ones left out", r.Command)
		}
	}

	stdout.Reset()
	stderr.Reset()
	if code := run(&stdout, &stderr, args); code != exitOK {
		t.Fatalf("plan: exit %d: %s", code, stderr.String())
	}
	for _, ig := range want {
		line := "\nignored " + ig + ": it does not change memory\n"
		if !strings.Contains(stdout.String(), line) {
			t.Errorf("plan's text lacks the line %q:\n%s", strings.TrimSpace(line), stdout.String())
		}
	}

	// Without such a key, the JSON's list is empty, never null.
	stdout.Reset()
	if code := run(&stdout, &stderr, append(args[:len(args)-2], "--json")); code != exitOK {
		t.Fatalf("plan --json: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"ignored": []`) {
		t.Errorf(`plan --json without ignored keys: want "ignored": []:\n%s`, stdout.String())
	}
}
