package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"membudget/engine"
	"membudget/internal/shell"
	"membudget/model/explain"
	"membudget/model/logs"
)

// explainJSON is `membudget explain --json`: the explanation, and the class
// --calibrate wrote.
type explainJSON struct {
	*explain.Explanation
	Calibration *calibrationJSON `json:"calibration,omitempty"`
	// NotExplained says why the figures were not explained when
	// --calibrate wrote a class from a log whose model did not resolve.
	NotExplained string `json:"not_explained,omitempty"`
}

// calibrationJSON is the class --calibrate wrote.
type calibrationJSON struct {
	Path    string    `json:"path"`
	Name    string    `json:"name"`
	Base    string    `json:"base"`
	Derived []string  `json:"derived"`
	Copied  []string  `json:"copied"`
	Class   classJSON `json:"class"`
}

// explainFlags are explain's own flags.
type explainFlags struct {
	model, class  string
	kernels       kernelsFlag
	json, quote   bool
	calibrate     string
	calibrateName string
	force         bool
}

func (ef *explainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&ef.model, "model", "", "the model, when the log names none (or another): a config.json `path`, a shipped model or a Hugging Face model id")
	fs.StringVar(&ef.class, "class", "", "device `class` (default: the one the logged total stands for)")
	ef.kernels.register(fs)
	fs.BoolVar(&ef.json, "json", false, "print JSON for scripts (schema in the README)")
	fs.BoolVar(&ef.quote, "quote", false, "read the log as a quote: lines joined by \" / \", as corpus/observed/vllm.csv's quote column holds them")
	fs.StringVar(&ef.calibrate, "calibrate", "", "write a class for the logged device to `DIR`/<class>/HARDWARE.toml, for --kernels DIR")
	fs.StringVar(&ef.calibrateName, "calibrate-name", "", "the calibrated class's `name` (default: the matched class's, or the nearest's with the logged total)")
	fs.BoolVar(&ef.force, "force", false, "let --calibrate overwrite an existing class file")
}

