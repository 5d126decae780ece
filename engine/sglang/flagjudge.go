package sglang

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"

	"membudget/engine"
)

// This file reads every flag of SGLang's server, release by release, as
// one of three kinds (the table is flagtable.go): modelled (cli.go
// registers them), memory-neutral (listed as ignored), or refused by name
// with the memory it would add. A flag the release does not have is "not
// a flag of" it, with the nearest that is.

// arity and flagKind are [engine.Arity] and [engine.FlagKind], by the
// short names the flag table's rows use.
type (
	arity    = engine.Arity
	flagKind = engine.FlagKind
)

const (
	noValue    = engine.NoValue
	oneValue   = engine.OneValue
	manyValues = engine.ManyValues
	optValue   = engine.OptValue

	modelled = engine.Modelled
	ignored  = engine.Ignored
	refused  = engine.Refused
)

// lines is where ServerArgs.add_cli_args adds a flag in
// python/sglang/srt/server_args.py at each release membudget models, oldest
// first (profiles reversed: v0.4.9.post2, v0.5.6.post2, v0.5.6.post3,
// v0.5.7, v0.5.8, v0.5.8.post1, v0.5.9, v0.5.9.post1, v0.5.10,
// v0.5.10.post1, v0.5.11, v0.5.12, v0.5.12.post1, v0.5.13,
// v0.5.13.post1, v0.5.14, v0.5.15, v0.5.15.post1, v0.5.16, v0.5.17,
// v0.5.18): the
// line of its add_argument call (from v0.5.14 of its ServerArgs dataclass
// field, where it is one), 0 where the release has it not.
// TestLinesSpanEveryRelease ties its length to profiles.
type lines [21]int

// line returns the flag's line at release p, 0 where p has it not.
func (l lines) line(p Profile) int {
	i := slices.IndexFunc(profiles, func(r Profile) bool { return r.Name == p.Name })
	if i < 0 {
		return 0
	}
	return l[len(profiles)-1-i]
}

// everywhere reports whether every release membudget models has the flag.
func (l lines) everywhere() bool { return !slices.Contains(l[:], 0) }

// arityChange is a flag's arity from a later release on, where that
// release's add_argument call reads it otherwise, and its argparse dest
// from then on where that call names one the earlier did not.
type arityChange struct {
	from  string
	arity arity
	// dest is the dest the later call names (v0.5.10's --stream-output
	// stores into incremental_streaming_output, itself a flag of that
	// release, so it is not indexed as sflag.dest is).
	dest string
}

// sflag is one option string of SGLang's server over the releases that
// have it.
type sflag struct {
	// name is the option string without its dashes; of, for a second
	// option string of the same add_argument (--tp-size beside
	// --tensor-parallel-size), the first, which argparse names the flag by.
	name, of string
	arity    arity
	kind     flagKind
	// what says, for a refused flag, what memory it would add.
	what string
	// neutral are the values of a refused flag that are its default in
	// every release that has it (ServerArgs' field), which change
	// nothing: listed as ignored.
	neutral []string
	// next is, for a flag a later release renamed, its new name, which
	// the refusal of the old one offers as its nearest.
	next string
	// dest is the attribute argparse stores the flag in where the
	// add_argument call names one other than the flag's (ServerArgs'
	// field): given as a flag, it is refused naming this one.
	dest string
	// changed is, for a flag a later release reads with another arity,
	// that release and the arity (see [sflag.arityAt]).
	changed *arityChange
	// refuses is, for a memory-neutral flag a later release gives a value
	// that allocates, that release, the values and what they add.
	refuses *valueRefusal
	// alias is, for an option string a later release makes a second
	// string of another's add_argument, that span and the first (see
	// [sflag.ofAt]).
	alias *aliasSpan
	// redest is, for a flag whose add_argument names another dest (or
	// none) from a later release on, that span and the dest (see
	// [sflag.destAt]).
	redest *destSpan
	at     lines
}

// destSpan is the releases from from (until until, "" for on) in which a
// flag's add_argument names dest as its argparse dest, "" for none: from
// v0.5.14 --cuda-graph-max-bs stores into cuda_graph_max_bs_decode
// (server_args.py:6358-6364), and --dsa-prefill-backend, a dataclass field
// named as its flag, names none (add_cli_args_from_dataclass,
// arg_groups/arg_utils.py:190-193).
type destSpan struct{ from, until, dest string }

