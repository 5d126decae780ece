package sglang

import (
	"errors"
	"math"
	"strings"
	"testing"

	"membudget/engine"
	"membudget/model"
)

func TestProfileFor(t *testing.T) {
	for spec, want := range map[string]string{"": DefaultName, "default": DefaultName, "latest": "v0.5.18", "0.5.18": "v0.5.18", "0.5.17": "v0.5.17", "0.5.16": "v0.5.16", "0.5.15.post1": "v0.5.15.post1", "0.5.15": "v0.5.15", "0.5.14": "v0.5.14", "0.5.13.post1": "v0.5.13.post1", "0.5.13": "v0.5.13", "v0.5.13.post1": "v0.5.13.post1", "0.5.12": "v0.5.12", "v0.5.12.post1": "v0.5.12.post1", "0.5.11": "v0.5.11", "0.5.10": "v0.5.10", "V0.5.10.post1": "v0.5.10.post1", "0.5.6.post2": "v0.5.6.post2", "v0.5.6.post3": "v0.5.6.post3", "0.5.7": "v0.5.7", "v0.5.8": "v0.5.8", "0.5.8.post1": "v0.5.8.post1", "0.5.9": "v0.5.9", "V0.5.9.post1": "v0.5.9.post1", "V0.4.9.post2": "v0.4.9.post2"} {
		p, err := ProfileFor(spec)
		if err != nil || p.Name != want {
			t.Errorf("ProfileFor(%q) = %q, %v; want %q", spec, p.Name, err, want)
		}
	}
	for _, spec := range []string{"0.5.19", "v0.5.18.post1", "v0.5.17.post1", "v0.5.16.post1", "v0.5.15.post2", "v0.5.14.post1", "v0.5.13.post2", "v0.5.12.post2", "v0.5.11.post1", "v0.5.10rc0", "v0.5.10.post2", "v0.5.9.post2", "v0.5.8.post2", "v0.5.7.post1", "v0.5.6.post4", "v0.4.9", "main", "0.5.6"} {
		var se *engine.SettingError
		if _, err := ProfileFor(spec); !errors.As(err, &se) || se.Flag != "sglang-version" {
			t.Errorf("ProfileFor(%q): %v, want a --sglang-version engine.SettingError", spec, err)
		}
	}
}

// TestResolveDefaults: the defaults an H100 class and a B200 class get.
// gpu_mem is memory_bytes in MiB: 81080 for h100-sxm-80g, 182633 for b200.
func TestResolveDefaults(t *testing.T) {
	archs := shipped(t)
	llama := archs["meta-llama__Llama-3.1-8B-Instruct"]
	tests := []struct {
		name      string
		model     string // "" for Llama 3.1 8B
		class     string
		p         Profile
		s         Serve
		msf       float64
		chunked   int64
		graphBS   uint64
		page      uint64
		backend   string
		reasoning string
	}{
		{"h100 tp1", "", "h100-sxm-80g", current, Serve{}, 0.834, 8192, 256, 1, "",
			"512 + 12288 + 512 + 128 = 13440 MiB of 81080: 0.83424; fa3 on Hopper, page 1"},
		{"h100 tp4", "", "h100-sxm-80g", current, Serve{TPSize: 4}, 0.823, 8192, 512, 1, "",
			"512 + 12288 + 1024 + 512 = 14336 of 81080: 0.82319"},
		{"h100 tp1 v0.4.9.post2", "", "h100-sxm-80g", r049, Serve{}, 0.874, 8192, 0, 1, "",
			"(9.5 + 0.5) GiB = 10240 of 81080: 0.87371; no default cuda_graph_max_bs above 35 GiB"},
		{"b200", "", "b200", current, Serve{}, 0.856, 16384, 512, 64, "trtllm_mha",
			"512 + 24576 + 1024 + 128 = 26240 of 182633: 0.85632; trtllm_mha on SM100 forces page 64"},
		{"b200 triton", "", "b200", current, Serve{AttentionBackend: "triton"}, 0.856, 16384, 512, 1, "triton", "a given backend keeps page 1"},
		{"mi300x aiter", "", "mi300x", current, Serve{MemFractionStatic: 0.9}, 0.9 * 0.85, 16384, 512, 1, "aiter",
			"aiter above 8192 tokens of context multiplies even a given msf by 0.85"},
		{"rtx-4090 tp1", "", "rtx-4090", current, Serve{}, 0.844, 2048, 24, 1, "",
			"24115 MiB: 512 + 3072 + 48 + 128 = 3760; 20355/24115 = 0.84408"},
		{"mi300x DeepSeek-V3 tp8", "deepseek-ai__DeepSeek-V3", "mi300x", current, Serve{TPSize: 8}, 0.862 * 0.85, 16384, 512, 1, "aiter",
			"196288 MiB: 512 + 24576 + 1024 + 1024 = 27136; 169152/196288 = 0.86175 -> 0.862; MLA with 128/8 = 16 KV heads per rank takes aiter, and 163840 tokens of context x0.85"},
	}
	for _, tt := range tests {
		a := llama
		if tt.model != "" {
			a = archs[tt.model]
		}
		r, err := Resolve(tt.s, a, class(t, tt.class), tt.p)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		checkServerDefaults(t, tt.name, tt.reasoning, &r, serverDefaults{tt.msf, tt.chunked, tt.graphBS, tt.page, tt.backend})
		if tt.model == "" && (r.ContextLength != 131072 || r.MaxPrefillTokens != 16384) {
			t.Errorf("%s: context %d, max_prefill %d; want 131072 and 16384", tt.name, r.ContextLength, r.MaxPrefillTokens)
		}
	}
}

