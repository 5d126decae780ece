package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
)

// TestGlm4vMoeKVLayout: GLM-4.5V's KV cache as vLLM lays it out, worked
// by hand: Glm4MoeAttention's Attention on all 46 layers (glm4_moe.py:
// 222-320, no sliding window), FullAttentionSpec; 8 KV heads of 128,
// bf16: 16 x 8 x (128 + 128) x 2 B = 65,536 B a page of 16 tokens at TP1;
// at TP4 two heads a rank, 16,384 B. The tower holds no KV cache.
func TestGlm4vMoeKVLayout(t *testing.T) {
	a, ok := shipped(t)["zai-org__GLM-4.5V"]
	if !ok {
		t.Fatal("zai-org__GLM-4.5V is not shipped")
	}
	for _, tc := range []struct {
		tp   uint64
		want pagedLayout
	}{
		{1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 46, PageBytes: 65536, Groups: oneFullGroup}}},
		{4, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 46, PageBytes: 16384, Groups: oneFullGroup}}},
	} {
		if diff := cmp.Diff(tc.want, pagedLayoutAt(t, a, tc.tp, 2048)); diff != "" {
			t.Errorf("TP%d (-want +got):\n%s", tc.tp, diff)
		}
	}
}

// TestGlm4vTowerHeadsRefuseTP8: GLM-4.5V's tower has 12 heads, which
// vLLM divides among the tensor-parallel ranks with no fallback
// (glm4_1v.py:284-296; vllm #24004): TP8 is refused naming the flag; TP4,
// which divides the 12 tower heads and the text model's 96 heads and 8
// KV heads, is sized.
func TestGlm4vTowerHeadsRefuseTP8(t *testing.T) {
	_, err := sizeShippedAt(t, "zai-org__GLM-4.5V", "h100-sxm-80g", "main", Serve{TensorParallelSize: 8})
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "tensor-parallel-size" || !strings.Contains(se.Reason, "does not divide the 12 attention heads") {
		t.Errorf("TP8: %v; want a refusal of --tensor-parallel-size naming the tower's 12 heads", err)
	}
	if _, err := sizeShippedAt(t, "zai-org__GLM-4.5V", "h100-sxm-80g", "main", Serve{TensorParallelSize: 4}); err != nil {
		t.Errorf("TP4: %v", err)
	}
}
