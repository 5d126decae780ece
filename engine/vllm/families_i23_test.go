package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// TestNewFamilyKVLayouts: the KV cache of each shipped config of the
// families of issue 23 as vLLM's spec classes lay it out, worked by hand
// from the config and the family's vLLM model file: which spec each layer
// gets (vllm/v1/kv_cache_interface.py), the page of a block of 16 tokens
// on one rank, and the groups.
func TestNewFamilyKVLayouts(t *testing.T) {
	archs := shipped(t)
	tests := []struct {
		shipped string
		tp      uint64
		want    pagedLayout
	}{
		// ERNIE-4.5-0.3B: Llama's Attention on all 18 layers
		// (ernie45.py subclasses llama.py), FullAttentionSpec; 2 KV heads
		// of 128: 16 x 2 x (128 + 128) x 2 B = 16,384 B a page at TP1.
		{"baidu__ERNIE-4.5-0.3B-PT", 1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 18, PageBytes: 16384, Groups: oneFullGroup}}},
		// At TP2 one KV head a rank: 8192 B.
		{"baidu__ERNIE-4.5-0.3B-PT", 2, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 18, PageBytes: 8192, Groups: oneFullGroup}}},
		// pythia-6.9b-deduped: GPTNeoXAttention's Attention on all 32
		// layers (gpt_neox.py:95-102), multi-head: 32 KV heads of 4096 /
		// 32 = 128, fp16: 16 x 32 x 256 x 2 B = 262,144 B a page; at TP4 8
		// heads, 65,536 B.
		{"EleutherAI__pythia-6.9b-deduped", 1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 32, PageBytes: 262144, Groups: oneFullGroup}}},
		{"EleutherAI__pythia-6.9b-deduped", 4, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 32, PageBytes: 65536, Groups: oneFullGroup}}},
		// Qwen3-VL-30B-A3B: Qwen3MoeDecoderLayer's Attention on all 48
		// layers (qwen3_vl_moe.py:68-74), 4 KV heads of 128, bf16: 16 x 4
		// x 256 x 2 B = 32,768 B a page; at TP8 the 4 heads are
		// replicated to one a rank: 8192 B.
		// EXAONE-3.0-7.8B: ExaoneAttention's Attention on all 32 layers
		// (exaone.py:167-175), 8 KV heads of 128, bf16: 16 x 8 x 256 x 2
		// B = 65,536 B a page; at TP2 4 heads, 32,768 B.
		{"LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct", 1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 32, PageBytes: 65536, Groups: oneFullGroup}}},
		{"LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct", 2, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 32, PageBytes: 32768, Groups: oneFullGroup}}},
		{"Qwen__Qwen3-VL-30B-A3B-Instruct", 1, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 48, PageBytes: 32768, Groups: oneFullGroup}}},
		{"Qwen__Qwen3-VL-30B-A3B-Instruct", 8, pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: 48, PageBytes: 8192, Groups: oneFullGroup}}},
	}
	// GLM-4.7-Flash: Glm4MoeLiteMLAAttention on all 47 layers
	// (glm4_moe_lite.py:133-153), MLAAttentionSpec: one latent of
	// kv_lora_rank + qk_rope_head_dim = 512 + 64 = 576 a token, whole on
	// every rank: 16 x 576 x 2 B = 18,432 B a page at TP1 and TP4.
	for _, tp := range []uint64{1, 4} {
		tests = append(tests, struct {
			shipped string
			tp      uint64
			want    pagedLayout
		}{"zai-org__GLM-4.7-Flash", tp, pagedLayout{"MLAAttentionx1", budget.PagedPool{Tensors: 47, PageBytes: 18432, Groups: oneFullGroup}}})
	}
	for _, tt := range tests {
		a, ok := archs[tt.shipped]
		if !ok {
			t.Errorf("%s is not shipped", tt.shipped)
			continue
		}
		if diff := cmp.Diff(tt.want, pagedLayoutAt(t, a, tt.tp, 2048)); diff != "" {
			t.Errorf("%s at TP%d (-want +got):\n%s", tt.shipped, tt.tp, diff)
		}
	}
}

