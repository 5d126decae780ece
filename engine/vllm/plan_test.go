package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

func TestPlanEqualsReferenceOnShippedConfigs(t *testing.T) {
	archs := shipped(t)
	classes := []budget.Class{testClass(false), testClass(true),
		{Name: "small", Device: budget.Device{Name: "Small A100", Silicon: budget.Silicon{Vendor: budget.NVIDIA, Major: 8}, MemoryBytes: 24 << 30, Interconnect: budget.NVLink},
			Memory: budget.DriverTerms{DriverFixedBytes: 1 << 30, DriverBudgetPerMille: 50, Unified: true, UtilCeiling: 0.9}}}
	serves := []Serve{
		{GPUMemoryUtilization: 0.9},
		{GPUMemoryUtilization: 0.5, TensorParallelSize: 8, KVCacheDtype: "fp8", EnforceEager: true, BlockSize: 32, CPUOffloadGiB: 4},
		{GPUMemoryUtilization: 0.85, MaxModelLen: 4096, MaxNumSeqs: 8, MaxNumBatchedTokens: 512, TensorParallelSize: 2, Quantization: "fp8"},
		{PipelineParallelSize: 3, MaxModelLen: 8192, AsyncScheduling: engine.Off},
		{KVCacheMemoryBytes: 3 << 30, PipelineParallelSize: 2, TensorParallelSize: 2, EnableExpertParallel: true, DataParallelSize: 2},
	}
	seqs := []uint64{0, 1, 2, 7, 64, 1000}
	tokens := []uint64{0, 1, 15, 16, 17, 1023, 4096, 4097, 131072}
	compared := 0
	for name, a := range archs {
		for _, c := range classes {
			for si, s := range serves {
				ref, err := NewReference(a, s, c, current)
				if err != nil {
					continue // e.g. fp8 over an fp8 checkpoint or TP not dividing: covered elsewhere
				}
				plan := ref.Plan()
				for _, n := range seqs {
					for _, tok := range tokens {
						want := ref.Evaluate(n, tok).Footprint
						got := plan.Evaluate(n, tok)
						if diff := cmp.Diff(want, got); diff != "" {
							t.Fatalf("%s on %s, serve %d, (%d, %d): Plan != Reference (-ref +plan):\n%s", name, c.Name, si, n, tok, diff)
						}
						compared++
					}
				}
			}
		}
	}
	if compared < 2000 {
		t.Errorf("only %d comparisons ran", compared)
	}
}

