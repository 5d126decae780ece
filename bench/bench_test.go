package bench

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"membudget"
	"membudget/budget"
	"membudget/engine"
	"membudget/engine/vllm"
	"membudget/model"
)

// current is the profile the benchmarks size under.
var current, _ = vllm.ProfileFor("main")

// benchCase is one serve the benchmarks size: a shipped model on a shipped
// class.
type benchCase struct {
	model, class string
	serve        vllm.Serve
}

var cases = []benchCase{
	{"meta-llama__Llama-3.1-8B-Instruct", "h100-sxm-80g", vllm.Serve{}},
	{"Qwen__Qwen3-32B", "h100-sxm-80g", vllm.Serve{TensorParallelSize: 2}},
	{"google__gemma-3-27b-it", "mi300x", vllm.Serve{}},
	{"deepseek-ai__DeepSeek-V3", "h200", vllm.Serve{TensorParallelSize: 8, MaxModelLen: 32768}},
	{"Qwen__Qwen3-30B-A3B", "l40s", vllm.Serve{TensorParallelSize: 4, MaxModelLen: 32768}},
	{"meta-llama__Llama-3.2-3B-Instruct", "jetson-agx-orin-64g", vllm.Serve{GPUMemoryUtilization: 0.6}},
}

func (c benchCase) name() string { return fmt.Sprintf("model=%s/class=%s", c.model, c.class) }

func arch(tb testing.TB, name string) (*model.Arch, []byte) {
	tb.Helper()
	data, path, ok := membudget.ModelConfig(name)
	if !ok {
		tb.Fatalf("no shipped model %s", name)
	}
	a, err := model.ParseConfig(path, data)
	if err != nil {
		tb.Fatal(err)
	}
	return a, data
}

// inputs is the case's parsed config and class.
func (c benchCase) inputs(tb testing.TB) (*model.Arch, budget.Class) {
	tb.Helper()
	a, _ := arch(tb, c.model)
	cl, err := membudget.Kernels().Load(c.class)
	if err != nil {
		tb.Fatal(err)
	}
	return a, cl
}

func (c benchCase) reference(tb testing.TB) *vllm.Reference {
	tb.Helper()
	a, cl := c.inputs(tb)
	ref, err := vllm.NewReference(a, c.serve, cl, current)
	if err != nil {
		tb.Fatal(err)
	}
	return ref
}

var sink budget.Footprint

// BenchmarkPlanEvaluate is the hot path: the compiled evaluator at the
// startup check's point, one request of max_model_len.
func BenchmarkPlanEvaluate(b *testing.B) {
	for _, c := range cases {
		b.Run(c.name(), func(b *testing.B) {
			ref := c.reference(b)
			plan := ref.Plan()
			t := ref.Serve.MaxModelLen
			b.ReportAllocs()
			for b.Loop() {
				// b.Loop keeps the call and its result alive.
				plan.Evaluate(1, t)
			}
		})
	}
}

// BenchmarkReferenceEvaluate is the same point through the itemised
// reference, so that every run shows the ratio the Plan buys.
func BenchmarkReferenceEvaluate(b *testing.B) {
	for _, c := range cases {
		b.Run(c.name(), func(b *testing.B) {
			ref := c.reference(b)
			t := ref.Serve.MaxModelLen
			b.ReportAllocs()
			for b.Loop() {
				sink = ref.Evaluate(1, t).Footprint
			}
		})
	}
}

// queryLengths and querySeqs are the points the query benchmarks cycle
// through, clipped to each serve's caps.
var (
	queryLengths = []uint64{512, 4096, 32768}
	querySeqs    = []uint64{1, 8, 64}
)

func clip(xs []uint64, hi uint64) []uint64 {
	var out []uint64
	for _, x := range xs {
		out = append(out, min(x, hi))
	}
	return out
}

func benchQuery(b *testing.B, run func(p *budget.Plan, x uint64) (budget.Answer, error), points func(r vllm.Resolved) []uint64) {
	for _, c := range cases {
		b.Run(c.name(), func(b *testing.B) {
			ref := c.reference(b)
			plan := ref.Plan()
			xs := points(ref.Serve)
			evals, answers := 0, 0
			b.ReportAllocs()
			for b.Loop() {
				ans, err := run(plan, xs[answers%len(xs)])
				if err != nil {
					b.Fatal(err)
				}
				evals += ans.Evals
				answers++
			}
			b.ReportMetric(float64(evals)/float64(answers), "evals/op")
		})
	}
}