// aliasSpan is the releases from from (until until, "" for on) in which
// an option string is a second string of of's add_argument: v0.5.12's
// --hierarchical-sparse-attention-extra-config beside --hisparse-config,
// a flag of its own at v0.5.9 (server_args.py at both tags).
type aliasSpan struct{ from, until, of string }

// ofAt returns the first option string of the flag's add_argument at
// release p: alias's of within its span, else of.
func (f *sflag) ofAt(p Profile) string {
	if a := f.alias; a != nil && !older(p, a.from) && (a.until == "" || older(p, a.until)) {
		return a.of
	}
	return f.of
}

// arityAt returns the flag's arity at release p: arity, or changed's from
// its release on.
func (f *sflag) arityAt(p Profile) arity {
	if c := f.changed; c != nil && !older(p, c.from) {
		return c.arity
	}
	return f.arity
}

// valueRefusal is the values of an ignored flag refused from a release
// on, and what they would add.
type valueRefusal struct {
	from   string
	values []string
	what   string
}

// destAt returns the argparse dest the flag's add_argument names at
// release p: redest's within its span, else dest, or changed's from its
// release on where it names one.
func (f *sflag) destAt(p Profile) string {
	if d := f.redest; d != nil && !older(p, d.from) && (d.until == "" || older(p, d.until)) {
		return d.dest
	}
	if c := f.changed; c != nil && c.dest != "" && !older(p, c.from) {
		return c.dest
	}
	return f.dest
}

// in reports whether release p's SGLang has the flag.
func (f *sflag) in(p Profile) bool { return f.at.line(p) != 0 }

// oldestFirst returns the modelled releases, oldest first.
func oldestFirst() []Profile {
	ps := slices.Clone(profiles)
	slices.Reverse(ps)
	return ps
}

// since returns the first release membudget models that has the flag.
func (f *sflag) since() string {
	for _, p := range oldestFirst() {
		if f.in(p) {
			return p.Name
		}
	}
	return ""
}

// until returns the first release after since that has the flag not, ""
// when every later one has it.
func (f *sflag) until() string {
	seen := false
	for _, p := range oldestFirst() {
		switch {
		case f.in(p):
			seen = true
		case seen:
			return p.Name
		}
	}
	return ""
}

// flagIndex maps each option string of the table to its row.
var flagIndex = sync.OnceValue(func() map[string]*sflag {
	m := make(map[string]*sflag, len(flagTable))
	for i := range flagTable {
		m[flagTable[i].name] = &flagTable[i]
	}
	return m
})

// destIndex maps each argparse dest of the table (see sflag.dest),
// dashed, to the first row that names it.
var destIndex = sync.OnceValue(func() map[string]*sflag {
	m := map[string]*sflag{}
	for i := range flagTable {
		if d := strings.ReplaceAll(flagTable[i].dest, "_", "-"); d != "" && m[d] == nil {
			m[d] = &flagTable[i]
		}
	}
	return m
})

// destOf returns the row whose argparse dest, dashed, is name (see
// sflag.dest); nil for none. Judge asks it of every flag its common case
// does not pass, so the table is indexed once rather than scanned.
func destOf(name string) *sflag { return destIndex()[name] }

// ignoredNames are the table's memory-neutral flags, each with whether it
// takes a value, for [engine.SplitIgnored].
var ignoredNames = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, f := range flagTable {
		if f.kind == ignored {
			m[f.name] = f.arity != noValue
		}
	}
	return m
})

// releaseOf is the profile whose flags a command's args are judged by: the
// last --sglang-version among them, the default when none (or one
// membudget has no rules for, which [flagServe.Parsed] refuses by name).
func releaseOf(args []string) Profile {
	p, err := ProfileFor(engine.LastValue(args, "sglang-version"))
	if err != nil {
		p, _ = ProfileFor(DefaultName)
	}
	return p
}

