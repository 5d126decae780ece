package vllm

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"membudget/engine"
)

// This file reads every flag of `vllm serve`, release by release, as one of
// three kinds (the table is flagtable.go): modelled (cli.go registers
// them), memory-neutral (listed as ignored), or refused by name with the
// memory it would add. A flag the release does not have is "not a flag of"
// it, with the nearest that is.

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

// vflag is one flag of `vllm serve` over the releases that have it.
type vflag struct {
	// name is the flag without its dashes; aliases its short forms
	// ("tp" for -tp).
	name    string
	aliases []string
	arity   arity
	// neg says argparse also takes --no-NAME (BooleanOptionalAction).
	neg bool
	// json says the value is JSON (a config dataclass or a dict).
	json bool
	kind flagKind
	// from is, for a modelled flag, the first release membudget sizes it
	// for: before it the flag is judged as a refused one (zero: every
	// release).
	from Version
	// what says, for a refused flag, what memory it would add.
	what string
	// neutral are the values of a refused flag that are the release's
	// default, which change nothing: listed as ignored.
	neutral []string
	// neutralKeys are the keys of a refused JSON flag's object that change
	// no memory: an object of only these is listed as ignored.
	neutralKeys []string
	// since is the first release profiled that has it (zero: every
	// release from 0.6.0); until the first that does not (zero: main
	// still has it).
	since, until Version
	// added and removed cite the vLLM change that did, where it is
	// after 0.6.0.
	added, removed string
}

// always reports whether f is a flag of every release, sized in each
// (no since, until or from).
func (f *vflag) always() bool {
	return f.since == (Version{}) && f.until == (Version{}) && f.from == (Version{})
}

// in reports whether release profile p's vLLM has the flag.
func (f *vflag) in(p Profile) bool {
	if p.Release.Less(f.since) {
		return false
	}
	return f.until == (Version{}) || p.Release.Less(f.until)
}

// flagIndex maps each name and alias of the table to its flag.
var flagIndex = sync.OnceValue(func() map[string]*vflag {
	m := make(map[string]*vflag, 2*len(flagTable))
	for i := range flagTable {
		f := &flagTable[i]
		m[f.name] = f
		for _, a := range f.aliases {
			m[a] = f
		}
	}
	return m
})

// lookupFlag returns the table's flag of name (without dashes, dashes for
// underscores), its --no- form, or the JSON flag a dotted name sets
// (--compilation-config.mode, -cc.mode).
func lookupFlag(name string) (f *vflag, neg bool, ok bool) {
	idx := flagIndex()
	if f, ok := idx[name]; ok {
		return f, false, true
	}
	if base, ok := strings.CutPrefix(name, "no-"); ok {
		if f, ok := idx[base]; ok && f.neg {
			return f, true, true
		}
	}
	if base, _, ok := strings.Cut(name, "."); ok {
		if f, ok := idx[base]; ok && f.json {
			return f, false, true
		}
		if base == "O" {
			// -O.level=3: --compilation-config's dotted form, until PR
			// #29991 (2025-12-05) removed it.
			return idx["compilation-config"], false, true
		}
	}
	return nil, false, false
}

// registeredNames are the flags [flagServe.Register] registers itself:
// membudget's own spellings (--vllm-version, --allow-long-max-model-len,
// the modelled flags' --no- forms) among them.
var registeredNames = sync.OnceValue(func() map[string]bool {
	fs := flag.NewFlagSet("vllm", flag.ContinueOnError)
	(&flagServe{}).registerModelled(fs, nil)
	m := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { m[f.Name] = true })
	return m
})

// releaseOf is the profile whose flags a command's args are judged by: the
// last --vllm-version among them, main when none (or one membudget has no
// rules for, which [flagServe.Parsed] refuses by name).
func releaseOf(args []string) Profile {
	p, err := ProfileFor(engine.LastValue(args, "vllm-version"))
	if err != nil {
		p, _ = ProfileFor("main")
	}
	return p
}

