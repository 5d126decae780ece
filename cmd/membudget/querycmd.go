package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine"
)

// queryAnswer is `membudget max-seqs --json` and `membudget max-len --json`.
type queryAnswer struct {
	Query   string `json:"query"`
	Engine  string `json:"engine"`
	Model   string `json:"model"`
	Class   string `json:"class"`
	Serve   any    `json:"serve"`
	Given   uint64 `json:"given"`
	Cap     uint64 `json:"cap"`
	Answer  uint64 `json:"answer"`
	Fits    bool   `json:"fits"`
	Capped  bool   `json:"capped"`
	Evals   int    `json:"evals"`
	Starts  bool   `json:"starts"`
	Failure string `json:"failure,omitempty"`
	// Adjusted says how the serve was changed so that the engine starts
	// it: the longest-length flag, left to the engine by the user, set to
	// the length sized; the serve and the line are then that serve's.
	Adjusted    string                `json:"adjusted,omitempty"`
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
	if status, ok := a.parseServe(fs, sa); !ok {
		return status
	}
	if name == "max-seqs" {
		if err := zeroLength(sa, *given); err != nil {
			return fail(stderr, name, exitBadArgs, err)
		}
	}
	warn := func(w []string) { writeWarnings(stderr, name, w) }
	m, c, sz, err := a.size(sa, warn)
	if err != nil {
		return fail(stderr, name, exitBadArgs, err)
	}
	adjusted := ""
	if sz, adjusted, err = a.startAt(fs, sa, sz, name, given); err != nil {
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
		seqsCap = seqsCapAt(sz, *given)
		capv = seqsCap.Value
		ans, err = budget.MaxSequences(plan, *given, capv)
	} else {
		if *given == 0 || *given > seqsCap.Value {
			return fail(stderr, name, exitBadArgs, fmt.Errorf("--seqs %d: want 1 to %s %d", *given, seqsCap.Label(), seqsCap.Value))
		}
		capv = lenCap.Value
		if bb, ok := sz.(engine.BatchBounder); ok {
			if b, bounded := bb.LenAt(*given); bounded {
				lenCap, capv = b, b.Value
			}
		}
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
		Answer: ans.Value, Fits: ans.Fits, Capped: ans.Capped, Evals: ans.Evals, Starts: starts, Failure: why, Adjusted: adjusted, At: engine.FootprintOf(ans.At, plan.Beside)}
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
		if err := a.writeNoticed(stdout, m.Arch.Notice(), name, out); err != nil {
			return fail(stderr, name, exitBadArgs, err)
		}
		return status
	}
	describes, _ := sec.Rules()
	writeNotice(stdout, m.Arch.Notice())
	fmt.Fprintf(stdout, "%s on %s, sized as %s\n%s\n", m.Name, c.Name, describes, sz.Command())
	if adjusted != "" {
		fmt.Fprintf(stdout, "%s\n", adjusted)
	}
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

// startAt sizes the serve again so that the engine starts it, when it
// refuses the one sized because one request of the serve's longest length
// does not fit and the user left that length to the engine (its flag not
// given): max-seqs at the length asked (the longest the engine starts,
// by its own estimate, when no --length was given), max-len at that
// longest. The line then sets the length flag to what was sized, and
// adjusted says so; otherwise sz is returned as it is, and the answer names
// the flag to change.
func (a *app) startAt(fs *flag.FlagSet, sa *serveArgs, sz engine.Sizing, name string, given *uint64) (engine.Sizing, string, error) {
	starts, why := sz.Starts()
	lenFlag := strings.TrimPrefix(sz.Len().Flag, "--")
	ls, ok := sz.(engine.LongestStarter)
	if starts || !ok || sa.given[lenFlag] {
		return sz, "", nil
	}
	longest, ok := ls.LongestStart()
	if !ok {
		return sz, "", nil
	}
	target, what := longest, fmt.Sprintf("the longest length %s starts", sa.eng.Title())
	if name == "max-seqs" && *given != 0 {
		if *given > longest {
			return sz, "", nil // it does not start at the length asked either
		}
		target, what = *given, "the length asked"
	}
	if err := fs.Set(lenFlag, strconv.FormatUint(target, 10)); err != nil {
		return nil, "", fmt.Errorf("--%s %d: %w", lenFlag, target, err)
	}
	sa.given[lenFlag] = true
	_, _, again, err := a.size(sa, func([]string) {})
	if err != nil {
		return sz, "", nil // refused at that length: answer the first refusal
	}
	if ls, ok := again.(engine.LongestStarter); ok {
		if _, still := ls.LongestStart(); still {
			return sz, "", nil // not what the estimate said: answer the refusal
		}
	}
	// The length now starts; another refusal (a hybrid's state blocks)
	// is the answer's, with the flag that lifts it.
	if name == "max-seqs" && *given == 0 {
		*given = target
	}
	return again, fmt.Sprintf("--%s set to %d, %s: %s does not start at the default %d (%s)", lenFlag, target, what, sa.eng.Title(), sz.Len().Value, why), nil
}

// zeroLength refuses a --length of 0 given: 0 is how the flag says it was
// left out (the longest the serve takes), and a user who typed it asked
// for something else.
func zeroLength(sa *serveArgs, length uint64) error {
	if sa.given["length"] && length == 0 {
		return errors.New("--length 0: want 1 token or more (leave --length out for the longest the serve takes)")
	}
	return nil
}

// seqsCapAt is the cap on sequences of t tokens: the serve's, or its
// batch's where the serve is bounded by it ([engine.BatchBounder]: an
// encoder-only pooling model, whose batch holds whole sequences).
func seqsCapAt(sz engine.Sizing, t uint64) engine.Bound {
	if bb, ok := sz.(engine.BatchBounder); ok {
		if b, bounded := bb.SeqsAt(t); bounded {
			return b
		}
	}
	return sz.Seqs()
}