// TestCohere2KVLayout: Command R7B's shape (c4ai-command-r7b-12-2024: 32
// layers, 32 heads and 8 KV heads of 4096 / 32 = 128, sliding_window 4096,
// sliding_window_pattern 4) under vLLM's commandr.py: layers 3, 7, ... 31
// are full attention (FullAttentionSpec), the 24 others slide
// (per_layer_sliding_window: SlidingWindowSpec). Both pages are 16 x 8 x
// 256 x 2 B = 65,536 B, so the 8 full layers make the group size: three
// sliding groups of 8 (layer 0 slides, so they come first) and one full.
// A sliding group keeps cdiv(4095 + 2 x 8192 in flight, 16) + 1 blocks.
func TestCohere2KVLayout(t *testing.T) {
	a, err := model.ParseConfig("command-r7b.json", []byte(`{"model_type": "cohere2", "hidden_size": 4096, "num_hidden_layers": 32,
 "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 256000,
 "max_position_embeddings": 8192, "sliding_window": 4096, "sliding_window_pattern": 4, "torch_dtype": "bfloat16"}`))
	if err != nil {
		t.Fatal(err)
	}
	r := ref(t, a, Serve{MaxModelLen: 8192, MaxNumBatchedTokens: 8192, AsyncScheduling: engine.On, KVCacheMemoryBytes: gib40}, testClass(false))
	got := layoutOf(a, r)
	want := got
	want.Names = "SlidingWindowx3 FullAttentionx1"
	want.Pool = budget.PagedPool{Tensors: 8, PageBytes: 65536, Groups: []budget.PageGroup{
		{Count: 3, PageTokens: 16, CapTokens: 4095 + 16384, ExtraPages: 1}, {Count: 1, PageTokens: 16, CapTokens: budget.NoCap}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestGlm4KVLayout: a glm4 config.json that leaves every shape to
// Glm4Config (GLM-4-9B-0414: 40 layers, 2 KV heads of head_dim 128,
// bf16 given) under vLLM's glm4.py: Glm4Attention on every layer,
// FullAttentionSpec; 16 x 2 x 256 x 2 B = 16,384 B a page at TP1, one
// head a rank at TP2 and, replicated, at TP4: 8192 B.
func TestGlm4KVLayout(t *testing.T) {
	a, err := model.ParseConfig("glm4.json", []byte(`{"model_type": "glm4", "torch_dtype": "bfloat16"}`))
	if err != nil {
		t.Fatal(err)
	}
	for tp, page := range map[uint64]uint64{1: 16384, 2: 8192, 4: 8192} {
		r := ref(t, a, Serve{TensorParallelSize: tp, MaxModelLen: 8192, KVCacheMemoryBytes: gib40}, testClass(false))
		want := budget.PagedPool{Tensors: 40, PageBytes: page, Groups: oneFullGroup}
		if diff := cmp.Diff(want, r.Plan().Stages[0].Pool); diff != "" {
			t.Errorf("TP%d (-want +got):\n%s", tp, diff)
		}
	}
}

// TestSeedOssKVLayout: Seed-OSS-36B's shape (64 layers, 8 KV heads of
// head_dim 128, bf16) under vLLM's seed_oss.py: SeedOssAttention on every
// layer, no window, FullAttentionSpec; 16 x 8 x 256 x 2 B = 65,536 B a
// page at TP1, one head a rank at TP8: 8192 B.
func TestSeedOssKVLayout(t *testing.T) {
	a, err := model.ParseConfig("seed-oss-36b.json", []byte(`{"model_type": "seed_oss", "hidden_size": 5120, "num_hidden_layers": 64,
 "num_attention_heads": 80, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 27648, "vocab_size": 155136,
 "max_position_embeddings": 524288, "torch_dtype": "bfloat16"}`))
	if err != nil {
		t.Fatal(err)
	}
	for tp, page := range map[uint64]uint64{1: 65536, 8: 8192} {
		r := ref(t, a, Serve{TensorParallelSize: tp, MaxModelLen: 8192, KVCacheMemoryBytes: gib40}, testClass(false))
		want := budget.PagedPool{Tensors: 64, PageBytes: page, Groups: oneFullGroup}
		if diff := cmp.Diff(want, r.Plan().Stages[0].Pool); diff != "" {
			t.Errorf("TP%d (-want +got):\n%s", tp, diff)
		}
	}
}

// TestOlmoeKVLayout: OLMoE-1B-7B's shape (16 layers, 16 heads of 2048 /
// 16 = 128, multi-head, bf16) under vLLM's olmoe.py: OlmoeAttention on
// every layer, FullAttentionSpec; 16 x 16 x 256 x 2 B = 131,072 B a page
// at TP1, 4 heads at TP4: 32,768 B.
func TestOlmoeKVLayout(t *testing.T) {
	a, err := model.ParseConfig("olmoe.json", []byte(`{"model_type": "olmoe", "hidden_size": 2048, "num_hidden_layers": 16,
 "num_attention_heads": 16, "intermediate_size": 1024, "num_experts": 64, "num_experts_per_tok": 8, "vocab_size": 50304,
 "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}`))
	if err != nil {
		t.Fatal(err)
	}
	for tp, page := range map[uint64]uint64{1: 131072, 4: 32768} {
		r := ref(t, a, Serve{TensorParallelSize: tp, MaxModelLen: 4096, KVCacheMemoryBytes: gib40}, testClass(false))
		want := budget.PagedPool{Tensors: 16, PageBytes: page, Groups: oneFullGroup}
		if diff := cmp.Diff(want, r.Plan().Stages[0].Pool); diff != "" {
			t.Errorf("TP%d (-want +got):\n%s", tp, diff)
		}
	}
}

// TestGraniteMoEKVLayout: a GraniteMoE config of 32 layers, 24 heads and
// 8 KV heads of 1536 / 24 = 64 (bf16) under vLLM's granitemoe.py:
// GraniteMoeAttention on every layer, FullAttentionSpec; 16 x 8 x 128 x 2
// B = 32,768 B a page at TP1, 2 heads at TP4: 8192 B.
func TestGraniteMoEKVLayout(t *testing.T) {
	a, err := model.ParseConfig("granitemoe.json", []byte(`{"model_type": "granitemoe", "hidden_size": 1536, "num_hidden_layers": 32,
 "num_attention_heads": 24, "num_key_value_heads": 8, "intermediate_size": 512, "num_local_experts": 40, "num_experts_per_tok": 8,
 "vocab_size": 49155, "max_position_embeddings": 4096, "tie_word_embeddings": true, "torch_dtype": "bfloat16"}`))
	if err != nil {
		t.Fatal(err)
	}
	for tp, page := range map[uint64]uint64{1: 32768, 4: 8192} {
		r := ref(t, a, Serve{TensorParallelSize: tp, MaxModelLen: 4096, KVCacheMemoryBytes: gib40}, testClass(false))
		want := budget.PagedPool{Tensors: 32, PageBytes: page, Groups: oneFullGroup}
		if diff := cmp.Diff(want, r.Plan().Stages[0].Pool); diff != "" {
			t.Errorf("TP%d (-want +got):\n%s", tp, diff)
		}
	}
}

// checkFullLayout checks that the config doc keeps one FullAttention group
// of layers layers under vLLM, whose page of 16 tokens on one rank of each
// tensor-parallel degree is pages[tp] bytes (worked by hand by the
// caller).
func checkFullLayout(t *testing.T, doc string, layers uint64, pages map[uint64]uint64) {
	t.Helper()
	a, err := model.ParseConfig("x.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for tp, page := range pages {
		want := pagedLayout{"FullAttentionx1", budget.PagedPool{Tensors: layers, PageBytes: page, Groups: oneFullGroup}}
		if diff := cmp.Diff(want, pagedLayoutAt(t, a, tp, 2048)); diff != "" {
			t.Errorf("%s TP%d (-want +got):\n%s", a.ModelType, tp, diff)
		}
	}
}

// pagedLayout is what a KV layout test compares: the spec of each KV cache
// group, named, and the first stage's paged pool.
type pagedLayout struct {
	Names string
	Pool  budget.PagedPool
}

// oneFullGroup is the pool's groups where every layer attends fully: one
// group of blocks of 16 tokens, uncapped.
var oneFullGroup = []budget.PageGroup{{Count: 1, PageTokens: 16, CapTokens: budget.NoCap}}

// layoutOf is r's KV layout for a.
func layoutOf(a *model.Arch, r *Reference) pagedLayout {
	return pagedLayout{groupNames(a, r.groups), r.Plan().Stages[0].Pool}
}

// pagedLayoutAt is a's KV layout at TP tp and maxLen tokens, the KV cache
// given as 40 GiB (the page does not depend on it).
func pagedLayoutAt(t testing.TB, a *model.Arch, tp, maxLen uint64) pagedLayout {
	t.Helper()
	return layoutOf(a, ref(t, a, Serve{TensorParallelSize: tp, MaxModelLen: maxLen, KVCacheMemoryBytes: gib40}, testClass(false)))
}

// TestArceeKVLayout: AFM-4.5B's shape (36 layers, 20 heads and 4 KV heads
// of 128, bf16, as its model card gives it) under vLLM's arcee.py:
// LlamaAttention on every layer, FullAttentionSpec; 16 x 4 x 256 x 2 B =
// 32,768 B a page at TP1, 1 head at TP4: 8192 B.
func TestArceeKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "arcee", "hidden_size": 2560, "num_hidden_layers": 36, "num_attention_heads": 20,
 "num_key_value_heads": 4, "head_dim": 128, "intermediate_size": 18432, "vocab_size": 128004, "max_position_embeddings": 65536,
 "torch_dtype": "bfloat16"}`, 36, map[uint64]uint64{1: 32768, 4: 8192})
}

// TestErnie45MoEKVLayout: ERNIE-4.5-21B-A3B (a config of
// Ernie4_5_MoeConfig's defaults: 28 layers, 4 KV heads of 2560 / 20 =
// 128, as vLLM's own reading of the published config gives them,
// tests/config/base_model_arch_groundtruth.json) under ernie45_moe.py:
// Ernie4_5_MoeAttention on every layer, FullAttentionSpec; 16 x 4 x 256 x
// 2 B = 32,768 B a page at TP1, 1 head at TP4: 8192 B.
func TestErnie45MoEKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "ernie4_5_moe", "torch_dtype": "bfloat16"}`, 28, map[uint64]uint64{1: 32768, 4: 8192})
}