// Judge judges args[i], a flag given for vLLM, by the release args name
// (see [engine.Judge]): modelled flags and those listed as ignored pass;
// a flag that changes memory in ways membudget does not model is refused
// naming what it would add; a flag the release does not have is "not a
// flag of" it, with its nearest.
func (f *flagServe) Judge(args []string, i int) error {
	name := engine.FlagName(args[i])
	if slices.Contains(specFlags, name) {
		// Modelled per method: a method membudget does not size is refused
		// by name, as the flag was before (specdecode.go); a release
		// without the flag has not it.
		p, fl := releaseOf(args), flagIndex()["speculative-config"]
		asGiven, _, _ := strings.Cut(args[i], "=")
		if !fl.in(p) {
			return notAFlag(p, asGiven, name, fl)
		}
		value, _ := engine.FlagValue(args, i, true)
		what := specRefusal(value)
		if what == "" {
			what = specDraftRefusal(value, p)
		}
		if what != "" {
			return refusal(p, asGiven, &vflag{what: what, json: true}, value)
		}
	}
	fl, neg, ok := lookupFlag(name)
	registered := registeredNames()[name]
	if registered && (!ok || fl.always() && !slices.Contains(compilationFlags, fl.name)) {
		return nil // the common case, judged without reading the release
	}
	p := releaseOf(args)
	asGiven, _, _ := strings.Cut(args[i], "=")
	if registered {
		switch {
		case !fl.in(p) && fl.name == "optimization-level":
			return oldLevel(p, args, i)
		case !fl.in(p):
			// A modelled flag that came in a later release
			// (--kv-offloading-size before 0.11.0).
			return notAFlag(p, asGiven, name, fl)
		}
		if !p.Release.Less(fl.from) {
			if slices.Contains(compilationFlags, fl.name) {
				value, _ := engine.FlagValue(args, i, true)
				return judgeCompilation(p, fl.name, asGiven, value)
			}
			return nil
		}
		// Modelled from fl.from only: judged below as a refused flag is.
	}
	if !ok {
		return notAFlag(p, asGiven, name, nil)
	}
	if fl.name == "optimization-level" && !fl.in(p) {
		return oldLevel(p, args, i)
	}
	if !fl.in(p) {
		return notAFlag(p, asGiven, name, fl)
	}
	if fl.name == "speculative-config" {
		// A dotted key (--speculative-config.method ngram) sets one key;
		// membudget reads the object whole.
		return fmt.Errorf("%s: speculative decoding set key by key: not modelled for %s; give --speculative-config one JSON object", asGiven, p.Describes)
	}
	value, _ := engine.FlagValue(args, i, fl.arity == oneValue || fl.arity == manyValues)
	if fl.name == "config" {
		// Respell splices a file it can read in --config's place.
		if _, err := loadConfigFile(value); err != nil {
			return err
		}
		return fmt.Errorf("%s: vLLM takes one --config file", asGiven)
	}
	if fl.json && !strings.Contains(name, ".") && looksJSON(value) {
		if err := checkJSON(value); err != nil {
			return fmt.Errorf("%s: want JSON, as vLLM reads it: %v", asGiven, err)
		}
	}
	if fl.kind == modelled && strings.Contains(name, ".") && !slices.Contains(compilationFlags, fl.name) {
		// A dotted key of a modelled JSON flag (--eplb-config.window_size):
		// membudget reads the flag's object whole (--compilation-config's
		// dotted keys it merges, see compilation.go).
		return fmt.Errorf("%s: membudget reads --%s as one JSON object; give --%s '{...}' with that key", asGiven, fl.name, fl.name)
	}
	off := neg || fl.arity == noValue && isFalse(value)
	switch {
	case fl.kind != refused && !p.Release.Less(fl.from):
		return nil
	case off:
		// A refused switch turned off is its default.
		return nil
	case isNeutral(fl, name, value):
		return nil
	case fl.what == whatDbo:
		// Micro-batching on: refused naming what it adds for the line's
		// backend, or stopped as vLLM stops it (dbo.go).
		return judgeDBO(p, args, asGiven)
	}
	return refusal(p, asGiven, fl, value)
}

