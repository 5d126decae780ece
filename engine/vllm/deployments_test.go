package vllm

import (
	"errors"
	"strings"
	"testing"

	"membudget"
	"membudget/budget"
	"membudget/engine"
)

// TestPlanSeventyB: Llama-3.1-70B for 16 sequences of 32768 tokens on
// H100s and H200s: the plan's every row holds the need, its bounds are
// verified, it is ranked by GPUs, and its command, given back with its
// --kv-cache-memory-bytes, sizes the same KV cache.
func TestPlanSeventyB(t *testing.T) {
	e := searchOn(t, "meta-llama__Llama-3.1-70B-Instruct", "h100-sxm-80g")
	h200, err := membudget.Kernels().Load("h200")
	if err != nil {
		t.Fatal(err)
	}
	need := Need{Length: 32768, Concurrency: 16}
	rows, err := Deployments(e.Arch, "meta-llama/Llama-3.1-70B-Instruct", need, Space{Classes: []budget.Class{e.Class, h200}, Profile: e.Profile}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no deployment serves 16 x 32768 tokens of a 70B on up to 8 H100s or H200s")
	}
	prev := uint64(0)
	for _, d := range rows {
		if d.GPUs < prev {
			t.Errorf("rows not ranked by GPUs: %d after %d", d.GPUs, prev)
		}
		prev = d.GPUs
		if !d.At.Fits() || d.At.Seqs != d.PerEngine || d.At.Tokens != need.Length {
			t.Errorf("%s: the need does not fit: %+v", d.Command, d.At)
		}
		if d.PerEngine*d.Serve.DataParallelSize < need.Concurrency {
			t.Errorf("%s: %d engines of %d sequences hold fewer than %d", d.Command, d.Serve.DataParallelSize, d.PerEngine, need.Concurrency)
		}
		if !d.MostSeqs.Fits || d.MostSeqs.Value < d.PerEngine || !d.LongestLen.Fits || d.LongestLen.Value < need.Length {
			t.Errorf("%s: bounds %d seqs, %d tokens below the need", d.Command, d.MostSeqs.Value, d.LongestLen.Value)
		}
		// The command's KV cache, given as bytes, holds the same blocks.
		s := d.Serve.Serve
		s.KVCacheMemoryBytes = d.KVCacheBytes
		ref, err := NewReference(e.Arch, s, d.Class, e.Profile)
		if err != nil {
			t.Fatalf("%s: %v", d.Command, err)
		}
		want, err := NewReference(e.Arch, d.Serve.Serve, d.Class, e.Profile)
		if err != nil {
			t.Fatal(err)
		}
		if got, w := ref.Capacity().Blocks, want.Capacity().Blocks; got != w {
			t.Errorf("%s: --kv-cache-memory-bytes %d gives %d blocks, the sized cache %d", d.Command, d.KVCacheBytes, got, w)
		}
	}
	if rows[0].GPUs > 4 {
		t.Errorf("the smallest deployment takes %d GPUs; two H200s hold a 70B at 32k", rows[0].GPUs)
	}
}

// TestPlanLengthBeyondTheModel: Qwen3-0.6B's max_position_embeddings is
// 40960, so 65536 tokens are refused as vLLM refuses them, with the
// setting error; allowed, every row's serve carries the allowance and the
// revision planned.
func TestPlanLengthBeyondTheModel(t *testing.T) {
	e := searchOn(t, "Qwen__Qwen3-0.6B", "l4")
	need := Need{Length: 65536, Concurrency: 1}
	_, err := Deployments(e.Arch, "Qwen/Qwen3-0.6B", need, Space{Classes: []budget.Class{e.Class}, Profile: e.Profile}, nil)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "max-model-len" || !strings.Contains(se.Reason, "40960") {
		t.Fatalf("got %v, want the max-model-len setting error naming 40960", err)
	}
	rows, err := Deployments(e.Arch, "Qwen/Qwen3-0.6B", need, Space{Classes: []budget.Class{e.Class}, Profile: e.Profile, AllowLongMaxModelLen: true, Revision: "v2"}, nil)
	if err != nil || len(rows) == 0 {
		t.Fatalf("allowed: %d rows, %v", len(rows), err)
	}
	for _, d := range rows {
		if !d.Serve.AllowLongMaxModelLen || d.Serve.Revision != "v2" ||
			!strings.HasPrefix(d.Command, "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve Qwen/Qwen3-0.6B --revision v2 ") {
			t.Errorf("%s: the row does not carry the allowance and the revision", d.Command)
		}
	}
}
