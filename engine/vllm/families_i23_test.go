package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

// TestNewFamilyKVLayouts: the KV cache of each shipped config of the
// families of issue 23 as vLLM's spec classes lay it out, worked by hand
// from the config and the family's vLLM model file: which spec each layer
// gets (vllm/v1/kv_cache_interface.py), the page of a block of 16 tokens
// on one rank, and the groups.
func TestNewFamilyKVLayouts(t *testing.T) {
	archs := shipped(t)
	type layout struct {
		Names string
		Pool  budget.PagedPool
	}
	full := []budget.PageGroup{{Count: 1, PageTokens: 16, CapTokens: budget.NoCap}}
	tests := []struct {
		shipped string
		tp      uint64
		want    layout
	}{
		// ERNIE-4.5-0.3B: Llama's Attention on all 18 layers
		// (ernie45.py subclasses llama.py), FullAttentionSpec; 2 KV heads
		// of 128: 16 x 2 x (128 + 128) x 2 B = 16,384 B a page at TP1.
		{"baidu__ERNIE-4.5-0.3B-PT", 1, layout{"FullAttentionx1", budget.PagedPool{Tensors: 18, PageBytes: 16384, Groups: full}}},
		// At TP2 one KV head a rank: 8192 B.
		{"baidu__ERNIE-4.5-0.3B-PT", 2, layout{"FullAttentionx1", budget.PagedPool{Tensors: 18, PageBytes: 8192, Groups: full}}},
		// pythia-6.9b-deduped: GPTNeoXAttention's Attention on all 32
		// layers (gpt_neox.py:95-102), multi-head: 32 KV heads of 4096 /
		// 32 = 128, fp16: 16 x 32 x 256 x 2 B = 262,144 B a page; at TP4 8
		// heads, 65,536 B.
		{"EleutherAI__pythia-6.9b-deduped", 1, layout{"FullAttentionx1", budget.PagedPool{Tensors: 32, PageBytes: 262144, Groups: full}}},
		{"EleutherAI__pythia-6.9b-deduped", 4, layout{"FullAttentionx1", budget.PagedPool{Tensors: 32, PageBytes: 65536, Groups: full}}},
		// Qwen3-VL-30B-A3B: Qwen3MoeDecoderLayer's Attention on all 48
		// layers (qwen3_vl_moe.py:68-74), 4 KV heads of 128, bf16: 16 x 4
		// x 256 x 2 B = 32,768 B a page; at TP8 the 4 heads are
		// replicated to one a rank: 8192 B.
		// EXAONE-3.0-7.8B: ExaoneAttention's Attention on all 32 layers
		// (exaone.py:167-175), 8 KV heads of 128, bf16: 16 x 8 x 256 x 2
		// B = 65,536 B a page; at TP2 4 heads, 32,768 B.
		{"LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct", 1, layout{"FullAttentionx1", budget.PagedPool{Tensors: 32, PageBytes: 65536, Groups: full}}},
		{"LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct", 2, layout{"FullAttentionx1", budget.PagedPool{Tensors: 32, PageBytes: 32768, Groups: full}}},
		{"Qwen__Qwen3-VL-30B-A3B-Instruct", 1, layout{"FullAttentionx1", budget.PagedPool{Tensors: 48, PageBytes: 32768, Groups: full}}},
		{"Qwen__Qwen3-VL-30B-A3B-Instruct", 8, layout{"FullAttentionx1", budget.PagedPool{Tensors: 48, PageBytes: 8192, Groups: full}}},
	}
	// GLM-4.7-Flash: Glm4MoeLiteMLAAttention on all 47 layers
	// (glm4_moe_lite.py:133-153), MLAAttentionSpec: one latent of
	// kv_lora_rank + qk_rope_head_dim = 512 + 64 = 576 a token, whole on
	// every rank: 16 x 576 x 2 B = 18,432 B a page at TP1 and TP4.
	for _, tp := range []uint64{1, 4} {
		tests = append(tests, struct {
			shipped string
			tp      uint64
			want    layout
		}{"zai-org__GLM-4.7-Flash", tp, layout{"MLAAttentionx1", budget.PagedPool{Tensors: 47, PageBytes: 18432, Groups: full}}})
	}
	for _, tt := range tests {
		a, ok := archs[tt.shipped]
		if !ok {
			t.Errorf("%s is not shipped", tt.shipped)
			continue
		}
		r := ref(t, a, Serve{TensorParallelSize: tt.tp, MaxModelLen: 2048, KVCacheMemoryBytes: gib40}, testClass(false))
		got := layout{groupNames(a, r.groups), r.Plan().Stages[0].Pool}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s at TP%d (-want +got):\n%s", tt.shipped, tt.tp, diff)
		}
	}
}
