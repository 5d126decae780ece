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
)

func (a *app) plan(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("plan", stderr)
	eng, err := a.engines.EngineOf(args)
	if err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	planner, ok := eng.(engine.Planner)
	if !ok {
		return fail(stderr, "plan", exitBadArgs, fmt.Errorf("--engine %s: membudget has no planner for %s", eng.Name(), eng.Title()))
	}
	args = a.engines.Respell(eng, args)
	modelArg := fs.String("model", "", "the model: a config.json `path`, a directory, or a model id")
	length := fs.Uint64("length", 0, "tokens each sequence must hold (required)")
	concurrency := fs.Uint64("concurrency", 0, "sequences to serve at once, across the deployment's replicas (required)")
	classList := fs.String("classes", "all", "device `classes` to try, comma-separated, or all")
	maxGPUs := fs.Uint64("max-gpus", 8, "the most GPUs a deployment may take (tensor x pipeline x data ranks)")
	top := fs.Int("top", 10, "rows to print (0: every one)")
	asJSON := fs.Bool("json", false, "print JSON for scripts (schema in the README)")
	fs.String("engine", a.engines.Default().Name(), engineUsage+a.engines.Names())
	var k kernelsFlag
	k.register(fs)
	if err := a.engines.Check(eng, args, func(name string) bool { return fs.Lookup(name) != nil }); err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	search := planner.NewPlan(fs)
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
	m, err := a.load(*modelArg)
	if err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	writeWarnings(stderr, "plan", m.Warnings)
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
	res, err := search.Search(m, engine.Need{Length: *length, Concurrency: *concurrency}, classes, *maxGPUs, progress)
	if err != nil {
		status, err := internalError(err)
		return fail(stderr, "plan", status, err)
	}
	rows := res.Deployments
	shown := rows
	if *top > 0 && len(shown) > *top {
		shown = shown[:*top]
	}
	status := exitOK
	if len(rows) == 0 {
		status = exitNoFit
	}
	if *asJSON {
		names := []string{}
		for _, c := range classes {
			names = append(names, c.Name)
		}
		deployments := []any{}
		for _, d := range shown {
			deployments = append(deployments, d.JSON)
		}
		out := object{{Key: "model", Value: m.Name}, {Key: "length", Value: *length}, {Key: "concurrency", Value: *concurrency},
			{Key: eng.Name(), Value: res.Describes}, {Key: "classes", Value: names}, {Key: "max_gpus", Value: *maxGPUs},
			{Key: "searched", Value: res.Searched}, {Key: "deployments", Value: deployments}}
		if err := a.writeJSON(stdout, out); err != nil {
			return fail(stderr, "plan", exitBadArgs, err)
		}
		return status
	}
	fmt.Fprintf(stdout, "%s: %d sequence(s) of %d tokens, sized as %s\n", m.Name, *concurrency, *length, res.Describes)
	if len(rows) == 0 {
		fmt.Fprintf(stdout, "no deployment holds it in the space searched: %s\n", res.Searched)
		return status
	}
	fmt.Fprintf(stdout, "%d deployment(s) hold it; the first %d, fewest GPUs first:\n\n", len(rows), len(shown))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "GPUS\tCLASS\tTP\tPP\tDP\tWEIGHTS\tKV\t%s\tSEQS/ENGINE\tMOST SEQS\tLONGEST\tHEADROOM\t\n", res.BudgetColumn)
	for _, d := range shown {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t\n", d.GPUs, d.Class.Name, d.TP, d.PP,
			d.DP, d.Weights, d.KV, d.Budget, d.PerEngine, bound(d.MostSeqs), bound(d.LongestLen), gibString(d.Headroom))
	}
	if err := tw.Flush(); err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	fmt.Fprintln(stdout)
	for i, d := range shown {
		fmt.Fprintf(stdout, "%d. %s\n", i+1, d.Command)
	}
	fmt.Fprintf(stdout, "\nsearched: %s\n", res.Searched)
	return status
}

// bound renders a verified answer: the value, with "+" when it is the cap.
func bound(a budget.Answer) string {
	if a.Capped {
		return fmt.Sprintf("%d+", a.Value)
	}
	return fmt.Sprint(a.Value)
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
