package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"membudget"
	"membudget/budget"
	"membudget/engine"
	"membudget/model/hub"
)

// serveArgs are the inputs every sizing command shares: the engine and its
// serve, the model, the class and the output.
type serveArgs struct {
	eng     engine.Engine
	serve   engine.Serve
	model   string
	class   string
	kernels kernelsFlag
	json    bool
	// strict refuses a model sized as a generic decoder (--strict).
	strict bool
	// engineParsed is --engine as parsing read it; eng is what engineOf
	// read before the flags were registered.
	engineParsed string
	// given records the flags given, by the names they were given under.
	given map[string]bool
	// args is the command's arguments as the engine respells them (see
	// [engine.Set.Respell]), for parseServe to parse.
	args []string
}

const engineUsage = "the inference server whose rules size the serve, with its own flags (--engine E -h lists them): "

// serveFlags registers on fs the flags every sizing command shares and
// those of the engine args select (see [engine.Set.EngineOf]); own
// registers the command's own, once the engine is known. A flag the
// engine does not take or model, and another engine's launch line, are
// refused naming them (see [engine.Set.Check]).
func (a *app) serveFlags(fs *flag.FlagSet, args []string, own func(e engine.Engine)) (*serveArgs, error) {
	eng, err := a.engines.EngineOf(args)
	if err != nil {
		return nil, err
	}
	if args, err = a.respell(eng, args); err != nil {
		return nil, err
	}
	sa := &serveArgs{eng: eng, serve: eng.NewServe(), args: args}
	fs.StringVar(&sa.model, "model", "", "a config.json `path` (or a directory holding one), a shipped model (org/name or org__name, any case), or a Hugging Face model id org/name[@revision], from the local cache or the Hub (see 'membudget models')")
	fs.StringVar(&sa.class, "class", "", "device `class` (see 'membudget classes'); case does not matter")
	// The flags a command seldom takes are registered where args name them
	// or ask for help (which lists them), as the engine's are (see
	// [engine.ArgsRegisterer]): a batch makes a flag set a request, and
	// from nine flags its map outgrows the small form, the costliest step
	// of a request's parse. Left out, each keeps its default.
	named := namedFlags(args)
	if named.has("kernels") {
		sa.kernels.register(fs)
	}
	if named.has("json") {
		fs.BoolVar(&sa.json, "json", false, "print JSON for scripts (schema in the README)")
	}
	if named.has("strict") {
		fs.BoolVar(&sa.strict, "strict", false, strictFlag)
	}
	sa.engineParsed = a.engines.Default().Name()
	if named.has("engine") {
		fs.StringVar(&sa.engineParsed, "engine", a.engines.Default().Name(), engineUsage+a.engines.Names())
	}
	a.hubDeadline = hub.DefaultDeadline
	if named.has("hub-deadline") {
		a.registerHubDeadline(fs)
	}
	if own != nil {
		own(eng)
	}
	if err := a.engines.Check(eng, args, func(name string) bool { return fs.Lookup(name) != nil }); err != nil {
		if ue := (*engine.UnknownFlagError)(nil); errors.As(err, &ue) {
			offerOwnFlag(fs, ue)
		}
		return nil, err
	}
	engine.RegisterFor(sa.serve, fs, &sa.model, args)
	return sa, nil
}

// parseServe parses the arguments serveFlags registered fs for (sa.args)
// as the sizing commands take them: membudget's flags, then optionally the
// engine's launch line as it is typed, so that a command line can be
// pasted as it is: its NAME=value assignments, its model, its --revision,
// the flags that do not change memory.
func (a *app) parseServe(fs *flag.FlagSet, sa *serveArgs) (status int, ok bool) {
	cmd := strings.TrimPrefix(fs.Name(), "membudget ")
	if status, ok := a.parseFlags(fs, sa.args, true); !ok {
		return status, false
	}
	set := map[string]bool{}
	if rest := fs.Args(); len(rest) > 0 {
		env, line := engine.SplitEnv(rest)
		if !sa.eng.LaunchLine(line) {
			fmt.Fprintf(fs.Output(), "%s: unexpected argument %q; every input is a flag, or a trailing `%s`\n", fs.Name(), rest[0], sa.eng.LineUsage())
			return exitBadArgs, false
		}
		if status, ok := a.readLine(fs, sa, env, line, set); !ok {
			return status, false
		}
	}
	for _, name := range sa.serve.Env() {
		if v := a.getenv(name); v != "" && !set[name] {
			sa.serve.SetEnv(name, v, "the environment")
		}
	}
	sa.given = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { sa.given[fl.Name] = true })
	if sa.given["engine"] && sa.engineParsed != sa.eng.Name() {
		fmt.Fprintf(fs.Output(), "%s: --engine %s in the server line: give --engine before it\n", fs.Name(), sa.engineParsed)
		return exitBadArgs, false
	}
	warnings, err := sa.serve.Parsed(sa.given)
	if err != nil {
		fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
		return exitBadArgs, false
	}
	writeWarnings(fs.Output(), cmd, warnings)
	return 0, true
}

