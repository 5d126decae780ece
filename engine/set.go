package engine

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Set is the engines a command may size, the first the default: the
// registry of membudget's engines is one Set, built once by the command
// line. What it knows of each engine's flags it learns from the engine
// itself (a fresh serve registered on a scratch flag set, and its
// [Serve.Concepts]), so that a third engine needs no line here.
type Set struct {
	engines []Engine
	// flags holds each engine's flag names, by engine; concepts each
	// engine's concepts.
	flags    []map[string]bool
	concepts [][]Concept
	// serves holds a fresh serve of each engine, for its [Judge].
	serves []Serve
}

// NewSet returns the set of engines, the first the default. Two engines
// of one name are an error.
func NewSet(engines ...Engine) (*Set, error) {
	if len(engines) == 0 {
		return nil, errors.New("engine: a set needs an engine")
	}
	s := &Set{engines: engines}
	seen := map[string]bool{}
	for _, e := range engines {
		if seen[e.Name()] {
			return nil, fmt.Errorf("engine: two engines named %q", e.Name())
		}
		seen[e.Name()] = true
		serve := e.NewServe()
		fs := flag.NewFlagSet(e.Name(), flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var model string
		serve.Register(fs, &model)
		names := map[string]bool{}
		fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
		s.flags = append(s.flags, names)
		s.concepts = append(s.concepts, serve.Concepts())
		s.serves = append(s.serves, serve)
	}
	return s, nil
}

// Engines returns the engines, the default first.
func (s *Set) Engines() []Engine { return s.engines }

// Default returns the engine a command sizes without --engine.
func (s *Set) Default() Engine { return s.engines[0] }

// Names returns the engines' names, comma-separated, the default first.
func (s *Set) Names() string {
	names := make([]string, len(s.engines))
	for i, e := range s.engines {
		names[i] = e.Name()
	}
	return strings.Join(names, ", ")
}

// Lookup returns the engine named name; an unknown name is an error that
// names the engines there are.
func (s *Set) Lookup(name string) (Engine, error) {
	for _, e := range s.engines {
		if e.Name() == name {
			return e, nil
		}
	}
	return nil, fmt.Errorf("--engine %q: unknown engine; the engines are %s", name, s.Names())
}

// index is e's place in the set, -1 when it is not in it.
func (s *Set) index(e Engine) int {
	for i, x := range s.engines {
		if x.Name() == e.Name() {
			return i
		}
	}
	return -1
}

// LineOf returns the engine whose launch line args begin, after any
// NAME=value assignments; nil when none's does.
func (s *Set) LineOf(args []string) Engine {
	_, rest := SplitEnv(args)
	for _, e := range s.engines {
		if e.LaunchLine(rest) {
			return e
		}
	}
	return nil
}

// Check refuses, for a command that sizes e, the first of args that e does
// not take and is not the command's own: another engine's flag (a
// *FlagError, naming that engine and e's nearest flag), or another
// engine's launch line. own reports whether the command itself registers
// a flag name. Where e's serve is a [Judge], it judges every other flag
// given for e, release by release: a flag e takes but does not model is
// refused naming what it would add, and what its release does not have is
// "not a flag of" it, with the nearest that is. Without a Judge, a flag that neither e
// nor any engine nor the command takes is left to the flag package. A
// negative number is a value, as argparse reads it. Check stops at "--".
func (s *Set) Check(e Engine, args []string, own func(name string) bool) error {
	at := s.index(e)
	if at < 0 {
		return fmt.Errorf("engine %q is not in the set", e.Name())
	}
	judge, _ := s.serves[at].(Judge)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if !strings.HasPrefix(a, "-") {
			// Only a word can begin a launch line (see [Engine.LaunchLine]).
			if f := s.LineOf(args[i:]); f != nil && f.Name() != e.Name() {
				return s.foreignLine(e, f)
			}
			if _, n := PythonModule(args[i:]); n > 0 && e.LaunchLine(args[i:]) {
				i += n - 1 // python -u -m MODULE: the interpreter's words
			}
			continue
		}
		if a == "-" || IsNumber(a) {
			continue
		}
		asGiven, _, _ := strings.Cut(a, "=")
		name := FlagName(a)
		if own(name) && !s.flags[at][name] || name == "h" || name == "help" {
			continue
		}
		if !s.flags[at][name] {
			for j := range s.engines {
				if j != at && s.flags[j][name] {
					return s.foreign(at, j, asGiven, name)
				}
			}
		}
		if judge != nil {
			if err := judge.Judge(args, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// IsNumber reports whether s reads as a number ("-1", "-0.5"): a value,
// not a flag, as argparse reads a word that begins with a dash and is a
// number ("-inf" is not: it begins with no digit).
func IsNumber(s string) bool {
	t := strings.TrimPrefix(s, "-")
	if t == "" || !(t[0] >= '0' && t[0] <= '9' || t[0] == '.') {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// FlagError is a flag given for one engine that another engine takes:
// Check's refusal, which a command may word in its own terms.
type FlagError struct {
	// Flag is the flag as given ("--max-model-len").
	Flag string
	// Owner is the engine whose flag it is; For the engine the command
	// sizes, and Nearest For's flag of the same idea, as a message names
	// it ("" when For has none).
	Owner, For Engine
	Nearest    string
	// ForDefault says For is the set's default engine, which a command
	// sizes without --engine.
	ForDefault bool
}

// Error says whose flag it is, and what to give instead.
func (e *FlagError) Error() string {
	if e.ForDefault {
		msg := fmt.Sprintf("%s is %s's flag: give --engine %s", e.Flag, e.Owner.Title(), e.Owner.Name())
		if e.Nearest != "" {
			msg += fmt.Sprintf(", or %s's nearest, %s", e.For.Title(), e.Nearest)
		}
		return fmt.Sprintf("%s (--engine %s is the default)", msg, e.For.Name())
	}
	msg := fmt.Sprintf("%s is %s's flag, and --engine %s takes %s's", e.Flag, e.Owner.Title(), e.For.Name(), e.For.Title())
	if e.Nearest != "" {
		msg += ": its nearest is " + e.Nearest
	}
	return msg
}

// foreign is the refusal of flag name (typed asGiven) of engine j, given
// to a command that sizes engine at.
func (s *Set) foreign(at, j int, asGiven, name string) error {
	return &FlagError{Flag: asGiven, Owner: s.engines[j], For: s.engines[at], Nearest: s.nearest(at, j, name), ForDefault: at == 0}
}

// nearest is engine at's flag of the idea engine j's flag name stands for,
// as a message names it: "--mem-fraction-static, a share of ...", or ""
// when engine at has none.
func (s *Set) nearest(at, j int, name string) string {
	idea := ""
	for _, c := range s.concepts[j] {
		if c.Flag == name {
			idea = c.Idea
			break
		}
	}
	if idea == "" {
		return ""
	}
	for _, c := range s.concepts[at] {
		if c.Idea != idea {
			continue
		}
		n := "--" + c.Flag
		if strings.Contains(c.Flag, "=") {
			n = c.Flag + " in the environment"
		}
		if c.Gloss != "" {
			n += ", " + c.Gloss
		}
		return n
	}
	return ""
}

// foreignLine is the error for engine f's launch line given to a command
// that sizes e.
func (s *Set) foreignLine(e, f Engine) error {
	if s.index(e) == 0 {
		return fmt.Errorf("a launch line of %s (`%s`) needs --engine %s (--engine %s is the default)", f.Title(), f.LineUsage(), f.Name(), e.Name())
	}
	return fmt.Errorf("a launch line of %s (`%s`) with --engine %s: give %s's (`%s`), or --engine %s", f.Title(), f.LineUsage(), e.Name(), e.Title(), e.LineUsage(), f.Name())
}

// EngineOf finds --engine in args as the flag package will read it (the
// last one given wins) before any flag is registered, since the engine
// decides which flags there are; it stops at a launch line, whose flags
// are the server's, and at "--". Without --engine it is the default.
func (s *Set) EngineOf(args []string) (Engine, error) {
	name := s.Default().Name()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") && s.LineOf(args[i:]) != nil {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		flagName, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if flagName != "engine" {
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("--engine needs a value: one of %s", s.Names())
			}
			i++
			value = args[i]
		}
		name = value
	}
	return s.Lookup(name)
}
