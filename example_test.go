package membudget_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"membudget"
	"membudget/budget"
	"membudget/engine"
	"membudget/engines"
	"membudget/model/explain"
	"membudget/model/hub"
)

// offline is an environment with no Hugging Face cache and no network:
// only paths and the shipped models resolve.
func offline(name string) string {
	switch name {
	case "HF_HUB_OFFLINE":
		return "1"
	case "HF_HOME":
		return "/nonexistent"
	}
	return ""
}

// sized sizes model on class under the engine named engineName with the
// given serve flags, through the seam as the commands do.
func sized(engineName, modelID, class string, flags ...string) (engine.Engine, *hub.Loaded, engine.Sizing) {
	r, err := membudget.Resolver(offline)
	if err != nil {
		panic(err)
	}
	m, err := r.Load(context.Background(), modelID)
	if err != nil {
		panic(err)
	}
	c, err := membudget.Kernels().Load(class)
	if err != nil {
		panic(err)
	}
	e, err := engines.Set().Lookup(engineName)
	if err != nil {
		panic(err)
	}
	s := e.NewServe()
	fs := flag.NewFlagSet(e.Name(), flag.ContinueOnError)
	var model string
	s.Register(fs, &model)
	if err := fs.Parse(flags); err != nil {
		panic(err)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if _, err := s.Parsed(given); err != nil {
		panic(err)
	}
	sz, err := s.Size(m, c)
	if err != nil {
		panic(err)
	}
	return e, m, sz
}

// Example_report is membudget report: the footprint at the engine's
// startup check (one sequence of the longest length), whether the engine
// starts the serve, and the KV cache as its startup log states it.
func Example_report() {
	e, m, sz := sized("vllm", "meta-llama/Llama-3.1-8B-Instruct", "h100-sxm-80g", "--max-model-len", "32768", "--gpu-memory-utilization", "0.9")
	fp := sz.Plan().Evaluate(1, sz.Len().Value)
	starts, _ := sz.Starts()
	fmt.Println(m.Name, "-", m.Arch.ModelType)
	fmt.Println(sz.Command())
	fmt.Printf("%s starts: %v; fits: %v; ledger %s of a %s budget\n", e.Title(), starts, fp.Fits(), engine.GiB(fp.Ledger), engine.GiB(fp.Budget))
	var after strings.Builder
	sz.Section().WriteAfter(&after, fp)
	for _, l := range strings.Split(after.String(), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "vLLM logs:") {
			fmt.Println(l)
		}
	}
	// Output:
	// meta-llama/Llama-3.1-8B-Instruct - llama
	// vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization 0.9 --max-model-len 32768 --max-num-seqs 1024 --max-num-batched-tokens 8192 --kv-cache-dtype auto --dtype bfloat16 --tensor-parallel-size 1
	// vLLM starts: true; fits: true; ledger 20.73 GiB of a 71.26 GiB budget
	// vLLM logs: GPU KV cache size: 446688 tokens; maximum concurrency for 32768 tokens per request: 13.63x
}

// Example_queries are membudget max-seqs and max-len: each answer checked
// by the evaluator at the answer (it fits) and one past it (it does not).
func Example_queries() {
	_, _, sz := sized("sglang", "Qwen/Qwen3-8B", "h100-sxm-80g", "--context-length", "40960")
	plan := sz.Plan()
	seqs, err := budget.MaxSequences(plan, 40960, 0)
	if err != nil {
		panic(err)
	}
	fmt.Printf("most sequences of 40960 tokens: %d (fits %v; %d+1 fits %v)\n", seqs.Value, seqs.At.Fits(), seqs.Value, seqs.Next.Fits())
	length, err := budget.MaxLength(plan, 16, 0)
	if err != nil {
		panic(err)
	}
	fmt.Printf("longest length at 16 sequences: %d tokens (fits %v; one more fits %v)\n", length.Value, length.At.Fits(), length.Next.Fits())
	// Output:
	// most sequences of 40960 tokens: 8 (fits true; 8+1 fits false)
	// longest length at 16 sequences: 22885 tokens (fits true; one more fits false)
}