// TestPhiMoEKVLayout: Phi-3.5-MoE's attention (32 layers, 32 heads and 8
// KV heads of 4096 / 32 = 128, bf16; no sliding_window here) under vLLM's
// phimoe.py: PhiMoEAttention on every layer, FullAttentionSpec; 16 x 8 x
// 256 x 2 B = 65,536 B a page at TP1, 1 head at TP8: 8192 B.
func TestPhiMoEKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "phimoe", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
 "num_key_value_heads": 8, "intermediate_size": 6400, "num_local_experts": 16, "num_experts_per_tok": 2, "vocab_size": 32064,
 "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}`, 32, map[uint64]uint64{1: 65536, 8: 8192})
}

// TestInternLM2KVLayout: InternLM2.5-7B's shape (32 layers, 32 heads and 8
// KV heads of 4096 / 32 = 128, bf16) under vLLM's internlm2.py:
// InternLM2Attention on every layer, FullAttentionSpec; 16 x 8 x 256 x 2
// B = 65,536 B a page at TP1, 2 heads at TP4: 16,384 B.
func TestInternLM2KVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "internlm2", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
 "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 92544, "max_position_embeddings": 32768,
 "torch_dtype": "bfloat16"}`, 32, map[uint64]uint64{1: 65536, 4: 16384})
}

// TestStableLMKVLayout: StableLM 2 1.6B's shape (24 layers, 32 heads of
// 2048 / 32 = 64, multi-head, bf16) under vLLM's stablelm.py:
// StablelmAttention on every layer, FullAttentionSpec; 16 x 32 x 128 x 2 B
// = 131,072 B a page at TP1, 8 heads at TP4: 32,768 B.
func TestStableLMKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "stablelm", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 32,
 "num_key_value_heads": 32, "intermediate_size": 5632, "vocab_size": 100352, "max_position_embeddings": 4096,
 "use_qkv_bias": true, "torch_dtype": "bfloat16"}`, 24, map[uint64]uint64{1: 131072, 4: 32768})
}

