package properties

import (
	"encoding/json"
	"fmt"
	"math"

	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/model"
	"membudget/model/vllm"
)

// genConfig draws a valid config.json of one of the families, with shapes
// from the real ranges: heads 1-64, GQA ratios, head_dim 32-256, MLA, MoE,
// sliding windows (uniform, alternating, patterned), quantization.
func genConfig() *rapid.Generator[map[string]any] {
	return rapid.Custom(func(t *rapid.T) map[string]any {
		family := rapid.SampledFrom([]string{"llama", "mistral", "qwen3", "qwen3_moe", "mixtral", "deepseek_v3", "gemma2", "gemma3_text", "phi3"}).Draw(t, "family")
		heads := rapid.SampledFrom([]uint64{1, 2, 4, 8, 16, 32, 64}).Draw(t, "heads")
		kvDiv := rapid.SampledFrom(divisors(heads)).Draw(t, "kv_ratio")
		headDim := rapid.SampledFrom([]uint64{32, 64, 80, 128, 256}).Draw(t, "head_dim")
		layers := rapid.Uint64Range(1, 48).Draw(t, "layers")
		maxPos := rapid.SampledFrom([]uint64{256, 2048, 4096, 32768, 131072}).Draw(t, "max_position")
		c := map[string]any{
			"model_type":              family,
			"hidden_size":             heads * headDim,
			"num_hidden_layers":       layers,
			"num_attention_heads":     heads,
			"num_key_value_heads":     heads / kvDiv,
			"intermediate_size":       128 * rapid.Uint64Range(1, 160).Draw(t, "inter_x128"),
			"vocab_size":              rapid.Uint64Range(256, 262144).Draw(t, "vocab"),
			"max_position_embeddings": maxPos,
			"torch_dtype":             rapid.SampledFrom([]string{"bfloat16", "float16", "float32"}).Draw(t, "dtype"),
			"tie_word_embeddings":     rapid.Bool().Draw(t, "tied"),
		}
		if rapid.Bool().Draw(t, "explicit_head_dim") {
			c["head_dim"] = headDim
			c["hidden_size"] = 128 * rapid.Uint64Range(1, 64).Draw(t, "hidden_x128")
		}
		window := rapid.Uint64Range(1, 8192).Draw(t, "window")
		switch family {
		case "mistral", "phi3":
			if rapid.Bool().Draw(t, "sliding") {
				c["sliding_window"] = window
			}
		case "gemma2":
			c["sliding_window"] = window
		case "gemma3_text":
			c["sliding_window"] = window
			c["sliding_window_pattern"] = rapid.Uint64Range(1, 8).Draw(t, "pattern")
		case "qwen3_moe", "mixtral":
			experts := rapid.Uint64Range(2, 64).Draw(t, "experts")
			c["num_experts_per_tok"] = rapid.Uint64Range(1, experts).Draw(t, "topk")
			if family == "mixtral" {
				c["num_local_experts"] = experts
			} else {
				c["num_experts"] = experts
				c["moe_intermediate_size"] = 128 * rapid.Uint64Range(1, 16).Draw(t, "moe_inter_x128")
			}
		case "deepseek_v3":
			c["kv_lora_rank"] = rapid.SampledFrom([]uint64{64, 128, 512}).Draw(t, "kv_lora")
			c["qk_rope_head_dim"] = rapid.SampledFrom([]uint64{16, 32, 64}).Draw(t, "rope")
			c["qk_nope_head_dim"] = rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "nope")
			c["v_head_dim"] = rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "v")
			c["q_lora_rank"] = rapid.SampledFrom([]uint64{0, 64, 1536}).Draw(t, "q_lora")
			if rapid.Bool().Draw(t, "moe") {
				experts := rapid.Uint64Range(2, 64).Draw(t, "experts")
				c["n_routed_experts"] = experts
				c["num_experts_per_tok"] = rapid.Uint64Range(1, experts).Draw(t, "topk")
				c["moe_intermediate_size"] = 128 * rapid.Uint64Range(1, 16).Draw(t, "moe_inter_x128")
				c["n_shared_experts"] = rapid.Uint64Range(0, 2).Draw(t, "shared")
				c["first_k_dense_replace"] = rapid.Uint64Range(0, layers).Draw(t, "first_dense")
				c["topk_method"] = "noaux_tc"
			}
		}
		switch q := rapid.SampledFrom([]string{"", "", "fp8", "fp8-block", "awq", "gptq"}).Draw(t, "quant"); q {
		case "fp8":
			c["quantization_config"] = map[string]any{"quant_method": "fp8"}
		case "fp8-block":
			c["quantization_config"] = map[string]any{"quant_method": "fp8", "weight_block_size": []uint64{128, 128}}
		case "awq", "gptq":
			c["quantization_config"] = map[string]any{"quant_method": q, "bits": 4, "group_size": rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "group")}
		}
		return c
	})
}

