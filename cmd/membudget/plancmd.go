package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/vllm"
)

// planRowJSON is one deployment of `membudget plan --json`.
type planRowJSON struct {
	Class                string        `json:"class"`
	Device               string        `json:"device"`
	GPUs                 uint64        `json:"gpus"`
	TensorParallelSize   uint64        `json:"tensor_parallel_size"`
	PipelineParallelSize uint64        `json:"pipeline_parallel_size"`
	DataParallelSize     uint64        `json:"data_parallel_size"`
	Quantization         string        `json:"quantization"`
	KVCacheDtype         string        `json:"kv_cache_dtype"`
	GPUMemoryUtilization float64       `json:"gpu_memory_utilization"`
	PerEngine            uint64        `json:"sequences_per_engine"`
	MostSeqs             uint64        `json:"most_seqs_at_length"`
	MostSeqsCapped       bool          `json:"most_seqs_capped"`
	LongestLen           uint64        `json:"longest_len_at_concurrency"`
	LongestLenCapped     bool          `json:"longest_len_capped"`
	HeadroomBytes        uint64        `json:"headroom_bytes"`
	KVCacheMemoryBytes   uint64        `json:"kv_cache_memory_bytes"`
	Command              string        `json:"command"`
	Footprint            footprintJSON `json:"footprint"`
}

// planJSON is `membudget plan --json`.
type planJSON struct {
	Model       string        `json:"model"`
	Length      uint64        `json:"length"`
	Concurrency uint64        `json:"concurrency"`
	VLLM        string        `json:"vllm"`
	Classes     []string      `json:"classes"`
	MaxGPUs     uint64        `json:"max_gpus"`
	Searched    string        `json:"searched"`
	Rows        []planRowJSON `json:"deployments"`
}

func runPlan(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("plan", stderr)
	modelArg := fs.String("model", "", "the model: a config.json `path`, a directory, or a model id")
	length := fs.Uint64("length", 0, "tokens each sequence must hold (required)")
	concurrency := fs.Uint64("concurrency", 0, "sequences to serve at once, across the deployment's engines (required)")
	classList := fs.String("classes", "all", "device `classes` to try, comma-separated, or all")
	maxGPUs := fs.Uint64("max-gpus", 8, "the most GPUs a deployment may take (tensor x pipeline x data ranks)")
	version := fs.String("vllm-version", "main", "the vLLM whose rules size each serve")
	allowLong := fs.Bool("allow-long-max-model-len", false, "accept a --length above the model's maximum, as vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 does (the commands then set it)")
	top := fs.Int("top", 10, "rows to print (0: every one)")
	asJSON := fs.Bool("json", false, "print JSON for scripts (schema in the README)")
	var k kernelsFlag
	k.register(fs)
	if status, ok := parseFlags(fs, args, false); !ok {
		return status
	}
	switch {
	case *modelArg == "":
		return fail(stderr, "plan", exitBadArgs, errors.New("--model is required"))
	case *length == 0:
		return fail(stderr, "plan", exitBadArgs, errors.New("--length is required: the tokens each sequence must hold, at least 1"))
	case *concurrency == 0:
		return fail(stderr, "plan", exitBadArgs, errors.New("--concurrency is required: the sequences to serve at once, at least 1"))
	case *maxGPUs == 0 || *maxGPUs > 1024:
		return fail(stderr, "plan", exitBadArgs, fmt.Errorf("--max-gpus %d: want 1 to 1024", *maxGPUs))
	case *top < 0:
		return fail(stderr, "plan", exitBadArgs, fmt.Errorf("--top %d: want 0 (every row) or more", *top))
	}
	profile, err := vllm.ProfileFor(*version)
	if err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	rm, err := resolveModel(*modelArg)
	if err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	writeWarnings(stderr, "plan", rm.warnings)
	name, a := rm.name, rm.arch
	classes, err := planClasses(k.catalog(), *classList)
	if err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	start := time.Now()
	progress := func(done, total int) {
		if time.Since(start) > time.Second {
			fmt.Fprintf(stderr, "membudget plan: %d of %d classes searched\n", done, total)
		}
	}
	need := vllm.Need{Length: *length, Concurrency: *concurrency}
	rows, err := vllm.Deployments(a, name, need, vllm.Space{Classes: classes, MaxGPUs: *maxGPUs, Profile: profile, Revision: rm.servedRevision(),
		AllowLongMaxModelLen: *allowLong}, progress)
	if se := (*engine.SettingError)(nil); errors.As(err, &se) && se.Flag == "max-model-len" {
		return fail(stderr, "plan", exitBadArgs, fmt.Errorf("--length %d: %s", *length, se.Reason))
	}
	if err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	shown := rows
	if *top > 0 && len(shown) > *top {
		shown = shown[:*top]
	}
	searched := fmt.Sprintf("%d classes x tensor, pipeline and data ranks up to %d GPUs x the checkpoint's weights (and online fp8 for an unquantized one) x KV auto and fp8 x util %v or the class's ceiling",
		len(classes), *maxGPUs, profile.DefaultUtil)
	status := exitOK
	if len(rows) == 0 {
		status = exitNoFit
	}
	if *asJSON {
		out := planJSON{Model: name, Length: *length, Concurrency: *concurrency, VLLM: profile.Describes, MaxGPUs: *maxGPUs, Searched: searched, Rows: []planRowJSON{}}
		for _, c := range classes {
			out.Classes = append(out.Classes, c.Name)
		}
		for _, d := range shown {
			out.Rows = append(out.Rows, planRowOf(d))
		}
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, "plan", exitBadArgs, err)
		}
		return status
	}
	fmt.Fprintf(stdout, "%s: %d sequence(s) of %d tokens, sized as %s\n", name, *concurrency, *length, profile.Describes)
	if len(rows) == 0 {
		fmt.Fprintf(stdout, "no deployment holds it in the space searched: %s\n", searched)
		return status
	}
	fmt.Fprintf(stdout, "%d deployment(s) hold it; the first %d, fewest GPUs first:\n\n", len(rows), len(shown))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPUS\tCLASS\tTP\tPP\tDP\tWEIGHTS\tKV\tUTIL\tSEQS/ENGINE\tMOST SEQS\tLONGEST\tHEADROOM\t")
	for _, d := range shown {
		r := d.Serve
		q := r.Quant.Method
		if q == "" {
			q = r.Dtype
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%s\t%s\t%v\t%d\t%s\t%s\t%s\t\n", d.GPUs, d.Class.Name, r.TensorParallelSize, r.PipelineParallelSize,
			r.DataParallelSize, q, r.KVCacheDtype, r.GPUMemoryUtilization, d.PerEngine, bound(d.MostSeqs), bound(d.LongestLen), gibString(d.Headroom()))
	}
	if err := tw.Flush(); err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	fmt.Fprintln(stdout)
	for i, d := range shown {
		fmt.Fprintf(stdout, "%d. %s\n", i+1, d.Command)
	}
	fmt.Fprintf(stdout, "\nsearched: %s\n", searched)
	return status
}