// TestOrionSolarKVLayout: Orion-14B's shape (40 layers, 40 heads of 5120
// / 40 = 128, multi-head: 16 x 40 x 256 x 2 B = 327,680 B a page at TP1,
// 10 heads at TP4: 81,920 B) under orion.py, and a Solar of 48 layers, 8
// KV heads of 128 (16 x 8 x 256 x 2 B = 65,536 B; 4 heads at TP2: 32,768
// B) under solar.py: full attention on every layer.
func TestOrionSolarKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "orion", "hidden_size": 5120, "num_hidden_layers": 40, "num_attention_heads": 40,
 "num_key_value_heads": 40, "intermediate_size": 15360, "vocab_size": 84608, "max_position_embeddings": 4096,
 "torch_dtype": "bfloat16"}`, 40, map[uint64]uint64{1: 327680, 4: 81920})
	checkFullLayout(t, `{"model_type": "solar", "hidden_size": 4096, "num_hidden_layers": 48, "num_attention_heads": 32,
 "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "max_position_embeddings": 4096,
 "torch_dtype": "bfloat16"}`, 48, map[uint64]uint64{1: 65536, 2: 32768})
}

// TestNemotronKVLayout: Minitron-8B's shape (32 layers, 48 heads and 8 KV
// heads of head_dim 128, bf16) under vLLM's nemotron.py: NemotronAttention
// on every layer, FullAttentionSpec; 16 x 8 x 256 x 2 B = 65,536 B a page
// at TP1, 1 head at TP8: 8192 B.
func TestNemotronKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "nemotron", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 48,
 "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 16384, "vocab_size": 256000, "max_position_embeddings": 4096,
 "torch_dtype": "bfloat16"}`, 32, map[uint64]uint64{1: 65536, 8: 8192})
}

