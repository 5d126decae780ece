package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/model"
)

// TestMiniCPM3KVLayout: openbmb/MiniCPM3-4B (MiniCPM3Config's defaults
// are its shape) as vLLM lays its cache out. MiniCPM3Attention hands
// Attention num_heads / tp heads of qk_nope_head_dim + qk_rope_head_dim =
// 64 + 32 = 96 as query and KV heads alike (minicpm3.py:126-134), V padded
// to 96 (:173-175), and minicpm3 is none of vLLM's MLA model types
// (transformers_utils/model_arch_config_convertor.py:311-335): a
// FullAttentionSpec on all 62 layers, not a latent. bf16: 16 x 40 x (96 +
// 96) x 2 B = 245,760 B a page; at TP4 10 heads, 61,440 B; at TP8 5 heads,
// 30,720 B.
func TestMiniCPM3KVLayout(t *testing.T) {
	a, err := model.ParseConfig("minicpm3.json", []byte(`{"model_type": "minicpm3", "architectures": ["MiniCPM3ForCausalLM"], "torch_dtype": "bfloat16"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tp   uint64
		want pagedLayout
	}{
		{1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 62, PageBytes: 245760, Groups: oneFullGroup}}},
		{4, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 62, PageBytes: 61440, Groups: oneFullGroup}}},
		{8, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 62, PageBytes: 30720, Groups: oneFullGroup}}},
	} {
		if diff := cmp.Diff(tt.want, pagedLayoutAt(t, a, tt.tp, 4096)); diff != "" {
			t.Errorf("MiniCPM3-4B at TP%d (-want +got):\n%s", tt.tp, diff)
		}
	}
}

// TestStableLMEpochKVLayout: stable-code-3b (stablelm_epoch, served by
// stablelm.py): StablelmAttention's Attention on all 32 layers
// (stablelm.py:153-161), FullAttentionSpec, 32 KV heads of 2560 / 32 = 80,
// bf16: 16 x 32 x (80 + 80) x 2 B = 163,840 B a page; at TP4 8 heads,
// 40,960 B.
func TestStableLMEpochKVLayout(t *testing.T) {
	a, ok := shipped(t)["stabilityai__stable-code-3b"]
	if !ok {
		t.Fatal("stabilityai__stable-code-3b is not shipped")
	}
	for _, tt := range []struct {
		tp   uint64
		want pagedLayout
	}{
		{1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 32, PageBytes: 163840, Groups: oneFullGroup}}},
		{4, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 32, PageBytes: 40960, Groups: oneFullGroup}}},
	} {
		if diff := cmp.Diff(tt.want, pagedLayoutAt(t, a, tt.tp, 4096)); diff != "" {
			t.Errorf("stable-code-3b at TP%d (-want +got):\n%s", tt.tp, diff)
		}
	}
}