// Judge judges args[i], a flag given for SGLang, by the release args name
// (see [engine.Judge]): modelled flags and those listed as ignored pass;
// a flag that changes memory in ways membudget does not model is refused
// naming what it would add; a flag the release does not have is "not a
// flag of" it, with its nearest; an abbreviation is refused naming the
// flag argparse would take it for, or the flags it could be.
func (f *flagServe) Judge(args []string, i int) error {
	name := engine.FlagName(args[i])
	if name == "sglang-version" {
		return nil // membudget's own
	}
	asGiven, value, hasValue := strings.Cut(args[i], "=")
	if !strings.HasPrefix(asGiven, "--") && i >= lineStart(args) {
		// In a pasted launch line: argparse's option strings are all
		// long ones, and it matches no single-dash word to them. Its
		// nearest is the flag two dashes make of it, where there is one.
		p := releaseOf(args)
		e := notAFlag(p, asGiven, name, nil, " (its argparse reads two dashes)").(*engine.UnknownFlagError)
		if fl := flagIndex()[name]; fl != nil && fl.in(p) {
			e.Nearest = name
		} else if full := expand(p, name); full != "" {
			e.Nearest = full
		}
		return e
	}
	if fl := flagIndex()[name]; fl != nil && fl.at.everywhere() && fl.changed == nil && fl.refuses == nil && !strings.Contains(asGiven, "_") &&
		(fl.kind == modelled || fl.kind == ignored) && !(fl.arity == noValue && hasValue) {
		return nil // the common case, judged without reading the release: every release takes it
	}
	p := releaseOf(args)
	if fl := destOf(name); fl != nil && fl.in(p) {
		return &engine.UnknownFlagError{AsGiven: asGiven, Name: name, Of: "SGLang " + p.Name,
			Detail: fmt.Sprintf(" (%s is where argparse stores --%s, server_args.py:%d)", fl.dest, fl.name, fl.at.line(p)), Nearest: fl.name}
	}
	if strings.Contains(strings.TrimLeft(asGiven, "-"), "_") {
		// argparse matches option strings as given: SGLang's have
		// dashes only (FlagName made the underscores dashes).
		// Its nearest is judged by the name as given, so that --tp_size
		// finds --tp-size.
		return notAFlag(p, asGiven, strings.TrimLeft(asGiven, "-"), nil, " (its argparse reads dashes, not underscores)")
	}
	fl := flagIndex()[name]
	if fl == nil || !fl.in(p) {
		// argparse reads a prefix of the release's option strings as
		// one of them (--ep in v0.4.9.post2, before it was a flag).
		if err, prefix := abbreviation(p, asGiven, name); prefix && name != "" {
			return err
		}
		return notAFlag(p, asGiven, name, fl, "")
	}
	// A switch takes no value in argparse, modelled or not, where Go's
	// flag package would read --disable-cuda-graph=true: refused in a
	// pasted launch line, which SGLang would refuse. On membudget's own
	// command line (and a batch request's fields) a modelled switch is
	// membudget's flag, and Go's =true and =false forms stand.
	if fl.arityAt(p) == noValue && hasValue && (fl.kind != modelled || i >= lineStart(args)) {
		action := "argparse's store_true"
		if fl.arity != noValue {
			// A release made it a switch: SGLang's DeprecatedAction,
			// nargs 0 (--hybrid-kvcache-ratio from v0.5.8).
			action = "SGLang's DeprecatedAction, of no value"
		}
		return fmt.Errorf("%s=%s: %s takes %s as a switch (%s), which takes no value", asGiven, value, p.Describes, asGiven, action)
	}
	if vr := fl.refuses; vr != nil && !older(p, vr.from) {
		if v, _ := engine.FlagValue(args, i, true); slices.Contains(vr.values, strings.TrimSpace(v)) {
			return fmt.Errorf("%s %s: %s: not modelled for %s; membudget refuses it rather than size a server SGLang would contradict", asGiven, strings.TrimSpace(v), vr.what, p.Describes)
		}
	}
	if fl.kind == modelled || fl.kind == ignored {
		return nil
	}
	if fl.arityAt(p) != noValue {
		value, _ = engine.FlagValue(args, i, true)
	}
	if slices.Contains(fl.neutral, strings.TrimSpace(value)) {
		return nil
	}
	return refusal(p, asGiven, fl)
}

