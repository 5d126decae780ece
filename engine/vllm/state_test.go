package vllm

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// archFrom parses a Qwen3-style config of the given attention shape and
// lets shape set what the families' parsers fill in from the real configs
// (layer kinds, state shapes, the indexer): the engine's rules are tested
// on Arch values, whatever config they come from.
func archFrom(t testing.TB, name string, hidden, layers, heads, kvHeads, headDim, maxPos uint64, shape func(a *model.Arch)) *model.Arch {
	t.Helper()
	cfg := fmt.Sprintf(`{"model_type": "qwen3", "hidden_size": %d, "num_hidden_layers": %d, "num_attention_heads": %d,
	 "num_key_value_heads": %d, "head_dim": %d, "intermediate_size": 4096, "vocab_size": 151936,
	 "max_position_embeddings": %d, "torch_dtype": "bfloat16"}`, hidden, layers, heads, kvHeads, headDim, maxPos)
	a, err := model.ParseConfig(name+".json", []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	shape(a)
	return a
}

// kinds sets the layers from a pattern, one letter a layer: M Mamba, G
// gated delta net, F full, S sliding, C chunked, X shares another layer's
// KV, - MLP only.
func kinds(a *model.Arch, pattern string) {
	byLetter := map[rune]model.Layer{'M': {Kind: model.Mamba}, 'G': {Kind: model.LinearAttention}, 'F': {Kind: model.FullAttention},
		'S': {Kind: model.SlidingAttention}, 'C': {Kind: model.ChunkedAttention}, 'X': {Kind: model.FullAttention, SharesKV: true}, '-': {Kind: model.NoMixer}}
	a.Layers = a.Layers[:0]
	for _, c := range pattern {
		a.Layers = append(a.Layers, byLetter[c])
	}
	a.NumLayers = uint64(len(a.Layers))
}

// every repeats a pattern n times.
func every(pattern string, n int) string { return strings.Repeat(pattern, n) }

// nemotronNano is NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 (config.json on the
// Hub): hybrid_override_pattern "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
// 23 Mamba2 layers (64 heads of 64, state 128, 8 groups, conv 4,
// mamba_ssm_cache_dtype float32), 6 attention layers (2 KV heads of 128)
// and 23 MoE layers that keep nothing.
func nemotronNano(t testing.TB) *model.Arch {
	return archFrom(t, "nemotron-3-nano", 2688, 52, 32, 2, 128, 262144, func(a *model.Arch) {
		a.ModelType, a.Architectures = "nemotron_h", []string{"NemotronHForCausalLM"}
		pattern := strings.NewReplacer("*", "F", "E", "-").Replace("MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME")
		kinds(a, pattern)
		a.Mamba = &model.MambaShape{Version: 2, NumHeads: 64, HeadDim: 64, StateSize: 128, NGroups: 8, ConvKernel: 4, Intermediate: 64 * 64, ChunkSize: 128}
		a.StateDtype = "float32"
	})
}

// qwen35MoE is Qwen3.5-35B-A3B (and Qwen3.6-35B-A3B, the same shape): 40
// layers, every fourth full attention (2 KV heads of 256), the rest gated
// delta nets (16 key heads and 32 value heads of 128, conv 4), its config's
// mamba_ssm_dtype float32.
func qwen35MoE(t testing.TB) *model.Arch {
	return archFrom(t, "qwen3.5-35b-a3b", 2048, 40, 16, 2, 256, 262144, func(a *model.Arch) {
		a.ModelType, a.Architectures = "qwen3_5_moe", []string{"Qwen3_5MoeForConditionalGeneration"}
		kinds(a, every("GGGF", 10))
		a.DeltaNet = &model.DeltaNetShape{NumKeyHeads: 16, NumValueHeads: 32, KeyHeadDim: 128, ValueHeadDim: 128, ConvKernel: 4}
		a.StateDtype = "float32"
	})
}

// qwen35Dense is Qwen3.5-27B: 64 layers, every fourth full attention (4 KV
// heads of 256), 48 gated delta nets of 16 key and 48 value heads.
func qwen35Dense(t testing.TB) *model.Arch {
	return archFrom(t, "qwen3.5-27b", 5120, 64, 24, 4, 256, 262144, func(a *model.Arch) {
		a.ModelType, a.Architectures = "qwen3_5", []string{"Qwen3_5ForConditionalGeneration"}
		kinds(a, every("GGGF", 16))
		a.DeltaNet = &model.DeltaNetShape{NumKeyHeads: 16, NumValueHeads: 48, KeyHeadDim: 128, ValueHeadDim: 128, ConvKernel: 4}
		a.StateDtype = "float32"
	})
}

// qwen3Next is Qwen3-Next-80B-A3B: 48 layers, every fourth full attention
// (2 KV heads of 256), gated delta nets as Qwen3.5-35B-A3B's; vLLM has no
// hook for it, so its state is in the model's dtype.
func qwen3Next(t testing.TB) *model.Arch {
	return archFrom(t, "qwen3-next-80b-a3b", 2048, 48, 16, 2, 256, 262144, func(a *model.Arch) {
		a.ModelType, a.Architectures = "qwen3_next", []string{"Qwen3NextForCausalLM"}
		kinds(a, every("GGGF", 12))
		a.DeltaNet = &model.DeltaNetShape{NumKeyHeads: 16, NumValueHeads: 32, KeyHeadDim: 128, ValueHeadDim: 128, ConvKernel: 4}
	})
}

const gib40 = 40 << 30

func TestStateLayout(t *testing.T) {
	type want struct {
		Block, StatePage, Padded, MambaBlock uint64
		Mode                                 string
		Pool                                 budget.PagedPool
		Names                                string
	}
	// Nemotron-3-Nano at TP1: conv (4 - 1) x (4096 + 2 x 8 x 128) bf16 =
	// 36,864 B; SSM 64 x 64 x 128 float32 = 2,097,152 B; M = 2,134,016.
	// An attention token is 2 heads x (128 + 128) x 2 B = 1024 B, so the
	// block is 16 x cdiv(M, 16 x 1024) = 16 x 131 = 2096 and the page
	// 2096 x 1024 = 2,146,304 (M padded by 12,288 B, vLLM's 0.58%).
	// 23 Mamba layers first (layer 0), 6 attention: group size 6, four
	// Mamba groups (6, 6, 6, 5 + 1 padding) and one full.
	nemotronPage := uint64(2096 * 1024)
	nemotron := want{2096, 2134016, nemotronPage, 2096, "align",
		budget.PagedPool{Tensors: 6, PageBytes: nemotronPage, Groups: []budget.PageGroup{
			{Count: 4, PageTokens: 2096, CapTokens: 0, ExtraPages: 2}, {Count: 1, PageTokens: 2096, CapTokens: budget.NoCap}}},
		"Mambax4 FullAttentionx1"}
	nemotronNone := nemotron
	nemotronNone.Mode, nemotronNone.MambaBlock = "none", 262144
	nemotronNone.Pool.Groups = []budget.PageGroup{{Count: 4, PageTokens: 262144, CapTokens: 0, ExtraPages: 1}, {Count: 1, PageTokens: 2096, CapTokens: budget.NoCap}}
	// Issue vllm-project/vllm#41037: Nemotron-3-Nano with an fp8 KV cache
	// and --block-size 32. An attention token is 512 B; the alignment is
	// max(16, 32) = 32: 32 x cdiv(2,134,016, 32 x 512) = 32 x 131 = 4192.
	nemotronFP8 := want{4192, 2134016, 4192 * 512, 4192, "align",
		budget.PagedPool{Tensors: 6, PageBytes: 4192 * 512, Groups: []budget.PageGroup{
			{Count: 4, PageTokens: 4192, CapTokens: 0, ExtraPages: 2}, {Count: 1, PageTokens: 4192, CapTokens: budget.NoCap}}},
		"Mambax4 FullAttentionx1"}
	// At TP4 the state is conv 3 x 6144 / 4 bf16 = 9216 B and SSM 16 x 64
	// x 128 float32 = 524,288 B (M = 533,504); 2 KV heads over 4 ranks
	// leave 1, 256 B a token: 32 x cdiv(533,504, 8192) = 32 x 66 = 2112
	// (the 2112 at TP4).
	nemotronFP8TP4 := want{2112, 533504, 2112 * 256, 2112, "align",
		budget.PagedPool{Tensors: 6, PageBytes: 2112 * 256, Groups: []budget.PageGroup{
			{Count: 4, PageTokens: 2112, CapTokens: 0, ExtraPages: 2}, {Count: 1, PageTokens: 2112, CapTokens: budget.NoCap}}},
		"Mambax4 FullAttentionx1"}
	// Qwen3.5-35B-A3B: conv 3 x (128 x 16 x 2 + 128 x 32) bf16 = 49,152 B;
	// SSM 32 x 128 x 128 float32 = 2,097,152 B; M = 2,146,304. A token is
	// 2 x 512 x 2 = 2048 B: 16 x cdiv(M, 32,768) = 16 x 66 = 1056, page
	// 2,162,688 (padding 16,384 B, vLLM's 0.76%). 30 gated delta nets
	// first, 10 full: three state groups and one full, 10 tensors.
	qwenPage := uint64(1056 * 2048)
	qwen := want{1056, 2146304, qwenPage, 1056, "align",
		budget.PagedPool{Tensors: 10, PageBytes: qwenPage, Groups: []budget.PageGroup{
			{Count: 3, PageTokens: 1056, CapTokens: 0, ExtraPages: 2}, {Count: 1, PageTokens: 1056, CapTokens: budget.NoCap}}},
		"Mambax3 FullAttentionx1"}
	// With an fp8 KV cache a token is 1024 B: 16 x cdiv(M, 16,384) = 2096
	// and 2096 x 1024 = M exactly, no padding (corpus row: vLLM 0.20.0's
	// "GPU KV cache size: 1,754,352 tokens" for Qwen3.6-35B-A3B-NVFP4).
	qwenFP8 := want{2096, 2146304, 0, 2096, "align",
		budget.PagedPool{Tensors: 10, PageBytes: 2146304, Groups: []budget.PageGroup{
			{Count: 3, PageTokens: 2096, CapTokens: 0, ExtraPages: 2}, {Count: 1, PageTokens: 2096, CapTokens: budget.NoCap}}},
		"Mambax3 FullAttentionx1"}
	// At TP4 (vLLM PR #37467's log: 528 tokens, 0.76%): conv 3 x 8192 / 4
	// bf16 = 12,288 B, SSM 8 x 128 x 128 float32 = 524,288 B, M = 536,576;
	// one KV head a rank, 1024 B a token: 16 x cdiv(M, 16,384) = 16 x 33.
	qwenTP4 := want{528, 536576, 528 * 1024, 528, "align",
		budget.PagedPool{Tensors: 10, PageBytes: 528 * 1024, Groups: []budget.PageGroup{
			{Count: 3, PageTokens: 528, CapTokens: 0, ExtraPages: 2}, {Count: 1, PageTokens: 528, CapTokens: budget.NoCap}}},
		"Mambax3 FullAttentionx1"}
	// Qwen3.5-27B: conv 3 x (4096 + 6144) bf16 = 61,440 B; SSM 48 x 128 x
	// 128 float32 = 3,145,728 B; M = 3,207,168. A token is 4 x 512 x 2 =
	// 4096 B: 16 x cdiv(M, 65,536) = 16 x 49 = 784. 48 + 16 layers: group
	// size 16, three state groups.
	dense := want{784, 3207168, 784 * 4096, 784, "align",
		budget.PagedPool{Tensors: 16, PageBytes: 784 * 4096, Groups: []budget.PageGroup{
			{Count: 3, PageTokens: 784, CapTokens: 0, ExtraPages: 2}, {Count: 1, PageTokens: 784, CapTokens: budget.NoCap}}},
		"Mambax3 FullAttentionx1"}
	// Qwen3-Next has no vLLM hook: the SSM state is bf16, 1,048,576 B, M =
	// 1,097,728; 16 x cdiv(M, 32,768) = 16 x 34 = 544 (padding 16,384 B,
	// 1.49%). 36 + 12 layers: group size 12.
	next := want{544, 1097728, 544 * 2048, 544, "align",
		budget.PagedPool{Tensors: 12, PageBytes: 544 * 2048, Groups: []budget.PageGroup{
			{Count: 3, PageTokens: 544, CapTokens: 0, ExtraPages: 2}, {Count: 1, PageTokens: 544, CapTokens: budget.NoCap}}},
		"Mambax3 FullAttentionx1"}
	// --mamba-ssm-cache-dtype float32 doubles its SSM state: M = 2,146,304,
	// the block 1056 as Qwen3.5-35B-A3B's.
	nextF32 := qwen
	nextF32.Pool.Tensors = 12
	// Jamba-v0.1 (Mamba1): an attention layer every 8th from layer 4 (8 KV
	// heads of 128), 28 Mamba layers of intermediate 2 x 4096 = 8192, state
	// 16, conv 4; no hook, so the state is bf16: conv 3 x 8192 x 2 = 49,152
	// B, SSM 8192 x 16 x 2 = 262,144 B, M = 311,296. A token is 8 x 256 x 2
	// = 4096 B: 16 x cdiv(M, 65,536) = 80, page 327,680. Group size 4: seven
	// state groups and one full.
	jamba := archFrom(t, "jamba-v0.1", 4096, 32, 32, 8, 128, 262144, func(a *model.Arch) {
		a.ModelType, a.Architectures = "jamba", []string{"JambaForCausalLM"}
		kinds(a, every("MMMMFMMM", 4))
		a.Mamba = &model.MambaShape{Version: 1, StateSize: 16, ConvKernel: 4, Intermediate: 8192}
	})
	jambaWant := want{80, 311296, 80 * 4096, 80, "align",
		budget.PagedPool{Tensors: 4, PageBytes: 80 * 4096, Groups: []budget.PageGroup{
			{Count: 7, PageTokens: 80, CapTokens: 0, ExtraPages: 2}, {Count: 1, PageTokens: 80, CapTokens: budget.NoCap}}},
		"Mambax7 FullAttentionx1"}
	tests := []struct {
		name  string
		arch  *model.Arch
		serve Serve
		want  want
	}{
		{"jamba mamba1", jamba, Serve{}, jambaWant},
		{"nemotron-3-nano", nemotronNano(t), Serve{}, nemotron},
		{"nemotron-3-nano without prefix caching", nemotronNano(t), Serve{EnablePrefixCaching: engine.Off}, nemotronNone},
		{"nemotron-3-nano fp8 block 32", nemotronNano(t), Serve{KVCacheDtype: "fp8", BlockSize: 32}, nemotronFP8},
		{"nemotron-3-nano fp8 block 32 tp2", nemotronNano(t), Serve{KVCacheDtype: "fp8", BlockSize: 32, TensorParallelSize: 2},
			// TP2: conv 3 x 3072 bf16 = 18,432 B, SSM 32 x 64 x 128 float32
			// = 1,048,576 B; one KV head, 256 B a token: 32 x cdiv(1,067,008,
			// 8192) = 32 x 131 = 4192, as at TP1 (the table).
			want{4192, 1067008, 4192 * 256, 4192, "align", budget.PagedPool{Tensors: 6, PageBytes: 4192 * 256, Groups: nemotronFP8.Pool.Groups}, "Mambax4 FullAttentionx1"}},
		{"nemotron-3-nano fp8 block 32 tp4", nemotronNano(t), Serve{KVCacheDtype: "fp8", BlockSize: 32, TensorParallelSize: 4}, nemotronFP8TP4},
		{"qwen3.5-35b-a3b", qwen35MoE(t), Serve{}, qwen},
		{"qwen3.5-35b-a3b fp8", qwen35MoE(t), Serve{KVCacheDtype: "fp8"}, qwenFP8},
		{"qwen3.5-35b-a3b tp4", qwen35MoE(t), Serve{TensorParallelSize: 4}, qwenTP4},
		{"qwen3.5-27b", qwen35Dense(t), Serve{}, dense},
		{"qwen3-next", qwen3Next(t), Serve{}, next},
		{"qwen3-next float32 state", qwen3Next(t), Serve{MambaSSMCacheDtype: "float32"}, nextF32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.serve.MaxModelLen, tt.serve.KVCacheMemoryBytes = 262144, gib40
			r := ref(t, tt.arch, tt.serve, testClass(false))
			got := want{r.Serve.BlockSize, r.Serve.StatePageBytes, r.Serve.StatePagePadded, r.Serve.MambaBlockSize, r.Serve.MambaCacheMode,
				r.Plan().Stages[0].Pool, groupNames(tt.arch, r.groups)}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestStateCapacity: what vLLM reports for hybrids with 40 GiB of KV cache
// at 262,144 tokens, the blocks and its max_num_seqs refusal.
func TestStateCapacity(t *testing.T) {
	type want struct {
		Blocks, PagesPerSeq, LoggedTokens, StateBlocks uint64
		Concurrency                                    string
		Over                                           bool
	}
	logged := func(blocks, pages uint64) uint64 {
		return uint64(math.Floor(float64(blocks) / float64(pages) * 262144))
	}
	tests := []struct {
		name  string
		arch  *model.Arch
		serve Serve
		want  want
	}{
		// 40 GiB // 2,146,304 B // 6 tensors = 20,010 // 6 = 3335 blocks;
		// a request keeps cdiv(262144, 2096) = 126 full blocks and 2 in
		// each of 4 state groups: 134. 1024 sequences fit in 3335 blocks.
		{"nemotron-3-nano", nemotronNano(t), Serve{}, want{3335, 134, logged(3335, 134), 3335, "24.89", false}},
		// Without prefix caching one state block a group: 130.
		{"nemotron-3-nano none", nemotronNano(t), Serve{EnablePrefixCaching: engine.Off}, want{3335, 130, logged(3335, 130), 3335, "25.65", false}},
		// 40 GiB // 2,162,688 // 10 = 1985; 249 + 3 x 2 = 255.
		{"qwen3.5-35b-a3b", qwen35MoE(t), Serve{}, want{1985, 255, logged(1985, 255), 1985, "7.78", false}},
		// 40 GiB // 3,211,264 // 16 = 835 blocks, fewer than H100's default
		// 1024 sequences: vLLM refuses to start.
		{"qwen3.5-27b", qwen35Dense(t), Serve{}, want{835, 335 + 6, logged(835, 341), 835, "2.45", true}},
		// --max-num-seqs 512 starts.
		{"qwen3.5-27b 512 seqs", qwen35Dense(t), Serve{MaxNumSeqs: 512}, want{835, 341, logged(835, 341), 835, "2.45", false}},
		// --enforce-eager captures no full CUDA graph: no check.
		{"qwen3.5-27b eager", qwen35Dense(t), Serve{EnforceEager: true}, want{835, 341, logged(835, 341), 0, "2.45", false}},
		// Qwen3-Next at TP4: one KV head, 1024 B a token; conv 3 x 2048 bf16
		// = 12,288 B, SSM 8 x 128 x 128 bf16 = 262,144 B; 16 x cdiv(274,432,
		// 16,384) = 272, page 278,528; 40 GiB // 278,528 // 12 = 12,850;
		// 964 + 6 = 970 a request.
		{"qwen3-next tp4", qwen3Next(t), Serve{TensorParallelSize: 4}, want{12850, 970, logged(12850, 970), 12850, "13.25", false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.serve.MaxModelLen, tt.serve.KVCacheMemoryBytes = 262144, gib40
			r := ref(t, tt.arch, tt.serve, testClass(false))
			c := r.Capacity()
			got := want{c.Blocks, c.PagesPerSeq, c.LoggedTokens, c.StateBlocks, fmt.Sprintf("%.2f", c.Concurrency), c.SeqsOverStateBlocks}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if got, want := StateBlocksMessage(1024, 835), "max_num_seqs (1024) exceeds available Mamba cache blocks (835). Each decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at most 835 or increase gpu_memory_utilization."; got != want {
		t.Errorf("message:\n%s\nwant\n%s", got, want)
	}
}

// TestRow214Layout: corpus/observed/vllm.csv row 214 (vLLM 0.27.1, one
// H100, Qwen3.8-27B-FP8 = Qwen3.5-27B's architecture, --max-model-len 8192
// --max-num-seqs 256, prefix caching left at its default) logs 485,083
// tokens and 59.21x, which vLLM's layout reproduces from 829 blocks:
//   - state page: conv 3 x (2 x 16 x 128 + 48 x 128) x 2 B = 61,440 and the
//     float32 SSM state 48 x 128 x 128 x 4 B = 3,145,728: 3,207,168 B;
//   - attention block raised to 16 x cdiv(3,207,168, 16 x 4096 B) = 784
//     tokens (4 KV heads x 256 x 2 x 2 B = 4096 B a token), page 3,211,264;
//   - 64 layers in groups of 16 (3 state, 1 attention): 16 x 3,211,264 =
//     51,380,224 B a block;
//   - prefix caching off at 0.27.1 (mode none): a request takes
//     cdiv(8192, 784) = 11 attention blocks and 1 in each state group, 14;
//   - 829 / 14 = 59.214x, x 8192 = 485,083.4: 485,083 tokens.
//
// In align mode (0.28.0 on) a request takes 11 + 3 x 2 = 17: 48.76x.
func TestRow214Layout(t *testing.T) {
	type got struct {
		Mode                                                          string
		Block, StatePage, Blocks, PagesPerSeq, LoggedTokens, StateBlk uint64
		Concurrency                                                   string
		Over                                                          bool
	}
	// One block across the 16 tensors: 16 layers x 784 tokens x 4096 B.
	const blockBytes = 16 * 784 * 4096
	tests := []struct {
		spec string
		want got
	}{
		{"0.27.1", got{"none", 784, 3207168, 829, 14, 485083, 829, "59.21", false}},
		// 829 / 17 x 8192 = 399,480.47.
		{"0.28.0", got{"align", 784, 3207168, 829, 17, 399480, 829, "48.76", false}},
	}
	for _, tt := range tests {
		s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, KVCacheMemoryBytes: 829 * blockBytes}
		a := qwen35Dense(t)
		r, err := NewReference(a, trusting(a, s), testClass(false), mustProfile(tt.spec))
		if err != nil {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		c := r.Capacity()
		res := r.Serve
		g := got{res.MambaCacheMode, res.BlockSize, res.StatePageBytes, c.Blocks, c.PagesPerSeq, c.LoggedTokens, c.StateBlocks,
			fmt.Sprintf("%.2f", c.Concurrency), c.SeqsOverStateBlocks}
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.spec, diff)
		}
	}
}

// TestQueriesHonourStateBlocks: vLLM refuses a max_num_seqs above the
// blocks, and the queries never answer above them either: every sequence
// holds a block of each state group, so the budget runs out first.
func TestQueriesHonourStateBlocks(t *testing.T) {
	r := ref(t, qwen35Dense(t), Serve{MaxModelLen: 262144, KVCacheMemoryBytes: gib40}, testClass(false))
	p := r.Plan()
	// One token a sequence: one full block and 3 x 2 state blocks, 7 of
	// the 835: 119 sequences.
	ans, err := budget.MaxSequences(p, 1, 0)
	if err != nil || ans.Value != 835/7 || ans.Capped || ans.Next.Failed != budget.OverBudget {
		t.Errorf("MaxSequences(1) = %d (capped %v, next %v), %v; want %d, the next over the budget", ans.Value, ans.Capped, ans.Next.Failed, err, 835/7)
	}
	// 836 sequences, one more than the blocks: not even one token each.
	ans, err = budget.MaxLength(p, 836, 0)
	if err != nil || ans.Fits || ans.At.Failed != budget.OverBudget {
		t.Errorf("MaxLength(836) = %+v, %v; want nothing to fit, over the budget", ans.Value, err)
	}
}

// TestStateByVersion: the rules that changed by release.
func TestStateByVersion(t *testing.T) {
	a := qwen35MoE(t)
	base := Serve{MaxModelLen: 262144, KVCacheMemoryBytes: gib40}
	tests := []struct {
		spec   string
		serve  Serve
		mode   string
		block  uint64
		checks bool
	}{
		{"main", base, "align", 1056, true},
		// Prefix caching was off by default for hybrids before PR #50991
		// (2026-08-04): #40996 (07-10) kept it opt-in for them, so 0.26 and
		// 0.27 are still mode none (row 214, 0.27.1: 14 blocks a request);
		// 0.28.0 is the first release on by default.
		{"0.25.0", base, "none", 1056, true},
		{"0.26.0", base, "none", 1056, true},
		{"0.27.1", base, "none", 1056, true},
		{"0.28.0", base, "align", 1056, true},
		{"0.20.0", Serve{MaxModelLen: 262144, KVCacheMemoryBytes: gib40, EnablePrefixCaching: engine.On}, "align", 1056, true},
		// Before 0.19.0 --block-size was not the alignment: 16 x cdiv(M,
		// 16 x 2048) with --block-size 64 still gives 1056; from 0.19.0,
		// 64 x cdiv(M, 64 x 2048) = 64 x 17 = 1088. No refusal either.
		{"0.18.0", Serve{MaxModelLen: 262144, KVCacheMemoryBytes: gib40, BlockSize: 64}, "none", 1056, false},
		{"main", Serve{MaxModelLen: 262144, KVCacheMemoryBytes: gib40, BlockSize: 64}, "align", 1088, true},
	}
	for _, tt := range tests {
		r, err := Resolve(tt.serve, a, testClass(false), mustProfile(tt.spec))
		if err != nil {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		if r.MambaCacheMode != tt.mode || r.BlockSize != tt.block || r.StateBlockCheck() != tt.checks {
			t.Errorf("%s %+v: mode %q block %d check %v; want %q %d %v", tt.spec, tt.serve, r.MambaCacheMode, r.BlockSize, r.StateBlockCheck(), tt.mode, tt.block, tt.checks)
		}
	}
	for _, bad := range []struct {
		spec, flag string
		serve      Serve
	}{
		{"0.10.1", "vllm-version", Serve{MaxModelLen: 4096}},
		{"0.9.2:v0", "vllm-version", Serve{MaxModelLen: 4096}},
		{"0.14.0", "enable-prefix-caching", Serve{EnablePrefixCaching: engine.On}},
	} {
		_, err := Resolve(bad.serve, a, testClass(false), mustProfile(bad.spec))
		var se *engine.SettingError
		if !asSettingError(err, &se) || se.Flag != bad.flag {
			t.Errorf("%s: %v; want an error naming --%s", bad.spec, err, bad.flag)
		}
	}
}

// TestStateSettingErrors: what vLLM cannot build is refused, naming the
// flag.
func TestStateSettingErrors(t *testing.T) {
	tests := []struct {
		name  string
		arch  *model.Arch
		serve Serve
		flag  string
		words string
	}{
		// 36 value heads: 8 ranks divide the conv dimension 4096 + 36 x
		// 128 = 8704 but not the heads.
		{"tp does not divide the value heads", func() *model.Arch { a := qwen35Dense(t); a.DeltaNet.NumValueHeads = 36; return a }(),
			Serve{TensorParallelSize: 8, MaxModelLen: 4096}, "tensor-parallel-size", "value heads (36)"},
		{"bad mamba dtype", qwen35MoE(t), Serve{MambaCacheDtype: "fp8"}, "mamba-cache-dtype", "want auto, float32, float16 or bfloat16"},
		{"bad ssm dtype", qwen35MoE(t), Serve{MambaSSMCacheDtype: "int8"}, "mamba-ssm-cache-dtype", "want auto"},
	}
	for _, tt := range tests {
		_, err := Resolve(tt.serve, tt.arch, testClass(false), current)
		var se *engine.SettingError
		if !asSettingError(err, &se) || se.Flag != tt.flag || !strings.Contains(se.Reason, tt.words) {
			t.Errorf("%s: %v; want --%s: ...%s...", tt.name, err, tt.flag, tt.words)
		}
	}
}

// TestMambaAllMode: from 0.15.0 (PR #30877) until PR #50991 (0.28.0), an
// explicit --enable-prefix-caching set mamba_cache_mode "all" for a class
// implementing SupportsMambaPrefixCaching (Nemotron-H's, not Qwen3.5's),
// whose cdiv(max_model_len, block_size) state pages a sequence membudget
// does not size: refused by name there, align from 0.28.0, and mode none
// when prefix caching is left at its default (off for hybrids before
// 0.28.0).
func TestMambaAllMode(t *testing.T) {
	on := Serve{MaxModelLen: 8192, KVCacheMemoryBytes: gib40, EnablePrefixCaching: engine.On}
	tests := []struct {
		name, spec string
		arch       *model.Arch
		serve      Serve
		mode       string // "" for a refusal naming --enable-prefix-caching
	}{
		{"nemotron-h on, 0.27.1", "0.27.1", nemotronNano(t), on, ""},
		{"nemotron-h on, 0.15.0", "0.15.0", nemotronNano(t), on, ""},
		{"nemotron-h on, 0.28.0", "0.28.0", nemotronNano(t), on, "align"},
		{"nemotron-h default, 0.27.1", "0.27.1", nemotronNano(t), Serve{MaxModelLen: 8192, KVCacheMemoryBytes: gib40}, "none"},
		{"qwen3.5 on, 0.27.1", "0.27.1", qwen35Dense(t), on, "align"},
	}
	for _, tt := range tests {
		r, err := Resolve(tt.serve, tt.arch, testClass(false), mustProfile(tt.spec))
		if tt.mode == "" {
			var se *engine.SettingError
			if !asSettingError(err, &se) || se.Flag != "enable-prefix-caching" || !strings.Contains(se.Reason, `mamba_cache_mode "all" for NemotronHForCausalLM`) {
				t.Errorf("%s: %v; want --enable-prefix-caching refused for mode all", tt.name, err)
			}
			continue
		}
		if err != nil || r.MambaCacheMode != tt.mode {
			t.Errorf("%s: mode %q, %v; want %q", tt.name, r.MambaCacheMode, err, tt.mode)
		}
	}
}

// TestStateDtypeHooks: the SSM state's dtype follows vLLM's per-model
// hooks when --mamba-ssm-cache-dtype is auto, the flag otherwise.
func TestStateDtypeHooks(t *testing.T) {
	noKey := nemotronNano(t)
	noKey.StateDtype = "" // a Nemotron-H config without mamba_ssm_cache_dtype
	tests := []struct {
		name      string
		arch      *model.Arch
		serve     Serve
		conv, ssm uint64
		ssmFlag   string
	}{
		{"qwen3.5 config says float32", qwen35MoE(t), Serve{}, 2, 4, "float32"},
		{"the flag wins", qwen35MoE(t), Serve{MambaSSMCacheDtype: "bfloat16"}, 2, 2, "bfloat16"},
		{"nemotron-h defaults to float32", noKey, Serve{}, 2, 4, "float32"},
		{"qwen3-next has no hook", qwen3Next(t), Serve{}, 2, 2, "auto"},
		{"conv dtype sets both", qwen3Next(t), Serve{MambaCacheDtype: "float32"}, 4, 4, "auto"},
	}
	for _, tt := range tests {
		r, err := Resolve(tt.serve, tt.arch, testClass(false), current)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if r.StateConvBytes != tt.conv || r.StateSSMBytes != tt.ssm || r.MambaSSMCacheDtype != tt.ssmFlag {
			t.Errorf("%s: conv %d ssm %d (%s), want %d %d (%s)", tt.name, r.StateConvBytes, r.StateSSMBytes, r.MambaSSMCacheDtype, tt.conv, tt.ssm, tt.ssmFlag)
		}
	}
}

// asSettingError is errors.As for a *engine.SettingError.
func asSettingError(err error, se **engine.SettingError) bool { return errors.As(err, se) }

// TestStateCommand: the vllm serve line of a hybrid names prefix caching
// and the hooked SSM dtype and leaves the raised block (1056) to vLLM,
// which derives it again (a pinned one also steers the backend choice, and
// 1056 is none of 0.17's --block-size choices); vLLM given that line sizes
// the same state.
func TestStateCommand(t *testing.T) {
	a := qwen35MoE(t)
	r, err := Resolve(Serve{MaxModelLen: 32768}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	line := Command("Qwen/Qwen3.5-35B-A3B", &r)
	for _, part := range []string{"--enable-prefix-caching", "--mamba-ssm-cache-dtype float32"} {
		if !strings.Contains(line, part) {
			t.Errorf("%s: no %s", line, part)
		}
	}
	if strings.Contains(line, "--block-size") {
		t.Errorf("%s: pins the block size vLLM derives", line)
	}
	again, err := Resolve(Serve{MaxModelLen: 32768, EnablePrefixCaching: engine.On, MambaSSMCacheDtype: "float32"}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if again.BlockSize != r.BlockSize || again.StatePagePadded != r.StatePagePadded || again.MambaCacheMode != r.MambaCacheMode {
		t.Errorf("the line resolves to block %d, page %d, %s; want %d, %d, %s", again.BlockSize, again.StatePagePadded, again.MambaCacheMode, r.BlockSize, r.StatePagePadded, r.MambaCacheMode)
	}
}

// TestStateAutoMaxModelLen: --max-model-len auto counts the state blocks
// as vLLM's _max_memory_usage_bytes_from_groups does: Qwen3.5-27B's 3 GiB
// hold 3 GiB // (16 x 3,211,264 B) = 62 blocks a request, 6 of them
// state, leaving 56 full blocks of 784 tokens.
func TestStateAutoMaxModelLen(t *testing.T) {
	r := ref(t, qwen35Dense(t), Serve{AutoMaxModelLen: true, KVCacheMemoryBytes: 3 << 30}, testClass(false))
	if r.Serve.MaxModelLen != 56*784 {
		t.Errorf("auto max_model_len %d, want %d", r.Serve.MaxModelLen, 56*784)
	}
	if c := r.Capacity(); !c.Starts || c.PagesPerSeq != 56+6 {
		t.Errorf("at the fitted length: starts %v, %d blocks a request; want 62", c.Starts, c.PagesPerSeq)
	}
	if got := r.Groups(); got != "Mambax3 FullAttentionx1" {
		t.Errorf("groups %q", got)
	}
}

// TestObservedHybridLogs: two public startup logs of hybrids
// (corpus/observed/vllm.csv), reproduced from their logged available KV
// memory and settings.
func TestObservedHybridLogs(t *testing.T) {
	tests := []struct {
		name        string
		arch        *model.Arch
		spec        string
		serve       Serve
		blocks      uint64
		logged      uint64
		concurrency string
	}{
		// Row 103, vLLM 0.20.0: Qwen3.6-35B-A3B (Qwen3.5-35B-A3B's shape),
		// fp8_e4m3 KV, prefix caching on (Mamba align), 262,144 tokens,
		// 66.93 GiB: blocks of 2096 tokens, 10 x 2,146,304 B, 3348 of them
		// (66.925 to 66.935 GiB hold 3348); 0.20 logs 3348 // 4 groups x
		// 2096 = 1,754,352 tokens and 3348 / (126 + 3 x 2) = 25.36x.
		{"row 103", qwen35MoE(t), "0.20.0", Serve{KVCacheDtype: "fp8", EnablePrefixCaching: engine.On, MaxModelLen: 262144, MaxNumSeqs: 8,
			MaxNumBatchedTokens: 65536, KVCacheMemoryBytes: 71860171571 + 1}, 3348, 1754352, "25.36"},
		// Row 120, a 0.18/0.19 log: gemma-4-26B-A4B, fp8_e4m3 KV, 98,304
		// tokens, 8192 batched tokens, 9.08 GiB. Sliding pages are 16 x 8
		// x 512 = 65,536 B, full ones 16 x 2 x 1024 = 32,768 B, doubled to
		// 32-token blocks; 5 tensors: 9.08 GiB holds 29,737 to 29,769
		// blocks, and the logged 79,344 tokens = blocks // 6 groups x 16
		// pins 29,754 to 29,759. A request keeps 3072 full blocks and 5 x
		// (cdiv(1023 + 8192, 16) + 1) = 5 x 577 (one batch in flight before
		// 0.25): 29,756 / 5957 = 5.00x.
		{"row 120", gemma4(t), "0.19.0", Serve{KVCacheDtype: "fp8", MaxModelLen: 98304, MaxNumBatchedTokens: 8192,
			KVCacheMemoryBytes: 29756 * 5 * 65536}, 29756, 79344, "5.00"},
	}
	for _, tt := range tests {
		r, err := NewReference(tt.arch, tt.serve, testClass(false), mustProfile(tt.spec))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		c := r.Capacity()
		if c.Blocks != tt.blocks || c.LoggedTokens != tt.logged || fmt.Sprintf("%.2f", c.Concurrency) != tt.concurrency {
			t.Errorf("%s: %d blocks, GPU KV cache size %d, %.2fx; want %d, %d, %sx", tt.name, c.Blocks, c.LoggedTokens, c.Concurrency, tt.blocks, tt.logged, tt.concurrency)
		}
	}
}