// modelledLater reports whether name is a modelled flag that the release
// args name precedes (see vflag.from): it is judged as a refused one.
func modelledLater(name string, args []string) bool {
	fl, _, ok := lookupFlag(name)
	return ok && fl.from != (Version{}) && releaseOf(args).Release.Less(fl.from)
}

// oldLevel judges -O (respelled --optimization-level) for a release
// before --optimization-level, whose -O is --compilation-config's alias (an
// integer is the compilation level; vllm/engine/arg_utils.py at v0.7.2,
// until PR #29557 of 2025-11-28): the V1 engine compiles at level 3
// (PIECEWISE) unless --enforce-eager, so -O3 there is the default; any
// other level changes the graph term.
func oldLevel(p Profile, args []string, i int) error {
	value, _ := engine.FlagValue(args, i, true)
	if p.Era == V1 && strings.TrimSpace(value) == "3" {
		return nil
	}
	return refusal(p, "-O"+value, flagIndex()["compilation-config"], value)
}

// isNeutral reports whether refused flag fl, given as name (a dotted name
// sets one key of its object) with value, is at the release's default or
// sets only keys that change no memory (neutralKeys).
func isNeutral(fl *vflag, name, value string) bool {
	if slices.Contains(fl.neutral, strings.TrimSpace(value)) {
		return true
	}
	if len(fl.neutralKeys) == 0 {
		return false
	}
	if _, key, dotted := strings.Cut(name, "."); dotted {
		top, _, _ := strings.Cut(key, ".")
		return slices.Contains(fl.neutralKeys, top)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(value), &m) != nil || len(m) == 0 {
		return false
	}
	for k := range m {
		if !slices.Contains(fl.neutralKeys, k) {
			return false
		}
	}
	return true
}

// refusal is the error of refused flag fl given as asGiven (with value)
// to release p's vLLM.
func refusal(p Profile, asGiven string, fl *vflag, value string) error {
	what := fl.what
	if fl.json {
		if method := jsonMethod(value); method != "" {
			asGiven += fmt.Sprintf(" (method %q)", method)
		}
	}
	if fl.name == "kv-transfer-config" {
		if c, w := transferConnector(value); c != "" {
			asGiven, what = asGiven+fmt.Sprintf(" (connector %q)", c), w
		}
	}
	return fmt.Errorf("%s: %s: not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", asGiven, what, p.Describes)
}

