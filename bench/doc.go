// Package bench holds membudget's benchmarks — the compiled evaluator's hot
// path, the reference it replaces, the verified queries, compilation, the
// parses and a whole report — and, in cmd/benchgate, the gate that reads two
// result files with golang.org/x/perf and fails a change that makes the hot
// path slower or makes it allocate. bench/baseline.txt is the committed
// baseline; the Makefile's bench, bench-compare and bench-gate targets run
// them.
package bench
