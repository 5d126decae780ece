package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchmath"
)

// The recorded files in bench/testdata are real runs of the hot-path
// benchmarks, interleaved run by run on one machine: base.txt and noise.txt
// the same binary; regression.txt a build with a planted slowdown in
// Plan.Evaluate (the pages recomputed eight times more); alloc.txt a build
// whose Plan.Evaluate allocates 8 bytes.
const testdata = "../../testdata/"

func TestGateVerdicts(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		want     int
		contains []string
		okUnits  []string // units that must not FAIL on any line
	}{
		{"noise only", []string{testdata + "base.txt", testdata + "noise.txt"}, 0,
			[]string{"benchgate: no regression on the hot path"}, []string{"sec/op", "allocs/op", "B/op", "evals/op"}},
		{"a real regression", []string{testdata + "base.txt", testdata + "regression.txt"}, 1,
			[]string{"FAIL PlanEvaluate/model=meta-llama__Llama-3.1-8B-Instruct/class=h100-sxm-80g ", "regression(s) on the hot path"},
			[]string{"allocs/op", "B/op", "evals/op"}},
		{"an allocation added", []string{testdata + "base.txt", testdata + "alloc.txt"}, 1,
			[]string{"allocs/op             0 -> 1", "B/op                  0 -> 8"}, nil},
		{"a high threshold lets the slowdown pass", []string{"-threshold", "100", testdata + "base.txt", testdata + "regression.txt"}, 0,
			[]string{"no regression"}, nil},
		{"only the hot set is gated", []string{"-hot", "^NoSuchBenchmark", testdata + "base.txt", testdata + "regression.txt"}, 2, nil, nil},
		{"missing file", []string{testdata + "base.txt", testdata + "nope.txt"}, 2, nil, nil},
		{"one argument", []string{testdata + "base.txt"}, 2, nil, nil},
		{"bad regexp", []string{"-hot", "(", testdata + "base.txt", testdata + "noise.txt"}, 2, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(&stdout, &stderr, tt.args); got != tt.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", got, tt.want, stdout.String(), stderr.String())
			}
			for _, s := range tt.contains {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			for _, line := range strings.Split(stdout.String(), "\n") {
				for _, u := range tt.okUnits {
					if strings.HasPrefix(line, "FAIL") && strings.Contains(line, " "+u+" ") {
						t.Errorf("%s fails: %s", u, line)
					}
				}
			}
		})
	}
}

func TestGateRefusesAMissingHotBenchmark(t *testing.T) {
	data, err := os.ReadFile(testdata + "noise.txt")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "BenchmarkMaxLength/") {
			kept = append(kept, line)
		}
	}
	head := filepath.Join(t.TempDir(), "head.txt")
	if err := os.WriteFile(head, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if got := run(&stdout, &stderr, []string{testdata + "base.txt", head}); got != 2 {
		t.Fatalf("exit %d, want 2", got)
	}
	if !strings.Contains(stderr.String(), "hot benchmarks missing from HEAD: MaxLength/") {
		t.Errorf("stderr does not name the missing benchmark: %s", stderr.String())
	}
}

// TestGateAcrossCoreCounts: a baseline taken at GOMAXPROCS 2 compares with
// a run at 16; the suffix is not part of the name.
func TestGateAcrossCoreCounts(t *testing.T) {
	data, err := os.ReadFile(testdata + "noise.txt")
	if err != nil {
		t.Fatal(err)
	}
	head := filepath.Join(t.TempDir(), "head.txt")
	if err := os.WriteFile(head, []byte(strings.ReplaceAll(string(data), "-2 ", "-16 ")), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if got := run(&stdout, &stderr, []string{testdata + "base.txt", head}); got != 0 {
		t.Fatalf("exit %d, want 0\nstderr: %s", got, stderr.String())
	}
}

// TestGateLeavesBenchmathAlone: the gate's -alpha does not change
// benchmath's package-level thresholds, which other code reads.
func TestGateLeavesBenchmathAlone(t *testing.T) {
	before := benchmath.DefaultThresholds
	var stdout, stderr bytes.Buffer
	run(&stdout, &stderr, []string{"-alpha", "0.2", testdata + "base.txt", testdata + "noise.txt"})
	if benchmath.DefaultThresholds != before {
		t.Errorf("benchmath.DefaultThresholds changed from %+v to %+v", before, benchmath.DefaultThresholds)
	}
}