// notAFlag is the error of a flag release p's vLLM does not have: fl is
// the table's flag of another release, nil for one no release has.
func notAFlag(p Profile, asGiven, name string, fl *vflag) error {
	e := &engine.UnknownFlagError{AsGiven: asGiven, Name: name, Of: p.Describes}
	if fl != nil {
		switch {
		case p.Release.Less(fl.since):
			e.Detail = fmt.Sprintf(" (vLLM %s added it, %s)", fl.since, fl.added)
		default:
			e.Detail = fmt.Sprintf(" (vLLM %s removed it, %s)", fl.until, fl.removed)
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

// isFalse reports whether v is a false boolean as a switch's =value gives
// it.
func isFalse(v string) bool {
	switch strings.ToLower(v) {
	case "false", "0", "no", "off":
		return true
	}
	return false
}

// checkJSON refuses a value vLLM would not read: its config flags take a
// JSON object (or, for a dotted flag, any JSON value or bare word).
func checkJSON(v string) error {
	if !json.Valid([]byte(v)) {
		var x any
		err := json.Unmarshal([]byte(v), &x)
		return fmt.Errorf("%q: %v", v, err)
	}
	return nil
}

// extraAfterJSON reports whether anything but JSON's whitespace follows
// the value dec has decoded, which Python's json.loads and pydantic's
// validate_json both refuse ("Extra data"); dec.More misses a stray
// closing brace or bracket there.
func extraAfterJSON(dec *json.Decoder) bool {
	_, err := dec.Token()
	return err != io.EOF
}

// looksJSON reports whether v is meant as a JSON object or array: vLLM's
// dict flags also take key=value,... (--limit-mm-per-prompt image=5),
// which is not checked here.
func looksJSON(v string) bool {
	v = strings.TrimSpace(v)
	return strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[")
}

// jsonMethod is the "method" of a speculative config (or "" for none), for
// the refusal's words.
func jsonMethod(v string) string {
	var m map[string]any
	if json.Unmarshal([]byte(v), &m) != nil {
		return ""
	}
	s, _ := m["method"].(string)
	return s
}

// tableValue is a flag of the table that [flagServe.Register] registers
// beside the modelled ones, hidden from -h: given, it is listed as
// ignored with its value; a refused one is refused by [flagServe.Judge]
// before parsing, so its Set refuses only where no Judge ran.
type tableValue struct {
	s    *flagServe
	fl   *vflag
	neg  bool
	name string
}

func (v *tableValue) String() string { return "" }
func (v *tableValue) Hidden() bool   { return true }
func (v *tableValue) IsBoolFlag() bool {
	return v.neg || v.fl.arity == noValue
}

func (v *tableValue) Set(s string) error {
	if v.fl.json && !strings.Contains(v.name, ".") && looksJSON(s) {
		if err := checkJSON(s); err != nil {
			return err
		}
	}
	if v.fl.kind == refused && !v.neg && !isNeutral(v.fl, v.name, s) && !(v.IsBoolFlag() && isFalse(s)) {
		return fmt.Errorf("%s: not modelled; membudget refuses it", v.fl.what)
	}
	given := "--" + v.name
	if !v.IsBoolFlag() || s != "true" {
		given += " " + s
	}
	v.s.Listed = append(v.s.Listed, given)
	switch v.name {
	case "reasoning-parser", "reasoning-config":
		v.s.s.Reasoning = given
	case "logprobs-mode":
		v.s.s.LogprobsMode = s
	case "distributed-executor-backend":
		v.s.s.ExecutorBackend = s
	}
	return nil
}

// registerTable registers the flags of the table that registerModelled
// does not, hidden, each with its --no- form: those named in given when
// it is not nil (a command registers only what its arguments hold, since
// some 400 flags a request cost more than its sizing), else every one.
func (f *flagServe) registerTable(fs *flag.FlagSet, given map[string]bool) {
	if given != nil {
		for n := range given {
			fl, neg, ok := lookupFlag(n)
			if ok && fl.kind != modelled && !strings.Contains(n, ".") && fs.Lookup(n) == nil {
				fs.Var(&tableValue{s: f, fl: fl, neg: neg, name: n}, n, "vLLM's --"+n)
			}
		}
		return
	}
	for i := range flagTable {
		fl := &flagTable[i]
		if fl.kind == modelled {
			continue
		}
		for _, n := range append([]string{fl.name}, fl.aliases...) {
			if fs.Lookup(n) == nil {
				fs.Var(&tableValue{s: f, fl: fl, name: n}, n, "vLLM's --"+fl.name)
			}
		}
		if n := "no-" + fl.name; fl.neg && fs.Lookup(n) == nil {
			fs.Var(&tableValue{s: f, fl: fl, neg: true, name: n}, n, "vLLM's --"+n)
		}
	}
}

// RegisterFor registers the flags vLLM's serves are sized by, and those
// of the table args name (see [engine.ArgsRegisterer]).
func (f *flagServe) RegisterFor(fs *flag.FlagSet, model *string, args []string) {
	given := engine.NamedFlags(args)
	var negated []string
	for name := range given {
		if on, ok := strings.CutPrefix(name, "no-"); ok {
			negated = append(negated, on)
		}
	}
	for _, on := range negated {
		// A switch given as --no-X needs X registered beside it (see
		// registerNegations).
		given[on] = true
	}
	f.registerModelled(fs, given)
	f.registerTable(fs, given)
}

// Respell returns args as vLLM's argparse reads them, in the forms the flag
// package parses: underscores in a flag's name made dashes (up to a dot),
// -O3, -O 3 and -O=3 as --optimization-level=3, a flag of several values
// (--served-model-name a b) as one argument, a switch of an optional value
// (--hf-token) with it or without, a dotted JSON flag
// (--compilation-config.mode 3) as one argument, and a --config file's
// flags in its place (see spliceConfig).
func (Engine) Respell(args []string) []string {
	args = spliceConfig(args)
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" || len(a) < 2 || isNumber(a) {
			out = append(out, a)
			continue
		}
		if strings.HasPrefix(a, "-O") && !strings.HasPrefix(a, "--") {
			// vllm/utils/argparse_utils.py at main: -O3, -O=3, -O 3.
			level := strings.TrimPrefix(strings.TrimPrefix(a, "-O"), "=")
			if level == "" && i+1 < len(args) && len(args[i+1]) == 1 && args[i+1] >= "0" && args[i+1] <= "3" {
				i++
				level = args[i]
			}
			if level != "" && !strings.HasPrefix(level, ".") {
				out = append(out, "--optimization-level="+level)
				continue
			}
		}
		dashes := "--"
		if !strings.HasPrefix(a, "--") {
			dashes = "-"
		}
		key, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		head, dotted, isDotted := strings.Cut(key, ".")
		// Dashes made of leading underscores ("--_x") are leading dashes.
		key = strings.TrimLeft(strings.ReplaceAll(head, "_", "-"), "-")
		if isDotted {
			key += "." + dotted
		}
		if key == "" {
			out = append(out, a) // "---", "-_": not a flag argparse reads
			continue
		}
		if key == "enable-chunked-prefill" {
			if v, n, ok := oldChunkedValue(args, i, hasValue, value); ok {
				out = append(out, dashes+v)
				i += n
				continue
			}
		}
		fl, _, ok := lookupFlag(key)
		if hasValue {
			if ok && isDotted {
				out = append(out, dottedArg(dashes, key, value, fl, args))
				continue
			}
			out = append(out, respelled(a, dashes, key, true, value))
			continue
		}
		switch {
		case !ok:
			out = append(out, respelled(a, dashes, key, false, ""))
		case isDotted && i+1 < len(args):
			out = append(out, dottedArg(dashes, key, args[i+1], fl, args))
			i++
		case fl.arity == manyValues && i+1 < len(args):
			j := engine.ValuesEnd(args, i, isNumber)
			out = append(out, dashes+key+"="+strings.Join(args[i+1:j], " "))
			i = j - 1
		case fl.arity == optValue:
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				out = append(out, dashes+key+"="+args[i+1])
				i++
			} else {
				out = append(out, dashes+key+"=true")
			}
		default:
			out = append(out, respelled(a, dashes, key, false, ""))
		}
	}
	return out
}

// oldChunkedValue reads --enable-chunked-prefill at args[i] as a release
// before chunkedNegSpelled does: a StoreBoolean of an optional value, true
// or false in any case (--enable-chunked-prefill False, =false), which
// membudget's launch line prints there. It returns the switch's name for
// that value, how many arguments after args[i] it took, and ok; ok false
// where the release or the value is another's (a later release takes no
// value: vLLM refuses one, and so does the flag set).
func oldChunkedValue(args []string, i int, hasValue bool, value string) (string, int, bool) {
	n := 0
	if !hasValue && i+1 < len(args) {
		value, n = args[i+1], 1
	}
	var on bool
	switch strings.ToLower(value) {
	case "true":
		on = true
	case "false":
	default:
		return "", 0, false
	}
	if !releaseOf(args).Release.Less(chunkedNegSpelled) {
		return "", 0, false
	}
	if on {
		return "enable-chunked-prefill", n, true
	}
	return "no-enable-chunked-prefill", n, true
}

// respelled returns dashes+key, and "="+value after it when hasValue: a
// itself when it is spelled so already, as nearly every argument is, so
// that a batch of requests does not build each argument again.
func respelled(a, dashes, key string, hasValue bool, value string) string {
	rest, ok := strings.CutPrefix(a, dashes)
	if ok {
		rest, ok = strings.CutPrefix(rest, key)
	}
	if v, isValue := strings.CutPrefix(rest, "="); ok && (hasValue && isValue && v == value || !hasValue && rest == "") {
		return a
	}
	if hasValue {
		return dashes + key + "=" + value
	}
	return dashes + key
}

// dottedArg is a dotted JSON flag (--compilation-config.cache_dir x) as
// one argument: its own spelling where it changes memory, for Judge to
// refuse by that name; the flag with the object it sets where it changes
// none, for the flag set to parse and list as ignored (vLLM reads the
// value as JSON where it is, else as a string).
func dottedArg(dashes, key, value string, fl *vflag, args []string) string {
	// A modelled JSON flag (--compilation-config from compilationSince)
	// parses the object itself, key by key.
	modelledNow := fl.kind == modelled && !modelledLater(fl.name, args)
	refusedNow := fl.kind == refused || fl.kind == modelled && !modelledNow
	if !modelledNow && (!refusedNow || !isNeutral(fl, key, value)) {
		return dashes + key + "=" + value
	}
	_, path, _ := strings.Cut(key, ".")
	var v any = value
	var parsed any
	if json.Unmarshal([]byte(value), &parsed) == nil {
		v = parsed
	}
	parts := strings.Split(path, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		v = map[string]any{parts[i]: v}
	}
	b, _ := json.Marshal(v)
	return "--" + fl.name + "=" + string(b)
}

// isNumber reports whether s reads as a number ("-1", "-0.5", "-32k"): a
// value, as argparse reads it, not a flag.
func isNumber(s string) bool {
	if engine.IsNumber(s) {
		return true
	}
	// A human-readable integer ("-32k") needs what engine.IsNumber asks
	// of the text after the dash too.
	t := strings.TrimPrefix(s, "-")
	if t == "" || !(t[0] >= '0' && t[0] <= '9' || t[0] == '.') {
		return false
	}
	_, err := ParseHumanInt(s)
	return err == nil
}

// refusedEnv are the environment variables a pasted line may set that
// change memory in ways membudget does not model, each over the releases
// whose vllm/envs.py reads it (the change that removed it cited, dated to
// a release as flagTable's are).
var refusedEnv = []struct {
	name, what string
	until      Version
	removed    string
}{
	{"VLLM_ATTENTION_BACKEND", whatAttn, Version{0, 17, 0}, "#32812 (2026-01-22)"},
}

// v2RunnerEnv forces the model runner: vllm/envs.py reads it as
// bool(int(value)) since PR #25266 ("GPU Model Runner V2", 2025-11-21),
// dated to the 0.11 profiles as flagTable dates that month's flags; unset
// it was False until PR #39337 (0.22.0), None since, which leaves the
// runner to VllmConfig.use_v2_model_runner's oracle (maybe_convert_bool,
// vllm/envs.py:2022-2024 at d18bb7b). See [Resolved.resolveRunnerEnv].
const v2RunnerEnv = "VLLM_USE_V2_MODEL_RUNNER"

var v2RunnerEnvSince = Version{0, 11, 0}

// runnerEnv is VLLM_USE_V2_MODEL_RUNNER as the line or the environment set
// it, for release profile p: [engine.Default] where it is unset or p's
// vLLM does not read it (the V0 engine, releases before 0.11).
func (f *flagServe) runnerEnv(p Profile) (engine.Switch, error) {
	e, ok := f.Lookup(v2RunnerEnv)
	if !ok || p.Era != V1 || p.Release.Less(v2RunnerEnvSince) {
		return engine.Default, nil
	}
	on, ok := pyIntBool(e.Value)
	if !ok {
		return engine.Default, envErr(v2RunnerEnv, e.Value, "vLLM reads it as bool(int(value)) (vllm/envs.py) and stops at startup on a value int() does not take: give 0 (the V1 model runner) or 1 (the V2 model runner)")
	}
	if on {
		return engine.On, nil
	}
	return engine.Off, nil
}

// compileCacheEnv turns vLLM's torch.compile cache off: vllm/envs.py reads
// it as bool(int(value)) (disable_compile_cache, vllm/envs.py:352-353 at
// d18bb7b), and set nonzero no start loads or saves a compiled artifact
// (is_compile_cache_enabled, vllm/compilation/compiler_interface.py:203-207;
// the AOT load and save, vllm/compilation/decorators.py:564 and 689), so
// every start compiles in its profile as a first start does: membudget
// sizes it as --compile-cache cold. vLLM reads it since PR #11108
// ("[torch.compile] fast inductor", 2024-12-16), first in v0.6.5 (git tag
// --contains 88a412ed3).
const compileCacheEnv = "VLLM_DISABLE_COMPILE_CACHE"

var compileCacheEnvSince = Version{0, 6, 5}

// coldCacheEnv reports whether VLLM_DISABLE_COMPILE_CACHE, as the line or
// the environment set it, makes every start of release profile p a cold
// one: false where it is unset, 0, or p's vLLM does not read it (before
// 0.6.5). It refuses a value int() does not take (vLLM stops at startup
// then), and a nonzero value beside --compile-cache warm given, which
// names the start the variable rules out.
func (f *flagServe) coldCacheEnv(p Profile) (bool, error) {
	e, ok := f.Lookup(compileCacheEnv)
	if !ok || p.Release.Less(compileCacheEnvSince) {
		return false, nil
	}
	on, ok := pyIntBool(e.Value)
	if !ok {
		return false, envErr(compileCacheEnv, e.Value, "vLLM reads it as bool(int(value)) (vllm/envs.py) and stops at startup on a value int() does not take: give 0 (the compile cache on) or 1 (off: every start compiles cold)")
	}
	if on && f.given["compile-cache"] && !f.s.ColdCompileCache {
		return false, envErr(compileCacheEnv, e.Value, "it turns vLLM's torch.compile cache off (vllm/compilation/compiler_interface.py is_compile_cache_enabled), so every start compiles cold, and --compile-cache warm sizes a start whose cache an earlier start filled: give --compile-cache cold, or drop one of them")
	}
	return on, nil
}

// pyIntBool is bool(int(s)) as Python reads a decimal integer: blanks
// around it, a sign, digits with single underscores between them; ok is
// false where int() raises.
func pyIntBool(s string) (on, ok bool) {
	s = strings.TrimSpace(s)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return false, false
	}
	for _, c := range s {
		switch {
		case c == '_':
		case c >= '0' && c <= '9':
			on = on || c != '0'
		default:
			return false, false
		}
	}
	return on, true
}

