package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

func TestResolveDefaults(t *testing.T) {
	archs := loadShipped(t)
	h100 := budget.Class{Name: "h", Device: budget.Device{Name: "NVIDIA H100 80GB HBM3", MemoryBytes: 79 << 30}, Memory: budget.DriverTerms{UtilCeiling: 1}}
	a100 := budget.Class{Name: "a", Device: budget.Device{Name: "NVIDIA A100-SXM4-80GB", MemoryBytes: 79 << 30}, Memory: budget.DriverTerms{UtilCeiling: 1}}
	l4 := budget.Class{Name: "l", Device: budget.Device{Name: "NVIDIA L4", MemoryBytes: 22 << 30}, Memory: budget.DriverTerms{UtilCeiling: 1}}
	type got struct {
		Util                       float64
		MaxLen, Seqs, Batched, Blk uint64
		Dtype, KV                  string
		DtypeBytes, KVBytes, TP    uint64
	}
	tests := []struct {
		name  string
		model string
		serve Serve
		class budget.Class
		want  got
	}{
		{"h100 defaults", "meta-llama__Llama-3.1-8B-Instruct", Serve{}, h100, got{0.9, 131072, 1024, 8192, 16, "bfloat16", "auto", 2, 2, 1}},
		{"a100 is not a big device", "meta-llama__Llama-3.1-8B-Instruct", Serve{}, a100, got{0.9, 131072, 256, 2048, 16, "bfloat16", "auto", 2, 2, 1}},
		{"small device", "meta-llama__Llama-3.1-8B-Instruct", Serve{}, l4, got{0.9, 131072, 256, 2048, 16, "bfloat16", "auto", 2, 2, 1}},
		{"mla block 64", "deepseek-ai__DeepSeek-V3", Serve{TensorParallelSize: 8}, h100, got{0.9, 163840, 1024, 8192, 64, "bfloat16", "auto", 2, 2, 8}},
		{"float32 checkpoint served fp16", "meta-llama__Llama-2-7b-hf", Serve{}, h100, got{0.9, 4096, 1024, 8192, 16, "float16", "auto", 2, 2, 1}},
		{"fp8 kv", "Qwen__Qwen3-8B", Serve{KVCacheDtype: "fp8", MaxModelLen: 8192, Dtype: "half"}, h100, got{0.9, 8192, 1024, 8192, 16, "float16", "fp8", 2, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Resolve(tt.serve, archs[tt.model], tt.class)
			if err != nil {
				t.Fatal(err)
			}
			g := got{r.GPUMemoryUtilization, r.MaxModelLen, r.MaxNumSeqs, r.MaxNumBatchedTokens, r.BlockSize, r.Dtype, r.KVCacheDtype, r.DtypeBytes, r.KVDtypeBytes, r.TensorParallelSize}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for flag := range r.Sources {
				if r.Sources[flag] == "" {
					t.Errorf("default %s has no source", flag)
				}
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	archs := loadShipped(t)
	c := testClass(false)
	llama := archs["meta-llama__Llama-3.1-8B-Instruct"]
	tests := []struct {
		name  string
		arch  *Arch
		serve Serve
		want  string
	}{
		{"tp does not divide heads", llama, Serve{TensorParallelSize: 3}, "--tensor-parallel-size 3: does not divide the 32 attention heads of ../corpus/models/meta-llama__Llama-3.1-8B-Instruct.json"},
		{"max len above the model", llama, Serve{MaxModelLen: 200000}, "--max-model-len 200000: above the model's max_position_embeddings 131072"},
		{"batched below seqs", llama, Serve{MaxNumSeqs: 512, MaxNumBatchedTokens: 256}, "--max-num-batched-tokens 256: below --max-num-seqs 512"},
		{"bad block", llama, Serve{BlockSize: 48}, "--block-size 48: want one of 1, 8, 16, 32, 64, 128, 256"},
		{"bad dtype", llama, Serve{Dtype: "int8"}, `--dtype "int8": want auto, bfloat16, float16 or float32`},
		{"bad kv dtype", llama, Serve{KVCacheDtype: "int4"}, `--kv-cache-dtype "int4": want auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16 or float16`},
		{"awq without checkpoint", llama, Serve{Quantization: "awq"}, "--quantization \"awq\": needs a checkpoint quantized with awq (its config.json has no quantization_config)"},
		{"unknown quantization", llama, Serve{Quantization: "nf4"}, `--quantization "nf4": want one of awq, awq_marlin, fp8, gptq, gptq_marlin`},
		{"quantization disagrees", archs["Qwen__Qwen3-32B-FP8"], Serve{Quantization: "gptq"}, `--quantization "gptq": the checkpoint ../corpus/models/Qwen__Qwen3-32B-FP8.json is quantized with fp8`},
		{"negative swap", llama, Serve{SwapSpaceGiB: -1}, "--swap-space -1: want a size in GiB, 0 or more"},
		{"util above ceiling", llama, Serve{GPUMemoryUtilization: 0.99}, "--gpu-memory-utilization: class test-80g: gpu_memory_utilization 0.99: is above the class's util_ceiling 0.95"},
		{"tp and kv heads", archs["Qwen__Qwen2.5-0.5B-Instruct"], Serve{TensorParallelSize: 7}, "--tensor-parallel-size 7: neither divides nor is a multiple of the 2 KV heads of ../corpus/models/Qwen__Qwen2.5-0.5B-Instruct.json"},
		{"tp does not divide intermediate", archs["Qwen__Qwen2.5-0.5B-Instruct"], Serve{TensorParallelSize: 14}, "--tensor-parallel-size 14: does not divide intermediate_size 4864 of ../corpus/models/Qwen__Qwen2.5-0.5B-Instruct.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewReference(tt.arch, tt.serve, c)
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestQuantizedWeights checks the int4 and fp8 layouts against a hand count
// on a small layer: 1024 in, 4096 out, group 128.
func TestQuantizedWeights(t *testing.T) {
	base := `{"model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 1, "num_attention_heads": 8,
	 "num_key_value_heads": 8, "intermediate_size": 4096, "vocab_size": 64, "max_position_embeddings": 16,
	 "torch_dtype": "float16"QUANT}`
	const in, out, g = 1024, 4096, 128
	tests := []struct {
		name  string
		quant string
		serve Serve
		want  uint64 // bytes of model.layers.0.mlp.gate_up_proj (2 x 4096 out)
	}{
		{"none", "", Serve{}, in * 2 * out * 2},
		{"fp8 online", "", Serve{Quantization: "fp8"}, in*2*out + 4},
		{"fp8 blocks", `, "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}`, Serve{}, in*2*out + (2*out/128)*(in/128)*4},
		{"awq", `, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128}`, Serve{Quantization: "awq_marlin"},
			in*2*out/2 + (in/g)*(2*out/8)*4 + (in/g)*2*out*2},
		{"gptq", `, "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": false}`, Serve{},
			in*2*out/2 + (in/g)*(2*out/8)*4 + (in/g)*2*out*2 + in*4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseConfig("q.json", []byte(strings.Replace(base, "QUANT", tt.quant, 1)))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := NewReference(a, tt.serve, testClass(false))
			if err != nil {
				t.Fatal(err)
			}
			var got uint64
			for _, it := range ref.Evaluate(0, 0).Items {
				if strings.HasPrefix(it.Name, "model.layers.0.mlp.gate_up_proj.") {
					got += it.Bytes
				}
			}
			if got != tt.want {
				t.Errorf("gate_up_proj = %d bytes, want %d", got, tt.want)
			}
		})
	}
}
