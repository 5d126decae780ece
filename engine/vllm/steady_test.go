package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
)

// TestSteadyPages: the blocks a decoding sequence holds in one layer, by
// hand, blocks of 16 tokens.
func TestSteadyPages(t *testing.T) {
	cases := []struct {
		name string
		spec layerSpec
		t    uint64
		want uint64
	}{
		{"full attention: every token", layerSpec{kind: fullSpec, block: 16}, 32768, 2048},
		{"full attention: a partial block", layerSpec{kind: fullSpec, block: 16}, 17, 2},
		// Window 1024: the last 1023 tokens and the next span cdiv(1023, 16)
		// = 64 blocks, 65 when the window does not start on a block.
		{"sliding: past the window", layerSpec{kind: slidingSpec, block: 16, window: 1024}, 32768, 65},
		{"sliding: within the window", layerSpec{kind: slidingSpec, block: 16, window: 1024}, 100, 7},
		{"sliding: at the window", layerSpec{kind: slidingSpec, block: 16, window: 1024}, 1024, 64},
		// Chunk 8192: the current chunk, at most 512 blocks.
		{"chunked: past the chunk", layerSpec{kind: chunkedSpec, block: 16, window: 8192}, 32768, 512},
		{"chunked: within the chunk", layerSpec{kind: chunkedSpec, block: 16, window: 8192}, 4000, 250},
		{"state: its blocks whatever the length", layerSpec{kind: mambaSpec, block: 16, statePages: 2}, 32768, 2},
	}
	for _, c := range cases {
		if got := c.spec.steadyPages(c.t); got != c.want {
			t.Errorf("%s: %d blocks, want %d", c.name, got, c.want)
		}
	}
}

// TestSteadyStateGemma3: Gemma-3-27B on an H100 at 32768 tokens. Its 62
// layers are 10 global and 52 sliding (window 1024): vLLM groups them by
// 10, six sliding groups and one full. The guarantee charges a sequence
// 2048 blocks in the full group and, in each sliding group, the window,
// two batches of 8192 tokens in flight (async scheduling) and a block:
// cdiv(1023 + 16384, 16) + 1 = 1089, so 2048 + 6 x 1089 = 8582; at steady
// state 2048 + 6 x 65 = 2438. 13694 blocks hold 1 guaranteed, 5 at steady
// state. (The profile's encoder cache, 32 images of 256 tokens x 5376 x 2
// B = 84 MiB, takes 67 of the 16264 blocks the decoder's peak alone
// leaves: a block is 10 layers x 16 tokens x 2 x 16 heads x 128 x 2 B =
// 1.25 MiB; the V2 runner's request state, 1159626756 B at 1024 sequences
// over Gemma 3's 262208-token vocabulary (output_bin_counts 1024 x 262208
// x 4 = 1074003968, prompt_bin_mask and grammar_bitmask 1024 x 8194 x 4 =
// 33562624 each, 18497540 B of the rest; v2state.go), 884.7 more; and the
// encoder pass, 3.37 GiB at its peak (TestEncoderPassByHand), 2121269248 B
// above the decoder's run with the cache, 1618.4 more: 16197 - 884.7 -
// 1618.4 = 13693.9.) At the model's own 131072 tokens one request needs
// 8192 + 6 x 1089 = 14726 blocks, more than these: vLLM would not start,
// hence --max-model-len 32768.
func TestSteadyStateGemma3(t *testing.T) {
	sz := sizeShipped(t, "google__gemma-3-27b-it", "h100-sxm-80g", Serve{MaxModelLen: 32768})
	if got := sz.Capacity().Blocks; got != 13694 {
		t.Fatalf("blocks %d: the case moved", got)
	}
	got, ok := sz.SteadyState(32768)
	if !ok {
		t.Fatal("no steady state for a sliding-window model")
	}
	want := engine.Steady{Tokens: 32768, Seqs: 5, Blocks: 13694, PagesPerSeq: 2438, GuaranteedPagesPerSeq: 8582}
	got.Charged = ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steady state (-want +got):\n%s", diff)
	}
	ans, err := budget.MaxSequences(sz.Plan(), 32768, 0)
	if err != nil || ans.Value != 13694/8582 {
		t.Errorf("the guarantee: %d (%v), want %d", ans.Value, err, 13694/8582)
	}
	// Short sequences: the cap binds. At 1024 tokens a sequence holds 64
	// blocks in every group, 7 x 64 = 448; 13694 / 448 = 30.
	short, ok := sz.SteadyState(1024)
	if !ok || short.PagesPerSeq != 448 || short.Seqs != 30 || short.Capped {
		t.Errorf("at 1024 tokens: %+v", short)
	}
	if _, ok := sizeShipped(t, "meta-llama__Llama-3.1-8B-Instruct", "h100-sxm-80g", Serve{}).SteadyState(8192); ok {
		t.Error("a model without windowed layers has a steady state apart from its guarantee")
	}
}

// TestPreallocated: Llama-3.1-8B on an H100 at 8 x 8192 tokens. vLLM
// allocates 28729 blocks of 2 MiB (16 tokens x 32 layers x K and V x 8
// heads x 128 x 2 bytes = 2097152 B): 60249079808 B. The device holds the
// footprint's total less its 8 GiB of sized KV blocks, plus that pool.
// (29004 blocks before the V2 runner's request state, 576667652 B at 1024
// sequences over the 128256-token vocabulary, was charged: 274.98 blocks;
// v2state.go.)
func TestPreallocated(t *testing.T) {
	sz := sizeShipped(t, "meta-llama__Llama-3.1-8B-Instruct", "h100-sxm-80g", Serve{})
	fp := sz.Plan().Evaluate(8, 8192)
	pool, total, ok := sz.preallocated(fp)
	if !ok {
		t.Fatal("vLLM starts it")
	}
	const block = 16 * 32 * 2 * 8 * 128 * 2
	if sz.Capacity().Blocks != 28729 || pool != 28729*block {
		t.Errorf("pool %d B of %d blocks, want %d", pool, sz.Capacity().Blocks, 28729*block)
	}
	if kv := fp.Terms[budget.TermKVCache]; kv != 8*8192/16*block {
		t.Errorf("sized KV %d B, want %d", kv, 8*8192/16*block)
	}
	if want := fp.Total() - 8*8192/16*block + 28729*block; total != want {
		t.Errorf("total %d B, want %d", total, want)
	}
}

// sizeShipped sizes serve s of a shipped model (its file name, as
// ModelConfig takes it) on a shipped class under vLLM main, offline, or
// fails the test.
func sizeShipped(t *testing.T, name, class string, s Serve) *Sizing {
	t.Helper()
	sz, err := sizeShippedAt(t, name, class, "main", s)
	if err != nil {
		t.Fatal(err)
	}
	return sz
}
