package vllm_test

import (
	"slices"
	"testing"

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
