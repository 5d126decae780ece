package main

import (
	"fmt"
	"io"

	"membudget/budget"
)

// queryJSON is `membudget max-seqs --json` and `membudget max-len --json`.
type queryJSON struct {
	Query       string         `json:"query"`
	Engine      string         `json:"engine"`
	Model       string         `json:"model"`
	Class       string         `json:"class"`
	Serve       serveJSON      `json:"serve"`
	Given       uint64         `json:"given"`
	Cap         uint64         `json:"cap"`
	Answer      uint64         `json:"answer"`
	Fits        bool           `json:"fits"`
	Capped      bool           `json:"capped"`
	Evals       int            `json:"evals"`
	Starts      bool           `json:"starts"`
	Failure     string         `json:"failure,omitempty"`
	At          footprintJSON  `json:"at"`
	Next        *footprintJSON `json:"next,omitempty"`
	TippingTerm string         `json:"tipping_term,omitempty"`
}

func runMaxSeqs(stdout, stderr io.Writer, args []string) int {
	return runQuery(stdout, stderr, args, "max-seqs")
}

func runMaxLen(stdout, stderr io.Writer, args []string) int {
	return runQuery(stdout, stderr, args, "max-len")
}

// runQuery answers max-seqs (the most sequences at --length) or max-len
// (the longest length at --seqs), verified, with both witnesses.
func runQuery(stdout, stderr io.Writer, args []string, name string) int {
	fs := newFlags(name, stderr)
	var f serveFlags
	if err := f.registerFor(fs, args); err != nil {
		return fail(stderr, name, exitBadArgs, err)
	}
	var given *uint64
	switch {
	case name == "max-len":
		given = fs.Uint64("seqs", 1, "concurrent sequences")
	case f.engine == engineSGLang:
		given = fs.Uint64("length", 0, "tokens per sequence (default: --context-length)")
	default:
		given = fs.Uint64("length", 0, "tokens per sequence (default: max_model_len)")
	}
	if status, ok := f.parseServe(fs, args); !ok {
		return status
	}
	if f.engine == engineSGLang {
		return runSGLangQuery(stdout, stderr, &f, name, *given)
	}
	sz, err := f.load()
	if err != nil {
		return fail(stderr, name, exitBadArgs, err)
	}
	writeWarnings(stderr, name, sz.warnings())
	r := sz.serve
	ref, err := sz.reference()
	if err != nil {
		return fail(stderr, name, exitBadArgs, err)
	}
	refusal := ref.Capacity().Refusal(r.MaxModelLen, r.MaxNumSeqs)
	var ans budget.Answer
	var capv uint64
	if name == "max-seqs" {
		if *given == 0 {
			*given = r.MaxModelLen
		}
		if *given > r.MaxModelLen {
			return fail(stderr, name, exitBadArgs, fmt.Errorf("--length %d: above --max-model-len %d", *given, r.MaxModelLen))
		}
		capv = r.MaxNumSeqs
		ans, err = budget.MaxSequences(sz.plan, *given, capv)
	} else {
		if *given == 0 || *given > r.MaxNumSeqs {
			return fail(stderr, name, exitBadArgs, fmt.Errorf("--seqs %d: want 1 to --max-num-seqs %d", *given, r.MaxNumSeqs))
		}
		capv = r.MaxModelLen
		ans, err = budget.MaxLength(sz.plan, *given, capv)
	}
	if err != nil {
		flagName := "--length"
		if name == "max-len" {
			flagName = "--seqs"
		}
		return fail(stderr, name, exitBadArgs, fmt.Errorf("%s: %w", flagName, err))
	}
	if refusal != "" {
		return vllmNoStart(stdout, stderr, &f, sz, name, *given, refusal)
	}
	out := queryJSON{Query: name, Engine: engineVLLM, Model: sz.modelName, Class: sz.class.Name, Serve: f.serveOf(sz.modelName, r), Given: *given, Cap: capv,
		Answer: ans.Value, Fits: ans.Fits, Capped: ans.Capped, Evals: ans.Evals, Starts: refusal == "", Failure: refusal, At: toJSON(ans.At, sz.plan.Beside)}
	if ans.Fits && !ans.Capped {
		next := toJSON(ans.Next, sz.plan.Beside)
		out.Next = &next
		out.TippingTerm = tippingTerm(ans.At, ans.Next)
	}
	status := exitOK
	if !ans.Fits {
		status = exitNoFit
	}
	if f.json {
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, name, exitBadArgs, err)
		}
		return status
	}
	unit, what := "sequences", fmt.Sprintf("at %d tokens each", *given)
	if name == "max-len" {
		unit, what = "tokens", fmt.Sprintf("at %d sequence(s)", *given)
	}
	fmt.Fprintf(stdout, "%s on %s, sized as %s\n%s\n", sz.modelName, sz.class.Name, r.Profile.Describes, settingsLine(sz.modelName, r))
	switch {
	case !ans.Fits:
		fmt.Fprintf(stdout, "nothing fits %s: even 1 %s leaves %s\n", what, unit[:len(unit)-1], shortfallString(ans.At))
		writeFootprint(stdout, ans.At, sz.plan.Beside)
		return status
	case ans.Capped:
		capName := "--max-num-seqs"
		if name == "max-len" {
			capName = "--max-model-len"
		}
		fmt.Fprintf(stdout, "%s: %d %s — capped: the cap (%s %d) itself fits\n", name, ans.Value, unit, capName, capv)
	default:
		fmt.Fprintf(stdout, "%s: %d %s %s (checked: %d fits, %d does not; %d evaluations)\n", name, ans.Value, unit, what, ans.Value, ans.Value+1, ans.Evals)
	}
	fmt.Fprintf(stdout, "\nat %d (fits):\n", ans.Value)
	writeFootprint(stdout, ans.At, sz.plan.Beside)
	if out.Next != nil {
		fmt.Fprintf(stdout, "\nat %d (does not fit: %s; the term that tips it over: %s):\n", ans.Value+1, ans.Next.Failed, out.TippingTerm)
		writeFootprint(stdout, ans.Next, sz.plan.Beside)
	}
	return status
}

// vllmNoStart answers a query on a serve vLLM refuses to start: nothing
// fits, whatever the footprint (exit 1), and why names the flag to change.
func vllmNoStart(stdout, stderr io.Writer, f *serveFlags, sz *sizing, name string, given uint64, why string) int {
	r := sz.serve
	capv, s, t := r.MaxNumSeqs, uint64(1), given
	if name == "max-len" {
		capv, s, t = r.MaxModelLen, given, 1
	}
	out := queryJSON{Query: name, Engine: engineVLLM, Model: sz.modelName, Class: sz.class.Name, Serve: f.serveOf(sz.modelName, r),
		Given: given, Cap: capv, Failure: why, At: toJSON(sz.plan.Evaluate(s, t), sz.plan.Beside)}
	if f.json {
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, name, exitBadArgs, err)
		}
		return exitNoFit
	}
	fmt.Fprintf(stdout, "%s on %s, sized as %s\n%s\n", sz.modelName, sz.class.Name, r.Profile.Describes, settingsLine(sz.modelName, r))
	fmt.Fprintf(stdout, "nothing fits: vLLM does not start: %s\n", why)
	writeFootprint(stdout, sz.plan.Evaluate(s, t), sz.plan.Beside)
	return exitNoFit
}
