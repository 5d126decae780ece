package vllm

import (
	"errors"
	"strings"
	"testing"

	"membudget"
	"membudget/engine"
	"membudget/model"
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

// TestDbrxRefusesExpertParallel: DbrxExperts.weight_loader (dbrx.py:92-141)
// slices the stacked w1, v1 and w2 by the tensor-parallel rank into every
// expert a rank holds, with no expert map, so vLLM fails to load DBRX with
// its experts divided among ranks: --enable-expert-parallel at TP2 is
// refused naming the flag; at TP1 (one expert-parallel rank, every expert
// whole) it loads.
func TestDbrxRefusesExpertParallel(t *testing.T) {
	data, _, _ := membudget.ModelConfig("databricks__dbrx-instruct")
	a, err := model.ParseConfig("dbrx.json", data)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewReference(a, Serve{TensorParallelSize: 2, EnableExpertParallel: true, MaxModelLen: 2048, KVCacheMemoryBytes: gib40}, testClass(false), current)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "enable-expert-parallel" || !strings.Contains(se.Reason, "dbrx.py:92-141") {
		t.Errorf("DBRX at TP2 with expert parallelism: %v, want a refusal of --enable-expert-parallel citing dbrx.py:92-141", err)
	}
	if _, err := NewReference(a, Serve{TensorParallelSize: 1, EnableExpertParallel: true, MaxModelLen: 2048, KVCacheMemoryBytes: gib40}, testClass(false), current); err != nil {
		t.Errorf("DBRX at TP1 with expert parallelism (one rank): %v, want it sized", err)
	}
}