// TestCell: the KV bytes per token a stage profiles with.
func TestCell(t *testing.T) {
	archs := shipped(t)
	tests := []struct {
		model string
		s     Serve
		want  uint64
		why   string
	}{
		{"Qwen__Qwen3-235B-A22B", Serve{TPSize: 4}, 48128, "4 KV heads / TP4 = 1 x 128 x 94 layers x 2 (K, V) x 2 B"},
		{"Qwen__Qwen3-235B-A22B", Serve{TPSize: 8}, 48128, "4 KV heads at TP8: max(1, 4/8) = 1, replicated"},
		{"meta-llama__Llama-3.1-8B-Instruct", Serve{}, 131072, "8 x 128 x 32 x 2 x 2"},
		{"meta-llama__Llama-3.1-8B-Instruct", Serve{KVCacheDtype: "fp8_e4m3"}, 65536, "fp8: 1 B"},
		{"deepseek-ai__DeepSeek-V3", Serve{TPSize: 8, JITDeepGEMM: engine.Off}, 70272, "MLA latent (512 + 64) x 61 x 2 B, whole on every rank"},
		{"google__gemma-3-27b-it", Serve{TPSize: 2}, 253952, "16 KV heads / 2 x 128 x 62 x 2 x 2: every layer, sliding or not"},
	}
	for _, tt := range tests {
		r := ref(t, archs[tt.model], tt.s, class(t, "b200"), current)
		if got := r.Capacity().CellBytes; got != tt.want {
			t.Errorf("%s %+v: cell %d, want %d (%s)", tt.model, tt.s, got, tt.want, tt.why)
		}
	}
}

// shape is a one-layer architecture of the given class and layer kind: the
// model checks run before anything reads its sizes.
func shape(arch string, kind model.LayerKind) *model.Arch {
	return &model.Arch{Source: arch + ".json", Architectures: []string{arch}, Layers: []model.Layer{{Kind: kind}}}
}

// mambaBeside gives a's layer a Mamba mixer beside its attention, as
// Falcon-H1's are.
func mambaBeside(a *model.Arch) *model.Arch {
	a.Layers[0].MambaBeside = true
	return a
}

func withIndexer(a *model.Arch) *model.Arch {
	a.Indexer = &model.IndexerShape{HeadDim: 128, NumHeads: 64, TopK: 2048}
	return a
}

