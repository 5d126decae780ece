package vllm

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// gptOSS is gpt-oss-20b (config.json on the Hub): 24 layers alternating a
// 128-token sliding window (even layers) and full attention, 8 KV heads of
// 64.
func gptOSS(t testing.TB) *model.Arch {
	return archFrom(t, "gpt-oss-20b", 2880, 24, 64, 8, 64, 131072, func(a *model.Arch) {
		a.ModelType, a.Architectures = "gpt_oss", []string{"GptOssForCausalLM"}
		kinds(a, every("SF", 12))
		a.SlidingWindow = 128
	})
}

// llama4Maverick is Llama-4-Maverick-17B-128E: 48 layers, every fourth
// (the NoPE layers) full attention, the others attending within chunks of
// 8192 tokens; 8 KV heads of 128.
func llama4Maverick(t testing.TB) *model.Arch {
	return archFrom(t, "llama-4-maverick", 5120, 48, 40, 8, 128, 1048576, func(a *model.Arch) {
		a.ModelType, a.Architectures = "llama4", []string{"Llama4ForConditionalGeneration"}
		kinds(a, every("CCCF", 12))
		a.AttentionChunkSize = 8192
	})
}

// gemma4 is gemma-4-26B-A4B: 30 layers, five sliding (window 1024, 8 KV
// heads of 256) then one full (2 KV heads of 512: num_global_key_value_heads,
// global_head_dim).
func gemma4(t testing.TB) *model.Arch {
	return archFrom(t, "gemma-4-26b-a4b", 2816, 30, 16, 8, 256, 262144, func(a *model.Arch) {
		a.ModelType, a.Architectures = "gemma4", []string{"Gemma4ForConditionalGeneration"}
		kinds(a, every("SSSSSF", 5))
		for i := range a.Layers {
			if a.Layers[i].Kind == model.FullAttention {
				a.Layers[i].KVHeads, a.Layers[i].HeadDim = 2, 512
			}
		}
		a.SlidingWindow = 1024
	})
}

// deepSeekV32 is DeepSeek-V3.2: DeepSeek-V3's 61 MLA layers with a
// lightning indexer of 64 heads of 128 (index_head_dim, index_n_heads,
// index_topk 2048).
func deepSeekV32(t testing.TB) *model.Arch {
	a := *shipped(t)["deepseek-ai__DeepSeek-V3"]
	a.ModelType, a.Architectures = "deepseek_v32", []string{"DeepseekV32ForCausalLM"}
	a.Indexer = &model.IndexerShape{HeadDim: 128, NumHeads: 64, TopK: 2048}
	return &a
}

