package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestPoolingReport: an encoder-only model (BAAI/bge-base-en-v1.5, shipped)
// is served by vLLM's pooling runner: the report's JSON has no
// kv_capacity, a "pooling" object, the runner in its serve, a KV term of
// 0, and the launch line names the runner.
func TestPoolingReport(t *testing.T) {
	got := reportOK(t, "report", "--model", "BAAI/bge-base-en-v1.5", "--class", "l4", "--json")
	if got.KVCapacity != nil || got.Pooling == nil {
		t.Fatalf("kv_capacity %+v, pooling %+v: want none and one", got.KVCapacity, got.Pooling)
	}
	// L4 (22 GiB): vLLM's default batch 2048 >= max_model_len 512.
	if p := *got.Pooling; p.Runner != "pooling" || p.KVCache || p.BatchTokens != 2048 || p.PositionLimit != 512 {
		t.Errorf("pooling %+v: want runner pooling, no KV cache, 2048 batch tokens, 512 positions", p)
	}
	if got.Serve.Runner != "pooling" || got.Serve.Dtype != "float16" || got.Serve.AsyncScheduling {
		t.Errorf("serve runner %q dtype %q async %v: want pooling, float16 (a float32 checkpoint under the pooling runner), no async", got.Serve.Runner, got.Serve.Dtype, got.Serve.AsyncScheduling)
	}
	if !strings.Contains(got.Serve.Command, "--runner pooling") {
		t.Errorf("command %q does not name the runner", got.Serve.Command)
	}
	if !got.Fits {
		t.Error("does not fit: 0.2 GiB of weights on an L4")
	}
}

// TestPoolingQueries: max-seqs and max-len answer for an encoder-only
// model in its terms: the sequences of one batch at a length (2048 / 300 =
// 6), the length of one batch at a sequence count (2048 / 8 = 256), each
// the cap itself, which fits.
func TestPoolingQueries(t *testing.T) {
	for _, c := range []struct {
		args []string
		want uint64
	}{
		{[]string{"max-seqs", "--length", "300"}, 6},
		{[]string{"max-len", "--seqs", "8"}, 256},
		{[]string{"max-len", "--seqs", "1"}, 512},
	} {
		var stdout, stderr bytes.Buffer
		args := append(c.args, "--model", "BAAI/bge-base-en-v1.5", "--class", "l4", "--json")
		code := run(&stdout, &stderr, args)
		var got queryJSON
		if err := jsonUnmarshal(stdout.Bytes(), &got); err != nil {
			t.Fatalf("%v: exit %d, %v; stderr %s", c.args, code, err, stderr.String())
		}
		if code != exitOK || got.Answer != c.want || !got.Capped || !got.Fits {
			t.Errorf("%v: exit %d, answer %d capped %v fits %v; want %d, capped, fits", c.args, code, got.Answer, got.Capped, got.Fits, c.want)
		}
		if kv := got.At.KVCache; kv != 0 {
			t.Errorf("%v: KV term %d, want 0", c.args, kv)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, []string{"report", "--model", "BAAI/bge-base-en-v1.5", "--class", "l4", "--runner", "generate"}); code != exitBadArgs || !strings.Contains(stderr.String(), "--runner") {
		t.Errorf("--runner generate: exit %d, stderr %q; want exit %d naming --runner", code, stderr.String(), exitBadArgs)
	}
}

// TestPoolingFrontier: the frontier of an encoder-only model is its batch
// at each length, min(max_num_seqs 256, 2048 / length) on an L4, every
// point capped and fitting.
func TestPoolingFrontier(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"frontier", "--model", "BAAI/bge-base-en-v1.5", "--class", "l4", "--format", "json"})
	if code != exitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr.String())
	}
	var points []struct {
		Length  uint64 `json:"length"`
		MaxSeqs uint64 `json:"max_seqs"`
		Fits    bool   `json:"fits"`
		Capped  bool   `json:"capped"`
	}
	if err := jsonUnmarshal(stdout.Bytes(), &points); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(points) == 0 {
		t.Fatal("no points")
	}
	for _, p := range points {
		if want := min(256, 2048/p.Length); p.MaxSeqs != want || !p.Fits || !p.Capped {
			t.Errorf("length %d: %d sequences (fits %v, capped %v), want %d, fitting, capped", p.Length, p.MaxSeqs, p.Fits, p.Capped, want)
		}
	}
}

// reportOK runs membudget with args (a report with --json) and decodes the
// report, failing unless it exits 0.
func reportOK(t *testing.T, args ...string) reportJSON {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, args); code != exitOK {
		t.Fatalf("membudget %s: exit %d; stderr %s", strings.Join(args, " "), code, stderr.String())
	}
	var got reportJSON
	if err := jsonUnmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	return got
}
