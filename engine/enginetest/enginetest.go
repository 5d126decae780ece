// Package enginetest is the contract every engine of membudget/engine
// keeps, as one suite an engine's tests run over the cases they draw
// (generated configs of every family, and the shipped models):
//
//   - a setting the engine refuses is a *engine.SettingError naming one of
//     the engine's flags (or an environment variable it reads, or the model);
//   - the compiled plan equals the itemised ledger term by term, on every
//     pipeline stage, at every point checked;
//   - the plan is monotone: its ledger never shrinks as sequences or tokens
//     grow, and what fits at (s+1, t) or (s, t+1) fits at (s, t);
//   - the launch line the sizing prints, read back by the same engine,
//     sizes the same serve: the same plan, the same caps, the same verdict;
//   - a Sizing is safe for concurrent use (run the suite under -race).
//
// A third engine passes it by implementing [engine.Engine] and drawing its
// own serve flags in [Case.Args].
package enginetest

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
	"membudget/internal/shell"
	"membudget/model/hub"
)

// T is what the suite needs of a test: *testing.T and *rapid.T are both.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}

// Case is one serve to check: a loaded model, a class, the engine's serve
// flags as a user types them, and the points (sequences, tokens) at which
// to compare the plan with the ledger (nil: [Points] of the serve's caps).
type Case struct {
	Model  *hub.Loaded
	Class  budget.Class
	Args   []string
	Points [][2]uint64
}

// Size parses args as e's serve flags and sizes the serve of m on c, as a
// command does: the flags registered on a fresh flag set, parsed, checked
// by Parsed, sized.
func Size(e engine.Engine, m *hub.Loaded, c budget.Class, args []string) (engine.Sizing, error) {
	s, fs, model := newServe(e)
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%s's flags %q: %w", e.Name(), args, err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%s's flags %q: unexpected argument %q", e.Name(), args, fs.Arg(0))
	}
	if *model != "" && *model != m.Name {
		return nil, fmt.Errorf("%s's flags name the model %s, the case %s", e.Name(), *model, m.Name)
	}
	if _, err := s.Parsed(given(fs)); err != nil {
		return nil, err
	}
	return s.Size(m, c)
}

// newServe is a fresh serve of e with its flags on a flag set that reports
// nothing (a test reads its errors).
func newServe(e engine.Engine) (engine.Serve, *flag.FlagSet, *string) {
	s := e.NewServe()
	fs := flag.NewFlagSet(e.Name(), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var model string
	s.Register(fs, &model)
	return s, fs, &model
}

func given(fs *flag.FlagSet) map[string]bool {
	g := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { g[f.Name] = true })
	return g
}

// Check checks e's contract on c. A case the engine refuses is checked for
// its refusal alone; it returns the sizing, nil when refused.
func Check(t T, e engine.Engine, c Case) engine.Sizing {
	t.Helper()
	sz, err := Size(e, c.Model, c.Class, c.Args)
	if err != nil {
		checkRefusal(t, e, err)
		return nil
	}
	points := c.Points
	if points == nil {
		points = Points(sz.Seqs().Value, sz.Len().Value)
	}
	checkPlanIsLedger(t, sz, points)
	checkMonotone(t, sz, points)
	checkRoundTrip(t, e, c, sz)
	checkArgsRegisterer(t, e, c, sz)
	checkConcurrent(t, sz)
	return sz
}