// BenchmarkMaxSequences is the verified "most sequences at a length".
func BenchmarkMaxSequences(b *testing.B) {
	benchQuery(b, func(p *budget.Plan, t uint64) (budget.Answer, error) { return budget.MaxSequences(p, t, 0) },
		func(r vllm.Resolved) []uint64 { return clip(queryLengths, r.MaxModelLen) })
}

// BenchmarkMaxLength is the verified "longest length at a number of
// sequences".
func BenchmarkMaxLength(b *testing.B) {
	benchQuery(b, func(p *budget.Plan, s uint64) (budget.Answer, error) { return budget.MaxLength(p, s, 0) },
		func(r vllm.Resolved) []uint64 { return clip(querySeqs, r.MaxNumSeqs) })
}

// BenchmarkPlainBisection is "most sequences at a length" by the seed's
// plain bisection over [1, max_num_seqs], for the evals/op it costs without
// the closed-form start.
func BenchmarkPlainBisection(b *testing.B) {
	benchQuery(b, func(p *budget.Plan, t uint64) (budget.Answer, error) {
		evals := 0
		x, ok, err := budget.LargestFitting(1, p.MaxSeqs, func(s uint64) (bool, error) {
			evals++
			return p.Evaluate(s, t).Fits(), nil
		})
		return budget.Answer{Value: x, Fits: ok, Evals: evals}, err
	}, func(r vllm.Resolved) []uint64 { return clip(queryLengths, r.MaxModelLen) })
}

// compileServes are the serves BenchmarkCompile cycles through on one
// compiler: what a sweep varies once the sharding is fixed (the util, the
// KV cache dtype, the length).
var compileServes = []vllm.Serve{
	{GPUMemoryUtilization: 0.8},
	{GPUMemoryUtilization: 0.9, KVCacheDtype: "fp8"},
	{GPUMemoryUtilization: 0.85, MaxModelLen: 4096},
}

