package vllm_test

import (
	"testing"

	"membudget"
	"membudget/engine/enginetest"
	"membudget/engine/vllm"
)

// TestContractOnLoweredSeqs runs the engine contract over lines that give
// --max-num-batched-tokens below the default --max-num-seqs, which vLLM
// from 0.10.1 serves with the sequences lowered to the tokens: each must
// size, and the printed line (now naming --max-num-seqs 128) must read
// back to the same serve.
func TestContractOnLoweredSeqs(t *testing.T) {
	t.Parallel()
	shipped := enginetest.Shipped(t)
	flags := [][]string{
		{"--max-num-batched-tokens", "128"},
		{"--max-num-batched-tokens", "128", "--vllm-version", "0.10.1"},
		{"--max-num-batched-tokens", "200", "--vllm-version", "0.19.0", "--max-model-len", "4096"},
	}
	for _, name := range []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B"} {
		m := shipped[name]
		if m == nil {
			t.Fatalf("%s is not shipped", name)
		}
		for i, args := range flags {
			class := []string{"h100-sxm-80g", "l4", "b200"}[i%3]
			c, err := membudget.Kernels().Load(class)
			if err != nil {
				t.Fatal(err)
			}
			if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: m, Class: c, Args: args}) == nil {
				t.Errorf("%s on %s %v: refused; want it sized", name, class, args)
			}
		}
	}
}