// checkEnv refuses, for release profile p, the line's assignments that
// change memory in ways membudget does not model: VLLM_USE_V1 naming the
// engine era p does not size (vllm/envs.py: bool(int(value)), until
// #28204 of 2025-11-11), a VLLM_USE_V2_MODEL_RUNNER vLLM cannot read
// (runnerEnv), a VLLM_DISABLE_COMPILE_CACHE vLLM cannot read or that
// contradicts --compile-cache warm (coldCacheEnv), and refusedEnv's.
func (f *flagServe) checkEnv(p Profile) error {
	if _, err := f.runnerEnv(p); err != nil {
		return err
	}
	if _, err := f.coldCacheEnv(p); err != nil {
		return err
	}
	for _, a := range f.IgnoredEnv {
		name, value, _ := strings.Cut(a, "=")
		if name == "VLLM_USE_V1" && p.Release.Less(v0_14_0) {
			v1 := strings.TrimSpace(value) != "0"
			switch {
			case v1 && p.Era == V0:
				return fmt.Errorf("%s in the launch line: the V1 engine, which %s does not size: give a --vllm-version without :v0 (0.8.0 or later)", a, p.Describes)
			case !v1 && p.Era == V1:
				return fmt.Errorf("%s in the launch line: the V0 engine, which %s does not size: give --vllm-version %s:v0 (0.8 to 0.10) or a release before 0.8.0", a, p.Describes, p.Release)
			}
		}
		if err := simpleOffloadEnv(name, value, a, f.s.Offload, p); err != nil {
			return err
		}
		if err := all2allEnv(name, value, a, p); err != nil {
			return err
		}
		if err := a2aEnv(name, value, a, f.s.All2AllBackend, p); err != nil {
			return err
		}
		for _, e := range refusedEnv {
			if name == e.name && p.Release.Less(e.until) {
				return fmt.Errorf("%s in the launch line: %s: not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", a, e.what, p.Describes)
			}
		}
	}
	return nil
}
