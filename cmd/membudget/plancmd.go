package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"membudget/budget"
	"membudget/engine"
	"membudget/internal/untrusted"
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
	if args, err = a.respell(eng, args); err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	modelArg := fs.String("model", "", "the model: a config.json `path`, a directory, or a model id")
	length := fs.Uint64("length", 0, "tokens each sequence must hold (required)")
	concurrency := fs.Uint64("concurrency", 0, "sequences to serve at once, across the deployment's replicas (required)")
	classList := fs.String("classes", "all", "device `classes` to try, comma-separated, or all")
	maxGPUs := fs.Uint64("max-gpus", 8, "the most GPUs a deployment may take (tensor x pipeline x data ranks)")
	gpusPerNode := fs.Uint64("gpus-per-node", engine.DefaultGPUsPerNode, "the GPUs of one node: tensor ranks stay within a node, and a deployment's nodes follow")
	maxNodes := fs.Uint64("max-nodes", 0, "the most nodes a deployment may take (0: only --max-gpus bounds it)")
	prefer := fs.String("prefer", "", "what ranks first once the cost and the nodes are equal: latency, throughput or headroom (default: tensor before pipeline ranks, the checkpoint's precision, a safety margin, KV headroom)")
	margin := fs.Float64("margin", engine.DefaultMarginPercent, "the safety margin, in `percent` of the budget, a deployment should leave unused at the need; rows that leave less rank after those that do")
	prices := priceFlag{}
	fs.Var(&prices, "price", "a class's price per GPU-hour, `CLASS=USD` (repeatable): rows rank by cost per hour, classes without a price last")
	top := fs.Int("top", 10, "rows to print (0: every one)")
	asJSON := fs.Bool("json", false, "print JSON for scripts (schema in the README)")
	strict := fs.Bool("strict", false, strictFlag)
	fs.String("engine", a.engines.Default().Name(), engineUsage+a.engines.Names())
	var k kernelsFlag
	k.register(fs)
	a.registerHubDeadline(fs)
	// The planner's own flags (--pin-kv-cache) are registered first, so
	// that the check takes them as the command's.
	search := planner.NewPlan(fs)
	if err := a.engines.Check(eng, args, func(name string) bool { return fs.Lookup(name) != nil }); err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	if status, ok := a.parseFlags(fs, args, false); !ok {
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
	case *gpusPerNode == 0 || *gpusPerNode > 1024:
		return fail(stderr, "plan", exitBadArgs, fmt.Errorf("--gpus-per-node %d: want 1 to 1024", *gpusPerNode))
	case *maxNodes > 1024:
		return fail(stderr, "plan", exitBadArgs, fmt.Errorf("--max-nodes %d: want 0 (no bound) to 1024", *maxNodes))
	case !(*margin >= 0 && *margin < 100):
		return fail(stderr, "plan", exitBadArgs, fmt.Errorf("--margin %v: want a percent from 0 to below 100", *margin))
	}
	order, err := engine.ParsePrefer(*prefer)
	if err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	m, err := a.load(*modelArg)
	if err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	if err := refuseGeneric(*strict, m); err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	writeWarnings(stderr, "plan", m.Warnings)
	classes, err := planClasses(k.catalog(), *classList)
	if err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	for name := range prices {
		if !slices.ContainsFunc(classes, func(c budget.Class) bool { return c.Name == name }) {
			return fail(stderr, "plan", exitBadArgs, fmt.Errorf("--price %s=%v: %s is not among the classes searched (--classes %s)", name, prices[name], name, *classList))
		}
	}
	sp := engine.PlanSpace{Classes: classes, MaxGPUs: *maxGPUs, GPUsPerNode: *gpusPerNode, MaxNodes: *maxNodes, Prefer: order,
		MarginPercent: *margin, Prices: prices}
	start := time.Now()
	progress := func(done, total int) {
		if time.Since(start) > time.Second {
			fmt.Fprintf(stderr, "membudget plan: %d of %d classes searched\n", done, total)
		}
	}
	res, err := search.Search(m, engine.Need{Length: *length, Concurrency: *concurrency}, sp, progress)
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
	notes := slices.Concat(res.Notes, caveatNotes(shown))
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
			{Key: "gpus_per_node", Value: *gpusPerNode}, {Key: "max_nodes", Value: *maxNodes}, {Key: "prefer", Value: cmp.Or(string(order), "default")},
			{Key: "margin_percent", Value: *margin}, {Key: "prices", Value: prices.orEmpty()}, {Key: "ranked", Value: sp.Order()},
			{Key: "searched", Value: res.Searched}, {Key: "notes", Value: append([]string{}, notes...)},
			{Key: "dropped", Value: append([]string{}, res.Dropped...)},
			{Key: "ignored", Value: append([]string{}, res.Ignored...)}, {Key: "deployments", Value: deployments}}
		if err := a.writeNoticed(stdout, m.Arch.Notice(), "plan", out); err != nil {
			return fail(stderr, "plan", exitBadArgs, err)
		}
		return status
	}
	writeNotice(stdout, m.Arch.Notice())
	fmt.Fprintf(stdout, "%s: %d sequence(s) of %d tokens, sized as %s\n", m.Name, *concurrency, *length, res.Describes)
	if len(rows) == 0 {
		for _, n := range res.Dropped {
			fmt.Fprintf(stdout, "%s\n", n)
		}
		fmt.Fprintf(stdout, "no deployment holds it in the space searched: %s\n", res.Searched)
		return status
	}
	fmt.Fprintf(stdout, "%d deployment(s) hold it; the first %d, ranked %s:\n\n", len(rows), len(shown), sp.Order())
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	cost := ""
	if len(prices) > 0 {
		cost = "USD/H\t"
	}
	fmt.Fprintf(tw, "GPUS\tNODES\t%sCLASS\tTP\tPP\tDP\tWEIGHTS\tKV\t%s\tSEQS/ENGINE\tMOST SEQS\tLONGEST\tKV HEADROOM\t\n", cost, res.BudgetColumn)
	for _, d := range shown {
		price := ""
		if len(prices) > 0 {
			price = "-\t"
			if d.USDPerHour != nil {
				price = fmt.Sprintf("%.2f\t", *d.USDPerHour)
			}
		}
		weights := d.Weights
		if d.Online {
			weights += " (online)"
		}
		room := gibString(d.KVHeadroom)
		if d.Tight {
			room += " (tight)"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s%s\t%d\t%d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t\n", d.GPUs, d.Nodes, price, d.Class.Name, d.TP, d.PP,
			d.DP, weights, d.KV, d.Budget, d.PerEngine, bound(d.MostSeqs), bound(d.LongestLen), room)
	}
	if err := tw.Flush(); err != nil {
		return fail(stderr, "plan", exitBadArgs, err)
	}
	fmt.Fprintln(stdout)
	for i, d := range shown {
		fmt.Fprintf(stdout, "%d. %s\n", i+1, d.Command)
	}
	if slices.ContainsFunc(shown, func(d engine.Deployment) bool { return d.Online }) {
		fmt.Fprintln(stdout, "\n(online): the engine quantizes the checkpoint's weights as it loads them, which changes the model's numerics: check its quality before serving it")
	}
	if slices.ContainsFunc(shown, func(d engine.Deployment) bool { return d.Tight }) {
		fmt.Fprintf(stdout, "(tight): the need leaves less than the %v %% margin of the budget unused (--margin)\n", *margin)
	}
	if len(res.Ignored) > 0 {
		fmt.Fprintln(stdout)
		for _, ig := range res.Ignored {
			// Worded as a report's settings word it (engine.Pasted.Settings).
			fmt.Fprintf(stdout, "ignored %s: it does not change memory\n", untrusted.Text(ig))
		}
	}
	for _, n := range slices.Concat(notes, res.Dropped) {
		fmt.Fprintf(stdout, "\n%s\n", n)
	}
	fmt.Fprintf(stdout, "\nsearched: %s\n", res.Searched)
	return status
}

