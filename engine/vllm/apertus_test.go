package vllm

import (
	"os"
	"testing"
)

// TestApertusKVLayout: Apertus-8B-Instruct-2509 (its rebuilt config.json
// in corpus/models) under apertus.py: ApertusAttention on all 32 layers,
// no layer_types (no window), FullAttentionSpec; 8 KV heads of 4096 / 32 =
// 128, bf16: 16 x 8 x 256 x 2 B = 65,536 B a page; at TP8 one head a
// rank, 8192 B.
func TestApertusKVLayout(t *testing.T) {
	data, err := os.ReadFile("../../corpus/models/swiss-ai__Apertus-8B-Instruct-2509.json")
	if err != nil {
		t.Fatal(err)
	}
	checkFullLayout(t, string(data), 32, map[uint64]uint64{1: 65536, 8: 8192})
}
