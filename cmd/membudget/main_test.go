package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (review the diff before committing)")

type cliCase struct {
	name     string
	args     []string
	wantExit int
}

// runGolden runs each case as a user would and compares stdout and stderr
// with testdata/<name>.stdout and .stderr.
func runGolden(t *testing.T, cases []cliCase) {
	t.Helper()
	runGoldenIn(t, testApp(), cases)
}

// runGoldenIn is runGolden under a's environment.
func runGoldenIn(t *testing.T, a *app, cases []cliCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			got := a.run(&stdout, &stderr, tc.args)
			if got != tc.wantExit {
				t.Errorf("membudget %s: exit %d, want %d\nstderr: %s", strings.Join(tc.args, " "), got, tc.wantExit, stderr.String())
			}
			golden(t, tc.name+".stdout", stdout.String())
			golden(t, tc.name+".stderr", stderr.String())
		})
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/membudget -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestClassesAndBudget(t *testing.T) {
	t.Parallel()
	runGolden(t, classesCases)
}

var classesCases = []cliCase{
	{"classes", []string{"classes"}, exitOK},
	{"classes-json", []string{"classes", "--json"}, exitOK},
	{"budget-h100", []string{"budget", "--class", "h100-sxm-80g", "--gpu-memory-utilization", "0.9"}, exitOK},
	{"budget-gb10-json", []string{"budget", "--class", "gb10", "--gpu-memory-utilization", "0.8", "--json"}, exitOK},
	{"budget-escape", []string{"budget", "--class", "../etc", "--gpu-memory-utilization", "0.9"}, exitBadArgs},
	{"budget-above-ceiling", []string{"budget", "--class", "h100-sxm-80g", "--gpu-memory-utilization", "0.99"}, exitNoFit},
	{"budget-unknown-class", []string{"budget", "--class", "tpu-v5", "--gpu-memory-utilization", "0.9"}, exitBadArgs},
	{"budget-default-util", []string{"budget", "--class", "h100-sxm-80g"}, exitOK},
	{"budget-bad-util", []string{"budget", "--class", "h100-sxm-80g", "--gpu-memory-utilization", "ninety"}, exitBadArgs},
	{"budget-positional", []string{"budget", "h100"}, exitBadArgs},
	{"unknown-command", []string{"fit"}, exitBadArgs},
	{"no-command", nil, exitBadArgs},
	{"help", []string{"help"}, exitOK},
	{"help-budget", []string{"help", "budget"}, exitOK},
	{"help-unknown", []string{"help", "fit"}, exitBadArgs},
	{"budget-dash-h", []string{"budget", "-h"}, exitOK},
	{"budget-unknown-flag", []string{"budget", "--utilization", "0.9"}, exitBadArgs},
}

func TestBudgetFiguresAddUp(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"budget", "--class", "h100-sxm-80g", "--gpu-memory-utilization", "0.9", "--json"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got budgetJSON
	if err := jsonUnmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// 85018542080 B (79.18 GiB) x 0.9 = 76516687872 exactly (main rounds
	// up; nothing to round); 576 MiB fixed; 2 per mille.
	want := budgetJSON{
		Class: "h100-sxm-80g", Device: "NVIDIA H100 80GB HBM3", MemoryBytes: 85018542080, VLLMVersion: "main-2026-08-14",
		GPUMemoryUtilization: 0.9, UtilCeiling: 0.95, UtilBudgetBytes: 76516687872,
		DriverFixedBytes: 603979776, DriverPerMilleBytes: 76516687 * 2, DriverBytes: 603979776 + 76516687*2,
		OutsideBudgetBytes: 85018542080 - 76516687872, DriverHeadroomBytes: 85018542080 - 76516687872 - 603979776 - 76516687*2,
		// vLLM's startup check reads the device less the fixed share free.
		StartupFreeBytes: 85018542080 - 603979776,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestKernelsFlagReadsAnotherTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	doc := "[device]\nname = \"Mine\"\nvendor = \"nvidia\"\ncompute_capability = \"9.0\"\nmemory_bytes = 17179869184\ninterconnect = \"pcie\"\n[memory]\ndriver_fixed_bytes = 0\ndriver_budget_per_mille = 0\nunified = false\nutil_ceiling = 1.0\n" +
		"[provenance]\nmemory_bytes = \"a\"\ncompute_capability = \"f\"\ndriver_fixed_bytes = \"b\"\ndriver_budget_per_mille = \"c\"\nunified = \"d\"\nutil_ceiling = \"e\"\ninterconnect = \"g\"\n"
	if err := os.WriteFile(filepath.Join(dir, "mine", "HARDWARE.toml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"budget", "--kernels", dir, "--class", "mine", "--gpu-memory-utilization", "0.5", "--json"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got budgetJSON
	if err := jsonUnmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.UtilBudgetBytes != 8<<30 {
		t.Errorf("util budget = %d, want 8 GiB", got.UtilBudgetBytes)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"budget", "--kernels", dir, "--class", "h100-sxm-80g", "--gpu-memory-utilization", "0.5"}); code != exitBadArgs {
		t.Errorf("a shipped class is not in another tree: exit %d", code)
	}
	if !strings.Contains(stderr.String(), `class "h100-sxm-80g": no such class in `+dir) {
		t.Errorf("stderr %q does not name the class and the tree", stderr.String())
	}
}

// jsonUnmarshal decodes a command's JSON strictly: a field the test type
// lacks is an error, so the schema cannot grow unseen.
func jsonUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
