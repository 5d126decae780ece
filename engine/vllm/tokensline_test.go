package vllm

import (
	"fmt"
	"strings"
	"testing"
)

// TestTokensLineByRelease: the report's KV cache line gives "GPU KV cache
// size" as the serve's release computes it. Llama 3.1 8B, one group of
// 16-token blocks, --max-model-len 8192: from 0.21.0 int(blocks / 512 x
// 8192), the 8192 tokens taking 8192 / 16 = 512 blocks; 0.19.0 blocks // 1
// x 16; the V0 engine blocks x 16. DeepSeek-V4-Flash's groups share one
// packed slab (kvdsv4.go): main's figure is blocks over the blocks a
// request takes across its groups, not blocks // groups x block size.
func TestTokensLineByRelease(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model, spec string
		tokens      func(blocks uint64) uint64
		formula     string
	}{
		{"meta-llama__Llama-3.1-8B-Instruct", "main", func(b uint64) uint64 { return b * 8192 / 512 }, "max concurrency x max_model_len"},
		{"meta-llama__Llama-3.1-8B-Instruct", "0.21.0", func(b uint64) uint64 { return b * 8192 / 512 }, "max concurrency x max_model_len"},
		{"meta-llama__Llama-3.1-8B-Instruct", "0.19.0", func(b uint64) uint64 { return b / 1 * 16 }, "blocks / groups x block size"},
		{"meta-llama__Llama-3.1-8B-Instruct", "0.8.5:v0", func(b uint64) uint64 { return b * 16 }, "blocks x block size"},
	}
	for _, tt := range tests {
		sz, err := sizeShippedAt(t, tt.model, "h100-sxm-80g", tt.spec, Serve{MaxModelLen: 8192})
		if err != nil {
			t.Fatalf("%s %s: %v", tt.model, tt.spec, err)
		}
		c := sz.Capacity()
		want := fmt.Sprintf(", %d tokens (%s: ", tt.tokens(c.Blocks), tt.formula)
		if line := sz.tokensLine(); c.Blocks == 0 || !strings.Contains(line, want) {
			t.Errorf("%s %s: %q, want %q", tt.model, tt.spec, line, want)
		}
	}
	sz, err := sizeShippedAt(t, "deepseek-ai__DeepSeek-V4-Flash", "b200", "main", Serve{MaxModelLen: 65536, TensorParallelSize: 4, KVCacheDtype: "fp8"})
	if err != nil {
		t.Fatal(err)
	}
	c := sz.Capacity()
	groups, block := groupCount(sz.plan.Stages[0].Pool)
	old := c.Blocks / groups * block
	want := fmt.Sprintf(", %d tokens (max concurrency x max_model_len: %d blocks / the %d a request of 65536 tokens takes", c.Blocks*65536/c.PagesPerSeq, c.Blocks, c.PagesPerSeq)
	if line := sz.tokensLine(); !strings.Contains(line, want) || old == c.Blocks*65536/c.PagesPerSeq {
		t.Errorf("DeepSeek-V4-Flash: %q, want %q (and not the old %d)", line, want, old)
	}
}
