package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkBatch is `membudget batch --input FILE` in process, with its
// default --jobs (one per CPU) and GOGC: a stream of max-seqs and
// max-len requests over a few models and classes, as a sweep driven from
// a script sends them, each request ten times over the stream (a sweep's
// settings vary more than the models and classes it names). It reports
// answers a second.
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
	input := filepath.Join(b.TempDir(), "requests.jsonl")
	if err := os.WriteFile(input, []byte(strings.Repeat(in.String(), 10)), 0o600); err != nil {
		b.Fatal(err)
	}
	lines *= 10
	answers := 0
	b.ReportAllocs()
	for b.Loop() {
		var out lineCounter
		// Exit 1 is an answer: some serves do not fit or vLLM refuses them.
		if code := testApp().batch(&out, io.Discard, []string{"--input", input}); code != exitOK && code != exitNoFit {
			b.Fatalf("exit %d", code)
		}
		if out.lines != lines {
			b.Fatalf("%d answers for %d requests", out.lines, lines)
		}
		answers += lines
	}
	b.ReportMetric(float64(answers)/b.Elapsed().Seconds(), "answers/s")
}

// lineCounter counts the lines written to it and keeps nothing, so that the
// benchmark measures batch rather than a growing buffer.
type lineCounter struct{ lines int }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.lines += bytes.Count(p, []byte{'\n'})
	return len(p), nil
}

// BenchmarkBatchSGLang is BenchmarkBatch's stream sized by SGLang: the
// same models, classes and queries under SGLang's flags, each server's
// reference reused by every request that names it.
func BenchmarkBatchSGLang(b *testing.B) {
	var in strings.Builder
	models := []string{"meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-32B", "google/gemma-3-27b-it", "Qwen/Qwen3-30B-A3B"}
	classes := []string{"h100-sxm-80g", "a100-80g", "l40s", "mi300x"}
	lines := 0
	for _, m := range models {
		for _, c := range classes {
			for _, f := range []string{"0.8", "0.9"} {
				for _, l := range []int{4096, 8192} {
					fmt.Fprintf(&in, `{"command":"max-seqs","engine":"sglang","model":%q,"class":%q,"mem-fraction-static":%s,"length":%d,"tp-size":2,"context-length":32768}`+"\n", m, c, f, l)
					fmt.Fprintf(&in, `{"command":"max-len","engine":"sglang","model":%q,"class":%q,"mem-fraction-static":%s,"seqs":%d,"tp-size":2,"context-length":32768}`+"\n", m, c, f, l/512)
					lines += 2
				}
			}
		}
	}
	input := filepath.Join(b.TempDir(), "requests.jsonl")
	if err := os.WriteFile(input, []byte(strings.Repeat(in.String(), 10)), 0o600); err != nil {
		b.Fatal(err)
	}
	lines *= 10
	answers := 0
	b.ReportAllocs()
	for b.Loop() {
		var out lineCounter
		if code := testApp().batch(&out, io.Discard, []string{"--input", input}); code != exitOK && code != exitNoFit {
			b.Fatalf("exit %d", code)
		}
		if out.lines != lines {
			b.Fatalf("%d answers for %d requests", out.lines, lines)
		}
		answers += lines
	}
	b.ReportMetric(float64(answers)/b.Elapsed().Seconds(), "answers/s")
}
