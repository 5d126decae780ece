// Command benchgate compares two files of Go benchmark results and fails
// when a hot-path benchmark got slower by more than a threshold with
// significance, or got worse on an exact metric (allocs/op, B/op,
// evals/op). It reads the files with golang.org/x/perf/benchfmt and
// compares with benchmath the way benchstat does; benchstat is the report
// for people, this is the verdict for scripts.
//
// Usage:
//
//	benchgate [-hot REGEXP] [-threshold 0.10] [-alpha 0.05] BASE HEAD
//
// Exit status: 0 when no hot benchmark regressed, 1 when one did, 2 when the
// input is unusable (a missing file, no results, a hot benchmark absent from
// HEAD).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

// exactUnits are the metrics that do not vary between runs: any worsening
// is a regression.
var exactUnits = map[string]bool{"allocs/op": true, "B/op": true, "evals/op": true}

// samples holds one file's values per benchmark and unit.
type samples map[string]map[string][]float64

func read(path string) (samples, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := samples{}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result(); rec := rec.(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			name := nameWithoutProcs(rec.Name)
			if out[name] == nil {
				out[name] = map[string][]float64{}
			}
			for _, v := range rec.Values {
				out[name][v.Unit] = append(out[name][v.Unit], v.Value)
			}
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no benchmark results", path)
	}
	return out, nil
}

// verdict is one benchmark and unit compared.
type verdict struct {
	name, unit  string
	base, head  float64 // medians
	delta       float64 // head/base - 1
	p, alpha    float64
	regressed   bool
	significant bool
}

// nameWithoutProcs is a result's name without its -GOMAXPROCS suffix, so
// that runs on machines of different core counts compare.
func nameWithoutProcs(n benchfmt.Name) string {
	base, parts := n.Parts()
	var b strings.Builder
	b.Write(base)
	for _, p := range parts {
		if len(p) > 0 && p[0] == '-' {
			continue // GOMAXPROCS, always the last part
		}
		b.Write(p)
	}
	return b.String()
}

// compare compares one benchmark's unit between base and head as benchstat
// does: the centre of each sample from benchmath (the median, or the mode
// of an exact metric), and its test of significance at alpha.
func compare(name, unit string, base, head []float64, threshold, alpha float64) verdict {
	th := benchmath.Thresholds{CompareAlpha: alpha}
	var assume benchmath.Assumption = benchmath.AssumeNothing
	if exactUnits[unit] {
		assume = benchmath.AssumeExact
	}
	bs, hs := benchmath.NewSample(base, &th), benchmath.NewSample(head, &th)
	v := verdict{name: name, unit: unit, base: assume.Summary(bs, 0.95).Center, head: assume.Summary(hs, 0.95).Center}
	switch {
	case v.base != 0:
		v.delta = v.head/v.base - 1
	case v.head != 0:
		v.delta = 1 // from zero to something: e.g. an allocation added
	}
	c := assume.Compare(bs, hs)
	v.p, v.alpha = c.P, c.Alpha
	if exactUnits[unit] {
		v.significant = !(c.P > c.Alpha)
		v.regressed = v.head > v.base
		return v
	}
	// benchstat's rule: a difference is significant unless P > alpha.
	v.significant = !(c.P > c.Alpha)
	v.regressed = v.significant && v.delta > threshold
	return v
}

func run(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("benchgate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hot := fs.String("hot", `^(PlanEvaluate|MaxSequences|MaxLength)/`, "`regexp` of the hot-path benchmarks the gate holds (names without the Benchmark prefix)")
	threshold := fs.Float64("threshold", 0.10, "the slowdown of sec/op that fails, when significant (0.10 is 10%)")
	alpha := fs.Float64("alpha", 0.05, "the significance level, as benchstat's -alpha")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(stderr, "usage: benchgate [-hot REGEXP] [-threshold 0.10] [-alpha 0.05] BASE HEAD")
		return 2
	}
	hotRE, err := regexp.Compile(*hot)
	if err != nil {
		fmt.Fprintf(stderr, "benchgate: -hot: %v\n", err)
		return 2
	}
	if *threshold < 0 || !(*alpha > 0 && *alpha < 1) {
		fmt.Fprintln(stderr, "benchgate: -threshold must be 0 or more and -alpha in (0, 1)")
		return 2
	}
	base, err := read(fs.Arg(0))
	if err == nil {
		var head samples
		if head, err = read(fs.Arg(1)); err == nil {
			return gate(stdout, stderr, base, head, hotRE, *threshold, *alpha)
		}
	}
	fmt.Fprintf(stderr, "benchgate: %v\n", err)
	return 2
}

func gate(stdout, stderr io.Writer, base, head samples, hot *regexp.Regexp, threshold, alpha float64) int {
	var names []string
	for name := range base {
		if hot.MatchString(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		fmt.Fprintf(stderr, "benchgate: no benchmark in BASE matches -hot %q\n", hot)
		return 2
	}
	var missing []string
	regressions := 0
	for _, name := range names {
		h, ok := head[name]
		if !ok {
			missing = append(missing, name)
			continue
		}
		var units []string
		for u := range base[name] {
			units = append(units, u)
		}
		sort.Strings(units)
		for _, u := range units {
			if _, ok := h[u]; !ok {
				missing = append(missing, name+" "+u)
				continue
			}
			v := compare(name, u, base[name][u], h[u], threshold, alpha)
			status := "ok  "
			if v.regressed {
				status = "FAIL"
				regressions++
			}
			p := fmt.Sprintf("p=%.3f", v.p)
			if exactUnits[u] {
				p = "exact"
			}
			fmt.Fprintf(stdout, "%s %-90s %-10s %12.4g -> %-12.4g %+7.2f%%  %s\n", status, name, u, v.base, v.head, 100*v.delta, p)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(stderr, "benchgate: hot benchmarks missing from HEAD: %s\n", strings.Join(missing, ", "))
		return 2
	}
	if regressions > 0 {
		fmt.Fprintf(stdout, "benchgate: %d regression(s) on the hot path (sec/op beyond %+.0f%% with p < alpha, or any worse allocs/op, B/op, evals/op)\n", regressions, 100*threshold)
		return 1
	}
	fmt.Fprintln(stdout, "benchgate: no regression on the hot path")
	return 0
}
