package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// BenchmarkBatch is `membudget batch` in process: a stream of max-seqs and
// max-len requests over a few models and classes, as a sweep driven from
// a script sends them. It reports answers a second.
func BenchmarkBatch(b *testing.B) {
	var in strings.Builder
	models := []string{"meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-32B", "google/gemma-3-27b-it", "Qwen/Qwen3-30B-A3B"}
	classes := []string{"h100-sxm-80g", "a100-80g", "l40s", "mi300x"}
	lines := 0
	for _, m := range models {
		for _, c := range classes {
			for _, u := range []string{"0.8", "0.9"} {
				for _, l := range []int{4096, 8192} {
					fmt.Fprintf(&in, `{"command":"max-seqs","model":%q,"class":%q,"gpu-memory-utilization":%s,"length":%d,"tensor-parallel-size":2,"max-model-len":32768}`+"\n", m, c, u, l)
					fmt.Fprintf(&in, `{"command":"max-len","model":%q,"class":%q,"gpu-memory-utilization":%s,"seqs":%d,"tensor-parallel-size":2,"max-model-len":32768}`+"\n", m, c, u, l/512)
					lines += 2
				}
			}
		}
	}
	req := in.String()
	answers := 0
	b.ReportAllocs()
	for b.Loop() {
		var out bytes.Buffer
		if code := batch(&out, io.Discard, strings.NewReader(req)); code != exitOK {
			b.Fatalf("exit %d: %s", code, out.String())
		}
		if n := strings.Count(out.String(), "\n"); n != lines {
			b.Fatalf("%d answers for %d requests", n, lines)
		}
		answers += lines
	}
	b.ReportMetric(float64(answers)/b.Elapsed().Seconds(), "answers/s")
}