// checkArgsRegisterer: where e's serve registers only the flags named
// ([engine.ArgsRegisterer]), the case's flags so registered size the same
// plan and print the same line as all of them registered, and the length
// flag is registered even when no flag is named.
func checkArgsRegisterer(t T, e engine.Engine, c Case, sz engine.Sizing) {
	t.Helper()
	s := e.NewServe()
	ar, ok := s.(engine.ArgsRegisterer)
	if !ok {
		return
	}
	fs := flag.NewFlagSet(e.Name(), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var model string
	ar.RegisterFor(fs, &model, c.Args)
	if err := fs.Parse(c.Args); err != nil {
		t.Fatalf("%s's flags %q, registered as named: %v", e.Name(), c.Args, err)
	}
	if _, err := s.Parsed(given(fs)); err != nil {
		t.Fatalf("%s's flags %q, registered as named: %v", e.Name(), c.Args, err)
	}
	got, err := s.Size(c.Model, c.Class)
	if err != nil {
		t.Fatalf("%s's flags %q, registered as named, are refused: %v", e.Name(), c.Args, err)
	}
	if diff := cmp.Diff(sz.Plan(), got.Plan()); diff != "" || got.Command() != sz.Command() {
		t.Fatalf("the flags registered as named size another serve (-all +named):\n%s\n%s\n%s", diff, sz.Command(), got.Command())
	}
	none := flag.NewFlagSet(e.Name(), flag.ContinueOnError)
	ar.RegisterFor(none, &model, nil)
	if name := strings.TrimPrefix(sz.Len().Flag, "--"); none.Lookup(name) == nil {
		t.Fatalf("%s does not register %s, its length flag, when no flag is named", e.Name(), sz.Len().Flag)
	}
}

// checkRefusal: a refusal is a *engine.SettingError naming a flag e
// registers or the model, or, marked Env, an environment variable it
// reads.
func checkRefusal(t T, e engine.Engine, err error) {
	t.Helper()
	var se *engine.SettingError
	if !errors.As(err, &se) {
		t.Fatalf("%s refuses a serve with %T, not a *engine.SettingError naming its flag: %v", e.Name(), err, err)
	}
	s, fs, _ := newServe(e)
	switch {
	case se.Env && slices.Contains(s.Env(), se.Flag):
		return
	case !se.Env && (se.Flag == "model" || fs.Lookup(se.Flag) != nil):
		return
	case se.Env:
		t.Fatalf("%s's refusal names the variable %s, which it does not read: %v", e.Name(), se.Flag, err)
	}
	t.Fatalf("%s's refusal names --%s, which is none of its flags: %v", e.Name(), se.Flag, err)
}

// checkPlanIsLedger: on every stage, at every point, the plan's terms are
// the ledger's sums by term.
func checkPlanIsLedger(t T, sz engine.Sizing, points [][2]uint64) {
	t.Helper()
	plan := sz.Plan()
	for i := range plan.Stages {
		for _, p := range points {
			s, tok := p[0], p[1]
			want := budget.ItemTerms(sz.Ledger(i, s, tok))
			got := plan.EvaluateStage(i, s, tok).Terms
			if want != got {
				t.Fatalf("stage %d at (%d, %d): the plan's terms %v are not the ledger's %v (%s)", i, s, tok, got, want, sz.Command())
			}
		}
	}
}

// checkMonotone: one more sequence or token never shrinks the ledger, and
// never makes a footprint that did not fit fit.
func checkMonotone(t T, sz engine.Sizing, points [][2]uint64) {
	t.Helper()
	plan := sz.Plan()
	for _, p := range points {
		s, tok := p[0], p[1]
		at := plan.Evaluate(s, tok)
		for _, next := range [][2]uint64{{budget.SatAdd(s, 1), tok}, {s, budget.SatAdd(tok, 1)}} {
			f := plan.Evaluate(next[0], next[1])
			if f.Ledger < at.Ledger {
				t.Fatalf("the ledger shrinks from %d at (%d, %d) to %d at (%d, %d) (%s)", at.Ledger, s, tok, f.Ledger, next[0], next[1], sz.Command())
			}
			if f.Fits() && !at.Fits() {
				t.Fatalf("(%d, %d) fits and (%d, %d) does not (%s)", next[0], next[1], s, tok, sz.Command())
			}
		}
	}
}

// checkRoundTrip: the printed launch line, read back by the same engine as
// a pasted line is read, names the model and its revision and sizes the
// same serve.
func checkRoundTrip(t T, e engine.Engine, c Case, sz engine.Sizing) {
	t.Helper()
	again, err := ReadBack(e, c, sz.Command())
	if err != nil {
		t.Fatalf("%v", err)
	}
	if diff := cmp.Diff(sz.Plan(), again.Plan()); diff != "" {
		t.Fatalf("the printed line sizes another plan (-first +again):\n%s\n%s", diff, sz.Command())
	}
	for _, b := range [][2]engine.Bound{{sz.Seqs(), again.Seqs()}, {sz.Len(), again.Len()}, {sz.Page(), again.Page()}} {
		if b[0] != b[1] {
			t.Fatalf("the printed line sizes another cap: %+v, then %+v (%s)", b[0], b[1], sz.Command())
		}
	}
	ok1, why1 := sz.Starts()
	ok2, why2 := again.Starts()
	if ok1 != ok2 || why1 != why2 {
		t.Fatalf("the printed line starts otherwise: %v %q, then %v %q (%s)", ok1, why1, ok2, why2, sz.Command())
	}
	if again.Command() != sz.Command() {
		t.Fatalf("the line read back prints another line:\n%s\n%s", sz.Command(), again.Command())
	}
}

// ReadBack reads line, a launch line e printed for case c, as a pasted
// line is read (with c's release, which is membudget's choice of rules and
// no flag of the line), and sizes the serve it gives for c's model and
// class. Its error says what of the line was not read back as printed.
func ReadBack(e engine.Engine, c Case, line string) (engine.Sizing, error) {
	words, err := shell.Split(line)
	if err != nil {
		return nil, fmt.Errorf("%s's printed line is not one shell line: %v: %s", e.Name(), err, line)
	}
	env, rest := engine.SplitEnv(words)
	if !e.LaunchLine(rest) {
		return nil, fmt.Errorf("%s's printed line is not its launch line: %s", e.Name(), line)
	}
	for _, dashed := range [][]string{append([]string{"-" + rest[0]}, rest[1:]...), append([]string{"--json"}, rest...)} {
		if e.LaunchLine(dashed) {
			return nil, fmt.Errorf("%s takes %q for its launch line: a line begins with a word, never a flag", e.Name(), strings.Join(dashed, " "))
		}
	}
	s, fs, _ := newServe(e)
	if err := fs.Parse(releaseArgs(s, c.Args)); err != nil {
		return nil, fmt.Errorf("%s's release flag: %w", e.Name(), err)
	}
	l, err := engine.ReadLaunch(s, fs, env, rest)
	if err != nil {
		return nil, fmt.Errorf("%s cannot read its own line back: %w\n%s", e.Name(), err, line)
	}
	if l.Model != c.Model.Name || l.Revision != c.Model.Revision() {
		return nil, fmt.Errorf("the line names %s at %q, the serve %s at %q: %s", l.Model, l.Revision, c.Model.Name, c.Model.Revision(), line)
	}
	if len(l.IgnoredEnv) > 0 || len(l.Ignored) > 0 {
		return nil, fmt.Errorf("the printed line holds what the engine ignores (%v %v): %s", l.IgnoredEnv, l.Ignored, line)
	}
	if _, err := s.Parsed(given(fs)); err != nil {
		return nil, fmt.Errorf("the printed line is refused: %w\n%s", err, line)
	}
	again, err := s.Size(c.Model, c.Class)
	if err != nil {
		return nil, fmt.Errorf("the printed line sizes no serve: %w\n%s", err, line)
	}
	return again, nil
}

// releaseArgs are the flags of args that choose the engine's release (the
// serve's [engine.IdeaRelease] concept), with their values.
func releaseArgs(s engine.Serve, args []string) []string {
	var release []string
	for _, c := range s.Concepts() {
		if c.Idea == engine.IdeaRelease {
			release = append(release, c.Flag)
		}
	}
	var out []string
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !slices.Contains(release, name) {
			continue
		}
		out = append(out, args[i])
		if !hasValue && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
	}
	return out
}

// checkConcurrent calls the sizing's methods from several goroutines at
// once, for -race to see.
func checkConcurrent(t T, sz engine.Sizing) {
	t.Helper()
	var wg sync.WaitGroup
	plan := sz.Plan()
	for range 4 {
		wg.Go(func() {
			_ = sz.Plan().Evaluate(1, 1)
			_, _ = sz.Starts()
			_ = sz.Command()
			_ = sz.Ledger(0, 1, 1)
			sec := sz.Section()
			_ = sec.Weights(0)
			_ = sec.Lines(plan.Evaluate(1, 1))
			_ = sec.Fields(plan.Evaluate(1, 1))
		})
	}
	wg.Wait()
}