func TestKVSpecsOfFamilies(t *testing.T) {
	type want struct {
		Block  uint64
		Pool   budget.PagedPool
		Names  string
		Blocks uint64
		Pages  uint64
		Conc   string
	}
	tests := []struct {
		name   string
		arch   *model.Arch
		serve  Serve
		length uint64
		want   want
	}{
		// gpt-oss-20b: both kinds 16 x 8 x (64 + 64) x 2 = 32,768 B a page;
		// 12 + 12 layers, the sliding first (layer 0): two groups of 12.
		// 40 GiB // 32,768 // 12 = 109,226 blocks; a request of 131,072
		// keeps 8192 full blocks and cdiv(127 + 2 x 8192, 16) + 1 = 1033
		// sliding ones.
		{"gpt-oss-20b", gptOSS(t), Serve{}, 131072, want{16,
			budget.PagedPool{Tensors: 12, PageBytes: 32768, Groups: []budget.PageGroup{
				{Count: 1, PageTokens: 16, CapTokens: 127 + 16384, ExtraPages: 1}, {Count: 1, PageTokens: 16, CapTokens: budget.NoCap}}},
			"SlidingWindowx1 FullAttentionx1", 109226, 9225, "11.84"}},
		// Llama-4-Maverick at TP8: one KV head a rank, 16 x 256 x 2 = 8192 B
		// a page; 36 chunked + 12 full: three chunked groups and one full.
		// 40 GiB // 8192 // 12 = 436,906; at 1,048,576 tokens 65,536 full
		// blocks and 3 x cdiv(8192 + 16,384, 16) = 3 x 1536, no +1.
		{"llama-4-maverick tp8", llama4Maverick(t), Serve{TensorParallelSize: 8}, 1048576, want{16,
			budget.PagedPool{Tensors: 12, PageBytes: 8192, Groups: []budget.PageGroup{
				{Count: 3, PageTokens: 16, CapTokens: 8192 + 16384}, {Count: 1, PageTokens: 16, CapTokens: budget.NoCap}}},
			"ChunkedLocalAttentionx3 FullAttentionx1", 436906, 70144, "6.23"}},
		{"llama-4-maverick tp8 at 131072", llama4Maverick(t), Serve{TensorParallelSize: 8}, 131072, want{16,
			budget.PagedPool{Tensors: 12, PageBytes: 8192, Groups: []budget.PageGroup{
				{Count: 3, PageTokens: 16, CapTokens: 8192 + 16384}, {Count: 1, PageTokens: 16, CapTokens: budget.NoCap}}},
			"ChunkedLocalAttentionx3 FullAttentionx1", 436906, 8192 + 3*1536, "34.13"}},
		// gemma-4-26B-A4B: a sliding page is 16 x 8 x 512 x 2 = 131,072 B, a
		// full one 16 x 2 x 1024 x 2 = 65,536 B: page unification doubles
		// the full layers' block to 32. 25 + 5 layers: group size 5, five
		// sliding groups. 40 GiB // 131,072 // 5 = 65,536 blocks; 262,144
		// tokens keep 8192 full blocks and 5 x (cdiv(1023 + 16,384, 16) + 1).
		{"gemma-4-26b-a4b", gemma4(t), Serve{}, 262144, want{16,
			budget.PagedPool{Tensors: 5, PageBytes: 131072, Groups: []budget.PageGroup{
				{Count: 5, PageTokens: 16, CapTokens: 1023 + 16384, ExtraPages: 1}, {Count: 1, PageTokens: 32, CapTokens: budget.NoCap}}},
			"SlidingWindowx5 FullAttentionx1", 65536, 8192 + 5*1089, "4.81"}},
		// At TP8 a sliding token is 1 x 512 x 2 = 1024 B and a full one 1 x
		// 1024 x 2 = 2048 B: the sliding layers' block doubles instead.
		// 40 GiB // 32,768 // 5 = 262,144 blocks; 16,384 full blocks and
		// 5 x (cdiv(17,407, 32) + 1) = 5 x 545.
		{"gemma-4-26b-a4b tp8", gemma4(t), Serve{TensorParallelSize: 8}, 262144, want{16,
			budget.PagedPool{Tensors: 5, PageBytes: 32768, Groups: []budget.PageGroup{
				{Count: 5, PageTokens: 32, CapTokens: 1023 + 16384, ExtraPages: 1}, {Count: 1, PageTokens: 16, CapTokens: budget.NoCap}}},
			"SlidingWindowx5 FullAttentionx1", 262144, 16384 + 5*545, "13.72"}},
		// DeepSeek-V3.2 on H100, KV auto: block 64 (the indexer's backend);
		// latent pages 64 x 576 x 2 = 73,728 B and indexer pages 64 x 132 =
		// 8448 B in one UniformType group, a block costing 61 x 82,176 =
		// 5,012,736 B: 40 GiB of it is 8568 blocks; 163,840 tokens keep 2560.
		{"deepseek-v3.2", deepSeekV32(t), Serve{TensorParallelSize: 8}, 163840, want{64,
			budget.PagedPool{Tensors: 1, PageBytes: 61 * (73728 + 8448), Groups: []budget.PageGroup{{Count: 1, PageTokens: 64, CapTokens: budget.NoCap}}},
			"UniformTypeKVCacheSpecsx1", 8568, 2560, "3.35"}},
		// With --kv-cache-dtype fp8 the latent is fp8_ds_mla, 64 x 656 =
		// 41,984 B: 61 x 50,432 = 3,076,352 B a block, 13,961 blocks.
		{"deepseek-v3.2 fp8", deepSeekV32(t), Serve{TensorParallelSize: 8, KVCacheDtype: "fp8"}, 163840, want{64,
			budget.PagedPool{Tensors: 1, PageBytes: 61 * (41984 + 8448), Groups: []budget.PageGroup{{Count: 1, PageTokens: 64, CapTokens: budget.NoCap}}},
			"UniformTypeKVCacheSpecsx1", 13961, 2560, "5.45"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.serve.MaxModelLen, tt.serve.KVCacheMemoryBytes = tt.length, gib40
			r := ref(t, tt.arch, tt.serve, testClass(false))
			c := r.Capacity()
			got := want{r.Serve.BlockSize, r.Plan().Stages[0].Pool, groupNames(tt.arch, r.groups), c.Blocks, c.PagesPerSeq, fmt.Sprintf("%.2f", c.Concurrency)}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if want := uint64(math.Floor(float64(c.Blocks) / float64(c.PagesPerSeq) * float64(tt.length))); c.LoggedTokens != want {
				t.Errorf("GPU KV cache size %d, want int(concurrency x max_model_len) = %d", c.LoggedTokens, want)
			}
		})
	}
}

