package sglang

import (
	"flag"
	"maps"
	"slices"
	"strings"
	"sync"

	"membudget/engine"
)

// registerIgnored registers, hidden from -h, the flags of SGLang's server
// that do not change memory (ignoredFlags), so that they parse wherever
// they are given, listed as ignored: those named in given when it is not
// nil (see RegisterFor), else every one.
func (f *flagServe) registerIgnored(fs *flag.FlagSet, given map[string]bool) {
	for _, name := range slices.Sorted(maps.Keys(ignoredFlags)) {
		if (given == nil || given[name]) && fs.Lookup(name) == nil {
			fs.Var(&engine.IgnoredFlag{List: &f.Listed, Name: name, Switch: !ignoredFlags[name]}, name, "SGLang's --"+name)
		}
	}
}

// RegisterFor registers SGLang's flags, and of those that do not change
// memory only the ones args name (see [engine.ArgsRegisterer]).
func (f *flagServe) RegisterFor(fs *flag.FlagSet, model *string, args []string) {
	given := engine.NamedFlags(args)
	f.register(fs, model)
	f.registerIgnored(fs, given)
}

// knownNames are every flag name membudget knows of SGLang's server:
// those it registers, and those it refuses by name.
var knownNames = sync.OnceValue(func() []string {
	fs := flag.NewFlagSet("sglang", flag.ContinueOnError)
	var model string
	(&flagServe{}).Register(fs, &model)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	// --revision is taken off a pasted line before parsing (see
	// [engine.TakeRevision]).
	names = append(names, "revision")
	names = append(names, slices.Collect(maps.Keys(unmodelled))...)
	slices.Sort(names)
	return names
})

// Judge refuses a flag membudget does not know of SGLang's server as "not
// a flag of" the release the command names (see [engine.Judge]), with its
// nearest; the flags it knows pass, and those it refuses by name were
// refused before (see [engine.Set.Check]).
func (f *flagServe) Judge(args []string, i int) error {
	name := engine.FlagName(args[i])
	if _, ok := slices.BinarySearch(knownNames(), name); ok {
		return nil
	}
	release := DefaultName
	if p, err := ProfileFor(engine.LastValue(args, "sglang-version")); err == nil {
		release = p.Name
	}
	asGiven, _, _ := strings.Cut(args[i], "=")
	return engine.NotAFlag(asGiven, name, "SGLang "+release+" as membudget has read it (python/sglang/srt/server_args.py)", knownNames())
}
