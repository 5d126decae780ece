package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/hub"
)

// TestColdCompileRows206 sizes rows 206 and 207 of corpus/observed/vllm.csv
// (Qwen/Qwen3-14B-AWQ on one RTX 5090, vLLM 0.28.0, util 0.70, windows
// 32768 and 16384) warm and cold. Their compose file mounts the Hugging
// Face cache alone, so each start after compose recreates the container
// compiles on an empty torch.compile cache (their compile_cache cells).
// By hand:
//   - budget: ceil(0.70 x 33,672,543,601 B, the rtx-5090 class) =
//     23,570,780,521 B (vllm/v1/worker/utils.py request_memory rounds up);
//   - weights 9,987,061,760 B (model.TestQwen3_14BAWQShipped: 9.30 GiB);
//   - beside them: activation 2048 tokens (the default for a GPU under
//     70 GiB, vllm/engine/arg_utils.py:2607-2611 at d18bb7b) x (4 x hidden
//     5120 + 3 x intermediate 17,408) x 2 B = 297,795,584, plus the 52 MiB
//     residual = 352,321,536 B (peaks.go); non-torch growth 256 MiB =
//     268,435,456 B; V2 request state 169,930,756 B (v2state.go, as for
//     row 212: the same 151,936-token vocabulary, 256 sequences and 2048
//     batched tokens): 790,687,748 B;
//   - left: 23,570,780,521 - 9,987,061,760 - 790,687,748 =
//     12,793,031,013 B, over pages of 16 tokens x 40 layers x 8 KV heads
//     x 128 x 2 (K, V) x 2 B = 2,621,440 B: 4880 blocks (4880.15), 78,080
//     tokens warm;
//   - cold (coldcompile.go): the compile's scratch, the embedding table
//     151,936 x 5120 x 2 B = 1,555,824,640 B and the lookup's output 2048 x
//     5120 x 2 B = 20,971,520 B, 1,576,796,160 B (the log's 1.46 GiB of
//     peak activation), over the forward's 352,321,536 B: 1,224,474,624 B
//     more, which leaves 11,568,556,389 B, 4413 blocks (4413.05), 70,608
//     tokens.
//
// The logged token count is concurrency x max_model_len, the same pool at
// either window. vLLM logs 60,768 tokens (3798 blocks) at both: sized
// cold the model is 16.2% over, 28.5% warm (unmetGates "0.28.0",
// qwen3AWQRows028). The test pins the figures so that a change to the
// rows' sizing shows here and in that entry together.
func TestColdCompileRows206(t *testing.T) {
	type got struct{ Blocks, Tokens uint64 }
	const logged = 60768 // rows 206 and 207: GPU KV cache size
	for _, tc := range []struct {
		row        string
		maxLen     uint64
		warm, cold got
	}{
		{"206", 32768, got{4880, 78080}, got{4413, 70608}},
		{"207", 16384, got{4880, 78080}, got{4413, 70608}},
	} {
		size := func(cold bool) got {
			sz := sizeRow206(t, tc.row, tc.maxLen, cold)
			return got{sz.capacity.Blocks, sz.capacity.LoggedTokens}
		}
		if diff := cmp.Diff(tc.warm, size(false)); diff != "" {
			t.Errorf("row %s warm (-want +got):\n%s", tc.row, diff)
		}
		cold := size(true)
		if diff := cmp.Diff(tc.cold, cold); diff != "" {
			t.Errorf("row %s cold (-want +got):\n%s", tc.row, diff)
		}
		t.Logf("row %s: %d tokens sized cold, %d logged (%+.1f%%)", tc.row, cold.Tokens, logged, 100*(float64(cold.Tokens)/logged-1))
	}
}

// sizeRow206 sizes the serve of rows 206 and 207 (Qwen3-14B-AWQ on one
// RTX 5090, vLLM 0.28.0, util 0.70) at window maxLen, warm or cold.
func sizeRow206(t *testing.T, row string, maxLen uint64, cold bool) *Sizing {
	t.Helper()
	a := observedArchs(t)["Qwen__Qwen3-14B-AWQ"]
	if a == nil {
		t.Fatal("no config for Qwen3-14B-AWQ")
	}
	s := Serve{GPUMemoryUtilization: 0.70, MaxModelLen: maxLen, ColdCompileCache: cold}
	sz, err := Size(&hub.Loaded{Name: a.Source, Arch: a}, kernelClass(t, "rtx-5090"), s, mustProfile("0.28.0"))
	if err != nil {
		t.Fatalf("row %s: %v", row, err)
	}
	return sz
}