// TestDeepSeekV32Tensors: each layer allocates its indexer's and its
// latent's tensors, the indexer's first as vLLM registers it, each of its
// own page.
func TestDeepSeekV32Tensors(t *testing.T) {
	r := ref(t, deepSeekV32(t), Serve{TensorParallelSize: 8, MaxModelLen: 4096, KVCacheMemoryBytes: gib40}, testClass(false))
	alloc := r.KVAllocation(0)
	if len(alloc) != 122 || alloc[0].Bytes != 8568*8448 || alloc[1].Bytes != 8568*73728 {
		t.Errorf("%d tensors, first %d and %d B; want 122, the indexer's 8568 x 8448 and the latent's 8568 x 73,728", len(alloc), alloc[0].Bytes, alloc[1].Bytes)
	}
	names := map[string]uint64{}
	for _, it := range r.Evaluate(2, 100).Items {
		names[it.Name] = it.Bytes
	}
	// 2 sequences of cdiv(100, 64) = 2 blocks.
	for name, want := range map[string]uint64{"kv_cache.0[layers 0.indexer]": 2 * 2 * 8448, "kv_cache.1[layers 0]": 2 * 2 * 73728, "kv_cache.121[layers 60]": 2 * 2 * 73728} {
		if names[name] != want {
			t.Errorf("%s = %d, want %d", name, names[name], want)
		}
	}
	if _, err := Resolve(Serve{TensorParallelSize: 8, BlockSize: 32}, deepSeekV32(t), testClass(false), current); err == nil || !strings.Contains(err.Error(), "multiple of 64") {
		t.Errorf("--block-size 32 for DeepSeek-V3.2: %v; want refused, blocks of 64", err)
	}
}

// TestSharedKVLayersKeepNothing: layers that read another layer's KV cache
// get no spec (gpu_model_runner.py:7897-7908), nor do MLP-only layers.
func TestSharedKVLayersKeepNothing(t *testing.T) {
	a := archFrom(t, "shared", 1024, 10, 8, 8, 128, 8192, func(a *model.Arch) { kinds(a, "FFFF--FFXX") })
	r := ref(t, a, Serve{MaxModelLen: 8192, KVCacheMemoryBytes: 1 << 30}, testClass(false))
	if got := r.Plan().Stages[0].Pool.Tensors; got != 6 {
		t.Errorf("%d KV tensors, want 6 (10 layers, 2 MLP-only, 2 sharing)", got)
	}
}

// TestSlidingBlockByVersion: from 0.25.0 a sliding layer takes the
// backend's smallest kernel block, not --block-size (vLLM PR #42890); a
// model whose every layer slides then keeps blocks of 16.
func TestSlidingBlockByVersion(t *testing.T) {
	a := archFrom(t, "all-sliding", 4096, 32, 32, 8, 128, 32768, func(a *model.Arch) {
		kinds(a, every("S", 32))
		a.SlidingWindow = 4096
	})
	for _, tt := range []struct {
		spec  string
		block uint64
	}{{"main", 16}, {"0.25.0", 16}, {"0.24.0", 32}} {
		r, err := NewReference(a, Serve{BlockSize: 32, MaxModelLen: 32768, KVCacheMemoryBytes: 1 << 30}, testClass(false), mustProfile(tt.spec))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Plan().Stages[0].Pool; got.Groups[0].PageTokens != tt.block || got.PageBytes != tt.block*8*256*2 {
			t.Errorf("%s: %d-token blocks of %d B, want %d-token blocks", tt.spec, got.Groups[0].PageTokens, got.PageBytes, tt.block)
		}
	}
}

// TestUnifiablePagesOnly: a page that does not divide the largest cannot
// be unified, as vLLM raises.
func TestUnifiablePagesOnly(t *testing.T) {
	a := archFrom(t, "odd-pages", 1024, 4, 8, 8, 128, 8192, func(a *model.Arch) {
		kinds(a, "SFSF")
		a.SlidingWindow = 1024
		a.Layers[1].HeadDim, a.Layers[3].HeadDim = 192, 192 // 16 x 8 x 384 x 2 against 16 x 8 x 256 x 2
	})
	if _, err := NewReference(a, Serve{MaxModelLen: 8192}, testClass(false), current); err == nil || !strings.Contains(err.Error(), "cannot unify") {
		t.Errorf("pages of 98,304 and 65,536 B: %v; want refused", err)
	}
}

