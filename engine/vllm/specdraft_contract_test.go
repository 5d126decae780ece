package vllm_test

import (
	"testing"

	"membudget"
	"membudget/engine/enginetest"
	"membudget/engine/vllm"
)

// TestContractWithEAGLE3 runs the contract over EAGLE-3 and EAGLE serves: each must
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
		// With the drafter's CUDA graphs: beside the budget in 0.19.0,
		// charged from 0.20.0, under PIECEWISE alone.
		{"--speculative-config", spec, "--gpu-memory-utilization", "0.9", "--vllm-version", "0.19.0"},
		{"-sc", spec, "--vllm-version", "0.21.0", "--tensor-parallel-size", "2", "--max-num-seqs", "64"},
		{"-sc", spec, "--vllm-version", "0.20.0", "--compilation-config", `{"cudagraph_mode": "PIECEWISE"}`},
		// On the V2 model runner's speculator (main and 0.28 run Llama
		// there), eager.
		{"--speculative-config", spec, "--enforce-eager"},
		{"-sc", spec, "--enforce-eager", "--vllm-version", "0.28.0", "--tensor-parallel-size", "2", "--max-num-seqs", "64"},
	}
	eagle := `{"method": "eagle", "model": "` + vllm.WriteEagleDraft(t) + `", "num_speculative_tokens": 2}`
	flags = append(flags, []string{"--speculative-config", eagle, "--enforce-eager", "--vllm-version", "0.21.0", "--tensor-parallel-size", "2"})
	flags = append(flags, []string{"--speculative-config", eagle, "--enforce-eager", "--tensor-parallel-size", "2"}) // the V2 speculator on main
	for _, args := range flags {
		if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: models["meta-llama__Llama-3.1-8B-Instruct"], Class: c, Args: args}) == nil {
			t.Errorf("%v: not sized", args)
		}
	}
}

// TestContractWithDraftModel runs the contract over serves with
// Llama-3.2-1B-Instruct as the draft model of Llama-3.1-8B-Instruct. (The
// test's name, in its temporary directories, must not hold "eagle3":
// vLLM would infer that method from the draft's path.)
func TestContractWithDraftModel(t *testing.T) {
	t.Parallel()
	models := enginetest.Shipped(t)
	c, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		t.Fatal(err)
	}
	dir := vllm.WriteDraftModel(t)
	for _, args := range [][]string{
		{"-sc", `{"method": "draft_model", "model": "` + dir + `", "num_speculative_tokens": 4, "draft_tensor_parallel_size": 2}`, "--enforce-eager", "--tensor-parallel-size", "2", "--vllm-version", "0.22.0"},
		{"--speculative-config", `{"model": "` + dir + `", "num_speculative_tokens": 2}`, "--enforce-eager", "--max-num-seqs", "32"},
		// With the draft model's CUDA graphs (from 0.27.0).
		{"-sc", `{"method": "draft_model", "model": "` + dir + `", "num_speculative_tokens": 3}`, "--vllm-version", "0.28.0"},
	} {
		if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: models["meta-llama__Llama-3.1-8B-Instruct"], Class: c, Args: args}) == nil {
			t.Errorf("%v: not sized", args)
		}
	}
}

// TestContractWithMTP runs the contract over DeepSeek-V3 serves with its
// MTP layer as the draft: each must size, and its printed line must read
// back to the same plan.
func TestContractWithMTP(t *testing.T) {
	t.Parallel()
	models := enginetest.Shipped(t)
	c, err := membudget.Kernels().Load("h200")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--speculative-config", `{"method": "deepseek_mtp", "num_speculative_tokens": 1}`, "--enforce-eager", "--tensor-parallel-size", "8"},
		{"-sc", `{"method": "mtp", "num_speculative_tokens": 3}`, "--enforce-eager", "--tensor-parallel-size", "8", "--max-num-seqs", "16", "--vllm-version", "0.21.0"},
		// With the MTP layer's CUDA graphs.
		{"--speculative-config", `{"method": "mtp", "num_speculative_tokens": 1}`, "--tensor-parallel-size", "8", "--vllm-version", "0.21.0"},
	} {
		if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: models["deepseek-ai__DeepSeek-V3"], Class: c, Args: args}) == nil {
			t.Errorf("%v: not sized", args)
		}
	}
}

// TestContractWithMedusa runs the contract over serves of Llama-2-7b with
// the shipped Medusa heads (vicuna-7b-v1.3's base shape): each must size,
// and its printed line, which carries the JSON with the draft's directory
// as given, must read back to the same plan, with graphs and without.
func TestContractWithMedusa(t *testing.T) {
	t.Parallel()
	models := enginetest.Shipped(t)
	dir := vllm.WriteMedusaDraft(t)
	c, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--speculative-config", `{"method": "medusa", "model": "` + dir + `", "num_speculative_tokens": 3}`},
		{"-sc", `{"method": "medusa", "model": "` + dir + `", "num_speculative_tokens": 2}`, "--enforce-eager", "--tensor-parallel-size", "2", "--max-num-seqs", "64", "--vllm-version", "0.25.0"},
	} {
		if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: models["meta-llama__Llama-2-7b-hf"], Class: c, Args: args}) == nil {
			t.Errorf("%v: not sized", args)
		}
	}
}
