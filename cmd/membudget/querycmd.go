package main

import (
	"errors"
	"fmt"
	"io"

	"membudget/budget"
	"membudget/engine"
)

// queryAnswer is `membudget max-seqs --json` and `membudget max-len --json`.
type queryAnswer struct {
	Query       string                `json:"query"`
	Engine      string                `json:"engine"`
	Model       string                `json:"model"`
	Class       string                `json:"class"`
	Serve       any                   `json:"serve"`
	Given       uint64                `json:"given"`
	Cap         uint64                `json:"cap"`
	Answer      uint64                `json:"answer"`
	Fits        bool                  `json:"fits"`
	Capped      bool                  `json:"capped"`
	Evals       int                   `json:"evals"`
	Starts      bool                  `json:"starts"`
	Failure     string                `json:"failure,omitempty"`
	At          engine.FootprintJSON  `json:"at"`
	Next        *engine.FootprintJSON `json:"next,omitempty"`
	TippingTerm string                `json:"tipping_term,omitempty"`
	// SteadyState is, for max-seqs on a model with windowed layers, the
	// sequences the serve holds once their prefills are done, beside
	// Answer, the engine's guarantee.
	SteadyState *steadyJSON `json:"steady_state,omitempty"`
}

// steadyJSON is a serve's concurrency at steady state (see
// [engine.Steady]).
type steadyJSON struct {
	Seqs                  uint64 `json:"seqs"`
	Capped                bool   `json:"capped"`
	Blocks                uint64 `json:"blocks"`
	PagesPerSeq           uint64 `json:"blocks_per_seq"`
	GuaranteedPagesPerSeq uint64 `json:"guaranteed_blocks_per_seq"`
	Charged               string `json:"charged"`
}

func (a *app) maxSeqs(stdout, stderr io.Writer, args []string) int {
	return a.query(stdout, stderr, args, "max-seqs")
}

func (a *app) maxLen(stdout, stderr io.Writer, args []string) int {
	return a.query(stdout, stderr, args, "max-len")
}

// queryFailure is the exit status and error of a query that could not be
// answered: a bad --length or --seqs (flagName), or, when the evaluator is
// found not monotone, membudget's own fault (see internalError).
func queryFailure(flagName string, err error) (int, error) {
	if status, ierr := internalError(err); status == exitInternal {
		return status, ierr
	}
	return exitBadArgs, fmt.Errorf("%s: %w", flagName, err)
}

// internalError is the exit status of err: exitInternal, with a plea to
// report it, for an evaluator a query found not monotone (the engine's
// plan contradicts the search's contract, whatever the input), else
// exitBadArgs.
func internalError(err error) (int, error) {
	var me *budget.MonotonicityError
	if errors.As(err, &me) {
		return exitInternal, fmt.Errorf("internal error, please report it with the command line: %w", err)
	}
	return exitBadArgs, err
}