func divisors(n uint64) []uint64 {
	var d []uint64
	for i := uint64(1); i <= n; i++ {
		if n%i == 0 {
			d = append(d, i)
		}
	}
	return d
}

// sizedClass draws a device class sized around the serve's own footprint,
// so that the queries' answers spread over nothing-fits, inside the range
// and capped, rather than piling up at the ends: the budget is the fixed
// ledger plus k sequences of a drawn length (k up to twice the sequence
// cap), the driver's fixed bytes around what the util leaves beside it.
func sizedClass(t *rapid.T, a *model.Arch, s vllm.Serve, si budget.Silicon) budget.Class {
	probe := budget.Class{Name: "probe", Device: budget.Device{Name: "probe", Silicon: si, MemoryBytes: 1 << 50}, Memory: budget.DriverTerms{UtilCeiling: 1}}
	ref, err := vllm.NewReference(a, s, probe, current)
	if err != nil {
		t.Fatalf("a valid serve is refused: %v", err)
	}
	fixed := ref.Evaluate(0, 0).Footprint.Ledger
	length := rapid.Uint64Range(1, ref.Serve.MaxModelLen).Draw(t, "sizing_length")
	perSeq := ref.Evaluate(1, length).Footprint.Ledger - fixed
	k := rapid.Uint64Range(0, 2*ref.Serve.MaxNumSeqs).Draw(t, "sizing_seqs")
	b := fixed + k*perSeq + rapid.Uint64Range(0, perSeq).Draw(t, "sizing_jitter")
	memory := uint64(float64(b)/s.GPUMemoryUtilization) + 1
	beside := memory - uint64(float64(memory)*s.GPUMemoryUtilization)
	return budget.Class{
		Name:   "gen",
		Device: budget.Device{Name: "Generated GPU", Silicon: si, MemoryBytes: memory},
		Memory: budget.DriverTerms{
			DriverFixedBytes:     rapid.Uint64Range(0, beside+beside/4).Draw(t, "fixed"),
			DriverBudgetPerMille: rapid.Uint64Range(0, 20).Draw(t, "per_mille"),
			Unified:              rapid.Bool().Draw(t, "unified"),
			UtilCeiling:          1,
		},
	}
}

// serveCase is a parsed architecture with a serve that Resolve accepts;
// Config, its config.json, comes first so that a counterexample reads.
type serveCase struct {
	Config string
	Arch   *model.Arch
	Serve  vllm.Serve
	Class  budget.Class
	Ref    *vllm.Reference
}

func (c serveCase) String() string {
	return fmt.Sprintf("%s / %+v on %+v", c.Arch, c.Serve, c.Class)
}