// refusal is the error of refused flag fl given as asGiven to release p's
// SGLang.
func refusal(p Profile, asGiven string, fl *sflag) error {
	return fmt.Errorf("%s: %s: not modelled for %s; membudget refuses it rather than size a server SGLang would contradict", asGiven, fl.what, p.Describes)
}

// notAFlag is the error of a flag release p's SGLang does not have: fl is
// the table's row of another release (nil for a flag of none), detail
// what the message says after the release where fl is nil.
func notAFlag(p Profile, asGiven, name string, fl *sflag, detail string) error {
	e := &engine.UnknownFlagError{AsGiven: asGiven, Name: name, Of: "SGLang " + p.Name, Detail: detail}
	if fl != nil {
		// The newest release before p that has it, unless one after p
		// has it: then the first such, where it came in.
	releases:
		for _, o := range oldestFirst() {
			n := fl.at.line(o)
			switch {
			case n == 0 || o.Name == p.Name:
			case older(p, o.Name):
				e.Detail = fmt.Sprintf(" (it came in %s, server_args.py:%d there)", o.Name, n)
				break releases
			default:
				e.Detail = fmt.Sprintf(" (it is %s's, server_args.py:%d there, and gone by %s)", o.Name, n, p.Name)
			}
		}
		if fl.next != "" {
			e.Nearest = fl.next
			return e
		}
	}
	var names []string
	for i := range flagTable {
		if g := &flagTable[i]; g.in(p) && g.name != name {
			names = append(names, g.name)
		}
	}
	e.Nearest = engine.Nearest(name, names)
	return e
}

// abbreviation judges name, which release p has not as a flag, as p's
// argparse reads it (allow_abbrev, on in both releases'
// prepare_server_args): prefix says it prefixes p's option strings. The
// prefix of one is that flag, which membudget takes where it registers the
// prefix (--tp, --dp, and --pp where it is not ambiguous) and otherwise
// refuses naming the flag; the prefix of several is ambiguous.
func abbreviation(p Profile, asGiven, name string) (err error, prefix bool) {
	matches := prefixed(p, name)
	switch {
	case len(matches) == 1 && registeredNames()[name]:
		return nil, true
	case len(matches) == 1:
		return fmt.Errorf("%s: %s's argparse takes it for --%s, by abbreviation; membudget reads a flag by its full name: give --%s", asGiven, p.Describes, matches[0], matches[0]), true
	case len(matches) > 1:
		return fmt.Errorf("%s: %s refuses it as ambiguous (argparse: --%s): give one in full", asGiven, p.Describes, strings.Join(matches, ", --")), true
	}
	return nil, false
}

// prefixed returns the flags of release p that name prefixes, in the
// table's order.
func prefixed(p Profile, name string) []string {
	var matches []string
	for i := range flagTable {
		if g := &flagTable[i]; g.in(p) && strings.HasPrefix(g.name, name) {
			matches = append(matches, g.name)
		}
	}
	return matches
}

// older reports whether release p is older than the modelled release
// named release ("v0.5.11"). release is always the code's own: a rule's
// first release (spec.go's constants), a flag table span's, a profile's
// name; never user input. A name no profile has would rank below every
// release and leave its rule silently unapplied (or applied) everywhere,
// so older panics on it instead: TestOlderReleasesNamed resolves the
// release of every call in the package and fails on one no profile has,
// and TestFlagTableReleasesNamed every name the flag table's spans give.
// A p no profile names (a test's hand-made profile) ranks as the newest,
// as it did.
func older(p Profile, release string) bool {
	o, ok := releaseRank[release]
	if !ok {
		panic(fmt.Sprintf("sglang: older: %q is no modelled release", release))
	}
	at, ok := releaseRank[p.Name]
	if !ok {
		at = -1
	}
	return at > o // profiles lists the newest first
}

// releaseRank is each modelled release's place in profiles, the newest 0.
var releaseRank = func() map[string]int {
	m := make(map[string]int, len(profiles))
	for i, p := range profiles {
		m[p.Name] = i
	}
	return m
}()

// registeredNames are the flags cli.go's register registers: the modelled
// ones, under SGLang's names and argparse's abbreviations.
var registeredNames = sync.OnceValue(func() map[string]bool {
	fs := flag.NewFlagSet("sglang", flag.ContinueOnError)
	var model string
	(&flagServe{}).register(fs, &model)
	m := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { m[f.Name] = true })
	return m
})