// readLine parses a pasted launch line (env its assignments, line the rest)
// with the same flag set (see [engine.ReadLaunch]), then reconciles its
// model and --revision with --model; set records the environment variables
// it set.
func (a *app) readLine(fs *flag.FlagSet, sa *serveArgs, env, line []string, set map[string]bool) (int, bool) {
	bad := func(err error) (int, bool) {
		fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
		return exitBadArgs, false
	}
	l, err := engine.ReadLaunch(sa.serve, fs, env, line)
	if err != nil {
		if pe := (*engine.ParseError)(nil); errors.As(err, &pe) {
			return exitBadArgs, false // the flag package has said why
		}
		return bad(err)
	}
	if a.serving {
		if err := a.paths.checkFlags(fs); err != nil { // the line's flags: a draft's directory
			return bad(err)
		}
	}
	switch {
	case l.Model != "" && sa.model != "" && l.Model != sa.model:
		return bad(fmt.Errorf("the model is given twice: --model %s and %s", sa.model, l.From))
	case l.Model != "":
		sa.model = l.Model
	}
	for name := range l.Env {
		set[name] = true
	}
	ignored, err := sa.atRevision(l.Revision, l.Name)
	if err != nil {
		return bad(err)
	}
	sa.serve.Ignore(l.IgnoredEnv, append(l.Ignored, ignored...))
	return 0, true
}

// atRevision points sa.model at a pasted line's --revision: org/name
// becomes org/name@revision, resolved at it and printed with it. The
// engines' default, main, changes nothing (a shipped model still answers);
// a path has no revisions (transformers ignores one for a local
// directory), so the flag is listed as ignored; a --model at another
// revision is an error.
func (sa *serveArgs) atRevision(revision, line string) (ignored []string, err error) {
	if revision == "" || sa.model == "" {
		return nil, nil
	}
	if err := hub.CheckRevision(revision); err != nil {
		return nil, fmt.Errorf("--revision in %s: %w", line, err)
	}
	if hub.IsPath(sa.model) {
		return []string{"--revision " + revision}, nil
	}
	if _, at, ok := strings.Cut(sa.model, "@"); ok {
		if at != revision {
			return nil, fmt.Errorf("--model %s and %s's --revision %s name two revisions", sa.model, line, revision)
		}
		return nil, nil
	}
	if revision != hub.DefaultRevision {
		sa.model += "@" + revision
	}
	return nil, nil
}

// modelFlag names --model as the engine's server also calls it, for the
// message that asks for it: " (SGLang's --model-path)".
func (sa *serveArgs) modelFlag() string {
	for _, c := range sa.serve.Concepts() {
		if c.Idea == engine.IdeaModel && c.Flag != "model" {
			return fmt.Sprintf(" (%s's --%s)", sa.eng.Title(), c.Flag)
		}
	}
	return ""
}

// size loads the model and the class and sizes the serve; every error
// names the flag, file or key. The model's warnings go to warn.
func (a *app) size(sa *serveArgs, warn func([]string)) (*hub.Loaded, budget.Class, engine.Sizing, error) {
	var none budget.Class
	if sa.model == "" {
		return nil, none, nil, fmt.Errorf("--model is required%s: a config.json path, a shipped model or a Hugging Face model id (see 'membudget models')", sa.modelFlag())
	}
	if sa.class == "" {
		return nil, none, nil, errors.New("--class is required (see 'membudget classes')")
	}
	m, err := a.load(sa.model)
	if err != nil {
		return nil, none, nil, err
	}
	if err := refuseGeneric(sa.strict, m); err != nil {
		return nil, none, nil, err
	}
	warn(m.Warnings)
	c, err := a.class(sa.kernels, sa.class)
	if err != nil {
		return nil, none, nil, fmt.Errorf("--class: %w", err)
	}
	sz, err := sa.serve.Size(m, c)
	if err != nil {
		return nil, none, nil, err
	}
	return m, c, sz, nil
}

// resolver is the --model resolver: the environment's Hugging Face
// settings, and the configs shipped in the binary.
func (a *app) resolver() (hub.Resolver, error) { return membudget.Resolver(a.getenv) }

