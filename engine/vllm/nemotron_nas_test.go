package vllm

import (
	"os"
	"testing"
)

// nemotronSuper is Llama-3.3-Nemotron-Super-49B-v1's config.json, as
// shipped in corpus/models.
func nemotronSuper(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../../corpus/models/nvidia__Llama-3_3-Nemotron-Super-49B-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestNemotronNASKVLayout: Llama-3.3-Nemotron-Super-49B-v1 under
// nemotron_nas.py: 49 of the 80 blocks attend, LlamaAttention without a
// window, FullAttentionSpec; the 31 no-op blocks register no attention and
// keep no KV cache (vLLM counts the attending blocks alone,
// vllm/config/model.py:1566-1568). 8 KV heads of 8192 / 64 = 128, bf16: 16
// x 8 x 256 x 2 B = 65,536 B a page; at TP8 one head a rank, 8192 B.
func TestNemotronNASKVLayout(t *testing.T) {
	checkFullLayout(t, string(nemotronSuper(t)), 49, map[uint64]uint64{1: 65536, 8: 8192})
}