// TestHunyuanDenseKVLayout: Hunyuan-7B's shape (32 layers, 32 heads and 8
// KV heads of head_dim 128, no CLA, bf16) under vLLM's hunyuan_v1.py:
// HunYuanAttention on every layer, FullAttentionSpec; 16 x 8 x 256 x 2 B =
// 65,536 B a page at TP1, 2 heads at TP4: 16,384 B.
func TestHunyuanDenseKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "hunyuan_v1_dense", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
 "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 14336, "vocab_size": 128167, "max_position_embeddings": 32768,
 "use_qk_norm": true, "use_cla": false, "torch_dtype": "bfloat16"}`, 32, map[uint64]uint64{1: 65536, 4: 16384})
}

// TestMPTKVLayout: mpt-7b (32 layers, 32 heads and KV heads of 4096 / 32 =
// 128 as vLLM reads its config: tests/config/base_model_arch_groundtruth
// .json at d18bb7b) under mpt.py: MPTAttention (ALiBi) on every layer,
// FullAttentionSpec; 16 x 32 x 256 x 2 B = 262,144 B a page at TP1, 8
// heads at TP4: 65,536 B.
func TestMPTKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "mpt", "d_model": 4096, "n_heads": 32, "n_layers": 32, "expansion_ratio": 4,
 "max_seq_len": 2048, "vocab_size": 50432, "no_bias": true, "attn_config": {"alibi": true, "qk_ln": false},
 "torch_dtype": "bfloat16"}`, 32, map[uint64]uint64{1: 262144, 4: 65536})
}

