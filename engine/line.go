package engine

import (
	"flag"
	"fmt"
	"slices"
	"strings"
)

// SplitEnv takes the leading NAME=value assignments off a pasted line, as
// a shell reads them before the command.
func SplitEnv(args []string) (env, rest []string) {
	i := 0
	for i < len(args) && IsEnvAssignment(args[i]) {
		i++
	}
	return args[:i], args[i:]
}

// IsEnvAssignment reports whether s is a shell's NAME=value prefix: a
// name of letters, digits and underscores, not starting with a digit.
func IsEnvAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// IsPython reports whether s names a Python interpreter: python, python3
// or python3.N, by path or not.
func IsPython(s string) bool {
	base := s[strings.LastIndex(s, "/")+1:]
	return base == "python" || base == "python3" || strings.HasPrefix(base, "python3.")
}

// PythonModule reports whether args begin `python [options] -m MODULE`
// (see [IsPython]), with the interpreter's options that take no value
// (-u, -B, -O, ...) between: it returns MODULE and how many of args the
// words up to it take.
func PythonModule(args []string) (module string, n int) {
	if len(args) == 0 || !IsPython(args[0]) {
		return "", 0
	}
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-m" && i+1 < len(args):
			return args[i+1], i + 2
		case len(a) >= 2 && a[0] == '-' && a[1] != '-' && !strings.ContainsAny(a[1:], "cmWX="):
			continue // -u, -B, -O, -OO: the interpreter's switches
		default:
			return "", 0
		}
	}
	return "", 0
}

// TakeRevision takes --revision (and --revision=R) out of the flags of a
// pasted launch line, named line in messages, for the command to resolve
// the model at it once the model is known; a --revision without a value,
// or two that differ, is an error.
func TakeRevision(args []string, line string) (rest []string, revision string, err error) {
	for i := 0; i < len(args); i++ {
		value, ok := strings.CutPrefix(args[i], "--revision=")
		switch {
		case ok:
		case args[i] != "--revision":
			rest = append(rest, args[i])
			continue
		case i+1 == len(args) || strings.HasPrefix(args[i+1], "-"):
			return nil, "", fmt.Errorf("--revision in %s needs a value: a branch, tag or commit", line)
		default:
			i++
			value = args[i]
		}
		if revision != "" && value != revision {
			return nil, "", fmt.Errorf("%s gives --revision twice: %s and %s", line, revision, value)
		}
		revision = value
	}
	return rest, revision, nil
}

// IsNegativeNumber reports whether a word of a launch line is a negative
// number, which argparse reads as a value, not a flag, when the parser has
// no option that looks like one (argparse.py, _negative_number_matcher:
// '^-\d+$|^-\d*\.\d+$'), as vLLM's and SGLang's have none: so
// `--max-model-len -0` gives the flag the value -0.
func IsNegativeNumber(s string) bool {
	rest, ok := strings.CutPrefix(s, "-")
	if !ok || rest == "" {
		return false
	}
	whole, frac, dot := strings.Cut(rest, ".")
	digits := func(d string) bool { return strings.Trim(d, "0123456789") == "" }
	if !dot {
		return digits(whole)
	}
	return digits(whole) && frac != "" && digits(frac)
}

// SplitIgnored takes out of a launch line's flags those that do not change
// memory: ignored holds each flag name with whether it takes a value, and
// canon turns a flag's name as typed into the engine's spelling. What is
// kept keeps its order; what is ignored is returned as given, with its
// value.
func SplitIgnored(args []string, ignored map[string]bool, canon func(string) string) (kept, dropped []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takesValue, skip := ignored[canon(name)]
		if !strings.HasPrefix(a, "-") || name == "" || !skip {
			kept = append(kept, a)
			continue
		}
		if takesValue && !hasValue && i+1 < len(args) {
			dropped = append(dropped, a+" "+args[i+1])
			i++
			continue
		}
		dropped = append(dropped, a)
	}
	return kept, dropped
}

// Launch is a pasted launch line read by [ReadLaunch]: what the command
// still has to reconcile with its own flags.
type Launch struct {
	// Model is the model the line names, "" when none; From says where
	// (see [Line]); Name how messages name the line.
	Model, From, Name string
	// Revision is the line's --revision, "" when none.
	Revision string
	// Env is the environment variables the line set for the engine.
	Env map[string]bool
	// Ignored is what the line held that membudget does not read: the
	// assignments the engine does not read, then the flags that do not
	// change memory.
	IgnoredEnv, Ignored []string
}

// ReadLaunch reads a pasted launch line as the engine reads it: env is its
// leading NAME=value assignments (see [SplitEnv]), args the rest, which
// must begin the engine's launch line (see [Engine.LaunchLine]). The line's
// flags are parsed by fs, the flag set s registered its flags on, so that a
// flag means the same given either way; the assignments s reads go to
// s.SetEnv, the rest are listed as ignored. Errors name the line's flag or
// word.
func ReadLaunch(s Serve, fs *flag.FlagSet, env, args []string) (Launch, error) {
	l, err := s.ReadLine(args)
	if err != nil {
		return Launch{}, err
	}
	flags, revision, err := TakeRevision(l.Args, l.Name)
	if err != nil {
		return Launch{}, err
	}
	if err := fs.Parse(flags); err != nil {
		return Launch{}, &ParseError{Err: err}
	}
	if fs.NArg() > 0 {
		return Launch{}, fmt.Errorf("unexpected argument %q in %s", fs.Arg(0), l.Name)
	}
	out := Launch{Model: l.Model, From: l.From, Name: l.Name, Revision: revision, Env: map[string]bool{}, Ignored: l.Ignored}
	for _, assignment := range env {
		name, value, _ := strings.Cut(assignment, "=")
		if slices.Contains(s.Env(), name) {
			s.SetEnv(name, value, "the launch line")
			out.Env[name] = true
			continue
		}
		out.IgnoredEnv = append(out.IgnoredEnv, assignment)
	}
	return out, nil
}

// ParseError is a launch line's flags refused by the flag set, which has
// already printed why on its output.
type ParseError struct{ Err error }

// Error returns the flag package's error.
func (e *ParseError) Error() string { return e.Err.Error() }

// Unwrap returns the flag package's error.
func (e *ParseError) Unwrap() error { return e.Err }