// load resolves and loads --model spec (see [hub.Resolver.Load]), from the
// batch's loads when there are.
func (a *app) load(spec string) (*hub.Loaded, error) {
	if a.serving {
		if err := a.paths.checkModel(spec); err != nil {
			return nil, err
		}
	}
	if a.loads != nil {
		return a.loads.model(a, spec)
	}
	r, err := a.resolver()
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	ctx, cancel, d := a.hubContext()
	defer cancel()
	r.Deadline = d
	return r.Load(ctx, spec)
}

// class loads --class name from --kernels k, from the batch's loads when
// there are.
func (a *app) class(k kernelsFlag, name string) (budget.Class, error) {
	if a.loads != nil {
		return a.loads.class(k, name)
	}
	return k.catalog().Load(name)
}

// loads are the models and classes a batch's requests share: each resolved,
// parsed and read once, by the flag values that named them, with what the
// engines memoize on each model. Only successes are kept: an error is
// reported for each request that meets it.
type loads struct {
	once    sync.Once
	loader  *hub.Loader
	err     error
	mu      sync.Mutex
	classes map[classKey]budget.Class
	// limit, when above 0, bounds the model specs and the classes kept
	// (serve's, whose clients may spell one shipped model or class in
	// many cases); one beyond it is loaded afresh for its request (a
	// model by fresh), and dropped.
	limit int
	kept  map[string]bool
	fresh *hub.Loader
}

// classKey names a class: the --kernels directory ("" for the shipped
// classes) and the --class value.
type classKey struct{ dir, name string }

func (l *loads) model(a *app, spec string) (*hub.Loaded, error) {
	l.once.Do(func() {
		r, err := a.resolver()
		// Each request bounds its own resolution (hubContext); the
		// shared resolver's deadline is the flag's longest.
		r.Deadline = maxHubDeadline
		l.loader, l.fresh, l.err = hub.NewLoader(r, true), hub.NewLoader(r, false), err
	})
	if l.err != nil {
		return nil, fmt.Errorf("--model: %w", l.err)
	}
	if m, ok := l.loader.Kept(spec); ok {
		// A model loaded already needs no deadline of its own (a
		// context and its timer a request).
		return m, nil
	}
	ctx, cancel, _ := a.hubContext()
	defer cancel()
	if l.limit > 0 {
		l.mu.Lock()
		keep := l.kept[spec] || len(l.kept) < l.limit
		if keep && l.kept != nil {
			l.kept[spec] = true
		}
		l.mu.Unlock()
		if !keep {
			return l.fresh.Load(ctx, spec)
		}
	}
	return l.loader.Load(ctx, spec)
}

func (l *loads) class(k kernelsFlag, name string) (budget.Class, error) {
	key := classKey{k.dir, name}
	l.mu.Lock()
	c, ok := l.classes[key]
	l.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := k.catalog().Load(name)
	if err != nil {
		return c, err
	}
	l.mu.Lock()
	if l.limit == 0 || len(l.classes) < l.limit {
		l.classes[key] = c
	}
	l.mu.Unlock()
	return c, nil
}

// writeWarnings prints what did not stop a command on stderr.
func writeWarnings(w io.Writer, cmd string, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "membudget %s: warning: %s\n", cmd, s)
	}
}

// flagNames is the flag names arguments give (see [engine.NamedFlags]),
// nil for every flag: help asked for.
type flagNames map[string]bool

// namedFlags returns the names of the flags args give (see [flagNames]).
func namedFlags(args []string) flagNames {
	if engine.AsksHelp(args) {
		return nil
	}
	return engine.NamedFlags(args)
}

// has reports whether name is given, or every flag is wanted.
func (n flagNames) has(name string) bool { return n == nil || n[name] }

// seldomFlags are the sizing commands' own flags that serveFlags
// registers only where args name them or ask for help, for offerOwnFlag
// to offer where they are not registered (TestSeldomFlagsAreTheLazyOnes
// pins the list to serveFlags).
var seldomFlags = []string{"kernels", "json", "strict", "engine", "hub-deadline"}

// offerOwnFlag makes e, a flag neither the command nor the engine takes,
// name the command's own flag instead of the engine's where it is nearer
// (--stict: --strict, not the engine's --dtype). A flag the engine has in
// another release (e.Detail says which) is the engine's, not a typo.
func offerOwnFlag(fs *flag.FlagSet, e *engine.UnknownFlagError) {
	if e.Detail != "" {
		return
	}
	// The flags serveFlags registers only where they are named, and those
	// it has registered.
	own := slices.Clone(seldomFlags)
	fs.VisitAll(func(f *flag.Flag) { own = append(own, f.Name) })
	n := engine.Nearest(e.Name, own)
	if n == "" || e.Nearest != "" && budget.EditDistance(e.Name, n) >= budget.EditDistance(e.Name, e.Nearest) {
		return
	}
	e.Of, e.Detail, e.Nearest = fs.Name()+" or "+e.Of, "", n
}
