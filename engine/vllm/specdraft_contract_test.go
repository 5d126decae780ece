package vllm_test

import (
	"testing"

	"membudget"
	"membudget/engine/enginetest"
	"membudget/engine/vllm"
)

// TestContractWithEAGLE3 runs the contract over EAGLE-3 serves: each must
// size, and its printed line, which carries the JSON with the draft's
// directory as given, must read back to the same plan.
func TestContractWithEAGLE3(t *testing.T) {
	t.Parallel()
	models := enginetest.Shipped(t)
	dir := vllm.WriteEagle3Draft(t)
	spec := `{"method": "eagle3", "model": "` + dir + `", "num_speculative_tokens": 3}`
	c, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		t.Fatal(err)
	}
	flags := [][]string{
		{"--speculative-config", spec, "--enforce-eager", "--vllm-version", "0.21.0"},
		{"-sc", spec, "--enforce-eager", "--vllm-version", "0.14.0", "--tensor-parallel-size", "2", "--max-num-seqs", "8"},
	}
	for _, args := range flags {
		if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: models["meta-llama__Llama-3.1-8B-Instruct"], Class: c, Args: args}) == nil {
			t.Errorf("%v: not sized", args)
		}
	}
}
