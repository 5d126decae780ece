package vllm_test

import (
	"cmp"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"membudget"
	"membudget/engine/enginetest"
	"membudget/engine/vllm"
)

// TestContractOnShippedModels runs the engine contract over every shipped
// model, each on one of the classes and with one of the flag sets in turn
// (every model, every class and every flag set are reached).
func TestContractOnShippedModels(t *testing.T) {
	t.Parallel()
	classes := []string{"h100-sxm-80g", "l4", "mi300x", "b200", "a100-80g", "gb10"}
	flags := [][]string{
		nil,
		{"--tensor-parallel-size", "2"},
		{"--max-model-len", "4096", "--kv-cache-dtype", "fp8"},
		{"--pipeline-parallel-size", "2", "--max-num-seqs", "64"},
		{"--vllm-version", "0.19.0", "--gpu-memory-utilization", "0.8"},
		{"--vllm-version", "0.8.5:v0", "--enforce-eager"},
		{"--vllm-version", "0.29.0", "--tensor-parallel-size", "2"},
		// LoRA: sized for the dense decoders, refused by name otherwise.
		{"--enable-lora", "--max-loras", "2", "--max-lora-rank", "32", "--max-cpu-loras", "4"},
		// Compilation (compilation.go): printed as given, read back the same.
		{"--optimization-level=1", "--cudagraph-capture-sizes=1 2 4 8"},
		{"--compilation-config", `{"cudagraph_mode":"FULL_DECODE_ONLY","max_cudagraph_capture_size":64}`, "--num-gpu-blocks-override", "2000", "--max-model-len", "4096"},
		// Speculative decoding: ngram sized, on any model that generates.
		{"--speculative-config", `{"method": "ngram", "num_speculative_tokens": 3}`},
	}
	models := enginetest.Shipped(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range models {
			if !yield(n) {
				return
			}
		}
	})
	sized := 0
	for i, name := range names {
		c, err := membudget.Kernels().Load(classes[i%len(classes)])
		if err != nil {
			t.Fatal(err)
		}
		args := flags[(i/len(classes)+i)%len(flags)]
		if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: models[name], Class: c, Args: args}) != nil {
			sized++
		}
	}
	// Most cases must size, or the suite checks refusals alone.
	if sized < len(names)*3/4 {
		t.Errorf("%d of %d cases sized: the suite checks too few serves", sized, len(names))
	}
	t.Logf("%d of %d cases sized and checked", sized, len(names))
}

// TestContractOnGeneratedModels runs the engine contract over generated
// configs of every family, on every class, under drawn releases, ranks,
// lengths, KV dtypes and utils: refusals included.
func TestContractOnGeneratedModels(t *testing.T) {
	t.Parallel()
	var sized, drawn atomic.Int64
	rapid.Check(t, func(t *rapid.T) {
		drawn.Add(1)
		m, c := enginetest.Generated(t)
		args := enginetest.ParallelArgs(t, "tensor-parallel-size", "pipeline-parallel-size")
		args = append(args, "--vllm-version", rapid.SampledFrom([]string{"main", "0.29.0", "0.28.0", "0.25.0", "0.19.0", "0.14.0", "0.8.5:v0"}).Draw(t, "version"),
			// 2048: what vLLM takes for a config without a length key (an
			// attention-free Mamba's).
			"--max-model-len", strconv.FormatUint(rapid.Uint64Range(1, min(cmp.Or(m.Arch.MaxPosition, 2048), 65536)).Draw(t, "max_model_len"), 10),
			"--kv-cache-dtype", rapid.SampledFrom([]string{"auto", "fp8"}).Draw(t, "kv"),
			"--gpu-memory-utilization", rapid.SampledFrom([]string{"0.5", "0.8", "0.92"}).Draw(t, "util"))
		if rapid.Bool().Draw(t, "eager") {
			args = append(args, "--enforce-eager")
		}
		if rapid.IntRange(0, 3).Draw(t, "lora") == 0 {
			args = append(args, "--enable-lora", "--max-loras", strconv.Itoa(rapid.IntRange(1, 8).Draw(t, "max_loras")),
				"--max-lora-rank", rapid.SampledFrom([]string{"8", "16", "64"}).Draw(t, "rank"))
			if rapid.Bool().Draw(t, "fully_sharded") {
				args = append(args, "--fully-sharded-loras")
			}
		}
		if rapid.IntRange(0, 3).Draw(t, "spec") == 0 {
			args = append(args, "--speculative-config", `{"method": "`+rapid.SampledFrom([]string{"ngram", "suffix"}).Draw(t, "method")+
				`", "num_speculative_tokens": `+strconv.Itoa(rapid.IntRange(1, 8).Draw(t, "k"))+`}`)
		}
		if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: m, Class: c, Args: args}) != nil {
			sized.Add(1)
		}
	})
	// The refusals are checked too, but many draws must size: with LoRA,
	// speculative decoding and releases drawn, 30 to 43 of 101 draws sized
	// over seven runs (mean 37, a standard deviation near 5), so a fifth
	// is some 3.5 deviations below the mean: a generator that stops
	// reaching serves fails, a run of refusals by chance does not.
	t.Logf("%d of %d draws sized and checked", sized.Load(), drawn.Load())
	if sized.Load()*5 < drawn.Load() {
		t.Errorf("%d of %d draws sized: the generators reach too few serves", sized.Load(), drawn.Load())
	}
}

