package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"membudget/engine"
	"membudget/model"
	"membudget/model/hub"
)

// modelJSON is the report's "model".
type modelJSON struct {
	Name      string         `json:"name"`
	Source    sourceJSON     `json:"source"`
	ModelType string         `json:"model_type"`
	Summary   string         `json:"summary"`
	Weights   engine.Weights `json:"weights"`
	// ReadAs says why a config of a model_type membudget does not know was
	// read as a family's (its architectures name one); "" otherwise.
	ReadAs string `json:"read_as,omitempty"`
	// Defaulted are the keys config.json omits that its transformers
	// config class gave, and those read under another name.
	Defaulted []model.DefaultedKey `json:"defaulted,omitempty"`
}

// sourceJSON is where --model's config.json came from.
type sourceJSON struct {
	// Kind is path, shipped, cache or hub.
	Kind        string `json:"kind"`
	Description string `json:"description"`
	Config      string `json:"config"`
	Revision    string `json:"revision,omitempty"`
	Commit      string `json:"commit,omitempty"`
	// QuantConfig is the hf_quant_config.json the quantization was read
	// from (ModelOpt's, when config.json declares none).
	QuantConfig string `json:"quant_config,omitempty"`
}

func sourceOf(l *hub.Loaded) sourceJSON {
	m := l.Model
	return sourceJSON{Kind: string(m.Source.Kind), Description: m.Source.Description, Config: m.Path, Revision: m.Revision, Commit: m.Commit,
		QuantConfig: l.QuantConfig}
}

// adviceJSON is what would make a serve that does not fit fit, each
// suggestion checked by the evaluator, and the space the search covered.
type adviceJSON struct {
	Suggestions []suggestionJSON `json:"suggestions"`
	Searched    []string         `json:"searched"`
	Notes       []string         `json:"notes"`
	// Plan is the `membudget plan` command to run when no suggestion holds
	// the target in full.
	Plan string `json:"plan,omitempty"`
}

// suggestionJSON is one checked change of the serve's flags.
type suggestionJSON struct {
	Flags string `json:"flags"`
	Why   string `json:"why"`
	GPUs  uint64 `json:"gpus"`
	// HoldsTarget says it holds the target in full; else it is the bound
	// (a shorter length, fewer sequences) of what does.
	HoldsTarget bool `json:"holds_target"`
	// Numerics names what in it changes the model's numerics.
	Numerics string `json:"changes_numerics,omitempty"`
	// LedgerBytes and BudgetBytes are the footprint the suggestion was
	// checked at, on the stage that binds.
	LedgerBytes uint64 `json:"ledger_bytes"`
	BudgetBytes uint64 `json:"budget_bytes"`
}

func adviceOf(adv engine.Advice) *adviceJSON {
	aj := &adviceJSON{Suggestions: []suggestionJSON{}, Searched: adv.Searched, Notes: append([]string{}, adv.Notes...), Plan: adv.Plan}
	for _, sg := range adv.Suggestions {
		aj.Suggestions = append(aj.Suggestions, suggestionJSON{Flags: sg.Flags, Why: sg.Why, GPUs: sg.GPUs, HoldsTarget: sg.Holds, Numerics: sg.Numerics,
			LedgerBytes: sg.At.Ledger, BudgetBytes: sg.At.Budget})
	}
	return aj
}