// newFamilies is every hand-built architecture of the families issue #12
// adds, for the properties that hold of all of them.
func newFamilies(t testing.TB) map[string]*model.Arch {
	return map[string]*model.Arch{
		"nemotron-3-nano": nemotronNano(t), "qwen3.5-35b-a3b": qwen35MoE(t), "qwen3.5-27b": qwen35Dense(t),
		"qwen3-next": qwen3Next(t), "gpt-oss-20b": gptOSS(t), "llama-4-maverick": llama4Maverick(t),
		"gemma-4-26b-a4b": gemma4(t), "deepseek-v3.2": deepSeekV32(t),
	}
}

// TestPlanEqualsReferenceOnNewFamilies: the compiled plan's footprint is
// the reference's, item by item summed, for state groups, chunked and
// sliding groups of different block sizes, and UniformType groups, with
// pipeline stages and without prefix caching.
func TestPlanEqualsReferenceOnNewFamilies(t *testing.T) {
	serves := []Serve{
		{MaxModelLen: 65536},
		{MaxModelLen: 32768, TensorParallelSize: 8, KVCacheDtype: "fp8", EnablePrefixCaching: engine.Off},
		{MaxModelLen: 16384, PipelineParallelSize: 3, AsyncScheduling: engine.Off, KVCacheMemoryBytes: 2 << 30},
		{MaxModelLen: 8192, TensorParallelSize: 2, PipelineParallelSize: 2, EnforceEager: true, MaxNumSeqs: 64},
	}
	seqs := []uint64{0, 1, 3, 64, 1000}
	tokens := []uint64{0, 1, 16, 17, 1055, 1057, 4097, 8192}
	compared := 0
	for name, a := range newFamilies(t) {
		for si, s := range serves {
			r, err := NewReference(a, s, bigClass, current)
			if err != nil {
				t.Fatalf("%s, serve %d: %v", name, si, err)
			}
			plan := r.Plan()
			for _, n := range seqs {
				for _, tok := range tokens {
					want := r.Evaluate(n, tok).Footprint
					if diff := cmp.Diff(want, plan.Evaluate(n, tok)); diff != "" {
						t.Fatalf("%s, serve %d, (%d, %d): Plan != Reference (-ref +plan):\n%s", name, si, n, tok, diff)
					}
					compared++
				}
			}
			// The slack is computed over the tensors the capacity counts.
			c := r.Capacity()
			var allocated uint64
			for _, it := range r.KVAllocation(0) {
				allocated += it.Bytes
			}
			if len(plan.Stages) == 1 && allocated != c.Blocks*c.BlockBytes {
				t.Errorf("%s, serve %d: KV tensors hold %d B, capacity %d blocks of %d B", name, si, allocated, c.Blocks, c.BlockBytes)
			}
		}
	}
	if compared < 1000 {
		t.Errorf("only %d comparisons ran", compared)
	}
}

// TestQueriesOnNewFamilies: the verified queries answer on every new
// family, starting near the answer (a handful of evaluations).
func TestQueriesOnNewFamilies(t *testing.T) {
	h200 := testClass(false)
	h200.Device.MemoryBytes = 141 << 30
	for name, a := range newFamilies(t) {
		r := ref(t, a, Serve{MaxModelLen: 32768, TensorParallelSize: 8}, h200)
		p := r.Plan()
		seqs, err := budget.MaxSequences(p, 32768, 0)
		if err != nil || !seqs.Fits {
			t.Errorf("%s: MaxSequences = %+v, %v", name, seqs.Value, err)
			continue
		}
		length, err := budget.MaxLength(p, p.MaxSeqs, 0)
		if err != nil {
			t.Errorf("%s: MaxLength: %v", name, err)
			continue
		}
		if seqs.Evals > 8 || length.Evals > 12 {
			t.Errorf("%s: %d and %d evaluations; the estimates should start near the answers", name, seqs.Evals, length.Evals)
		}
	}
}

