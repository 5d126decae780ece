// Package bench holds membudget's benchmarks — the compiled evaluator's hot
// path, the reference it replaces, the verified queries, compilation, the
// parses, a whole report, the sweep and the plan — and, in cmd/benchgate,
// the gate that reads two result files with golang.org/x/perf and fails a
// change that makes the hot path slower or makes it allocate.
// bench/baseline.txt is the committed baseline. The Makefile runs them:
// `make bench` (every benchmark, -count runs, into bench/out/new.txt),
// `make bench-baseline` (that run copied to bench/baseline.txt), and
// `make bench-compare` (against the baseline, or with BASE=<rev> that
// revision and the working tree built side by side and run interleaved by
// bench/compare.sh, then benchstat and the gate); `make test` runs each once
// (bench-smoke) so that they keep compiling.
package bench
