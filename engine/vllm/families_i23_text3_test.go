package vllm

import (
	"testing"

	"membudget"
)

// TestDbrxKVLayout: dbrx-instruct (corpus/models) under dbrx.py:
// DbrxAttention's Attention on all 40 layers (:250-258, rotary, no
// window), FullAttentionSpec; attn_config.kv_n_heads 8 KV heads
// (model_arch_config_convertor.py:555-561) of 6144 / 48 = 128, bf16: 16 x
// 8 x 256 x 2 B = 65,536 B a page; at TP8 one head a rank, 8192 B.
func TestDbrxKVLayout(t *testing.T) {
	data, _, ok := membudget.ModelConfig("databricks__dbrx-instruct")
	if !ok {
		t.Fatal("databricks__dbrx-instruct is not shipped")
	}
	checkFullLayout(t, string(data), 40, map[uint64]uint64{1: 65536, 8: 8192})
}

// TestHunyuanMoEKVLayout: Hunyuan-A13B-Instruct (corpus/models) under
// hunyuan_v1.py: HunYuanAttention's Attention on all 32 layers (:215-223,
// use_cla false: no layer reads another's KV), FullAttentionSpec; 8 KV
// heads of attention_head_dim 128 (:178-183), bf16: 16 x 8 x 256 x 2 B =
// 65,536 B a page; at TP8 one head a rank, 8192 B.
func TestHunyuanMoEKVLayout(t *testing.T) {
	data, _, ok := membudget.ModelConfig("tencent__Hunyuan-A13B-Instruct")
	if !ok {
		t.Fatal("tencent__Hunyuan-A13B-Instruct is not shipped")
	}
	checkFullLayout(t, string(data), 32, map[uint64]uint64{1: 65536, 8: 8192})
}