// explain is `membudget explain`: the log, a file or standard input, says
// which engine it is of, and so which serve flags override its settings.
func (a *app) explain(stdout, stderr io.Writer, args []string) int {
	// The flags are known once the log is: read it first, finding the log
	// and --quote among every engine's flags.
	logArg, named, quote := a.scanExplain(args)
	eng := a.engines.Default()
	var src *explain.Source
	if !engine.AsksHelp(args) {
		var err error
		if src, err = openLog(a.stdin, logArg, named, quote); err != nil {
			return fail(stderr, "explain", exitBadArgs, err)
		}
		if e, err := a.engines.Lookup(string(src.Log.Engine)); err == nil {
			eng = e
		}
	}
	reader, ok := eng.(engine.LogReader)
	if !ok {
		return fail(stderr, "explain", exitBadArgs, fmt.Errorf("the log is %s's, whose logs membudget does not read", eng.Title()))
	}
	fs := newFlags("explain", stderr)
	var ef explainFlags
	ef.register(fs)
	if err := a.engines.Check(eng, args, func(name string) bool { return fs.Lookup(name) != nil }); err != nil {
		if fe := (*engine.FlagError)(nil); errors.As(err, &fe) {
			err = fmt.Errorf("%s is %s's flag, and the log is %s's", fe.Flag, fe.Owner.Title(), eng.Title())
			if fe.Nearest != "" {
				err = fmt.Errorf("%v: its nearest is %s", err, fe.Nearest)
			}
		}
		return fail(stderr, "explain", exitBadArgs, err)
	}
	serve := eng.NewServe()
	serve.Register(fs, &ef.model)
	if status, ok := a.parseFlags(fs, args, true); !ok {
		return status
	}
	if rest := fs.Args(); len(rest) > 0 {
		// Flags may follow the log: membudget explain vllm.log --model M.
		if err := fs.Parse(rest[1:]); err != nil {
			return exitBadArgs
		}
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "membudget explain: unexpected argument %q; give one log (a file, or - for standard input)\n", fs.Arg(0))
			return exitBadArgs
		}
		if a.serving {
			// The flags after the log, checked as parseFlags checks those
			// before it.
			if err := a.paths.checkFlags(fs); err != nil {
				return fail(stderr, "explain", exitBadArgs, err)
			}
		}
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	warnings, err := serve.Parsed(given)
	if err != nil {
		return fail(stderr, "explain", exitBadArgs, err)
	}
	writeWarnings(stderr, "explain", warnings)

	// The class: --class, or the one the logged total stands for.
	var choice explain.ClassChoice
	catalog := ef.kernels.catalog()
	if ef.class != "" {
		c, err := catalog.Load(ef.class)
		if err != nil {
			return fail(stderr, "explain", exitBadArgs, fmt.Errorf("--class: %w", err))
		}
		choice = explain.FlagClass(src, c)
	} else {
		classes, err := catalog.LoadAll()
		if err != nil {
			if len(classes) == 0 {
				return fail(stderr, "explain", exitBadArgs, err)
			}
			writeWarnings(stderr, "explain", []string{fmt.Sprintf("some class files do not load, matched among the %d that do: %v", len(classes), err)})
		}
		choice, err = explain.ChooseClass(src, classes)
		if err != nil {
			return fail(stderr, "explain", exitBadArgs, err)
		}
	}

	// --calibrate needs only the log and the class it was matched to.
	var cal *calibrationJSON
	if ef.calibrate != "" {
		var err error
		cal, err = calibrateClass(src, choice, &ef, reader.Ranks(src.Log, serve))
		if err != nil {
			return fail(stderr, "explain", exitBadArgs, err)
		}
	}

	m, warnings, err := a.explainModel(src.Log, ef.model)
	if err != nil {
		if cal != nil {
			return a.writeCalibrationOnly(stdout, stderr, ef.json, cal, err)
		}
		return fail(stderr, "explain", exitBadArgs, err)
	}
	ex, err := reader.Explain(src, m, choice, serve)
	if err != nil {
		return fail(stderr, "explain", exitBadArgs, err)
	}
	writeWarnings(stderr, "explain", warnings)
	status := exitOK
	if !ex.Within {
		status = exitNoFit
	}
	if ef.json {
		if err := a.writeNoticed(stdout, m.Arch.Notice(), "explain", explainJSON{Explanation: ex, Calibration: cal}); err != nil {
			return fail(stderr, "explain", exitBadArgs, err)
		}
		return status
	}
	writeNotice(stdout, m.Arch.Notice())
	writeExplanation(stdout, ex, eng.Title())
	if cal != nil {
		printCalibration(stdout, cal)
	}
	return status
}

// scanExplain finds in explain's arguments the log (the first argument
// that is no flag's value; "-", standard input, when there is none) and
// --quote, knowing which flags take a value from explain's own and every
// engine's. A malformed line is left for the real parse to report.
func (a *app) scanExplain(args []string) (log string, named, quote bool) {
	fs := flag.NewFlagSet("scan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var ef explainFlags
	ef.register(fs)
	for _, e := range a.engines.Engines() {
		scratch := flag.NewFlagSet(e.Name(), flag.ContinueOnError)
		var model string
		e.NewServe().Register(scratch, &model)
		scratch.VisitAll(func(f *flag.Flag) {
			if fs.Lookup(f.Name) == nil {
				b, ok := f.Value.(interface{ IsBoolFlag() bool })
				fs.Var(anyFlag{bool: ok && b.IsBoolFlag()}, f.Name, "")
			}
		})
	}
	log = "-"
	if err := fs.Parse(args); err != nil {
		return log, false, false
	}
	if rest := fs.Args(); len(rest) > 0 {
		log, named = rest[0], true
		_ = fs.Parse(rest[1:])
	}
	return log, named, ef.quote
}

// anyFlag takes any value, as a bool flag or not: scanExplain's stand-in
// for an engine's flag.
type anyFlag struct{ bool bool }

func (f anyFlag) String() string   { return "" }
func (f anyFlag) Set(string) error { return nil }
func (f anyFlag) IsBoolFlag() bool { return f.bool }

// openLog reads the log named by arg: a file, or - for stdin. Without an
// argument, stdin is refused when it is a terminal (or another device),
// where nothing would ever come: "-" reads it regardless.
func openLog(stdin io.Reader, arg string, named, quote bool) (*explain.Source, error) {
	if arg == "-" {
		if f, ok := stdin.(*os.File); ok && !named {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				return nil, errors.New("no log given, and standard input is a terminal: give a log file, or pipe a log into membudget explain -")
			}
		}
		return explain.Read(stdin, "stdin", quote)
	}
	fi, err := os.Stat(arg)
	if err != nil {
		return nil, fmt.Errorf("the log: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the log %s is not a regular file", arg)
	}
	file, err := os.Open(arg)
	if err != nil {
		return nil, fmt.Errorf("the log: %w", err)
	}
	defer file.Close()
	return explain.Read(file, arg, quote)
}

