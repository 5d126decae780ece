package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRewardReport: a reward model (Qwen/Qwen2.5-Math-PRM-7B, shipped) is
// served by vLLM's pooling runner with its decoder's KV cache: the
// report's JSON has a kv_capacity and no "pooling" (which is the
// encoder-only models'), the runner in its serve and launch line, no
// async scheduling, and a batch raised from the L4's 2048 to
// max_model_len 4096 (STEP pooling runs without chunked prefill). Its
// weights, by hand (model/pooling_decoder_test.go): the layers,
// embedding and final norm 14,141,238,272 B, the float32 score head
// 51,423,240 B and the rotary table 4096 x 128 x 2 = 1,048,576 B:
// 14,193,710,088 B. A request of 4096 tokens takes 4096 / 16 = 256
// pages, each 16 tokens x 28 layers x 2 x 4 KV heads x 128 x 2 B =
// 917,504 B.
func TestRewardReport(t *testing.T) {
	got := reportOK(t, "report", "--model", "Qwen/Qwen2.5-Math-PRM-7B", "--class", "l4", "--json")
	if got.KVCapacity == nil || got.Pooling != nil {
		t.Fatalf("kv_capacity %+v, pooling %+v: want one and none", got.KVCapacity, got.Pooling)
	}
	s := got.Serve
	if s.Runner != "pooling" || s.AsyncScheduling || s.MaxNumBatchedTokens != 4096 || s.MaxModelLen != 4096 || !strings.Contains(s.Command, "--runner pooling") {
		t.Errorf("serve runner %q async %v batched %d max_model_len %d command %q: want pooling, no async, 4096, 4096, naming the runner",
			s.Runner, s.AsyncScheduling, s.MaxNumBatchedTokens, s.MaxModelLen, s.Command)
	}
	if w := got.Model.Weights.DerivedBytes; w != 14_193_710_088 {
		t.Errorf("weights %d B, want 14,193,710,088", w)
	}
	if k := got.KVCapacity; k.BlockBytes != 917_504 || k.PagesPerSeq != 256 {
		t.Errorf("block %d B, %d pages a request; want 917,504 and 256", k.BlockBytes, k.PagesPerSeq)
	}
	if got.Footprint.Sampler != 0 {
		t.Errorf("sampler %d B, want 0: the pooling runner samples nothing", got.Footprint.Sampler)
	}
	// max-seqs answers from the KV cache, as for a causal LM: the whole
	// sequences vLLM's pool holds at 4096 tokens, its logged maximum
	// concurrency rounded down.
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"max-seqs", "--length", "4096", "--model", "Qwen/Qwen2.5-Math-PRM-7B", "--class", "l4", "--json"})
	var q queryJSON
	if err := jsonUnmarshal(stdout.Bytes(), &q); err != nil {
		t.Fatalf("max-seqs: exit %d, %v; stderr %s", code, err, stderr.String())
	}
	if want := uint64(got.KVCapacity.MaxConcurrency); code != exitOK || q.Answer != want || q.Capped || q.At.KVCache == 0 {
		t.Errorf("max-seqs: exit %d, answer %d capped %v KV %d; want %d (the logged concurrency %.2f), not capped, a KV term",
			code, q.Answer, q.Capped, q.At.KVCache, want, got.KVCapacity.MaxConcurrency)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(&stdout, &stderr, []string{"report", "--model", "Qwen/Qwen2.5-Math-PRM-7B", "--class", "l4", "--runner", "generate"}); code != exitBadArgs || !strings.Contains(stderr.String(), "--runner") {
		t.Errorf("--runner generate: exit %d, stderr %q; want exit %d naming --runner", code, stderr.String(), exitBadArgs)
	}
}

// TestMultimodalEmbeddingReport: Qwen/Qwen2-VL-7B-Instruct (shipped) as an
// embedding model under LAST pooling: the runner and the converter in the
// launch line, the encoder cache sized as for generation (one video item
// of 8960 tokens at max_pixels 1003520: 8960 tokens x 3584 x 2 B =
// 64,225,280 B), a KV capacity, and max-seqs at max_model_len its logged
// concurrency rounded down.
func TestMultimodalEmbeddingReport(t *testing.T) {
	args := []string{"--model", "Qwen/Qwen2-VL-7B-Instruct", "--class", "h100-sxm-80g", "--runner", "pooling",
		"--pooler-config", `{"seq_pooling_type":"LAST"}`, "--mm-processor-kwargs", `{"max_pixels":1003520}`, "--json"}
	got := reportOK(t, append([]string{"report"}, args...)...)
	s := got.Serve
	if s.Runner != "pooling" || !strings.Contains(s.Command, "--convert embed") || s.Multimodal == nil || !s.Multimodal.Sized || s.Multimodal.CacheBytes != 64_225_280 || got.KVCapacity == nil {
		t.Fatalf("runner %q command %q multimodal %+v kv %+v: want pooling, --convert embed, the encoder cache sized at 64,225,280 B, a KV capacity",
			s.Runner, s.Command, s.Multimodal, got.KVCapacity)
	}
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, append([]string{"max-seqs", "--length", "32768"}, args...))
	var q queryJSON
	if err := jsonUnmarshal(stdout.Bytes(), &q); err != nil {
		t.Fatalf("max-seqs: exit %d, %v; stderr %s", code, err, stderr.String())
	}
	if want := uint64(got.KVCapacity.MaxConcurrency); code != exitOK || q.Answer != want {
		t.Errorf("max-seqs: exit %d, answer %d; want %d (the logged concurrency %.2f)", code, q.Answer, want, got.KVCapacity.MaxConcurrency)
	}
}

// TestColBERTReport: a late-interaction model (HF_ColBERT over
// bge-base-en-v1.5's shipped config, a projection of 128: no published
// ColBERT config.json was found) on an L4: an encoder's report, no KV
// capacity, the ColBERT head named; weights 217,891,840 B (bge-base, by
// hand in model/encoder_test.go) + 768 x 128 x 4 = 393,216 B of float32
// projection = 218,285,056 B; max-seqs at 300 tokens is the batch's 2048
// / 300 = 6 whole sequences.
func TestColBERTReport(t *testing.T) {
	data, err := os.ReadFile("../../corpus/models/BAAI__bge-base-en-v1.5.json")
	if err != nil {
		t.Fatal(err)
	}
	config := strings.Replace(strings.Replace(string(data), `"BertModel"`, `"HF_ColBERT"`, 1), "{", `{"colbert_dim": 128,`, 1)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	got := reportOK(t, "report", "--model", dir, "--class", "l4", "--json")
	if got.KVCapacity != nil || got.Pooling == nil || !strings.Contains(got.Pooling.Head, "ColBERT") || got.Model.Weights.DerivedBytes != 218_285_056 {
		t.Errorf("kv_capacity %+v pooling %+v weights %d: want none, the ColBERT head, 218,285,056 B", got.KVCapacity, got.Pooling, got.Model.Weights.DerivedBytes)
	}
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"max-seqs", "--length", "300", "--model", dir, "--class", "l4", "--json"})
	var q queryJSON
	if err := jsonUnmarshal(stdout.Bytes(), &q); err != nil {
		t.Fatalf("max-seqs: exit %d, %v; stderr %s", code, err, stderr.String())
	}
	if code != exitOK || q.Answer != 6 || !q.Capped || q.At.KVCache != 0 {
		t.Errorf("max-seqs: exit %d, answer %d capped %v KV %d; want 6, capped, no KV", code, q.Answer, q.Capped, q.At.KVCache)
	}
}
