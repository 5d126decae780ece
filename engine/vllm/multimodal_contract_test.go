package vllm_test

import (
	"testing"

	"membudget"
	"membudget/engine/enginetest"
	"membudget/engine/vllm"
)

// TestContractWithMultimodal runs the contract over multimodal serves
// whose encoder cache membudget sizes: each must size, and its printed
// line, which carries the multimodal flags as given, must read back to
// the same plan.
func TestContractWithMultimodal(t *testing.T) {
	t.Parallel()
	models := enginetest.Shipped(t)
	c, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		t.Fatal(err)
	}
	gemma := [][]string{
		nil,
		{"--limit-mm-per-prompt", `{"image": 2}`, "--max-num-seqs", "8", "--max-model-len", "4096"},
		{"--limit-mm-per-prompt", `{"image": 0}`},
		{"--skip-mm-profiling", "--mm-processor-cache-gb", "0"},
		{"--mm-encoder-tp-mode", "data", "--pipeline-parallel-size", "2"},
		{"--vllm-version", "0.19.0", "--limit-mm-per-prompt", `{"image": {"count": 3}}`},
	}
	qwen := [][]string{
		{"--mm-processor-kwargs", `{"max_pixels": 12845056}`},
		{"--mm-processor-kwargs", `{"max_pixels": 1003520, "min_pixels": 3136}`, "--max-model-len", "16384", "--limit-mm-per-prompt", `{"image": 4, "video": 1}`},
		{"--mm-processor-kwargs", `{"max_pixels": 12845056}`, "--limit-mm-per-prompt", `{"video": 0}`, "--tensor-parallel-size", "2"},
		{"--limit-mm-per-prompt", `{"image": 0, "video": 0}`, "--vllm-version", "0.29.0"},
	}
	for name, sets := range map[string][][]string{
		"google__gemma-3-27b-it":       gemma,
		"google__gemma-3-4b-it":        gemma,
		"Qwen__Qwen2.5-VL-7B-Instruct": qwen,
		"Qwen__Qwen2-VL-7B-Instruct":   qwen,
	} {
		for _, args := range sets {
			if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: models[name], Class: c, Args: args}) == nil {
				t.Errorf("%s %q: not sized", name, args)
			}
		}
	}
}
