package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// TestDeepSeekV4Layout lays DeepSeek-V4-Flash's KV cache out by hand, as
// vLLM main d18bb7b does at TP 8 with --kv-cache-dtype fp8 (the
// fp8_ds_mla layout, pages padded to 576 B) and the block size of 256.
//
// Pages: an SWA cache 64 tokens x 584 B = 37,376 -> 37,440; a 4x latent
// 256 / 4 = 64 tokens x 584 -> 37,440; a 4x indexer's keys 64 x (128 fp8 +
// 4 scale) = 8,448 -> 8,640; a 128x latent 2 x 584 = 1,168 -> 1,728; a 4x
// attention compressor's state 4 x (2 x 2 x 512) x 4 B = 32,768 -> 32,832;
// a 4x indexer compressor's 4 x (2 x 2 x 128) x 4 = 8,192 -> 8,640; a 128x
// compressor's 8 x (2 x 512) x 4 = 32,768 -> 32,832.
//
// Groups: the latents and indexer keys (21 + 21 + 20 = 62 layers, 21
// layer tuples); the SWA caches (43 layers, block 64, window 128); the 4x
// states (21 + 21, block 4, window 8); the 128x states (20, block 8,
// window 128). _approximate_gcd of [21, 43, 21, 20] from 21 pads 21 at 21
// (0 + 20 + 0 + 1) and 5 at 22 (1 + 1 + 1 + 2), its least: 22 tuples, so
// the SWA caches split into 22 and 21, the states stay whole. The stride is
// the largest group's pages: the latents' 21 x 37,440 + 21 x 8,640 + 20 x
// 1,728 = 1,002,240 (the SWA 22 x 37,440 = 823,680; the 4x states 21 x
// (32,832 + 8,640) = 870,912; the 128x 20 x 32,832 = 656,640). The startup
// check's block is 22 tuples x (37,440 + 8,640 + 1,728) = 1,051,776.
//
// One request of 1,048,576 tokens with 2 x 8192 tokens in flight (async
// scheduling): the latents cdiv(1,048,576, 256) = 4096 blocks; each SWA
// group cdiv(127 + 16,384, 64) + 1 = 259; the 4x states cdiv(7 + 16,384,
// 4) + 1 = 4099; the 128x cdiv(127 + 16,384, 8) + 1 = 2065: 10,778 blocks.
// 40 GiB is 42,853 strides; 42,853 / 10,778 = 3.98 requests, vLLM's
// "GPU KV cache size" 42,853 x 1,048,576 / 10,778 = 4,169,106 tokens; the
// check needs 10,778 x 1,051,776 = 11,336,041,728 B.
func TestDeepSeekV4Layout(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V4-Flash"]
	r := ref(t, a, Serve{TensorParallelSize: 8, KVCacheDtype: "fp8", MaxNumBatchedTokens: 8192, KVCacheMemoryBytes: gib40}, testClass(false))
	l := r.groups
	type group struct {
		Kind          string
		Block, Window uint64
		Layers        int
	}
	var groups []group
	for _, g := range l.groups {
		groups = append(groups, group{g.spec.kind.name(), g.spec.block, g.spec.window, len(g.layers)})
	}
	wantGroups := []group{{"MLAAttention", 256, 0, 62}, {"SlidingWindowMLA", 64, 128, 22}, {"SlidingWindowMLA", 64, 128, 21},
		{"SlidingWindowMLA", 4, 8, 42}, {"SlidingWindowMLA", 8, 128, 20}}
	if diff := cmp.Diff(wantGroups, groups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	pages := map[string]map[uint64]int{}
	for _, g := range l.groups {
		key := g.spec.kind.name()
		if pages[key] == nil {
			pages[key] = map[uint64]int{}
		}
		for _, s := range g.layers {
			pages[key][s.page]++
		}
	}
	wantPages := map[string]map[uint64]int{
		"MLAAttention":     {37440: 21, 8640: 21, 1728: 20},
		"SlidingWindowMLA": {37440: 43, 32832: 41, 8640: 21},
	}
	if diff := cmp.Diff(wantPages, pages); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if l.stride != 1_002_240 || l.checkBlock != 1_051_776 {
		t.Errorf("stride %d, check block %d; want 1,002,240 and 1,051,776", l.stride, l.checkBlock)
	}
	wantPool := budget.PagedPool{Tensors: 1, PageBytes: 1_002_240, Groups: []budget.PageGroup{
		{Count: 1, PageTokens: 256, CapTokens: budget.NoCap},
		{Count: 2, PageTokens: 64, CapTokens: 127 + 16384, ExtraPages: 1},
		{Count: 1, PageTokens: 4, CapTokens: 7 + 16384, ExtraPages: 1},
		{Count: 1, PageTokens: 8, CapTokens: 127 + 16384, ExtraPages: 1},
	}}
	if diff := cmp.Diff(wantPool, r.Plan().Stages[0].Pool); diff != "" {
		t.Errorf("pool (-want +got):\n%s", diff)
	}
	c := r.Capacity()
	type capacity struct {
		Blocks, PagesPerSeq, LoggedTokens, NeededBytes uint64
		Starts                                         bool
	}
	want := capacity{42_853, 10_778, 4_169_106, 11_336_041_728, true}
	if diff := cmp.Diff(want, capacity{c.Blocks, c.PagesPerSeq, c.LoggedTokens, c.NeededBytes, c.Starts}); diff != "" {
		t.Errorf("capacity (-want +got):\n%s", diff)
	}
	if got := r.Groups(); got != "MLAAttentionx1 SlidingWindowMLAx4" {
		t.Errorf("groups named %q", got)
	}
	if n := len(r.KVAllocation(0)); n != 1 {
		t.Errorf("%d KV tensors, want the one packed slab", n)
	}
}

// TestApproximateGCD pins vLLM's _approximate_gcd by hand: the least
// padding from the lower bound up, the larger divisor on a tie.
func TestApproximateGCD(t *testing.T) {
	tests := []struct {
		values      []uint64
		lower, want uint64
	}{
		{[]uint64{21, 43, 21, 20}, 21, 22}, // pads 21 at 21, 5 at 22, 10 at 23
		{[]uint64{5}, 10, 10},              // the bound above every value
		{[]uint64{4, 8}, 4, 4},             // pads 0 at 4, 4 at 8
		{[]uint64{2, 3}, 2, 3},             // pads 1 at 2 and at 3: the larger
		{[]uint64{3, 4}, 3, 4},             // pads 2 at 3, 1 at 4
		{[]uint64{6, 6, 7}, 6, 7},          // pads 5 at 6, 2 at 7
	}
	for _, tt := range tests {
		if got := approximateGCD(tt.values, tt.lower); got != tt.want {
			t.Errorf("approximateGCD(%v, %d) = %d, want %d", tt.values, tt.lower, got, tt.want)
		}
	}
}

// TestDeepSeekV4Refusals: what vLLM refuses of DeepSeek-V4 and what
// membudget has not modelled of it, each by its flag.
func TestDeepSeekV4Refusals(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V4-Flash"]
	halfInter := *a
	halfInter.MoEIntermediate = 1024 // 128 a rank of 8
	odd := *a
	odd.Experts = 255
	sm120 := testClass(false)
	sm120.Device.Silicon = budget.Silicon{Vendor: budget.NVIDIA, Major: 12}
	tests := []struct {
		name  string
		a     *model.Arch // DeepSeek-V4-Flash where nil
		s     Serve
		c     budget.Class
		p     Profile
		flag  string
		words string
	}{
		{"auto cache", nil, Serve{TensorParallelSize: 8}, bigClass, current, "kv-cache-dtype", "fp8_ds_mla layout only supports fp8 kv-cache"},
		{"block 64", nil, Serve{TensorParallelSize: 8, KVCacheDtype: "fp8", BlockSize: 64}, bigClass, current, "block-size", "256"},
		{"pipeline", nil, Serve{TensorParallelSize: 4, PipelineParallelSize: 2, KVCacheDtype: "fp8"}, bigClass, current, "pipeline-parallel-size", "not modelled"},
		{"sequence parallel", nil, Serve{TensorParallelSize: 4, DataParallelSize: 2, EnableExpertParallel: true, KVCacheDtype: "fp8"}, bigClass, current, "data-parallel-size", "sequence-parallel"},
		{"sm120", nil, Serve{TensorParallelSize: 8, KVCacheDtype: "fp8"}, sm120, current, "model", "FlashMLA"},
		{"release", nil, Serve{TensorParallelSize: 8, KVCacheDtype: "fp8"}, bigClass, mustProfile("0.19.0"), "vllm-version", "main d18bb7b only"},
		{"ngram", nil, Serve{TensorParallelSize: 8, KVCacheDtype: "fp8", SpeculativeConfig: `{"method": "ngram", "num_speculative_tokens": 2}`}, bigClass, current, "speculative-config", "not modelled"},
		{"pooling", nil, Serve{TensorParallelSize: 8, KVCacheDtype: "fp8", Runner: "pooling", PoolerConfig: `{"seq_pooling_type": "LAST"}`}, bigClass, current, "runner", "not modelled"},
		{"groups", nil, Serve{TensorParallelSize: 16, KVCacheDtype: "fp8"}, bigClass, current, "tensor-parallel-size", "does not divide its 8 groups"},
		{"experts", &odd, Serve{TensorParallelSize: 8, KVCacheDtype: "fp8"}, bigClass, current, "tensor-parallel-size", "255 experts"},
		{"mxfp4 rounding", &halfInter, Serve{TensorParallelSize: 8, KVCacheDtype: "fp8"}, bigClass, current, "tensor-parallel-size", "1024 / 8 = 128"},
	}
	for _, tt := range tests {
		arch := a
		if tt.a != nil {
			arch = tt.a
		}
		_, err := NewReference(arch, tt.s, tt.c, tt.p)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != tt.flag || !strings.Contains(err.Error(), tt.words) {
			t.Errorf("%s: %v, want a setting error on %s saying %q", tt.name, err, tt.flag, tt.words)
		}
	}
}

// TestDeepSeekV4Buffers: DeepSeek-V4-Flash's load-time buffers at TP 8
// and 8192 batched tokens, by hand: the top-k buffer 8192 x 512 x 4 =
// 16,777,216 B; the scratch query 8192 x 64 padded heads x 512 x 2 =
// 536,870,912; the shared storage the largest of the MXFP4 indexer query
// (8192 x 64 x 64 = 33,554,432, its e8m0 scales one a 32 of 128,
// 8192 x 64 x 4 = 2,097,152, and weights 8192 x 64 x 4 = 2,097,152:
// 37,748,736, every offset already a multiple of 256), the global mapping
// (8192 x 512 x 4 + 8192 x 4 = 16,809,984) and the compressor's 8192 x
// 512 x 4 = 16,777,216; the first layer's summed mix 24 x 4096 x 4 =
// 393,216.
func TestDeepSeekV4Buffers(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V4-Flash"]
	r := ref(t, a, Serve{TensorParallelSize: 8, KVCacheDtype: "fp8", MaxNumBatchedTokens: 8192, KVCacheMemoryBytes: gib40}, testClass(false))
	got := map[string]uint64{}
	for _, it := range r.stages[0].peaks {
		if it.Term == budget.TermWeights {
			got[it.Name] = it.Bytes
		}
	}
	want := map[string]uint64{
		"model.topk_indices_buffer":           16_777_216,
		"model.eager_scratch_pool._q":         536_870_912,
		"model.eager_scratch_pool._storage":   37_748_736,
		"model.layers.0.hc_attn_fn_broadcast": 393_216,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestDeepSeekV4StartupRefusalAsLogged replays a refusal a user posted
// (vllm-project/vllm issue #44376, 2026-06-03: DeepSeek-V4-Flash on two
// GH200, tensor_parallel_size 2 with expert parallelism, max_model_len
// 30,000, kv_cache_dtype fp8, block_size 256): "6.66 GiB KV cache is
// needed, which is larger than the available KV cache memory (5.44 GiB).
// Based on the available memory, the estimated maximum model length is
// 13528." By hand, with 2 x 8192 tokens in flight: one request of 30,000
// tokens holds cdiv(30,000, 256) = 118 latent blocks, 2 x 259 SWA, 4099
// 4x-state and 2065 128x-state blocks, 6800 at the check's 1,051,776 B:
// 7,152,076,800 B = 6.66 GiB. At 13,528 tokens: 53 + 2 x (cdiv(13,528,
// 64) + 1 = 213) + (3382 + 1) + (1691 + 1) = 5554 blocks, 5,841,563,904 B
// (5.44 GiB); at 13,529 the 4x states take one block more, 5555 blocks,
// 5,842,615,680 B. Any memory between the two, which "5.44 GiB" is,
// estimates 13,528.
func TestDeepSeekV4StartupRefusalAsLogged(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V4-Flash"]
	r := ref(t, a, Serve{TensorParallelSize: 2, EnableExpertParallel: true, MaxModelLen: 30000, KVCacheDtype: "fp8", BlockSize: 256,
		MaxNumBatchedTokens: 8192, KVCacheMemoryBytes: 5_842_000_000}, bigClass)
	c := r.Capacity()
	type check struct {
		NeededBytes, EstimatedMaxModelLen uint64
		Starts                            bool
	}
	if diff := cmp.Diff(check{7_152_076_800, 13528, false}, check{c.NeededBytes, c.EstimatedMaxModelLen, c.Starts}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestDeepSeekV4SteadyState: DeepSeek-V4's SWA caches and compressor
// states are SlidingWindowMLASpecs, which vLLM's SlidingWindowManager
// frees past their window (single_type_kv_cache_manager.py:1911-1915), so
// a decoding sequence of 131,072 tokens holds, with no batch in flight,
// cdiv(131,072, 256) = 512 latent blocks, cdiv(127, 64) + 1 = 3 in each of
// the two SWA groups, cdiv(7, 4) + 1 = 3 of 4x state and cdiv(127, 8) + 1
// = 17 of 128x state: 538, where the guarantee charges 512 + 2 x 259 +
// 4099 + 2065 = 7194 (TestDeepSeekV4Layout's in-flight tokens). 40 GiB
// is 42,853 blocks: 79 sequences at steady state (79 x 538 = 42,502), 5
// guaranteed.
func TestDeepSeekV4SteadyState(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V4-Flash"]
	r := ref(t, a, Serve{TensorParallelSize: 8, KVCacheDtype: "fp8", MaxNumBatchedTokens: 8192, KVCacheMemoryBytes: gib40}, testClass(false))
	var steady, worst uint64
	for _, g := range r.groups.groups {
		steady += g.spec.steadyPages(131072)
	}
	worst = r.Plan().Stages[0].Pool.PagesPerSeq(131072)
	if steady != 538 || worst != 7194 || r.Capacity().Blocks/steady != 79 || r.Capacity().Blocks/worst != 5 {
		t.Errorf("steady %d, guaranteed %d blocks a sequence (%d and %d sequences); want 538 and 7194 (79 and 5)",
			steady, worst, r.Capacity().Blocks/max(steady, 1), r.Capacity().Blocks/max(worst, 1))
	}
}