func TestKVLayout(t *testing.T) {
	archs := shipped(t)
	tests := []struct {
		model   string
		serve   Serve
		tensors uint64
		page    uint64
		groups  []budget.PageGroup
		reason  string
	}{
		{"meta-llama__Llama-3.1-8B-Instruct", Serve{}, 32, 16 * 8 * 2 * 128 * 2,
			[]budget.PageGroup{{Count: 1, PageTokens: 16, CapTokens: budget.NoCap}}, "one tensor per layer; 64 KiB pages"},
		{"Qwen__Qwen3-235B-A22B", Serve{TensorParallelSize: 8}, 94, 16 * 1 * 2 * 128 * 2,
			[]budget.PageGroup{{Count: 1, PageTokens: 16, CapTokens: budget.NoCap}}, "4 KV heads at TP8: one head replicated per rank"},
		{"deepseek-ai__DeepSeek-V3", Serve{TensorParallelSize: 8}, 61, 16 * 576 * 2,
			[]budget.PageGroup{{Count: 1, PageTokens: 16, CapTokens: budget.NoCap}},
			"MLA latent 576, not divided by TP; block 16: FlashAttention-MLA on Hopper with a bf16 KV cache"},
		{"deepseek-ai__DeepSeek-V3", Serve{KVCacheDtype: "fp8"}, 61, 64 * 576 * 1,
			[]budget.PageGroup{{Count: 1, PageTokens: 64, CapTokens: budget.NoCap}},
			"fp8 KV: FlashAttention-MLA refuses it, FlashMLA takes blocks of 64"},
		{"google__gemma-3-27b-it", Serve{MaxNumBatchedTokens: 8192}, 10, 16 * 16 * 2 * 128 * 2,
			[]budget.PageGroup{{Count: 6, PageTokens: 16, CapTokens: 1024 - 1 + 2*8192, ExtraPages: 1}, {Count: 1, PageTokens: 16, CapTokens: budget.NoCap}},
			"10 global + 52 local layers: group size 10, 6 sliding groups (8 padding layers, as vLLM logs) before the full one, as layer 0 is sliding; async scheduling keeps 2 batches in flight"},
		{"google__gemma-3-27b-it", Serve{MaxNumBatchedTokens: 8192, AsyncScheduling: engine.Off}, 10, 16 * 16 * 2 * 128 * 2,
			[]budget.PageGroup{{Count: 6, PageTokens: 16, CapTokens: 1024 - 1 + 8192, ExtraPages: 1}, {Count: 1, PageTokens: 16, CapTokens: budget.NoCap}},
			"without async scheduling, one batch in flight"},
		{"google__gemma-2-9b-it", Serve{MaxNumBatchedTokens: 2048}, 21, 16 * 8 * 2 * 256 * 2,
			[]budget.PageGroup{{Count: 1, PageTokens: 16, CapTokens: 4096 - 1 + 2*2048, ExtraPages: 1}, {Count: 1, PageTokens: 16, CapTokens: budget.NoCap}},
			"21 + 21 layers: two groups of 21, the sliding one first (layer 0 slides)"},
		{"meta-llama__Llama-3.1-8B-Instruct", Serve{PipelineParallelSize: 3}, 11, 16 * 8 * 2 * 128 * 2,
			[]budget.PageGroup{{Count: 1, PageTokens: 16, CapTokens: budget.NoCap}},
			"32 layers in 3 stages: 10, 11, 11 (get_pp_indices gives the remainder to the stages before the last, from the second-to-last back); the first stage's 10 tensors"},
		{"meta-llama__Llama-3.1-8B-Instruct", Serve{KVCacheDtype: "fp8", BlockSize: 128}, 32, 128 * 8 * 2 * 128 * 1,
			[]budget.PageGroup{{Count: 1, PageTokens: 128, CapTokens: budget.NoCap}}, "fp8 halves the page; block 128"},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			r := ref(t, archs[tt.model], tt.serve, testClass(false))
			want := budget.PagedPool{Tensors: tt.tensors, PageBytes: tt.page, Groups: tt.groups}
			if diff := cmp.Diff(want, r.Plan().Stages[0].Pool); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

func TestWeightsAgainstHandCount(t *testing.T) {
	archs := shipped(t)
	// Llama-3.1-8B: 8,030,261,248 parameters in bf16 (embed and lm_head
	// 128256 x 4096 each; 32 x (4096 x 6144 qkv + 4096 x 4096 o + 3 x 4096 x
	// 14336 + 2 x 4096 norms); final norm 4096), plus vLLM's rotary table
	// 131072 x 128 in bf16 (32 MiB).
	llama := uint64(8030261248*2 + 131072*128*2)
	// Qwen3-32B at TP2: embed/lm_head 151936 x 5120 halved; per layer qkv
	// (64 + 2x8) x 128 x 5120 halved, o 8192 x 5120 halved, MLP 3 x 5120 x
	// 25600 halved, 2 norms 5120, q/k norms 128 each; 40960 x 128 rope.
	perLayer := uint64((80*128*5120)/2+(8192*5120)/2+(3*5120*25600)/2) + 2*5120 + 2*128
	qwen32tp2 := 2*(2*(151936*5120/2)+64*perLayer+5120) + 40960*128*2
	tests := []struct {
		model string
		serve Serve
		want  uint64
	}{
		{"meta-llama__Llama-3.1-8B-Instruct", Serve{}, llama},
		{"Qwen__Qwen3-32B", Serve{TensorParallelSize: 2}, qwen32tp2},
	}
	for _, tt := range tests {
		r := ref(t, archs[tt.model], tt.serve, testClass(false))
		if got := r.Evaluate(0, 0).Footprint.Terms[budget.TermWeights]; got != tt.want {
			t.Errorf("%s: weights %d, want %d (%+.4f%%)", tt.model, got, tt.want, 100*(float64(got)-float64(tt.want))/float64(tt.want))
		}
	}
}

func TestLedgerNamesEveryAllocation(t *testing.T) {
	archs := shipped(t)
	l := ref(t, archs["meta-llama__Llama-3.1-8B-Instruct"], Serve{}, testClass(false)).Evaluate(2, 100)
	names := map[string]uint64{}
	for _, it := range l.Items {
		if _, dup := names[it.Name]; dup {
			t.Errorf("%s appears twice", it.Name)
		}
		names[it.Name] = it.Bytes
	}
	for name, want := range map[string]uint64{
		"model.layers.3.mlp.down_proj.weight":      14336 * 4096 * 2,
		"model.layers.0.self_attn.qkv_proj.weight": 4096 * 6144 * 2,
		"kv_cache.31[layers 31]":                   2 * 7 * 65536, // 2 sequences x cdiv(100, 16) blocks x 64 KiB
		"lm_head.weight":                           128256 * 4096 * 2,
		// The forward pass at 8192 batched tokens: the layer input kept by
		// the loop, its residual, norm and attention output (4 x hidden)
		// and the MLP's gate, up and their product (3 x intermediate), in
		// bf16, plus the V1 residual of 52 MiB (peaks.go).
		"activation_peak": 8192*2*(4*4096+3*14336) + 52<<20,
		// On main, dense Llama runs the V2 runner, whose dummy sampler holds
		// only the bf16 logits: 1024 x 128256 x 2 = 263 MB, below the
		// forward pass, so the peak's max leaves the sampler nothing.
		"sampler_logits": 0,
		"model.layers.31.post_attention_layernorm.weight": 4096 * 2,
	} {
		if got, ok := names[name]; !ok || got != want {
			t.Errorf("%s = %d (present %v), want %d", name, got, ok, want)
		}
	}
	if _, ok := names["cuda_graph_pool"]; !ok {
		t.Error("no cuda_graph_pool without --enforce-eager")
	}
	eager := ref(t, archs["meta-llama__Llama-3.1-8B-Instruct"], Serve{EnforceEager: true}, testClass(false))
	for _, it := range eager.Evaluate(1, 1).Items {
		if it.Term == budget.TermGraphPool {
			t.Errorf("--enforce-eager still has %s", it.Name)
		}
	}

}

// TestKVAllocationMatchesCapacity: the KV tensors the slack is computed over
// hold exactly the blocks the report's capacity counts, for uniform and
// hybrid models.
func TestKVAllocationMatchesCapacity(t *testing.T) {
	archs := shipped(t)
	for _, name := range []string{"meta-llama__Llama-3.1-8B-Instruct", "google__gemma-3-27b-it", "deepseek-ai__DeepSeek-V3"} {
		r := ref(t, archs[name], Serve{TensorParallelSize: 8, MaxModelLen: 4096}, bigClass)
		c := r.Capacity()
		var allocated uint64
		for _, it := range r.KVAllocation(0) {
			allocated += it.Bytes
		}
		if c.Blocks == 0 || allocated != c.Blocks*c.BlockBytes {
			t.Errorf("%s: KV tensors hold %d B, capacity %d blocks of %d B", name, allocated, c.Blocks, c.BlockBytes)
		}
	}
}

// TestSlidingAndMLAVariants covers two shapes no shipped config has: a
// Mistral v0.1-style model whose every layer uses the sliding window, and a
// DeepSeek-V2-Lite-style MLA model without q_lora_rank.
func TestSlidingAndMLAVariants(t *testing.T) {
	mistral := `{"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
	 "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "max_position_embeddings": 32768,
	 "sliding_window": 4096, "torch_dtype": "bfloat16"}`
	a, err := model.ParseConfig("mistral-v0.1.json", []byte(mistral))
	if err != nil {
		t.Fatal(err)
	}
	r := ref(t, a, Serve{MaxNumBatchedTokens: 2048, MaxNumSeqs: 256, AsyncScheduling: engine.Off}, testClass(false))
	want := budget.PagedPool{Tensors: 32, PageBytes: 16 * 8 * 2 * 128 * 2,
		Groups: []budget.PageGroup{{Count: 1, PageTokens: 16, CapTokens: 4096 - 1 + 2048, ExtraPages: 1}}}
	if diff := cmp.Diff(want, r.Plan().Stages[0].Pool); diff != "" {
		t.Errorf("all-sliding pool (-want +got):\n%s", diff)
	}
	// A sequence of 32768 tokens holds cdiv(6143, 16) + 1 = 385 blocks per
	// layer, not 2048.
	if got := r.Evaluate(1, 32768).Footprint.Terms[budget.TermKVCache]; got != 385*32*65536 {
		t.Errorf("KV of one 32k sequence = %d, want %d", got, 385*32*65536)
	}

	lite := `{"model_type": "deepseek_v2", "hidden_size": 2048, "num_hidden_layers": 27, "num_attention_heads": 16,
	 "num_key_value_heads": 16, "intermediate_size": 10944, "moe_intermediate_size": 1408, "vocab_size": 102400,
	 "max_position_embeddings": 163840, "kv_lora_rank": 512, "q_lora_rank": null, "qk_nope_head_dim": 128,
	 "qk_rope_head_dim": 64, "v_head_dim": 128, "n_routed_experts": 64, "n_shared_experts": 2,
	 "num_experts_per_tok": 6, "first_k_dense_replace": 1, "torch_dtype": "bfloat16"}`
	a, err = model.ParseConfig("deepseek-v2-lite.json", []byte(lite))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]uint64{}
	for _, it := range ref(t, a, Serve{TensorParallelSize: 2, MaxModelLen: 8192}, testClass(false)).Evaluate(1, 64).Items {
		names[it.Name] = it.Bytes
	}
	for name, want := range map[string]uint64{
		"model.layers.0.self_attn.q_proj.weight":                2048 * 16 * 192 / 2 * 2, // no q_lora: q_proj, heads halved by TP2
		"model.layers.1.mlp.experts.w13_weight":                 64 * 2048 * 2 * 704 * 2, // 64 experts, 1408/2 per rank
		"model.layers.1.mlp.shared_experts.gate_up_proj.weight": 2048 * 2 * 1408 * 2 / 2 * 2,
		"model.layers.0.mlp.gate_up_proj.weight":                2048 * 2 * 10944 / 2 * 2, // the first layer is dense
		"kv_cache.26[layers 26]":                                4 * 16 * 576 * 2,         // 4 blocks of 16 tokens, latent 576, whole on each rank
	} {
		if got, ok := names[name]; !ok || got != want {
			t.Errorf("%s = %d (present %v), want %d", name, got, ok, want)
		}
	}
	if _, ok := names["model.layers.0.self_attn.q_a_proj.weight"]; ok {
		t.Error("q_a_proj present without q_lora_rank")
	}
}

// TestMLADequantizedCopies: vLLM's MLA attention keeps W_UK_T and W_UV
// beside kv_b_proj only when it must dequantize it (DeepSeek-V3's fp8
// blocks); a bf16 kv_b_proj (DeepSeek-V2-Lite) yields views of its own
// weight, no memory.
func TestMLADequantizedCopies(t *testing.T) {
	archs := shipped(t)
	for _, tt := range []struct {
		model string
		// copies per layer: W_UK_T and W_UV, on the layers of the first
		// stage (every layer: no pipeline parallelism).
		want int
	}{
		{"deepseek-ai__DeepSeek-V3", 2 * 61},
		{"deepseek-ai__DeepSeek-V2-Lite", 0},
	} {
		a := archs[tt.model]
		r, err := Resolve(Serve{TensorParallelSize: 1, MaxModelLen: 4096}, a, testClass(false), current)
		if err != nil {
			t.Fatal(err)
		}
		st := r.Stages[0]
		st.TP, st.ExpertRanks, st.DtypeBytes, st.Quant = r.TensorParallelSize, r.ExpertRanks, r.DtypeBytes, r.Quant
		got := 0
		for _, it := range weightItems(a, st) {
			if strings.HasSuffix(it.Name, ".W_UK_T") || strings.HasSuffix(it.Name, ".W_UV") {
				got++
			}
		}
		if got != tt.want {
			t.Errorf("%s: %d W_UK_T/W_UV tensors, want %d", tt.model, got, tt.want)
		}
	}
}
