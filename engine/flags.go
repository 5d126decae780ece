package engine

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"membudget/budget"
)

// Judge is the capability of a [Serve] that knows its server's flags
// release by release, beyond those it models: [Set.Check] asks it about
// every flag given for the engine, so that a flag of the release that
// changes memory in ways membudget does not model is refused naming what
// it would add, and a flag the release does not have is "not a flag of"
// it, with its nearest, never the flag package's raw error.
type Judge interface {
	// Judge returns nil when args[i], a flag as [Respeller] spelled it,
	// is one the serve takes as given (modelled, or listed as ignored),
	// and otherwise the refusal, naming the flag. args are the command's
	// arguments, in which the engine finds its release flag (the last one
	// given wins, as the flag package reads it); a flag's value is the
	// text after "=" or the next argument.
	Judge(args []string, i int) error
}

// Respeller is the capability of an [Engine] whose server reads its flags
// in forms the flag package does not: argparse's underscores in a name,
// flags that take several values (--served-model-name a b), -O3.
// [Set.Respell] turns a command's arguments into the forms the flag
// package parses before anything reads them.
type Respeller interface {
	Respell(args []string) []string
}

// ArgsRegisterer is the capability of a [Serve] that registers only the
// flags a command's arguments name: registering them all costs more than a
// request's sizing. Every implementation must keep what [Serve.Register]
// would give the flags it leaves out (their defaults hold without
// registration), and must always register the flag of its Len bound,
// which a command sets after sizing (see [LongestStarter]). [RegisterFor]
// asks for it, and registers every flag instead where the arguments ask
// for help.
type ArgsRegisterer interface {
	RegisterFor(fs *flag.FlagSet, model *string, args []string)
}

// RegisterFor registers s's flags on fs for a command whose arguments are
// args: by [ArgsRegisterer] where s has it, else by [Serve.Register]; every
// flag where args ask for help (-h, -help, in any dashes), which lists them.
func RegisterFor(s Serve, fs *flag.FlagSet, model *string, args []string) {
	if r, ok := s.(ArgsRegisterer); ok && !AsksHelp(args) {
		r.RegisterFor(fs, model, args)
		return
	}
	s.Register(fs, model)
}

// NamedFlags returns the names of the flags args give: every word that
// begins with a dash but "-" itself, named as [FlagName] reads it. A word
// after "--" that looks like a flag is counted too, which only registers
// one flag more.
func NamedFlags(args []string) map[string]bool {
	named := make(map[string]bool, len(args))
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-" {
			named[FlagName(a)] = true
		}
	}
	return named
}

// AsksHelp reports whether args hold a request for a command's help, as the
// flag package reads one: -h or -help, with one dash or two, before "--".
func AsksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "--h", "-help", "--help":
			return true
		}
	}
	return false
}

// Hidden is the capability of a [flag.Value] that a command's -h leaves
// out: the flags of a server that membudget only lists as ignored or
// refuses, which would bury the flags it models (see [PrintDefaults]).
type Hidden interface {
	Hidden() bool
}

// Respell returns args as engine e's server would read them, in the forms
// the flag package parses (see [Respeller]); args themselves when e has no
// forms of its own.
func (s *Set) Respell(e Engine, args []string) []string {
	if r, ok := e.(Respeller); ok {
		return r.Respell(args)
	}
	return args
}

// PrintDefaults prints fs's flags as [flag.FlagSet.PrintDefaults] does,
// but for those whose value is [Hidden], which it counts in one line.
func PrintDefaults(fs *flag.FlagSet) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shown.SetOutput(fs.Output())
	hidden := 0
	fs.VisitAll(func(f *flag.Flag) {
		if h, ok := f.Value.(Hidden); ok && h.Hidden() {
			hidden++
			return
		}
		shown.Var(f.Value, f.Name, f.Usage)
		shown.Lookup(f.Name).DefValue = f.DefValue
	})
	shown.PrintDefaults()
	if hidden > 0 {
		fmt.Fprintf(fs.Output(), "  ... and %d flags of the server that do not change memory (listed as ignored) or that membudget refuses by name\n", hidden)
	}
}