// caveatNotes returns a note for each caveat the shown deployments carry
// (see [engine.Deployment.Caveat]), once, naming the deployments by their
// place in the list (as the launch lines number them), in the order the
// caveats first appear.
func caveatNotes(shown []engine.Deployment) []string {
	var caveats []string
	at := map[string][]string{}
	for i, d := range shown {
		if d.Caveat == "" {
			continue
		}
		if _, ok := at[d.Caveat]; !ok {
			caveats = append(caveats, d.Caveat)
		}
		at[d.Caveat] = append(at[d.Caveat], strconv.Itoa(i+1))
	}
	notes := make([]string, 0, len(caveats))
	for _, c := range caveats {
		which := "deployment "
		if len(at[c]) > 1 {
			which = "deployments "
		}
		notes = append(notes, which+strings.Join(at[c], ", ")+": "+c)
	}
	return notes
}

// priceFlag is the repeatable --price CLASS=USD: each class's price per
// GPU-hour.
type priceFlag map[string]float64

func (p priceFlag) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, p[k]))
	}
	return strings.Join(parts, ",")
}

func (p priceFlag) Set(s string) error {
	name, usd, err := engine.ParsePrice(s)
	if err != nil {
		return err
	}
	if _, dup := p[name]; dup {
		return fmt.Errorf("%s: a second price for the class", name)
	}
	p[name] = usd
	return nil
}

// orEmpty is the prices for JSON: an object, never null.
func (p priceFlag) orEmpty() map[string]float64 {
	if p == nil {
		return map[string]float64{}
	}
	return p
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