func TestSettingErrors(t *testing.T) {
	archs := shipped(t)
	llama := archs["meta-llama__Llama-3.1-8B-Instruct"]
	qwen := archs["Qwen__Qwen3-235B-A22B"]
	deepseek := archs["deepseek-ai__DeepSeek-V3"]
	gemma := archs["google__gemma-3-27b-it"]
	mistral, err := model.ParseConfig("mistral-v0.1.json", []byte(`{"model_type": "mistral", "architectures": ["MistralForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 32,
	 "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
	 "max_position_embeddings": 32768, "sliding_window": 4096, "torch_dtype": "bfloat16"}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		a     *model.Arch
		s     Serve
		class string
		p     Profile
		flag  string
		says  string
	}{
		{"msf 1", llama, Serve{MemFractionStatic: 1}, "h100-sxm-80g", current, "mem-fraction-static", "(0, 1)"},
		{"msf negative", llama, Serve{MemFractionStatic: -0.5}, "h100-sxm-80g", current, "mem-fraction-static", "(0, 1)"},
		{"msf NaN", llama, Serve{MemFractionStatic: math.NaN()}, "h100-sxm-80g", current, "mem-fraction-static", "(0, 1)"},
		{"context above the derived one", llama, Serve{ContextLength: 200000}, "h100-sxm-80g", current, "context-length", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"},
		{"context above, explicitly refused", llama, Serve{ContextLength: 200000, AllowLongContext: engine.Off}, "h100-sxm-80g", r049, "context-length", "131072"},
		{"bf16 KV before v0.5", llama, Serve{KVCacheDtype: "bf16"}, "h100-sxm-80g", r049, "kv-cache-dtype", "fp8_e5m2"},
		{"fp4 KV", llama, Serve{KVCacheDtype: "fp4_e2m1"}, "b200", current, "kv-cache-dtype", "not modelled"},
		{"unknown KV dtype", llama, Serve{KVCacheDtype: "int8"}, "h100-sxm-80g", current, "kv-cache-dtype", "want auto"},
		{"tp not dividing heads", llama, Serve{TPSize: 3}, "h100-sxm-80g", current, "tp-size", "32 attention heads"},
		{"tp not dividing the MoE intermediate", qwen, Serve{TPSize: 128}, "h100-sxm-80g", current, "tp-size", "does not divide"},
		{"pp above the layers", llama, Serve{PPSize: 33}, "h100-sxm-80g", current, "pp-size", "32 layers"},
		{"MLA with PP before v0.5", deepseek, Serve{PPSize: 2, TPSize: 8}, "h200", r049, "pp-size", "pp_size == 1"},
		{"sliding-window split with PP", gemma, Serve{PPSize: 2}, "h100-sxm-80g", splitSWA, "pp-size", "not modelled"},
		{"DP attention", llama, Serve{EnableDPAttention: true, DPSize: 2}, "h100-sxm-80g", current, "enable-dp-attention", "not modelled"},
		{"trtllm_mha by default on SM12x", llama, Serve{}, "rtx-5090", current, "attention-backend", "#14814"},
		{"trtllm_mla off Blackwell", deepseek, Serve{AttentionBackend: "trtllm_mla", TPSize: 8}, "h200", current, "attention-backend", "Blackwell"},
		{"an unmodelled backend", llama, Serve{AttentionBackend: "fa4"}, "h100-sxm-80g", current, "attention-backend", "not modelled"},
		{"trtllm backends before v0.5", llama, Serve{AttentionBackend: "trtllm_mha"}, "b200", r049, "attention-backend", "not modelled"},
		{"chunked prefill not a multiple of the page", deepseek, Serve{AttentionBackend: "flashmla", ChunkedPrefillSize: 1000, TPSize: 8}, "h200", current, "chunked-prefill-size", "divisible by --page-size 64"},
		{"quantization disagrees with the checkpoint", archs["Qwen__Qwen3-32B-FP8"], Serve{Quantization: "awq"}, "h100-sxm-80g", current, "quantization", "quantized with fp8"},
		{"unmodelled quantization", llama, Serve{Quantization: "w8a8_int8"}, "h100-sxm-80g", current, "quantization", "not modelled"},
		{"bad dtype", llama, Serve{Dtype: "int4"}, "h100-sxm-80g", current, "dtype", "want auto"},
		{"sliding window outside Gemma", mistral, Serve{}, "h100-sxm-80g", current, "model", "only Gemma 2, Gemma 3 and gpt-oss"},
		{"no native implementation", shape("Qwen3_5ForConditionalGeneration", model.FullAttention), Serve{}, "h100-sxm-80g", current, "model", "Transformers backend"},
		{"gpt-oss predates v0.4.9.post2's models", shape("GptOssForCausalLM", model.FullAttention), Serve{}, "h100-sxm-80g", r049, "model", "Transformers backend"},
		{"Mamba layers", shape("NemotronHForCausalLM", model.Mamba), Serve{}, "h100-sxm-80g", current, "model", "Mamba state pool"},
		{"gated delta net layers", shape("Qwen3NextForCausalLM", model.LinearAttention), Serve{}, "h100-sxm-80g", current, "model", "Mamba state pool"},
		{"Falcon-H1's Mamba beside attention", mambaBeside(shape("FalconH1ForCausalLM", model.FullAttention)), Serve{}, "h100-sxm-80g", current, "model", "Mamba state pool"},
		{"Llama 4's chunked attention", shape("Llama4ForConditionalGeneration", model.ChunkedAttention), Serve{}, "h100-sxm-80g", current, "model", "attention_chunk_size"},
		{"MiniCPM3's latent pool", shape("MiniCPM3ForCausalLM", model.FullAttention), Serve{}, "h100-sxm-80g", current, "model", "MLA latent"},
		{"NSA indexer", withIndexer(shape("DeepseekV32ForCausalLM", model.FullAttention)), Serve{}, "h200", current, "model", "indexer"},
		{"max-total-tokens beyond any serve", llama, Serve{MaxTotalTokens: 1 << 40}, "h100-sxm-80g", current, "max-total-tokens", "beyond"},
	}
	for _, tt := range tests {
		_, err := NewReference(tt.a, tt.s, class(t, tt.class), tt.p)
		var se *engine.SettingError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v, want a *engine.SettingError", tt.name, err)
			continue
		}
		if se.Flag != tt.flag || !strings.Contains(se.Error(), tt.says) {
			t.Errorf("%s: %v; want flag --%s saying %q", tt.name, se, tt.flag, tt.says)
		}
	}
	// v0.4.9.post2 accepts a longer context by default (the variable
	// defaulted to True), and so does v0.5.6.post2 with it set.
	for _, c := range []struct {
		p Profile
		s Serve
	}{{r049, Serve{ContextLength: 200000}}, {current, Serve{ContextLength: 200000, AllowLongContext: engine.On}}} {
		r, err := Resolve(c.s, llama, class(t, "h100-sxm-80g"), c.p)
		if err != nil || r.ContextLength != 200000 {
			t.Errorf("%s: a longer context: %v, context %d", c.p.Name, err, r.ContextLength)
		}
	}
}
