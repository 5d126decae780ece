package engine_test

import (
	"context"
	"flag"
	"fmt"

	"membudget"
	"membudget/budget"
	"membudget/engine"
	"membudget/engine/sglang"
	"membudget/engine/vllm"
	"membudget/model/hub"
)

// Example sizes one model on one class under each engine, through the seam
// alone, as the commands do: the engine's flags parsed, the serve sized,
// the startup checks asked, the queries answered and checked.
func Example() {
	set, err := engine.NewSet(vllm.Engine{}, sglang.Engine{})
	if err != nil {
		panic(err)
	}
	r := hub.Resolver{Offline: true, CacheDir: "/nonexistent", Shipped: membudget.ModelConfig, ShippedIDs: membudget.ModelNames(),
		ShippedQuantConfig: membudget.ModelQuantConfig}
	m, err := r.Load(context.Background(), "Qwen/Qwen3-8B")
	if err != nil {
		panic(err)
	}
	class, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		panic(err)
	}
	flags := map[string][]string{"vllm": {"--max-model-len", "16384"}, "sglang": {"--context-length", "16384"}}
	for _, e := range set.Engines() {
		s := e.NewServe()
		fs := flag.NewFlagSet(e.Name(), flag.ContinueOnError)
		var model string
		s.Register(fs, &model)
		if err := fs.Parse(flags[e.Name()]); err != nil {
			panic(err)
		}
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		if _, err := s.Parsed(given); err != nil {
			panic(err)
		}
		sz, err := s.Size(m, class)
		if err != nil {
			panic(err)
		}
		starts, _ := sz.Starts()
		ans, err := budget.MaxSequences(sz.Plan(), 16384, sz.Seqs().Value)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s starts: %v; %d sequences of 16384 tokens (cap %s %d)\n", e.Title(), starts, ans.Value, sz.Seqs().Label(), sz.Seqs().Value)
	}
	// Output:
	// vLLM starts: true; 24 sequences of 16384 tokens (cap --max-num-seqs 1024)
	// SGLang starts: true; 22 sequences of 16384 tokens (cap max_running_requests 4096)
}