// BenchmarkCompile is a serve compiled by a warm vllm.Compiler, for every
// shipped model on an H100 at the largest tensor parallel size of 8, 4, 2
// and 1 that its shapes take: what a search pays per serve once the
// architecture's weights for the sharding are known.
func BenchmarkCompile(b *testing.B) {
	cl, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range membudget.ModelNames() {
		b.Run("model="+name, func(b *testing.B) {
			a, _ := arch(b, name)
			cp := vllm.NewCompiler(a)
			var serves []vllm.Serve
			for _, tp := range []uint64{8, 4, 2, 1} {
				for _, s := range compileServes {
					s.TensorParallelSize = tp
					// A config only the checkpoint's code reads is served with it.
					s.TrustRemoteCode = a.Remote != nil
					if _, _, err := cp.Compile(s, cl, current); err == nil {
						serves = append(serves, s)
					}
				}
				if len(serves) > 0 {
					break
				}
			}
			if len(serves) == 0 {
				b.Fatalf("vLLM refuses every serve of %s on an H100", name)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, _, err := cp.Compile(serves[i%len(serves)], cl, current); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkCompileCold is vllm.Compile from a parsed config with nothing
// kept: the first serve of an architecture.
func BenchmarkCompileCold(b *testing.B) {
	for _, c := range cases {
		b.Run(c.name(), func(b *testing.B) {
			a, cl := c.inputs(b)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := vllm.Compile(a, c.serve, cl, current); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseClass is the strict HARDWARE.toml parse.
func BenchmarkParseClass(b *testing.B) {
	data, err := membudget.Kernels().FS.Open("kernels/h100-sxm-80g/HARDWARE.toml")
	if err != nil {
		b.Fatal(err)
	}
	defer data.Close()
	buf := make([]byte, 1<<16)
	n, _ := data.Read(buf)
	doc := string(buf[:n])
	b.ReportAllocs()
	for b.Loop() {
		if _, err := budget.ParseClass("h100-sxm-80g", "kernels/h100-sxm-80g/HARDWARE.toml", doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseConfig is the config.json parse.
func BenchmarkParseConfig(b *testing.B) {
	for _, name := range []string{"meta-llama__Llama-3.1-8B-Instruct", "deepseek-ai__DeepSeek-V3", "google__gemma-3-27b-it"} {
		b.Run("model="+name, func(b *testing.B) {
			data, path, _ := membudget.ModelConfig(name)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := model.ParseConfig(path, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReport is what `membudget report` computes: parse the config,
// load the class, compile, evaluate the startup check and the KV capacity.
func BenchmarkReport(b *testing.B) {
	for _, c := range cases {
		b.Run(c.name(), func(b *testing.B) {
			data, path, _ := membudget.ModelConfig(c.model)
			b.ReportAllocs()
			for b.Loop() {
				a, err := model.ParseConfig(path, data)
				if err != nil {
					b.Fatal(err)
				}
				cl, err := membudget.Kernels().Load(c.class)
				if err != nil {
					b.Fatal(err)
				}
				ref, err := vllm.NewReference(a, c.serve, cl, current)
				if err != nil {
					b.Fatal(err)
				}
				plan := ref.Plan()
				sink = plan.Evaluate(1, ref.Serve.MaxModelLen)
				_ = ref.Capacity()
			}
		})
	}
}

// TestQueryEvaluationsMedian holds the verified queries to a median of at
// most 6 evaluator calls per answer on the shipped models — 2 for the
// answer and the next value, 2 for the end points, 2 to spare — where plain
// bisection over [1, cap] needs about log2(cap): the closed-form estimate
// puts the search next to the answer. The median is taken over the answers
// strictly inside the range, the ones a search must find (a capped or
// nothing-fits answer costs 2 or 3 calls and would flatter it). It counts
// calls, it does not time.
func TestQueryEvaluationsMedian(t *testing.T) {
	var evals []int
	all := 0
	classes := []string{"h100-sxm-80g", "h200", "l40s", "l4", "mi300x", "a100-80g", "rtx-4090", "gb10"}
	for _, name := range membudget.ModelNames() {
		a, _ := arch(t, name)
		for _, class := range classes {
			cl, err := membudget.Kernels().Load(class)
			if err != nil {
				t.Fatal(err)
			}
			for _, tp := range []uint64{1, 2, 4, 8} {
				ref, err := vllm.NewReference(a, vllm.Serve{GPUMemoryUtilization: min(0.9, cl.Memory.UtilCeiling), TensorParallelSize: tp, TrustRemoteCode: a.Remote != nil}, cl, current)
				if err != nil {
					continue // a TP the model's shapes refuse
				}
				plan := ref.Plan()
				record := func(ans budget.Answer, err error) {
					if err != nil {
						t.Fatal(err)
					}
					all++
					if ans.Fits && !ans.Capped {
						evals = append(evals, ans.Evals)
					}
				}
				for _, l := range clip(queryLengths, ref.Serve.MaxModelLen) {
					record(budget.MaxSequences(plan, l, 0))
				}
				for _, s := range clip(querySeqs, ref.Serve.MaxNumSeqs) {
					record(budget.MaxLength(plan, s, 0))
				}
			}
		}
	}
	if len(evals) < 100 {
		t.Fatalf("only %d of %d answers lie inside their range", len(evals), all)
	}
	slices.Sort(evals)
	median := evals[len(evals)/2]
	t.Logf("%d answers inside the range (of %d): evaluations min %d, median %d, max %d", len(evals), all, evals[0], median, evals[len(evals)-1])
	if median > 6 {
		t.Errorf("median %d evaluations per answer, want at most 6", median)
	}
}

// workload returns the models and classes of testdata/workload.txt, the
// sweep's and the plan's pinned work: every shipped one would make the
// benchmarks' work grow with each model or class shipped, and a benchstat
// comparison across such commits compare different work.
func workload(tb testing.TB) (models, classes []string) {
	tb.Helper()
	data, err := os.ReadFile("testdata/workload.txt")
	if err != nil {
		tb.Fatal(err)
	}
	var into *[]string
	for _, line := range strings.Split(string(data), "\n") {
		switch line = strings.TrimSpace(line); {
		case line == "" || strings.HasPrefix(line, "#"):
		case line == "[models]":
			into = &models
		case line == "[classes]":
			into = &classes
		case into == nil:
			tb.Fatalf("testdata/workload.txt: %q before [models] or [classes]", line)
		default:
			*into = append(*into, line)
		}
	}
	if len(models) == 0 || len(classes) == 0 {
		tb.Fatalf("testdata/workload.txt: %d models and %d classes; want both", len(models), len(classes))
	}
	return models, classes
}

// sweepClasses is the workload's classes, loaded once.
func sweepClasses(tb testing.TB) []budget.Class {
	tb.Helper()
	_, names := workload(tb)
	out := make([]budget.Class, 0, len(names))
	for _, name := range names {
		c, err := membudget.Kernels().Load(name)
		if err != nil {
			tb.Fatalf("testdata/workload.txt: %v", err)
		}
		out = append(out, c)
	}
	return out
}

// BenchmarkSweep is issue 13's in-process sweep: every model on every class
// of the pinned workload (see [workload]) at tensor parallel 1, 2, 4 and 8,
// KV cache auto and fp8, util 0.8, 0.9 and 0.95 (within the class's ceiling), each serve
// vLLM accepts compiled by the model's Compiler and asked the two verified
// queries (most sequences at max_model_len, longest length at one
// sequence). It reports verified answers a second; the configs are parsed
// outside the timing, as a sweep's caller holds them.
func BenchmarkSweep(b *testing.B) {
	classes := sweepClasses(b)
	names, _ := workload(b)
	var archs []*model.Arch
	for _, name := range names {
		a, _ := arch(b, name)
		archs = append(archs, a)
	}
	answers := 0
	b.ReportAllocs()
	for b.Loop() {
		for _, a := range archs {
			cp := vllm.NewCompiler(a)
			for _, c := range classes {
				for _, tp := range []uint64{1, 2, 4, 8} {
					for _, kv := range []string{"auto", "fp8"} {
						for _, u := range []float64{0.8, 0.9, 0.95} {
							if u > c.Memory.UtilCeiling {
								continue
							}
							r, plan, err := cp.Compile(vllm.Serve{GPUMemoryUtilization: u, TensorParallelSize: tp, KVCacheDtype: kv, TrustRemoteCode: a.Remote != nil}, c, current)
							if err != nil {
								continue // a serve vLLM refuses: no answer
							}
							if _, err := budget.MaxSequences(plan, r.MaxModelLen, 0); err != nil {
								b.Fatal(err)
							}
							if _, err := budget.MaxLength(plan, 1, 0); err != nil {
								b.Fatal(err)
							}
							answers += 2
						}
					}
				}
			}
		}
	}
	b.ReportMetric(float64(answers)/b.Elapsed().Seconds(), "answers/s")
}

// BenchmarkPlan is `membudget plan` in process over the workload's classes:
// Llama-3.1-70B serving 16 sequences of 32768 tokens on at most 8 GPUs,
// every layout, quantization, KV dtype and util it tries compiled and the
// deployments that hold the need verified.
func BenchmarkPlan(b *testing.B) {
	a, _ := arch(b, "meta-llama__Llama-3.1-70B-Instruct")
	sp := vllm.Space{Plan: engine.PlanSpace{Classes: sweepClasses(b), MaxGPUs: 8, MarginPercent: engine.DefaultMarginPercent}, Profile: current}
	b.ReportAllocs()
	for b.Loop() {
		ds, err := vllm.Deployments(a, "meta-llama/Llama-3.1-70B-Instruct", vllm.Need{Length: 32768, Concurrency: 16}, sp, nil)
		if err != nil || len(ds) == 0 {
			b.Fatalf("%d deployments, %v", len(ds), err)
		}
	}
}

// BenchmarkAdvise is a report's advice for a serve that does not fit:
// Llama-3.1-70B on one H100 at its whole length, every combination of
// tensor and pipeline ranks, fp8 KV and online fp8 weights searched, in
// full and with its bounds, each suggestion checked to start.
func BenchmarkAdvise(b *testing.B) {
	a, _ := arch(b, "meta-llama__Llama-3.1-70B-Instruct")
	c, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		b.Fatal(err)
	}
	e := vllm.Search{Arch: a, Class: c, Profile: current, Compiler: vllm.NewCompiler(a)}
	r, _, err := e.Compiler.Compile(vllm.Serve{}, c, current)
	if err != nil {
		b.Fatal(err)
	}
	target := engine.Target{Seqs: 1, Tokens: r.MaxModelLen}
	b.ReportAllocs()
	for b.Loop() {
		adv, err := e.Advise(r.Serve, target)
		if err != nil || len(adv.Suggestions) == 0 {
			b.Fatalf("%d suggestions, %v", len(adv.Suggestions), err)
		}
	}
}