// TestShippedFamiliesAsHandBuilt: the configs corpus/models ships for the
// new families size as the architectures the tests above build by hand
// from the same public configs, whose numbers are computed there.
func TestShippedFamiliesAsHandBuilt(t *testing.T) {
	archs := shipped(t)
	type summary struct {
		Block  uint64
		Pool   budget.PagedPool
		Names  string
		Blocks uint64
		Pages  uint64
		State  uint64
	}
	summarize := func(a *model.Arch, s Serve) summary {
		r := ref(t, a, s, testClass(false))
		c := r.Capacity()
		return summary{r.Serve.BlockSize, r.Plan().Stages[0].Pool, groupNames(a, r.groups), c.Blocks, c.PagesPerSeq, r.Serve.StatePageBytes}
	}
	for _, tt := range []struct {
		shipped string
		hand    *model.Arch
		tp      uint64
	}{
		{"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", nemotronNano(t), 1},
		{"Qwen__Qwen3.5-35B-A3B", qwen35MoE(t), 1},
		{"Qwen__Qwen3.6-35B-A3B", qwen35MoE(t), 4},
		{"Qwen__Qwen3.5-27B", qwen35Dense(t), 1},
		{"Qwen__Qwen3-Next-80B-A3B-Thinking", qwen3Next(t), 4},
		{"openai__gpt-oss-20b", gptOSS(t), 1},
		{"google__gemma-4-26B-A4B", gemma4(t), 8},
		{"meta-llama__Llama-4-Maverick-17B-128E-Instruct", llama4Maverick(t), 8},
		{"deepseek-ai__DeepSeek-V3.2", deepSeekV32(t), 8},
	} {
		a, ok := archs[tt.shipped]
		if !ok {
			t.Errorf("%s is not shipped", tt.shipped)
			continue
		}
		s := Serve{TensorParallelSize: tt.tp, MaxModelLen: 32768, KVCacheMemoryBytes: gib40}
		if diff := cmp.Diff(summarize(tt.hand, s), summarize(a, s)); diff != "" {
			t.Errorf("%s at TP%d (-hand-built +shipped):\n%s", tt.shipped, tt.tp, diff)
		}
	}
}

// TestStageTensorsCountsTheStagesLayers: stageTensors's binary search over
// a group's ascending layers counts what a scan of every slot counts, for
// every shipped model split into 1 to 4 pipeline stages.
func TestStageTensorsCountsTheStagesLayers(t *testing.T) {
	for name, a := range shipped(t) {
		for pp := uint64(1); pp <= 4 && pp <= uint64(len(a.Layers)); pp++ {
			r, err := Resolve(Serve{PipelineParallelSize: pp, MaxModelLen: 4096}, a, testClass(false), current)
			if err != nil {
				continue // a serve vLLM refuses
			}
			l, err := kvLayoutOf(layerSpecs(a, &r), r.Profile.KVGroupRatio)
			if err != nil {
				continue
			}
			for _, st := range r.Stages {
				var want uint64
				for _, g := range l.groups {
					var n uint64
					for _, s := range g.layers {
						if onStage(s, st) {
							n++
						}
					}
					want = max(want, n)
				}
				if got := l.stageTensors(st); got != want {
					t.Errorf("%s pp %d stage [%d, %d): %d tensors, a scan counts %d", name, pp, st.FirstLayer, st.EndLayer, got, want)
				}
			}
		}
	}
}

// gptOssShape is a gpt-oss-20b shape (hidden 2880, 64 heads and 8 KV
// heads of 64, a 128-token window) whose layers are pattern's kinds, S
// sliding and F full.
func gptOssShape(t *testing.T, name, pattern string) *model.Arch {
	t.Helper()
	return archFrom(t, name, 2880, uint64(len(pattern)), 64, 8, 64, 131072, func(a *model.Arch) {
		a.ModelType, a.Architectures = "gpt_oss", []string{"GptOssForCausalLM"}
		kinds(a, pattern)
		a.SlidingWindow = 128
	})
}

