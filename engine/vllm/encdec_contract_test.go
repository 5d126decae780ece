package vllm_test

import (
	"testing"

	"membudget"
	"membudget/engine/enginetest"
	"membudget/engine/vllm"
)

// TestContractOnEncoderDecoder runs the engine contract over the shipped
// Whisper configs (large-v3 and large-v3-turbo) on several classes and
// flag sets, each of which must size (plan equals ledger, monotone, the
// launch line read back sizes the same serve).
func TestContractOnEncoderDecoder(t *testing.T) {
	t.Parallel()
	shipped := enginetest.Shipped(t)
	flags := [][]string{
		nil,
		{"--tensor-parallel-size", "2"},
		{"--max-model-len", "256", "--max-num-seqs", "32"},
		{"--enforce-eager", "--gpu-memory-utilization", "0.5"},
		{"--max-num-batched-tokens", "1500", "--kv-cache-dtype", "fp8"},
		{"--max-num-batched-tokens", "16384", "--no-async-scheduling"},
	}
	for _, name := range []string{"openai__whisper-large-v3", "openai__whisper-large-v3-turbo"} {
		m := shipped[name]
		if m == nil {
			t.Fatalf("%s is not shipped", name)
		}
		for i, args := range flags {
			class := []string{"l4", "h100-sxm-80g", "a100-40g"}[i%3]
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