// explainModel resolves --model, or the model the log names, as the sizing
// commands resolve --model.
func (a *app) explainModel(l *logs.Log, flagModel string) (explain.Model, []string, error) {
	spec, from, line := flagModel, explain.FromFlag, 0
	if spec == "" {
		id, ln, ok := explain.LoggedModel(l)
		if !ok {
			return explain.Model{}, nil, &explain.MissingError{Flag: "--model", Reason: "the log does not name the model (no model= setting)"}
		}
		spec, from, line = id, explain.FromLogged, ln
	}
	rm, err := a.load(spec)
	if err != nil {
		if from == explain.FromLogged {
			return explain.Model{}, nil, &explain.MissingError{Flag: "--model", Reason: fmt.Sprintf("the log names the model %s (line %d), which does not resolve (%v)", spec, line, err)}
		}
		return explain.Model{}, nil, err
	}
	m := explain.Model{Name: rm.Name, Arch: rm.Arch, ModelType: rm.Arch.ModelType, Summary: rm.Arch.String(), From: from, Line: line,
		Description: rm.Model.Source.Description}
	return m, rm.Warnings, nil
}

// calibrateClass makes and writes the class for the logged device.
func calibrateClass(src *explain.Source, choice explain.ClassChoice, ef *explainFlags, tp uint64) (*calibrationJSON, error) {
	name := ef.calibrateName
	if name == "" {
		name = explain.DefaultClassName(choice)
	}
	base := choice.Class
	if choice.How == explain.ClassSynthesized {
		c, err := ef.kernels.catalog().Load(choice.Base)
		if err != nil {
			return nil, err
		}
		base = c
	}
	cal, err := explain.Calibrate(src, base, name, tp)
	if err != nil {
		return nil, err
	}
	path, err := explain.WriteClass(ef.calibrate, cal, ef.force)
	if err != nil {
		return nil, err
	}
	return &calibrationJSON{Path: path, Name: cal.Name, Base: cal.Base, Derived: cal.Derived, Copied: cal.Copied, Class: classOf(cal.Class)}, nil
}

// writeCalibrationOnly reports a class --calibrate wrote from a log whose
// figures could not be explained (the model did not resolve).
func (a *app) writeCalibrationOnly(stdout, stderr io.Writer, asJSON bool, cal *calibrationJSON, why error) int {
	reason := why.Error() + "; the class was written, the figures were not explained"
	if asJSON {
		if err := a.writeJSON(stdout, explainJSON{Calibration: cal, NotExplained: reason}); err != nil {
			return fail(stderr, "explain", exitBadArgs, err)
		}
		return exitOK
	}
	printCalibration(stdout, cal)
	fmt.Fprintf(stdout, "not explained: %s\n", reason)
	return exitOK
}

func printCalibration(w io.Writer, cal *calibrationJSON) {
	c := cal.Class
	fmt.Fprintf(w, "\ncalibrated class %s written to %s\n", cal.Name, cal.Path)
	fmt.Fprintf(w, "  memory_bytes %d (%s), driver_fixed_bytes %d, util_ceiling %.2f\n", c.MemoryBytes, gibString(c.MemoryBytes), c.DriverFixedBytes, c.UtilCeiling)
	fmt.Fprintf(w, "  from the log: %s; copied from %s (estimates): %s\n", strings.Join(cal.Derived, ", "), cal.Base, strings.Join(cal.Copied, ", "))
	fmt.Fprintf(w, "  use it: membudget report --kernels %s --class %s ...\n", shell.Quote(dirOf(cal.Path)), cal.Name)
}