// TestDeepSeekV1KVLayout: deepseek-moe-16b (28 layers, 16 heads of 2048 /
// 16 = 128, multi-head, bf16) under vLLM's deepseek_v2.py with use_mha:
// DeepseekAttention on every layer, FullAttentionSpec (no latent); 16 x 16
// x 256 x 2 B = 131,072 B a page at TP1, 4 heads at TP4: 32,768 B.
func TestDeepSeekV1KVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "deepseek", "hidden_size": 2048, "num_hidden_layers": 28, "num_attention_heads": 16,
 "num_key_value_heads": 16, "intermediate_size": 10944, "moe_intermediate_size": 1408, "n_routed_experts": 64,
 "num_experts_per_tok": 6, "n_shared_experts": 2, "first_k_dense_replace": 1, "vocab_size": 102400,
 "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}`, 28, map[uint64]uint64{1: 131072, 4: 32768})
}

// TestGraniteMoESharedKVLayout: granitemoeshared.py's attention is Granite
// MoE's (GraniteMoeAttention): the same config with a shared MLP keeps
// TestGraniteMoEKVLayout's pages, 32,768 B at TP1 and 8192 B at TP4.
func TestGraniteMoESharedKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "granitemoeshared", "hidden_size": 1536, "num_hidden_layers": 32, "num_attention_heads": 24,
 "num_key_value_heads": 8, "intermediate_size": 512, "shared_intermediate_size": 1024, "num_local_experts": 40,
 "num_experts_per_tok": 8, "vocab_size": 49155, "max_position_embeddings": 4096, "tie_word_embeddings": true,
 "torch_dtype": "bfloat16"}`, 32, map[uint64]uint64{1: 32768, 4: 8192})
}

// TestMiMoKVLayout: MiMo-7B (36 layers, 8 KV heads of 128 as vLLM reads its
// config: tests/config/base_model_arch_groundtruth.json at d18bb7b) under
// mimo.py's Qwen2 layers: FullAttentionSpec, the MTP layer keeping none;
// 16 x 8 x 256 x 2 B = 65,536 B a page at TP1, 1 head at TP8: 8192 B.
func TestMiMoKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "mimo", "hidden_size": 4096, "num_hidden_layers": 36, "num_attention_heads": 32,
 "num_key_value_heads": 8, "intermediate_size": 11008, "vocab_size": 151680, "max_position_embeddings": 32768,
 "num_nextn_predict_layers": 1, "torch_dtype": "bfloat16"}`, 36, map[uint64]uint64{1: 65536, 8: 8192})
}

// TestGPTJKVLayout: GPT-J-6B (28 layers, 16 heads of 4096 / 16 = 256,
// multi-head, float16) under vLLM's gpt_j.py: GPTJAttention on every
// layer, FullAttentionSpec; 16 x 16 x 512 x 2 B = 262,144 B a page at TP1,
// 4 heads at TP4: 65,536 B.
func TestGPTJKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_layer": 28, "rotary_dim": 64, "n_inner": null,
 "vocab_size": 50400, "n_positions": 2048, "torch_dtype": "float16"}`, 28, map[uint64]uint64{1: 262144, 4: 65536})
}

// TestFlexOlmoKVLayout: a FlexOlmo of 32 layers and 32 heads of 4096 / 32
// = 128 (multi-head, bf16) under vLLM's flex_olmo.py: OLMoE's attention on
// every layer, FullAttentionSpec; 16 x 32 x 256 x 2 B = 262,144 B a page
// at TP1, 8 heads at TP4: 65,536 B.
func TestFlexOlmoKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "flex_olmo", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
 "intermediate_size": 11008, "num_experts": 7, "num_experts_per_tok": 7, "vocab_size": 100352, "max_position_embeddings": 4096,
 "torch_dtype": "bfloat16"}`, 32, map[uint64]uint64{1: 262144, 4: 65536})
}