// bound renders a verified answer: the value, with "+" when it is the cap.
func bound(a budget.Answer) string {
	if a.Capped {
		return fmt.Sprintf("%d+", a.Value)
	}
	return fmt.Sprint(a.Value)
}

func planRowOf(d vllm.Deployment) planRowJSON {
	r := d.Serve
	return planRowJSON{Class: d.Class.Name, Device: d.Class.Device.Name, GPUs: d.GPUs, TensorParallelSize: r.TensorParallelSize,
		PipelineParallelSize: r.PipelineParallelSize, DataParallelSize: r.DataParallelSize, Quantization: r.Quant.Method,
		KVCacheDtype: r.KVCacheDtype, GPUMemoryUtilization: r.GPUMemoryUtilization, PerEngine: d.PerEngine,
		MostSeqs: d.MostSeqs.Value, MostSeqsCapped: d.MostSeqs.Capped, LongestLen: d.LongestLen.Value, LongestLenCapped: d.LongestLen.Capped,
		HeadroomBytes: d.Headroom(), KVCacheMemoryBytes: d.KVCacheBytes, Command: d.Command, Footprint: toJSON(d.At, d.Beside)}
}

// planClasses loads the classes --classes names: all, or a comma-separated
// list (any case).
func planClasses(c budget.Catalog, list string) ([]budget.Class, error) {
	if strings.TrimSpace(list) == "all" {
		classes, err := c.LoadAll()
		if err != nil {
			return nil, fmt.Errorf("--classes all: %w", err)
		}
		return classes, nil
	}
	var out []budget.Class
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("--classes %q: an empty class name", list)
		}
		cl, err := c.Load(name)
		if err != nil {
			return nil, fmt.Errorf("--classes: %w", err)
		}
		out = append(out, cl)
	}
	return out, nil
}