// dirOf is the --kernels directory of a class file path.
func dirOf(path string) string {
	d := path
	for range 2 {
		if i := strings.LastIndexAny(d, `/\`); i >= 0 {
			d = d[:i]
		} else {
			return "."
		}
	}
	if d == "" {
		return "/"
	}
	return d
}

// writeExplanation prints an explanation as a table, in the reports' style.
func writeExplanation(w io.Writer, ex *explain.Explanation, title string) {
	lg := ex.Log
	fmt.Fprintf(w, "log     %s: %s", lg.Name, lg.Engine)
	if lg.Version != "" {
		fmt.Fprintf(w, " %s", lg.Version)
	}
	if lg.Era != "" {
		fmt.Fprintf(w, ", %s engine", lg.Era)
	}
	fmt.Fprintf(w, ", %d lines\n", lg.Lines)
	m := ex.Model
	fmt.Fprintf(w, "model   %s — %s\n        ", m.Name, m.Summary)
	if m.From == explain.FromLogged {
		fmt.Fprintf(w, "named by the log (line %d); ", m.Line)
	} else {
		fmt.Fprint(w, "--model; ")
	}
	fmt.Fprintf(w, "%s\n", m.Description)
	c := ex.Class
	fmt.Fprintf(w, "class   %s — %s, %s (%d B)\n        %s\n", c.Name, c.Device, gibString(c.MemoryBytes), c.MemoryBytes, c.Note)
	fmt.Fprintf(w, "%-7s %s (%s", ex.Rules.Engine, ex.Rules.Describes, ex.Rules.Source)
	if ex.Rules.Source == explain.FromLogged && ex.Rules.Logged != "" {
		fmt.Fprintf(w, ": %s", ex.Rules.Logged)
	}
	fmt.Fprintln(w, ")")
	if ex.Rules.Note != "" {
		fmt.Fprintf(w, "        %s\n", ex.Rules.Note)
	}
	fmt.Fprintf(w, "serve   %s\n", ex.Command)
	for _, s := range ex.Settings {
		src := s.Source
		switch {
		case s.Source == explain.FromLogged:
			src = fmt.Sprintf("logged, line %d (%s)", s.Line, s.Detail)
		case s.Detail != "":
			src += ": " + s.Detail
		}
		fmt.Fprintf(w, "        --%-24s %-10s %s\n", s.Flag, s.Value, src)
	}

	fmt.Fprintf(w, "\n  %-33s %5s %12s %12s %12s %9s %11s  %s\n", "figure", "line", "logged", "membudget", "difference", "%", "tolerance", "verdict")
	for _, r := range ex.Figures {
		label := r.Label
		if strings.HasPrefix(label, "the ") {
			label = label[4:]
		}
		if !r.IsPredicted {
			fmt.Fprintf(w, "  %-33s %5d %12s %12s %12s %9s %11s  %s\n", label, r.Line, r.LoggedText, "—", "", "", "", "not predicted")
			continue
		}
		pct := ""
		if r.DifferencePercent != nil {
			pct = fmt.Sprintf("%+.1f %%", *r.DifferencePercent)
		}
		verdict := "within"
		if !r.Within {
			verdict = "OVER"
		}
		if r.Unit == "bytes" {
			fmt.Fprintf(w, "  %-33s %5d %12s %12s %12s %9s %11s  %s\n", label, r.Line, gibSigned0(*r.LoggedBytes), gibString(*r.PredictedBytes),
				gibSigned(*r.DifferenceBytes), pct, gibString(uint64(*r.ToleranceBytes)), verdict)
			continue
		}
		tol := countText(*r.Tolerance, r.Unit)
		if r.Unit != "x" {
			tol = fmt.Sprintf("%.0f", *r.Tolerance)
		}
		fmt.Fprintf(w, "  %-33s %5d %12s %12s %12s %9s %11s  %s\n", label, r.Line, countText(*r.Logged, r.Unit), countText(*r.Predicted, r.Unit),
			signedText(*r.Difference, r.Unit), pct, tol, verdict)
	}
	for _, r := range ex.Figures {
		if r.Note != "" {
			fmt.Fprintf(w, "  %s: %s\n", r.Label, r.Note)
		}
	}
	fmt.Fprintln(w, "  tolerances: weights max(0.5 %, the log's rounding); other memory terms max(0.1 GiB, rounding); available KV max(1 %, rounding); tokens, blocks, concurrency max(2 %, rounding)")
	if s := ex.Starts; s != nil {
		verdict := "agrees"
		switch {
		case !s.Agree:
			verdict = "DISAGREES"
		case s.Host != "":
			verdict = "agrees on a lighter host"
		}
		fmt.Fprintf(w, "\nstarts: the log shows %s %s (%s, line %d); membudget says it %s: %s\n", title, startedWord(s.Logged), s.Evidence, s.Line, startsWord(s.Predicted), verdict)
		if s.Host != "" {
			fmt.Fprintf(w, "  %s\n", s.Host)
		}
	}
	if b := ex.Blocks; b != nil {
		fmt.Fprintf(w, "\nblocks from the logged available KV memory (exact check): %s (line %d) +- %d B in blocks of %d B holds %d to %d blocks; %s (line %d): %d",
			b.AvailableText, b.AvailableLine, b.RoundingBytes, b.BlockBytes, b.Low, b.High, b.From, b.BlocksLine, b.LoggedBlocks)
		if b.Exact {
			fmt.Fprintln(w, " — exact")
		} else {
			fmt.Fprintln(w, " — MISMATCH: the page size or the block count differs")
		}
		if b.Note != "" {
			fmt.Fprintf(w, "  %s\n", b.Note)
		}
	}
	if g := ex.LargestGap; g != nil {
		fmt.Fprintf(w, "\nlargest gap: %s\n", g.Sentence)
	}
	if len(ex.NotPredicted) > 0 {
		var parts []string
		for _, n := range ex.NotPredicted {
			parts = append(parts, fmt.Sprintf("%s, line %d: %s", n.Kind, n.Line, n.Text))
		}
		fmt.Fprintf(w, "also logged, not predicted: %s\n", strings.Join(parts, "; "))
	}
	for _, n := range ex.Warnings {
		fmt.Fprintf(w, "warning: %s\n", n)
	}
	for _, n := range ex.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	checks := ex.Compared
	if ex.Blocks != nil {
		checks++
	}
	if ex.Starts != nil {
		checks++
	}
	if ex.Within {
		fmt.Fprintf(w, "\nverdict: every figure within its tolerance (%d checked)\n", checks)
		return
	}
	off := ex.Over
	if ex.Blocks != nil && !ex.Blocks.Exact {
		off++
	}
	if ex.Starts != nil && !ex.Starts.Agree {
		off++
	}
	fmt.Fprintf(w, "\nverdict: %d of %d checks over their tolerance\n", off, checks)
}

func startedWord(started bool) string {
	if started {
		return "started"
	}
	return "refusing to start"
}

func startsWord(starts bool) string {
	if starts {
		return "starts"
	}
	return "refuses to start"
}

// gibSigned renders a signed byte count in GiB with a sign.
func gibSigned(b int64) string { return fmt.Sprintf("%+.2f GiB", float64(b)/(1<<30)) }

// gibSigned0 renders a signed byte count in GiB, signed only when negative.
func gibSigned0(b int64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }

func countText(v float64, unit string) string {
	switch {
	case unit == "x":
		return fmt.Sprintf("%.2fx", v)
	case v == float64(int64(v)):
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}

func signedText(v float64, unit string) string {
	switch {
	case unit == "x":
		return fmt.Sprintf("%+.2fx", v)
	case v == float64(int64(v)):
		return fmt.Sprintf("%+d", int64(v))
	}
	return fmt.Sprintf("%+.1f", v)
}