// TestJais2KVLayout: a Jais 2 of 8 layers, 16 heads and 4 KV heads of 2048
// / 16 = 128 (bf16), interleaved_sliding_window [4096, null], under vLLM's
// jais2.py: layers 0, 2, 4, 6 slide over 4096 (SlidingWindowSpec), 1, 3,
// 5, 7 attend fully; both pages 16 x 4 x 256 x 2 B = 32,768 B: one group
// of each, 4 layers a group, the sliding first (layer 0). A sliding
// group keeps cdiv(4095 + 2 x 8192 in flight, 16) + 1 blocks.
func TestJais2KVLayout(t *testing.T) {
	a, err := model.ParseConfig("jais2.json", []byte(`{"model_type": "jais2", "hidden_size": 2048, "num_hidden_layers": 8,
 "num_attention_heads": 16, "num_key_value_heads": 4, "intermediate_size": 8192, "vocab_size": 150272,
 "max_position_embeddings": 8192, "interleaved_sliding_window": [4096, null], "torch_dtype": "bfloat16"}`))
	if err != nil {
		t.Fatal(err)
	}
	r := ref(t, a, Serve{MaxModelLen: 8192, MaxNumBatchedTokens: 8192, AsyncScheduling: engine.On, KVCacheMemoryBytes: gib40}, testClass(false))
	got := layoutOf(a, r)
	want := got
	want.Names = "SlidingWindowx1 FullAttentionx1"
	want.Pool = budget.PagedPool{Tensors: 4, PageBytes: 32768, Groups: []budget.PageGroup{
		{Count: 1, PageTokens: 16, CapTokens: 4095 + 16384, ExtraPages: 1}, {Count: 1, PageTokens: 16, CapTokens: budget.NoCap}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestInternLM3KVLayout: InternLM3-8B's shape (48 layers, 32 heads and 2
// KV heads of head_dim 128, bf16) under vLLM's llama.py: full attention on
// every layer; 16 x 2 x 256 x 2 B = 16,384 B a page at TP1, 1 head at TP2
// and, replicated, at TP4: 8192 B.
func TestInternLM3KVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "internlm3", "hidden_size": 4096, "num_hidden_layers": 48, "num_attention_heads": 32,
 "num_key_value_heads": 2, "head_dim": 128, "intermediate_size": 10240, "vocab_size": 128512, "max_position_embeddings": 32768,
 "bias": false, "qkv_bias": false, "torch_dtype": "bfloat16"}`, 48, map[uint64]uint64{1: 16384, 2: 8192, 4: 8192})
}

// TestHyperCLOVAXKVLayout: a HyperCLOVA X of 32 layers, 32 heads and 8 KV
// heads of 128 (bf16) under vLLM's hyperclovax.py: full attention on every
// layer; 16 x 8 x 256 x 2 B = 65,536 B a page at TP1, 2 heads at TP4:
// 16,384 B.
func TestHyperCLOVAXKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "hyperclovax", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
 "num_key_value_heads": 8, "intermediate_size": 12288, "vocab_size": 110592, "max_position_embeddings": 32768,
 "use_post_norm": true, "torch_dtype": "bfloat16"}`, 32, map[uint64]uint64{1: 65536, 4: 16384})
}

// TestTeleFLMKVLayout: a Tele-FLM of 64 layers, 64 heads and 8 KV heads
// of 128 (bf16) under vLLM's teleflm.py (Llama's layers): full attention
// on every layer; 16 x 8 x 256 x 2 B = 65,536 B a page at TP1, 1 head at
// TP8: 8192 B.
func TestTeleFLMKVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "teleflm", "hidden_size": 8192, "num_hidden_layers": 64, "num_attention_heads": 64,
 "num_key_value_heads": 8, "intermediate_size": 21824, "vocab_size": 80000, "max_position_embeddings": 4096,
 "use_mup": true, "torch_dtype": "bfloat16"}`, 64, map[uint64]uint64{1: 65536, 8: 8192})
}

// TestStep1KVLayout: a Step 1 of 48 layers, 64 heads of 8192 / 64 = 128
// and 8 attention groups (bf16) under vLLM's step1.py: ALiBi full
// attention on every layer; 16 x 8 x 256 x 2 B = 65,536 B a page at TP1,
// 1 group at TP8: 8192 B.
func TestStep1KVLayout(t *testing.T) {
	checkFullLayout(t, `{"model_type": "step1", "hidden_size": 8192, "num_hidden_layers": 48, "num_attention_heads": 64,
 "num_attention_groups": 8, "intermediate_size": 22528, "vocab_size": 65536, "max_position_embeddings": 4096,
 "torch_dtype": "bfloat16"}`, 48, map[uint64]uint64{1: 65536, 8: 8192})
}
