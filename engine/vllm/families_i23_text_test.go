package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/model"
)

// TestTextFamilyKVLayouts: the KV cache of each shipped config of the
// text-generation families of issue 23, item 2, as vLLM's spec classes lay
// it out, worked by hand from the config and the family's vLLM model file.
func TestTextFamilyKVLayouts(t *testing.T) {
	archs := shipped(t)
	tests := []struct {
		shipped string
		tp      uint64
		want    pagedLayout
	}{
		// falcon-7b-instruct: FalconAttention's Attention on all 32
		// layers (falcon.py:166-207, rotary), FullAttentionSpec;
		// multi_query: one KV head (falcon.py:118-119) of 4544 / 71 = 64,
		// bf16: 16 x 1 x (64 + 64) x 2 B = 4096 B a page. 71 heads divide
		// among no TP but 1 and 71.
		{"pcuenq__falcon-7b-instruct-transformers", 1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 32, PageBytes: 4096, Groups: oneFullGroup}}},
		// bloom-560m: BloomAttention's Attention (ALiBi) on all 24 layers
		// (bloom.py:119-135), FullAttentionSpec, multi-head: 16 KV heads of
		// 1024 / 16 = 64; float32 served in 16 bits: 16 x 16 x 128 x 2 B =
		// 65,536 B a page; at TP4 4 heads, 16,384 B.
		{"vutruc__nlu-chat", 1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 24, PageBytes: 65536, Groups: oneFullGroup}}},
		{"vutruc__nlu-chat", 4, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 24, PageBytes: 16384, Groups: oneFullGroup}}},
		// gpt2-large: GPT2Attention's Attention on all 36 layers
		// (gpt2.py:93-100), FullAttentionSpec, multi-head: 20 KV heads of
		// 1280 / 20 = 64; float32 served in 16 bits: 16 x 20 x 128 x 2 B
		// = 81,920 B a page; at TP4 5 heads, 20,480 B.
		{"openai-community__gpt2-large", 1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 36, PageBytes: 81920, Groups: oneFullGroup}}},
		{"openai-community__gpt2-large", 4, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 36, PageBytes: 20480, Groups: oneFullGroup}}},
		// MiniCPM-2B: MiniCPMAttention's Attention on all 40 layers
		// (minicpm.py:292-300), FullAttentionSpec, 36 KV heads of 2304 /
		// 36 = 64, bf16: 16 x 36 x 128 x 2 B = 147,456 B a page; at TP4 9
		// heads, 36,864 B.
		{"mlx-community__MiniCPM-2B-dpo-bf16", 1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 40, PageBytes: 147456, Groups: oneFullGroup}}},
		{"mlx-community__MiniCPM-2B-dpo-bf16", 4, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 40, PageBytes: 36864, Groups: oneFullGroup}}},
		// IQuest-Coder-V1-40B: LlamaAttention on all 80 layers, full
		// (no layer_types: llama.py:183-202), 8 KV heads of 128, bf16:
		// 16 x 8 x 256 x 2 B = 65,536 B a page; at TP8 one head, 8192 B.
		{"IQuestLab__IQuest-Coder-V1-40B-Base", 1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 80, PageBytes: 65536, Groups: oneFullGroup}}},
		{"IQuestLab__IQuest-Coder-V1-40B-Base", 8, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 80, PageBytes: 8192, Groups: oneFullGroup}}},
		// GLM-4-9B-chat: GLMAttention's Attention on all 40 layers
		// (chatglm.py:114-122), FullAttentionSpec, multi_query_group_num
		// 2 KV heads of 4096 / 32 = 128, bf16: 16 x 2 x 256 x 2 B =
		// 16,384 B a page; at TP4 the 2 heads replicated to one a rank:
		// 8192 B.
		{"THUDM__glm-4-9b-chat", 1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 40, PageBytes: 16384, Groups: oneFullGroup}}},
		{"THUDM__glm-4-9b-chat", 4, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 40, PageBytes: 8192, Groups: oneFullGroup}}},
	}
	for _, tt := range tests {
		a, ok := archs[tt.shipped]
		if !ok {
			t.Errorf("%s is not shipped", tt.shipped)
			continue
		}
		// The page does not depend on the length: 1024, which every
		// shipped config allows (gpt2-large's n_positions).
		if diff := cmp.Diff(tt.want, pagedLayoutAt(t, a, tt.tp, 1024)); diff != "" {
			t.Errorf("%s at TP%d (-want +got):\n%s", tt.shipped, tt.tp, diff)
		}
	}
}

// TestFalconKVLayout: falcon-40b's shape (60 layers, 128 heads of 8192 /
// 128 = 64, new_decoder_architecture with num_kv_heads 8, bf16) under
// falcon.py: FalconAttention on every layer, FullAttentionSpec, 8 KV heads
// (falcon.py:116-117): 16 x 8 x 128 x 2 B = 32,768 B a page at TP1, 2
// heads at TP4: 8192 B. falcon-rw-1b's shape (24 layers, 32 heads of 2048
// / 32 = 64, multi_query false, ALiBi): every head a KV head
// (falcon.py:120-121): 16 x 32 x 128 x 2 B = 131,072 B a page at TP1,
// 32,768 B at TP4.
func TestFalconKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "falcon", "hidden_size": 8192, "num_hidden_layers": 60, "num_attention_heads": 128,
 "num_kv_heads": 8, "new_decoder_architecture": true, "multi_query": true, "parallel_attn": true, "vocab_size": 65024,
 "torch_dtype": "bfloat16"}`, 60, map[uint64]uint64{1: 32768, 4: 8192})
	checkFullLayout(t, `{"model_type": "falcon", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 32,
 "multi_query": false, "parallel_attn": false, "alibi": true, "bias": true, "vocab_size": 50304,
 "torch_dtype": "bfloat16"}`, 24, map[uint64]uint64{1: 131072, 4: 32768})
}

// TestBloomLengthWithoutKeys: BLOOM's configs have no length key; vLLM
// then takes 2048 (vllm/config/model.py _get_and_verify_max_len), and the
// derivation says so rather than naming a key the config lacks. A
// seq_length present is the length.
func TestBloomLengthWithoutKeys(t *testing.T) {
	for _, tt := range []struct {
		doc, key string
		limit    uint64
	}{
		{`{"model_type": "bloom", "n_layer": 2, "n_head": 4, "hidden_size": 64, "vocab_size": 128}`, "(none: vLLM assumes 2048)", 2048},
		{`{"model_type": "bloom", "n_layer": 2, "n_head": 4, "hidden_size": 64, "vocab_size": 128, "seq_length": 4096}`, "seq_length", 4096},
	} {
		a, err := model.ParseConfig("x.json", []byte(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		d, err := deriveMaxLen(a)
		if err != nil {
			t.Fatal(err)
		}
		type got struct {
			Key   string
			Limit uint64
		}
		if diff := cmp.Diff(got{tt.key, tt.limit}, got{d.key, d.limit}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.doc, diff)
		}
	}
}