// Nearest returns the name among names closest to name by edit distance
// (insertions, deletions and substitutions of one byte each), the first
// in sorted order among equals; "" when names is empty.
func Nearest(name string, names []string) string {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	best, bestD := "", -1
	for _, n := range sorted {
		if d := budget.EditDistance(name, n); bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// FlagValue returns the value of the flag args[i] as the flag package
// reads it: the text after "=", or else the next argument when the flag
// takes one; ok is false when it takes one and none follows.
func FlagValue(args []string, i int, takesValue bool) (value string, ok bool) {
	if _, v, has := strings.Cut(args[i], "="); has {
		return v, true
	}
	if !takesValue {
		return "", true
	}
	if i+1 >= len(args) {
		return "", false
	}
	return args[i+1], true
}

// ValuesEnd returns the index after the values argparse reads for a flag
// of nargs "+" or "*" at args[i]: every argument after it up to the next
// that begins with a dash and is not a number, as number reads one (both
// engines' argparse read "-1" as a value; vLLM's also "-32k").
func ValuesEnd(args []string, i int, number func(string) bool) int {
	j := i + 1
	for j < len(args) && (!strings.HasPrefix(args[j], "-") || number(args[j])) {
		j++
	}
	return j
}

// FlagName returns the name of the flag args[i] without its dashes and
// value, with argparse's underscores made dashes.
func FlagName(arg string) string {
	asGiven, _, _ := strings.Cut(arg, "=")
	return strings.ReplaceAll(strings.TrimLeft(asGiven, "-"), "_", "-")
}

// LastValue returns the value of the last --name (or -name) flag in args
// before any "--", as the flag package would read it; "" when none.
func LastValue(args []string, name string) string {
	v := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || FlagName(a) != name {
			continue
		}
		if val, ok := FlagValue(args, i, true); ok {
			v = val
		}
	}
	return v
}

// IgnoredFlag is a server's flag that does not change memory, registered
// hidden (see [Hidden]) so that the flag package parses it wherever it is
// given: each use is appended to List as given, with its value, for the
// report's list of what was ignored.
type IgnoredFlag struct {
	List *[]string
	Name string
	// Switch says it takes no value.
	Switch bool
}

// String returns "".
func (f *IgnoredFlag) String() string { return "" }

// Hidden returns true.
func (f *IgnoredFlag) Hidden() bool { return true }

// IsBoolFlag reports whether the flag takes no value.
func (f *IgnoredFlag) IsBoolFlag() bool { return f.Switch }

// Set appends the flag as given to List.
func (f *IgnoredFlag) Set(s string) error {
	given := "--" + f.Name
	if !f.Switch || s != "true" {
		given += " " + s
	}
	*f.List = append(*f.List, given)
	return nil
}

// NotAFlag is the refusal of a flag an engine does not take: "--foo is not
// a flag of SGLang v0.5.6.post2: its nearest is --bar", of names the
// engine's flags in the release. It is an [*UnknownFlagError].
func NotAFlag(asGiven, name, release string, names []string) error {
	return &UnknownFlagError{AsGiven: asGiven, Name: name, Of: release, Nearest: Nearest(name, names)}
}

// UnknownFlagError is the refusal of a flag that neither membudget's
// command nor the engine takes, with the nearest flag that is taken: a
// command may offer its own nearer flag (a mistyped --strict is not
// "nearest --dtype").
type UnknownFlagError struct {
	// AsGiven is the flag as the arguments spell it, Name its name.
	AsGiven, Name string
	// Of names what does not take it ("vLLM 0.19.0"), Detail what follows
	// that name ("" or " (vLLM 0.20.0 added it, ...)").
	Of, Detail string
	// Nearest is the nearest flag name that is taken, "" for none.
	Nearest string
}

// Error returns "--foo is not a flag of X: its nearest is --bar".
func (e *UnknownFlagError) Error() string {
	msg := e.AsGiven + " is not a flag of " + e.Of + e.Detail
	if e.Nearest != "" {
		msg += ": its nearest is --" + e.Nearest
	}
	return msg
}