func (a *app) report(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("report", stderr)
	var seqs, length *uint64
	sa, err := a.serveFlags(fs, args, func(engine.Engine) {
		seqs = fs.Uint64("seqs", 1, "sequences to size for (the engine's startup check: 1)")
		length = fs.Uint64("length", 0, "tokens per sequence (default: the longest the serve takes, the engine's startup check)")
	})
	if err != nil {
		return fail(stderr, "report", exitBadArgs, err)
	}
	if status, ok := a.parseServe(fs, sa); !ok {
		return status
	}
	if err := zeroLength(sa, *length); err != nil {
		return fail(stderr, "report", exitBadArgs, err)
	}
	warn := func(w []string) { writeWarnings(stderr, "report", w) }
	m, c, sz, err := a.size(sa, warn)
	if err != nil {
		return fail(stderr, "report", exitBadArgs, err)
	}
	t := *length
	if t == 0 {
		t = sz.Len().Value
	}
	if seqsCap := sz.Seqs(); *seqs == 0 || *seqs > seqsCap.Value {
		return fail(stderr, "report", exitBadArgs, fmt.Errorf("--seqs %d: want 1 to %s %d", *seqs, seqsCap.Label(), seqsCap.Value))
	}
	if l := sz.Len(); t > l.Value {
		return fail(stderr, "report", exitBadArgs, fmt.Errorf("--length %d: above %s %d", t, l.Flag, l.Value))
	}
	plan, sec := sz.Plan(), sz.Section()
	fp := plan.Evaluate(*seqs, t)
	weights := sec.Weights(fp.Stage)
	warn(sec.Warnings(fp.Stage))
	starts, why := sz.Starts()
	fits := fp.Fits() && starts
	var advice *engine.Advice
	if adv, ok := sz.(engine.Advisor); ok && !fits {
		found, err := adv.Advise(engine.Target{Seqs: *seqs, Tokens: t})
		if err != nil {
			status, err := internalError(err)
			return fail(stderr, "report", status, err)
		}
		advice = &found
	}
	status := exitOK
	if !fits {
		status = exitNoFit
	}
	if sa.json {
		out := object{
			{Key: "model", Value: modelJSON{Name: m.Name, Source: sourceOf(m), ModelType: m.Arch.ModelType, Summary: m.Arch.String(), Weights: weights,
				ReadAs: m.Arch.ReadAs, Defaulted: m.Arch.Defaulted}},
			{Key: "engine", Value: sa.eng.Name()},
			{Key: "class", Value: classOf(c)},
			{Key: "serve", Value: sec.Serve()},
			{Key: "footprint", Value: engine.FootprintOf(fp, plan.Beside)},
		}
		out = append(out, sec.Fields(fp)...)
		out = append(out, engine.Field{Key: "fits", Value: fits})
		if advice != nil {
			out = append(out, engine.Field{Key: "advice", Value: adviceOf(*advice)})
		}
		if err := a.writeNoticed(stdout, m.Arch.Notice(), "report", out); err != nil {
			return fail(stderr, "report", exitBadArgs, err)
		}
		return status
	}
	writeNotice(stdout, m.Arch.Notice())
	fmt.Fprintf(stdout, "model   %s — %s\n        %s\n", m.Name, m.Arch, m.Model.Source.Description)
	if m.Arch.ReadAs != "" {
		fmt.Fprintf(stdout, "        %s\n", m.Arch.ReadAs)
	}
	if l := m.Arch.DefaultsLine(); l != "" {
		fmt.Fprintf(stdout, "        %s\n", l)
	}
	for _, l := range weights.Text {
		fmt.Fprintln(stdout, l)
	}
	fmt.Fprintf(stdout, "class   %s — %s (%s %s), %s, util ceiling %.2f", c.Name, c.Device.Name, c.Device.Silicon.Vendor, c.Device.Silicon, engine.GiB(c.Device.MemoryBytes), c.Memory.UtilCeiling)
	if c.Memory.Unified {
		fmt.Fprint(stdout, ", unified memory")
	}
	describes, note := sec.Rules()
	fmt.Fprintf(stdout, "\n%-7s %s\n", sa.eng.Name(), describes)
	if note != "" {
		fmt.Fprintf(stdout, "        %s\n", note)
	}
	fmt.Fprintf(stdout, "serve   %s\n", sz.Command())
	for _, s := range sec.Settings() {
		fmt.Fprintf(stdout, "        %s\n", s)
	}
	sec.WriteBefore(stdout, fp)
	fmt.Fprintf(stdout, "\nfootprint of %d sequence(s) x %d tokens", *seqs, t)
	if len(plan.Stages) > 1 {
		fmt.Fprintf(stdout, " on pipeline stage %d of %d (the one that binds)", fp.Stage+1, len(plan.Stages))
	}
	fmt.Fprintln(stdout)
	writeFootprint(stdout, sec, fp)
	sec.WriteAfter(stdout, fp)
	switch {
	case !starts:
		fmt.Fprintf(stdout, "\nverdict: %s does not start — %s\n", sa.eng.Title(), why)
	case fp.Fits():
		fmt.Fprintf(stdout, "\nverdict: fits — %d sequence(s) of %d tokens at %s on %s\n", *seqs, t, sec.Setting(), c.Name)
		return status
	default:
		fmt.Fprintf(stdout, "\nverdict: does not fit — %s\n", sec.Shortfall(fp))
	}
	if advice != nil {
		writeAdvice(stdout, *advice, sa.eng, sec.GPUs(), *seqs, t)
	}
	return status
}

// writeAdvice prints the checked suggestions, what in them changes the
// model's numerics, and when none holds the target in full, the space
// searched, what the engine notes of it and the plan to run.
func writeAdvice(w io.Writer, adv engine.Advice, eng engine.Engine, gpus, seqs, t uint64) {
	var numerics []string
	for _, sg := range adv.Suggestions {
		more := ""
		if sg.GPUs != gpus {
			more = fmt.Sprintf(", %d GPUs", sg.GPUs)
		}
		if sg.Numerics != "" {
			more += "; changes the model's numerics"
			if !slices.Contains(numerics, sg.Numerics) {
				numerics = append(numerics, sg.Numerics)
			}
		}
		fmt.Fprintf(w, "  to fit: %s (%s%s)\n", suggestedChange(sg.Flags), sg.Why, more)
	}
	for _, n := range numerics {
		fmt.Fprintf(w, "  %s\n", n)
	}
	if len(adv.Suggestions) > 0 {
		fmt.Fprintf(w, "  each checked by the same evaluator, at %d sequence(s) of %d tokens or at the bound it names, and %s starts it\n", seqs, t, eng.Title())
	} else {
		fmt.Fprintf(w, "  nothing fits in the space searched: %s\n", strings.Join(adv.Searched, "; "))
	}
	for _, n := range adv.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	if adv.Plan != "" {
		fmt.Fprintf(w, "    %s\n", adv.Plan)
	}
}

// suggestedChange is a suggestion's change as printed: its flags, or for
// none the serve as given (a bound it holds without a change).
func suggestedChange(flags string) string {
	if flags == "" {
		return "the serve as given"
	}
	return flags
}