// registerTable registers, hidden from -h, the table's flags that cli.go
// does not: the memory-neutral ones, listed as ignored wherever they are
// given, and the refused ones, which [flagServe.Judge] refuses before
// parsing (their Set refuses too, where no Judge ran, but for a neutral
// value, listed as ignored). given, when not nil, limits them to the
// names a command's arguments give (see [flagServe.RegisterFor]).
func (f *flagServe) registerTable(fs *flag.FlagSet, given map[string]bool) {
	for i := range flagTable {
		fl := &flagTable[i]
		if fl.kind == modelled || given != nil && !given[fl.name] || fs.Lookup(fl.name) != nil {
			continue
		}
		if fl.kind == ignored {
			fs.Var(&engine.IgnoredFlag{List: &f.Listed, Name: fl.name, Switch: fl.arity == noValue}, fl.name, "SGLang's --"+fl.name)
			continue
		}
		fs.Var(&refusedFlag{s: f, fl: fl}, fl.name, "SGLang's --"+fl.name)
	}
}

// refusedFlag is a refused flag of the table as the flag package parses
// it.
type refusedFlag struct {
	s  *flagServe
	fl *sflag
}

func (v *refusedFlag) String() string   { return "" }
func (v *refusedFlag) Hidden() bool     { return true }
func (v *refusedFlag) IsBoolFlag() bool { return v.fl.arity == noValue }

func (v *refusedFlag) Set(s string) error {
	if slices.Contains(v.fl.neutral, strings.TrimSpace(s)) {
		v.s.Listed = append(v.s.Listed, "--"+v.fl.name+" "+s)
		return nil
	}
	p, err := ProfileFor(v.s.version)
	if err != nil {
		p, _ = ProfileFor(DefaultName)
	}
	return refusal(p, "--"+v.fl.name, v.fl)
}

// Respell returns args as SGLang's argparse reads them, in the forms the
// flag package parses: a flag of several values (--cuda-graph-bs 1 2 4,
// nargs "+" or "*") as one argument, its values joined by spaces; and in
// a pasted launch line, whose flags are all SGLang's, an abbreviation the
// release's argparse takes for one flag (--mem-frac) as that flag (see
// [abbreviation]; --tp, --dp and --pp stay, registered as they are).
// Outside the line an abbreviation is left for [flagServe.Judge] to refuse
// naming the flag: there it may be membudget's own (--json).
func (Engine) Respell(args []string) []string {
	var out []string
	line := lineStart(args)
	var p *Profile
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		fl, ok := flagIndex()[name]
		if i >= line && strings.HasPrefix(a, "--") && !ok && name != "" && !registeredNames()[name] {
			if p == nil {
				r := releaseOf(args)
				p = &r
			}
			if full := expand(*p, name); full != "" {
				a, fl, ok = "--"+full, flagIndex()[full], true
				if hasValue {
					a += "=" + value
				}
			}
		}
		var ar arity
		if ok {
			ar = fl.arity
			if fl.changed != nil {
				// The release reads it otherwise (--piecewise-cuda-graph-tokens
				// takes one value before v0.5.8, several from it).
				if p == nil {
					r := releaseOf(args)
					p = &r
				}
				ar = fl.arityAt(*p)
			}
		}
		if !strings.HasPrefix(a, "--") || hasValue || !ok || ar != manyValues {
			out = append(out, a)
			continue
		}
		j := engine.ValuesEnd(args, i, engine.IsNumber)
		if j == i+1 {
			out = append(out, a) // nargs "*" with none
			continue
		}
		out = append(out, a+"="+strings.Join(args[i+1:j], " "))
		i = j - 1
	}
	return out
}

// lineStart returns the index of the first flag of the pasted launch line
// in args (after `python -m sglang.launch_server`), len(args) when args
// hold none.
func lineStart(args []string) int {
	for k := range args {
		if (Engine{}).LaunchLine(args[k:]) {
			return k + 3
		}
	}
	return len(args)
}

// expand returns the one flag of release p that name abbreviates, "" when
// it prefixes none or several.
func expand(p Profile, name string) string {
	if m := prefixed(p, name); len(m) == 1 {
		return m[0]
	}
	return ""
}