// genServeCase draws a config, parses it with the real parser, and draws
// serve settings vLLM would accept for it: TP among the divisors that fit
// the heads, KV heads and intermediate sizes; lengths within the model's.
func genServeCase(maxSeqsCap, maxLenCap uint64) *rapid.Generator[serveCase] {
	return rapid.Custom(func(t *rapid.T) serveCase {
		cfg := genConfig().Draw(t, "config")
		data, err := json.Marshal(cfg)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		a, err := model.ParseConfig("gen.json", data)
		if err != nil {
			t.Fatalf("a generated valid config does not parse: %v\n%s", err, data)
		}
		ep := a.Experts > 0 && rapid.Bool().Draw(t, "expert_parallel")
		var tps []uint64
		for _, tp := range []uint64{1, 2, 4, 8} {
			if a.Heads%tp == 0 && (a.MLA || a.KVHeads%tp == 0 || tp%a.KVHeads == 0) && a.Intermediate%tp == 0 && (ep || a.MoEIntermediate%tp == 0) {
				tps = append(tps, tp)
			}
		}
		seqs := rapid.Uint64Range(1, maxSeqsCap).Draw(t, "max_num_seqs")
		s := vllm.Serve{
			GPUMemoryUtilization: rapid.Float64Range(0.05, 1).Draw(t, "util"),
			MaxModelLen:          rapid.Uint64Range(1, min(a.MaxPosition, maxLenCap)).Draw(t, "max_model_len"),
			MaxNumSeqs:           seqs,
			MaxNumBatchedTokens:  rapid.Uint64Range(seqs, 16384).Draw(t, "max_num_batched_tokens"),
			BlockSize:            16 * rapid.SampledFrom([]uint64{1, 2, 4, 8, 16}).Draw(t, "block_size_x16"),
			KVCacheDtype:         rapid.SampledFrom([]string{"auto", "fp8", "bfloat16"}).Draw(t, "kv_cache_dtype"),
			TensorParallelSize:   rapid.SampledFrom(tps).Draw(t, "tp"),
			PipelineParallelSize: rapid.Uint64Range(1, min(4, uint64(len(a.Layers)))).Draw(t, "pp"),
			DataParallelSize:     rapid.SampledFrom([]uint64{1, 2}).Draw(t, "dp"),
			EnableExpertParallel: ep,
			EnforceEager:         rapid.Bool().Draw(t, "enforce_eager"),
			AsyncScheduling:      rapid.SampledFrom([]vllm.Switch{vllm.Default, vllm.On, vllm.Off}).Draw(t, "async"),
			CPUOffloadGiB:        float64(rapid.Uint64Range(0, 2).Draw(t, "cpu_offload_gib")) / 4,
		}
		if rapid.Bool().Draw(t, "default_block") {
			s.BlockSize = 0 // the backend's, which for MLA depends on the silicon
		}
		if a.Quant.Method == "" && rapid.Bool().Draw(t, "online_fp8") {
			s.Quantization = "fp8"
		}
		si := rapid.SampledFrom(silicons).Draw(t, "silicon")
		if s.KVCacheDtype == "fp8" && si.Vendor == budget.NVIDIA && !si.AtLeast(8, 9) {
			s.KVCacheDtype = "auto" // vLLM refuses fp8 KV there: a setting error, tested elsewhere
		}
		if rapid.Bool().Draw(t, "kv_cache_memory") {
			s.KVCacheMemoryBytes = rapid.Uint64Range(1<<20, 1<<34).Draw(t, "kv_cache_memory_bytes")
		}
		c := sizedClass(t, a, s, si)
		s.KVCacheMemoryBytes = min(s.KVCacheMemoryBytes, c.Device.MemoryBytes)
		ref, err := vllm.NewReference(a, s, c, current)
		if err != nil {
			t.Fatalf("a valid serve is refused: %v", err)
		}
		return serveCase{string(data), a, s, c, ref}
	})
}

// silicons are the devices the generators size on: the backends, block
// sizes and dtypes vLLM picks differ between them.
var silicons = []budget.Silicon{
	{Vendor: budget.NVIDIA, Major: 9},           // Hopper: FlashAttention(-MLA)
	{Vendor: budget.NVIDIA, Major: 10},          // Blackwell: FlashInfer(-MLA)
	{Vendor: budget.NVIDIA, Major: 8, Minor: 9}, // Ada: Triton-MLA
	{Vendor: budget.NVIDIA, Major: 8},           // Ampere
	{Vendor: budget.NVIDIA, Major: 7, Minor: 5}, // Turing: no bfloat16, no fp8 KV
	{Vendor: budget.AMD, Target: "gfx942"},      // MI300X
}

// current is the profile the properties size under.
var current, _ = vllm.ProfileFor("main")

// genPoint draws (seqs, tokens) that reach the edges: 0, 1, block
// boundaries, the caps, and beyond.
func genPoint(t *rapid.T, c serveCase) (uint64, uint64) {
	bs := c.Ref.Serve.BlockSize
	s := rapid.OneOf(rapid.Uint64Range(0, 4), rapid.Uint64Range(0, c.Ref.Serve.MaxNumSeqs), rapid.Uint64Range(0, 1<<20)).Draw(t, "seqs")
	tok := rapid.OneOf(
		rapid.Uint64Range(0, 3),
		rapid.Custom(func(t *rapid.T) uint64 {
			// a block boundary, one before it or one after it
			v := bs*rapid.Uint64Range(0, 4096).Draw(t, "blocks") + rapid.Uint64Range(0, 2).Draw(t, "off")
			return budget.SatSub(v, 1)
		}),
		rapid.Uint64Range(0, c.Ref.Serve.MaxModelLen),
		rapid.Uint64Range(0, math.MaxUint32),
	).Draw(t, "tokens")
	return s, tok
}
