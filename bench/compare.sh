#!/usr/bin/env bash
# Benchmarks of two revisions in one session, interleaved run by run so that
# both sides share the machine's noise, then benchstat (the report) and
# benchgate (the verdict).
#
#   bench/compare.sh BASE_REV [RUNS] [BENCHTIME]
#
# BASE_REV is built from a temporary git worktree; HEAD is the working tree.
# PKG (default ./bench) is the package whose benchmarks run, BENCH (default
# .) the -test.bench pattern: PKG=./cmd/membudget BENCH='^BenchmarkBatch$'
# compares the batch command.
set -euo pipefail
base_rev=${1:?usage: bench/compare.sh BASE_REV [RUNS] [BENCHTIME]}
runs=${2:-10}
benchtime=${3:-100ms}
pkg=${PKG:-./bench}
pattern=${BENCH:-.}
top=$(git rev-parse --show-toplevel)
cd "$top"
out=bench/out
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/base" "$base_rev" >/dev/null
if [ ! -d "$tmp/base/$pkg" ]; then
  echo "bench/compare.sh: $base_rev has no $pkg package to compare with" >&2
  exit 2
fi
(cd "$tmp/base" && go test -c -o "$tmp/base.test" "$pkg")
go test -c -o "$tmp/head.test" "$pkg"
: > "$out/base.txt"
: > "$out/head.txt"
for i in $(seq 1 "$runs"); do
  echo "run $i/$runs" >&2
  # Each binary runs from its own tree so that its testdata paths resolve.
  (cd "$tmp/base/$pkg" && "$tmp/base.test" -test.run '^$' -test.bench "$pattern" -test.benchtime "$benchtime" -test.count 1) >> "$out/base.txt"
  (cd "$pkg" && "$tmp/head.test" -test.run '^$' -test.bench "$pattern" -test.benchtime "$benchtime" -test.count 1) >> "$out/head.txt"
done
go tool benchstat "$out/base.txt" "$out/head.txt"
go run ./bench/cmd/benchgate "$out/base.txt" "$out/head.txt"