// TestContractWithLoRA runs the contract over LoRA serves of the dense
// decoders membudget sizes LoRA for: each must size, and its printed line,
// which carries the LoRA flags, must read back to the same plan.
func TestContractWithLoRA(t *testing.T) {
	t.Parallel()
	models := enginetest.Shipped(t)
	c, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		t.Fatal(err)
	}
	flags := [][]string{
		{"--enable-lora"},
		{"--enable-lora", "--max-loras", "8", "--max-lora-rank", "64", "--max-cpu-loras", "16", "--lora-dtype", "float16"},
		{"--enable-lora", "--max-loras", "4", "--max-lora-rank", "32", "--fully-sharded-loras", "--tensor-parallel-size", "2"},
		{"--enable-lora", "--max-lora-rank", "16", "--pipeline-parallel-size", "2", "--max-model-len", "8192"},
	}
	for _, name := range []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen2.5-7B-Instruct", "Qwen__Qwen3-8B", "google__gemma-2-9b-it"} {
		for _, args := range flags {
			if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: models[name], Class: c, Args: args}) == nil {
				t.Errorf("%s %v: not sized", name, args)
			}
		}
	}
}

// TestContractWithOffload runs the contract over serves with KV offloading
// (offload.go) on a discrete and a unified class: each must size, and its
// printed line, which carries --kv-offloading-size, must read back to the
// same plan.
func TestContractWithOffload(t *testing.T) {
	t.Parallel()
	models := enginetest.Shipped(t)
	flags := [][]string{
		{"--kv-offloading-size", "16"},
		{"--kv-offloading-size", "7.5", "--kv-offloading-backend", "native", "--tensor-parallel-size", "2"},
		{"--kv-offloading-size", "4", "--pipeline-parallel-size", "2", "--max-model-len", "8192"},
	}
	for _, class := range []string{"h100-sxm-80g", "gb10"} {
		c, err := membudget.Kernels().Load(class)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-30B-A3B"} {
			for _, args := range flags {
				if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: models[name], Class: c, Args: args}) == nil {
					t.Errorf("%s on %s %v: not sized", name, class, args)
				}
			}
		}
	}
}

// TestContractWithSpeculativeDecoding runs the contract over ngram and
// suffix serves: each must size, and its printed line, which carries the
// JSON as given, must read back to the same plan; a method membudget does
// not size is refused by name.
func TestContractWithSpeculativeDecoding(t *testing.T) {
	t.Parallel()
	models := enginetest.Shipped(t)
	c, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		t.Fatal(err)
	}
	flags := [][]string{
		{"--speculative-config", `{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}`},
		{"-sc", `{"model": "[ngram]", "num_speculative_tokens": 5}`, "--max-num-seqs", "8"},
		{"--speculative-config={\"method\": \"suffix\"}", "--tensor-parallel-size", "2"},
		{"--speculative-config", `{"method": "ngram", "num_speculative_tokens": 2}`, "--vllm-version", "0.21.0", "--pipeline-parallel-size", "2"},
	}
	for _, name := range []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B", "google__gemma-2-9b-it", "Qwen__Qwen3-30B-A3B"} {
		for _, args := range flags {
			if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: models[name], Class: c, Args: args}) == nil {
				t.Errorf("%s %v: not sized", name, args)
			}
		}
	}
}

// TestContractWithEPLB runs the contract over expert-parallel serves with
// load balancing (eplb.go): each must size, and its printed line, which
// carries --enable-eplb and --eplb-config, must read back to the same plan.
func TestContractWithEPLB(t *testing.T) {
	t.Parallel()
	models := enginetest.Shipped(t)
	cases := []struct {
		model, class string
		args         []string
	}{
		{"Qwen__Qwen3-30B-A3B", "h100-sxm-80g", []string{"--tensor-parallel-size", "4", "--enable-expert-parallel", "--enable-eplb"}},
		{"Qwen__Qwen3-30B-A3B", "h100-sxm-80g", []string{"--tensor-parallel-size", "4", "--enable-expert-parallel", "--enable-eplb", "--eplb-config", `{"num_redundant_experts": 32, "window_size": 100}`}},
		{"Qwen__Qwen3-30B-A3B", "gb10", []string{"--data-parallel-size", "2", "--enable-expert-parallel", "--enable-eplb", "--eplb-config", `{"num_redundant_experts": 2, "communicator": "nixl"}`, "--kv-offloading-size", "8"}},
		{"deepseek-ai__DeepSeek-V3", "b200", []string{"--tensor-parallel-size", "8", "--enable-expert-parallel", "--enable-eplb", "--eplb-config", `{"num_redundant_experts": 32}`}},
	}
	for _, tc := range cases {
		c, err := membudget.Kernels().Load(tc.class)
		if err != nil {
			t.Fatal(err)
		}
		if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: models[tc.model], Class: c, Args: tc.args}) == nil {
			t.Errorf("%s on %s %v: not sized", tc.model, tc.class, tc.args)
		}
	}
}