// query answers max-seqs (the most sequences at --length) or max-len (the
// longest length at --seqs), verified, with both witnesses.
func (a *app) query(stdout, stderr io.Writer, args []string, name string) int {
	fs := newFlags(name, stderr)
	var given *uint64
	sa, err := a.serveFlags(fs, args, func(engine.Engine) {
		if name == "max-len" {
			given = fs.Uint64("seqs", 1, "concurrent sequences")
		} else {
			given = fs.Uint64("length", 0, "tokens per sequence (default: the longest the serve takes)")
		}
	})
	if err != nil {
		return fail(stderr, name, exitBadArgs, err)
	}
	if status, ok := a.parseServe(fs, sa, args); !ok {
		return status
	}
	warn := func(w []string) { writeWarnings(stderr, name, w) }
	m, c, sz, err := a.size(sa, warn)
	if err != nil {
		return fail(stderr, name, exitBadArgs, err)
	}
	plan, sec := sz.Plan(), sz.Section()
	warn(sec.Warnings(0))
	seqsCap, lenCap := sz.Seqs(), sz.Len()
	var ans budget.Answer
	var capv uint64
	if name == "max-seqs" {
		if *given == 0 {
			*given = lenCap.Value
		}
		if *given > lenCap.Value {
			return fail(stderr, name, exitBadArgs, fmt.Errorf("--length %d: above %s %d", *given, lenCap.Flag, lenCap.Value))
		}
		capv = seqsCap.Value
		ans, err = budget.MaxSequences(plan, *given, capv)
	} else {
		if *given == 0 || *given > seqsCap.Value {
			return fail(stderr, name, exitBadArgs, fmt.Errorf("--seqs %d: want 1 to %s %d", *given, seqsCap.Label(), seqsCap.Value))
		}
		capv = lenCap.Value
		ans, err = budget.MaxLength(plan, *given, capv)
	}
	if err != nil {
		flagName := "--length"
		if name == "max-len" {
			flagName = "--seqs"
		}
		status, err := queryFailure(flagName, err)
		return fail(stderr, name, status, err)
	}
	starts, why := sz.Starts()
	out := queryAnswer{Query: name, Engine: sa.eng.Name(), Model: m.Name, Class: c.Name, Serve: sec.Serve(), Given: *given, Cap: capv,
		Answer: ans.Value, Fits: ans.Fits, Capped: ans.Capped, Evals: ans.Evals, Starts: starts, Failure: why, At: engine.FootprintOf(ans.At, plan.Beside)}
	if !starts {
		// The engine refuses the serve: nothing fits, whatever the
		// footprint; the witness is the footprint of one.
		s, t := uint64(1), *given
		if name == "max-len" {
			s, t = *given, 1
		}
		out.Answer, out.Fits, out.Capped, out.Evals = 0, false, false, 0
		out.At = engine.FootprintOf(plan.Evaluate(s, t), plan.Beside)
	} else if ans.Fits && !ans.Capped {
		next := engine.FootprintOf(ans.Next, plan.Beside)
		out.Next = &next
		out.TippingTerm = tippingTerm(ans.At, ans.Next)
	}
	var steady engine.Steady
	haveSteady := false
	if ss, ok := sz.(engine.SteadyStater); ok && name == "max-seqs" && starts && ans.Fits {
		if steady, haveSteady = ss.SteadyState(*given); haveSteady {
			out.SteadyState = &steadyJSON{Seqs: steady.Seqs, Capped: steady.Capped, Blocks: steady.Blocks, PagesPerSeq: steady.PagesPerSeq,
				GuaranteedPagesPerSeq: steady.GuaranteedPagesPerSeq, Charged: steady.Charged}
		}
	}
	status := exitOK
	if !out.Fits {
		status = exitNoFit
	}
	if sa.json {
		if err := a.writeJSON(stdout, out); err != nil {
			return fail(stderr, name, exitBadArgs, err)
		}
		return status
	}
	describes, _ := sec.Rules()
	fmt.Fprintf(stdout, "%s on %s, sized as %s\n%s\n", m.Name, c.Name, describes, sz.Command())
	if !starts {
		fmt.Fprintf(stdout, "nothing fits: %s does not start: %s\n", sa.eng.Title(), why)
		s, t := uint64(1), *given
		if name == "max-len" {
			s, t = *given, 1
		}
		writeFootprint(stdout, sec, plan.Evaluate(s, t))
		return status
	}
	for _, l := range sec.QueryLines() {
		fmt.Fprintln(stdout, l)
	}
	unit, what := "sequences", fmt.Sprintf("at %d tokens each", *given)
	capBound := seqsCap
	if name == "max-len" {
		unit, what, capBound = "tokens", fmt.Sprintf("at %d sequence(s)", *given), lenCap
	}
	switch {
	case !ans.Fits:
		fmt.Fprintf(stdout, "nothing fits %s: even 1 %s leaves %s\n", what, unit[:len(unit)-1], sec.Shortfall(ans.At))
		writeFootprint(stdout, sec, ans.At)
		return status
	case ans.Capped:
		fmt.Fprintf(stdout, "%s: %d %s — capped: the cap (%s %d) itself fits\n", name, ans.Value, unit, capBound.Label(), capv)
	default:
		fmt.Fprintf(stdout, "%s: %d %s %s (checked: %d fits, %d does not; %d evaluations)\n", name, ans.Value, unit, what, ans.Value, ans.Value+1, ans.Evals)
	}
	if haveSteady {
		fmt.Fprintf(stdout, "  that is %s's guaranteed concurrency: every sequence charged its worst case, %d block(s) of the %d\n", sa.eng.Title(), steady.GuaranteedPagesPerSeq, steady.Blocks)
		capped := ""
		if steady.Capped {
			capped = fmt.Sprintf(" (the cap %s: the blocks hold more)", capBound.Label())
		}
		fmt.Fprintf(stdout, "steady state: %d sequences of %d tokens once their prefills are done%s: %s\n", steady.Seqs, *given, capped, steady.Charged)
	}
	fmt.Fprintf(stdout, "\nat %d (fits):\n", ans.Value)
	writeFootprint(stdout, sec, ans.At)
	if out.Next != nil {
		fmt.Fprintf(stdout, "\nat %d (does not fit: %s; the term that tips it over: %s):\n", ans.Value+1, ans.Next.Failed, out.TippingTerm)
		writeFootprint(stdout, sec, ans.Next)
	}
	return status
}