// TestKVGroupRatioByRelease: vLLM sizes a hybrid model's KV cache groups by
// its most layers of one spec when they are below ratio x the fewest:
// never before 0.12.0 (group size the fewest, PR #17996), below 1.25 x from
// 0.12.0 (PR #29303), below 1.5 x from 0.18.0 (PR #36684). Two gpt-oss-20b
// shapes (16 x 8 x (64 + 64) x 2 = 32,768 B a page for either kind) with
// 40 GiB of KV cache, 40 GiB // 32,768 = 1,310,720 pages, split among the
// tensors, one a slot of the group size:
//   - 8 sliding + 11 full (ratio 1.375, between the two thresholds): at
//     1.5, 11 < 12, the group size is 11: one sliding group of 8 and 3
//     padding slots, one full group; 1,310,720 // 11 = 119,156 blocks. At
//     1.25, 11 < 10 fails and at 1 it always fails: size 8, one sliding
//     group and cdiv(11, 8) = 2 full groups (layers[0::2], 6, and
//     layers[1::2], 5 and 3 padding); 1,310,720 // 8 = 163,840 blocks.
//   - 8 sliding + 10 full (ratio 1.25 exactly): vLLM's test is strict,
//     10 < 1.25 x 8 = 10 fails, so size 8 at 0.17.0 as above; at 0.18.0,
//     10 < 12, size 10: 1,310,720 // 10 = 131,072 blocks.
//   - 12 sliding + 13 full (gpt-oss-20b with an EAGLE layer, the case
//     #29303 was written for; ratio 1.083): size 13 from 0.12.0, one group
//     of each and 1,310,720 // 13 = 100,824 blocks; size 12 before, two
//     full groups and 1,310,720 // 12 = 109,226 blocks.
func TestKVGroupRatioByRelease(t *testing.T) {
	between := gptOssShape(t, "8-sliding-11-full", every("SF", 8)+"FFF")
	boundary := gptOssShape(t, "8-sliding-10-full", every("SF", 8)+"FF")
	eagle := gptOssShape(t, "12-sliding-13-full", every("SF", 12)+"F")
	type want struct {
		Ratio   float64
		Names   string
		Tensors uint64
		Blocks  uint64
	}
	bySize8 := want{0, "SlidingWindowx1 FullAttentionx2", 8, 163840}
	bySize11 := want{1.5, "SlidingWindowx1 FullAttentionx1", 11, 119156}
	bySize12 := want{1, "SlidingWindowx1 FullAttentionx2", 12, 109226}
	bySize13 := want{0, "SlidingWindowx1 FullAttentionx1", 13, 100824}
	with := func(w want, ratio float64) want { w.Ratio = ratio; return w }
	tests := []struct {
		version string
		arch    *model.Arch
		want    want
	}{
		{"0.11.0", between, with(bySize8, 1)},
		{"0.12.0", between, with(bySize8, 1.25)},
		{"0.17.0", between, with(bySize8, 1.25)},
		{"0.18.0", between, bySize11},
		{"main", between, bySize11},
		{"0.17.0", boundary, with(bySize8, 1.25)},
		{"0.18.0", boundary, want{1.5, "SlidingWindowx1 FullAttentionx1", 10, 131072}},
		{"0.11.0", eagle, bySize12},
		{"0.12.0", eagle, with(bySize13, 1.25)},
		{"0.18.0", eagle, with(bySize13, 1.5)},
	}
	for _, tt := range tests {
		t.Run(tt.version+" "+tt.arch.Source, func(t *testing.T) {
			p := mustProfile(tt.version)
			r, err := NewReference(tt.arch, Serve{MaxModelLen: 32768, KVCacheMemoryBytes: gib40}, testClass(false), p)
			if err != nil {
				t.Fatal(err)
			}
			pool := r.Plan().Stages[0].Pool
			got := want{p.KVGroupRatio, groupNames(tt.arch, r.groups), pool.Tensors, r.Capacity().Blocks}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestKVGroupRatioSharedCompiler pins that one compiler asked for the same
// serve under two releases groups it by each release's ratio: the ratio
// is part of the compiler's layout key (it was not, and a compiler that
// grouped 8 sliding + 11 full layers under 0.18.0 by 11 then grouped them
// so under 0.17.0, whose 1.25 groups them by 8).
func TestKVGroupRatioSharedCompiler(t *testing.T) {
	a := gptOssShape(t, "8-sliding-11-full", every("SF", 8)+"FFF")
	s := Serve{MaxModelLen: 32768, KVCacheMemoryBytes: gib40}
	cp := NewCompiler(a)
	for _, v := range []string{"0.18.0", "0.17.0", "0.18.0"} {
		p := mustProfile(v)
		ref, err := NewReference(a, s, testClass(false), p)
		if err != nil {
			t.Fatal(err)
		}
		_, plan, err := cp.Compile(s, testClass(false), p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ref.Plan(), plan); diff != "" {
			t.Errorf("%s: shared compiler != reference (-reference +compiler):\n%s", v, diff)
		}
	}
}
