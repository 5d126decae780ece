package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

// TestIndexCacheLayersKeepNoIndexerCache: a DeepSeek V3.2 layer that
// reuses an earlier layer's top-k builds no indexer, so no indexer key
// cache (deepseek_v2.py:1110). DeepSeek-V3.2 at TP8 with GLM-5.2's
// index_topk_freq 4 and index_skip_topk_offset 3: layers 0, 1, 2 and every
// fourth from 6 to 58 keep one (max(i - 2, 0) % 4 == 0), 17 of 61. One
// UniformType group whose block costs 61 latent pages of 64 x 576 x 2 =
// 73,728 B and 17 indexer pages of 64 x 132 = 8448 B: 4,641,024 B; 40 GiB
// of it is 9254 blocks (9254 x 4,641,024 = 42,948,036,096 B).
func TestIndexCacheLayersKeepNoIndexerCache(t *testing.T) {
	a := deepSeekV32(t)
	a.Layers = append(a.Layers[:0:0], a.Layers...)
	indexers := 0
	for i := range a.Layers {
		a.Layers[i].SharesTopK = max(i-2, 0)%4 != 0
		if !a.Layers[i].SharesTopK {
			indexers++
		}
	}
	if indexers != 17 {
		t.Fatalf("%d layers keep an indexer, want 17", indexers)
	}
	r := ref(t, a, Serve{TensorParallelSize: 8, MaxModelLen: 163840, KVCacheMemoryBytes: gib40}, testClass(false))
	c := r.Capacity()
	type got struct {
		Pool   budget.PagedPool
		Blocks uint64
	}
	want := got{budget.PagedPool{Tensors: 1, PageBytes: 61*73728 + 17*8448, Groups: []budget.PageGroup{{Count: 1, PageTokens: 64, CapTokens: budget.NoCap}}}, 9254}
	if diff := cmp.Diff(want, got{r.Plan().Stages[0].Pool, c.Blocks}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := len(r.KVAllocation(0)); n != 61+17 {
		t.Errorf("%d KV cache tensors, want 61 latents and 17 indexer caches", n)
	}
}
