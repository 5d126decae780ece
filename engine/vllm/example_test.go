package vllm_test

import (
	"context"
	"fmt"

	"membudget"
	"membudget/budget"
	"membudget/engine/vllm"
	"membudget/model/hub"
)

// Example is the library's main flow: a model and a device class in, a
// vLLM serve sized under a release's rules, and the verified most
// sequences at a length and longest length at a number of sequences out.
func Example() {
	// The models shipped with membudget resolve offline; a Hub id or a
	// config.json path resolves the same way.
	r := hub.Resolver{Offline: true, CacheDir: "/nonexistent", Shipped: membudget.ModelConfig, ShippedIDs: membudget.ModelNames(),
		ShippedQuantConfig: membudget.ModelQuantConfig}
	m, err := r.Load(context.Background(), "meta-llama/Llama-3.1-8B-Instruct")
	if err != nil {
		panic(err)
	}
	class, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		panic(err)
	}
	profile, err := vllm.ProfileFor("main")
	if err != nil {
		panic(err)
	}
	sz, err := vllm.Size(m, class, vllm.Serve{MaxModelLen: 32768}, profile)
	if err != nil {
		panic(err)
	}
	if ok, why := sz.Starts(); !ok {
		panic(why)
	}
	seqs, err := budget.MaxSequences(sz.Plan(), 8192, sz.Seqs().Value)
	if err != nil {
		panic(err)
	}
	length, err := budget.MaxLength(sz.Plan(), 64, sz.Len().Value)
	if err != nil {
		panic(err)
	}
	fmt.Println(sz.Command())
	fmt.Printf("at 8192 tokens: %d sequences (capped %v); the next does not fit: %v\n", seqs.Value, seqs.Capped, !seqs.Next.Fits())
	fmt.Printf("at 64 sequences: %d tokens (capped %v)\n", length.Value, length.Capped)
	// Output:
	// vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization 0.92 --max-model-len 32768 --max-num-seqs 1024 --max-num-batched-tokens 8192 --kv-cache-dtype auto --dtype bfloat16 --tensor-parallel-size 1
	// at 8192 tokens: 56 sequences (capped false); the next does not fit: true
	// at 64 sequences: 7168 tokens (capped false)
}