// Example_plan is membudget plan: every deployment of a model on the
// classes that serves a length at a concurrency, each verified, with the
// launch line that runs it.
func Example_plan() {
	r, err := membudget.Resolver(offline)
	if err != nil {
		panic(err)
	}
	m, err := r.Load(context.Background(), "meta-llama/Llama-3.1-70B-Instruct")
	if err != nil {
		panic(err)
	}
	var classes []budget.Class
	for _, name := range []string{"h100-sxm-80g", "l40s"} {
		c, err := membudget.Kernels().Load(name)
		if err != nil {
			panic(err)
		}
		classes = append(classes, c)
	}
	e, _ := engines.Set().Lookup("vllm")
	planner, ok := e.(engine.Planner)
	if !ok {
		panic(e.Title() + " does not plan")
	}
	search := planner.NewPlan(flag.NewFlagSet("plan", flag.ContinueOnError))
	res, err := search.Search(m, engine.Need{Length: 32768, Concurrency: 16}, engine.PlanSpace{Classes: classes, MaxGPUs: 8}, nil)
	if err != nil {
		panic(err)
	}
	best := res.Deployments[0]
	fmt.Printf("%d deployments; the best: %d x %s (TP %d, PP %d, DP %d), %d sequences a replica\n",
		len(res.Deployments), best.GPUs, best.Class.Name, best.TP, best.PP, best.DP, best.PerEngine)
	fmt.Println(best.Command)
	// Output:
	// 68 deployments; the best: 4 x h100-sxm-80g (TP 4, PP 1, DP 1), 16 sequences a replica
	// vllm serve meta-llama/Llama-3.1-70B-Instruct --gpu-memory-utilization 0.92 --max-model-len 32768 --max-num-seqs 1024 --max-num-batched-tokens 8192 --kv-cache-dtype fp8 --dtype bfloat16 --tensor-parallel-size 4
}

// Example_explain is membudget explain: a vLLM startup log's figures beside
// membudget's prediction at the log's settings, each within its tolerance
// or not.
func Example_explain() {
	f, err := os.Open("model/logs/testdata/vllm-0.4.2-v0.log")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	src, err := explain.Read(f, "vllm-0.4.2-v0.log", false)
	if err != nil {
		panic(err)
	}
	// The log says whose it is.
	e, err := engines.Set().Lookup(string(src.Log.Engine))
	if err != nil {
		panic(err)
	}
	reader, ok := e.(engine.LogReader)
	if !ok {
		panic(e.Title() + " reads no logs")
	}
	s := e.NewServe()
	var model string
	s.Register(flag.NewFlagSet(e.Name(), flag.ContinueOnError), &model)
	if _, err := s.Parsed(map[string]bool{}); err != nil {
		panic(err)
	}
	class, err := membudget.Kernels().Load("a100-80g")
	if err != nil {
		panic(err)
	}
	r, err := membudget.Resolver(offline)
	if err != nil {
		panic(err)
	}
	m, err := r.Load(context.Background(), "meta-llama/Llama-3.1-8B-Instruct")
	if err != nil {
		panic(err)
	}
	ex, err := reader.Explain(src, explain.Model{Name: m.Name, Arch: m.Arch, ModelType: m.Arch.ModelType, From: explain.FromFlag},
		explain.FlagClass(src, class), s)
	if err != nil {
		panic(err)
	}
	for _, row := range ex.Figures {
		if row.IsPredicted {
			fmt.Printf("%s (line %d): logged %s, within its tolerance: %v\n", row.Figure, row.Line, row.LoggedText, row.Within)
		}
	}
	fmt.Printf("%d compared, %d over; within: %v\n", ex.Compared, ex.Over, ex.Within)
	// Output:
	// weights (line 3): logged 14.9595 GB, within its tolerance: true
	// gpu_blocks (line 4): logged 27793, within its tolerance: true
	// 2 compared, 0 over; within: true
}
