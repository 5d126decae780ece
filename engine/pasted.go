package engine

import (
	"fmt"
	"maps"
	"slices"
)

// Pasted is what a command read for a serve beside its flags: the
// environment variables the engine reads that were set (see [Serve.Env]),
// each with where it was read, and what a pasted launch line held that
// membudget does not read. An engine's [Serve] embeds it, which gives it
// [Serve.SetEnv] and [Serve.Ignore]; the [Sizing] keeps a copy for its
// report ([Pasted.Settings], [Pasted.AllIgnored]).
type Pasted struct {
	// Set are the variables set, in the order the command read them.
	Set []EnvSetting
	// IgnoredEnv are the line's NAME=value assignments the engine does
	// not read; Ignored the line's flags that do not change memory, each
	// with its value.
	IgnoredEnv, Ignored []string
	// Listed are the flags given on the command's own line that do not
	// change memory, as given with their values (the engine registers
	// them so that they parse, and lists them rather than refuse them).
	Listed []string
}

// ForReport returns what a sizing keeps for its report: p with the
// command's listed flags before the pasted line's ignored ones.
func (p *Pasted) ForReport() Pasted {
	r := *p
	r.Ignored = append(slices.Clip(p.Listed), p.Ignored...)
	r.Listed = nil
	return r
}

// EnvSetting is one environment variable as a command read it.
type EnvSetting struct {
	Name, Value string
	// From says where it was read: "the launch line", "the environment".
	From string
}

// SetEnv records name=value, read from from; a second value of the same
// name replaces the first.
func (p *Pasted) SetEnv(name, value, from string) {
	for i := range p.Set {
		if p.Set[i].Name == name {
			p.Set[i] = EnvSetting{Name: name, Value: value, From: from}
			return
		}
	}
	p.Set = append(p.Set, EnvSetting{Name: name, Value: value, From: from})
}

// Ignore records what a pasted line held that membudget does not read.
func (p *Pasted) Ignore(env, flags []string) { p.IgnoredEnv, p.Ignored = env, flags }

// Lookup returns the variable name as read, and whether it was set.
func (p *Pasted) Lookup(name string) (EnvSetting, bool) {
	for _, e := range p.Set {
		if e.Name == name {
			return e, true
		}
	}
	return EnvSetting{}, false
}

// AllIgnored returns the ignored assignments, then the ignored flags, as
// the JSON's "ignored" lists them; never nil's alias of p's slices.
func (p *Pasted) AllIgnored() []string {
	return append(append([]string(nil), p.IgnoredEnv...), p.Ignored...)
}

// Settings returns the lines a report prints under the launch line: each
// default in sources (flag without dashes -> where its value came from),
// by flag; each variable read, with where; then what was ignored.
func (p *Pasted) Settings(sources map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(sources)) {
		out = append(out, fmt.Sprintf("default --%s: %s", k, sources[k]))
	}
	for _, e := range p.Set {
		out = append(out, fmt.Sprintf("%s=%s, from %s", e.Name, e.Value, e.From))
	}
	for _, ig := range p.IgnoredEnv {
		out = append(out, fmt.Sprintf("ignored %s: membudget does not read it", ig))
	}
	for _, ig := range p.Ignored {
		out = append(out, fmt.Sprintf("ignored %s: it does not change memory", ig))
	}
	return out
}
