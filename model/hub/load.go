package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"membudget/model"
)

// Loaded is a --model resolved (see [Resolver.Resolve]), its config.json
// parsed into an architecture (with the hf_quant_config.json beside it, as
// vLLM reads them), and its checkpoint's tensors attached when the family's
// rules read them: what every engine sizes.
//
// A Loaded is shared by the requests of a batch: nothing changes it once
// Load returns it, and Memo is safe for concurrent use.
type Loaded struct {
	// Name is what a launch line names: the model id, or the path given.
	Name string
	// Model is the resolved model: its config.json and where it came from.
	Model *Model
	// Arch is the parsed architecture, checkpoint attached.
	Arch *model.Arch
	// Checkpoint is the checkpoint attached to Arch; nil when the weights
	// are derived from config.json, and NoCheckpoint then says why.
	Checkpoint   *Checkpoint
	NoCheckpoint string
	// Notes say what of the checkpoint the family's rules skip or do not
	// name.
	Notes model.CheckpointNotes
	// QuantConfig is the hf_quant_config.json the quantization was read
	// from; "" when there is none, or config.json declares its own.
	QuantConfig string
	// Warnings are what did not stop the load, for stderr.
	Warnings []string

	memo sync.Map
}

// Revision returns the --revision a launch line gives: the revision the
// model was resolved at, "" for a path, a shipped model or the default
// branch (main), which the engines load without one.
func (l *Loaded) Revision() string {
	if l.Model == nil || l.Model.Revision == DefaultRevision {
		return ""
	}
	return l.Model.Revision
}

// Memo returns the value kept under key, made by make on first use: what
// an engine derives from the model alone (a compiler, the servers it has
// sized) and reuses for every serve of it. Concurrent first uses may each
// call make; one result is kept and returned to all.
func (l *Loaded) Memo(key any, make func() any) any {
	if v, ok := l.memo.Load(key); ok {
		return v
	}
	v, _ := l.memo.LoadOrStore(key, make())
	return v
}

// Load resolves spec as [Resolver.Resolve] does, parses its config.json
// with the hf_quant_config.json beside it when config.json declares no
// quantization (as vLLM reads them), and reads its checkpoint's headers.
// Every error names --model; a missing checkpoint is not one: the weights
// are then derived from config.json, and NoCheckpoint says why.
//
// The whole load is bounded by r.Deadline.
func (r Resolver) Load(ctx context.Context, spec string) (*Loaded, error) {
	ctx, cancel := r.withDeadline(ctx)
	defer cancel()
	m, err := r.Resolve(ctx, spec)
	if err != nil {
		var re *ResolveError
		if errors.As(err, &re) && re.Err == nil || errors.Is(err, ErrOffline) {
			return nil, fmt.Errorf("%w ('membudget models' lists the shipped and cached models)", err)
		}
		return nil, err
	}
	opts, quantPath, err := QuantOptions(ctx, m)
	if err != nil {
		return nil, fmt.Errorf("--model %q: %w", spec, err)
	}
	a, err := model.ParseConfig(m.Path, m.Config, opts...)
	if errors.Is(err, model.ErrUnknownModelType) {
		return r.loadGeneric(ctx, spec, m, opts, quantPath, err)
	}
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	if err := attachSentenceTransformers(ctx, m, a); err != nil {
		return nil, fmt.Errorf("--model %q: %w", spec, err)
	}
	if err := attachProcessors(ctx, m, a); err != nil {
		return nil, fmt.Errorf("--model %q: %w", spec, err)
	}
	l := &Loaded{Name: m.RepoID, Model: m, Arch: a, Warnings: m.Warnings, QuantConfig: quantPath}
	if l.Name == "" {
		l.Name = spec
	}
	ck, err := m.Tensors(ctx)
	switch {
	case errors.Is(err, ErrNoCheckpoint):
		l.NoCheckpoint = "no safetensors checkpoint beside config.json"
		if m.Source.Kind == SourceShipped {
			l.NoCheckpoint = "a shipped config.json has no checkpoint beside it"
		}
	case errors.Is(err, ErrUnreachable):
		l.NoCheckpoint = "the checkpoint's headers are not in the Hugging Face cache and the Hub cannot be reached"
		l.Warnings = append(m.Warnings, "weights derived from config.json: "+l.NoCheckpoint)
	case errors.Is(err, ErrOffline):
		l.NoCheckpoint = "the checkpoint's headers are not in the Hugging Face cache and HF_HUB_OFFLINE=1"
	case err != nil:
		return nil, fmt.Errorf("--model %q: reading the checkpoint: %w", spec, err)
	default:
		l.Warnings = append(l.Warnings, ck.Warnings...)
		notes, err := model.AttachCheckpoint(a, &model.Checkpoint{Name: ck.String(), Tensors: ck.Tensors})
		if err != nil {
			l.NoCheckpoint = "the checkpoint (" + ck.String() + ") was not read: " + err.Error()
			l.Warnings = append(l.Warnings, "weights derived from config.json: "+l.NoCheckpoint)
			break
		}
		l.Checkpoint, l.Notes = ck, notes
		if n := len(notes.Unknown); n > 0 {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%d checkpoint tensor(s) that model_type %s's rules do not name, counted whole on every rank: %s",
				n, a.ModelType, listSome(notes.Unknown, 5)))
		}
	}
	return l, nil
}

// loadGeneric loads a model of a model_type with no family (unknown, the
// error ParseConfig gave) as a generic decoder: its config read by
// model.ParseGeneric, its weights from its checkpoint's headers, which it
// must have. Without them, or without the standard keys, it is a refusal
// that says what is missing.
func (r Resolver) loadGeneric(ctx context.Context, spec string, m *Model, opts []model.Option, quantPath string, unknown error) (*Loaded, error) {
	refuse := func(why string) error {
		return fmt.Errorf("--model: %w; not sized as a generic decoder either: %s", unknown, why)
	}
	a, err := model.ParseGeneric(m.Path, m.Config, opts...)
	if err != nil {
		return nil, refuse(err.Error())
	}
	if err := attachSentenceTransformers(ctx, m, a); err != nil {
		return nil, fmt.Errorf("--model %q: %w", spec, err)
	}
	ck, err := m.Tensors(ctx)
	switch {
	case errors.Is(err, ErrNoCheckpoint):
		return nil, refuse("its weights come only from its checkpoint's safetensors headers, and there are none (" + err.Error() + ")")
	case errors.Is(err, ErrOffline):
		return nil, refuse("its weights come only from its checkpoint's safetensors headers, which are not in the Hugging Face cache, and HF_HUB_OFFLINE=1")
	case err != nil:
		return nil, fmt.Errorf("--model %q: reading the checkpoint: %w", spec, err)
	}
	notes, err := model.AttachCheckpoint(a, &model.Checkpoint{Name: ck.String(), Tensors: ck.Tensors})
	if err != nil {
		return nil, refuse("the checkpoint (" + ck.String() + ") was not read: " + err.Error())
	}
	l := &Loaded{Name: m.RepoID, Model: m, Arch: a, Warnings: append(m.Warnings, ck.Warnings...), QuantConfig: quantPath,
		Checkpoint: ck, Notes: notes}
	if l.Name == "" {
		l.Name = spec
	}
	if n := len(notes.Unknown); n > 0 {
		l.Warnings = append(l.Warnings, fmt.Sprintf("%d checkpoint tensor(s) not named as Llama names them, counted whole on every rank (an upper bound under tensor or pipeline parallelism): %s",
			n, listSome(notes.Unknown, 5)))
	}
	return l, nil
}

// QuantOptions reads m's hf_quant_config.json (see [Model.HFQuantConfig])
// as the options of [model.ParseConfig], and says in m's source that the
// quantization came from it. Offline, one that is not in the cache is none,
// as vLLM reads it offline (vllm/transformers_utils/repo_utils.py,
// list_repo_files), and the source says so. path is the file read, "" when
// none was.
func QuantOptions(ctx context.Context, m *Model) (opts []model.Option, path string, err error) {
	data, path, found, err := m.HFQuantConfig(ctx)
	switch {
	case readAsNone(m, QuantConfigFile, err):
		return nil, "", nil
	case err != nil:
		return nil, "", fmt.Errorf("reading %s: %w", QuantConfigFile, err)
	case !found:
		return nil, "", nil
	}
	m.Source.Description += "; quantization from " + QuantConfigFile
	return []model.Option{model.WithHFQuantConfig(path, data)}, path, nil
}

// attachSentenceTransformers sets a's sentence-transformers pooling from
// m's files (see [Model.SentenceTransformers]). Offline or with the Hub
// unreachable, files not in the cache are read as none, as vLLM reads them
// offline (file_or_path_exists finds no local file), and m's source says
// so.
func attachSentenceTransformers(ctx context.Context, m *Model, a *model.Arch) error {
	st, err := m.SentenceTransformers(ctx)
	switch {
	case readAsNone(m, model.ModulesFile, err):
		return nil
	case err != nil:
		return fmt.Errorf("reading the sentence-transformers config: %w", err)
	}
	a.SentenceTransformers = st
	return nil
}

// readAsNone reports whether err says file is not in the cache and the
// Hub was not asked (offline) or could not be reached: vLLM then reads the
// file as none, and so does membudget, saying so in m's source.
func readAsNone(m *Model, file string, err error) bool {
	switch {
	case errors.Is(err, ErrUnreachable):
		m.Source.Description += "; no " + file + " in the cache (the Hub cannot be reached: read as none, as vLLM does offline)"
	case errors.Is(err, ErrOffline):
		m.Source.Description += "; no " + file + " in the cache (offline: read as none, as vLLM does)"
	default:
		return false
	}
	return true
}

// listSome joins up to n names and says how many more there are.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

// Loader loads models for the commands: every Load afresh, or, when it
// keeps them, each spec once, its Loaded (and what the engines memoized on
// it) reused by every later request that names it. Only successes are
// kept: an error is returned to each request that meets it. A Loader is
// safe for concurrent use.
type Loader struct {
	resolver Resolver
	keep     bool
	mu       sync.Mutex
	models   map[string]*Loaded
}

// NewLoader returns a Loader over r that keeps what it loads when keep is
// set (a batch of requests), and loads afresh every time when not.
func NewLoader(r Resolver, keep bool) *Loader {
	return &Loader{resolver: r, keep: keep, models: map[string]*Loaded{}}
}

// Kept returns the model the loader keeps for spec, and whether it keeps
// one: what a later [Loader.Load] of spec returns without loading.
func (ld *Loader) Kept(spec string) (*Loaded, bool) {
	if !ld.keep {
		return nil, false
	}
	ld.mu.Lock()
	defer ld.mu.Unlock()
	l, ok := ld.models[spec]
	return l, ok
}

// Load loads spec (see [Resolver.Load]), from what the loader keeps when
// it keeps its loads.
func (ld *Loader) Load(ctx context.Context, spec string) (*Loaded, error) {
	if !ld.keep {
		return ld.resolver.Load(ctx, spec)
	}
	ld.mu.Lock()
	l, ok := ld.models[spec]
	ld.mu.Unlock()
	if ok {
		return l, nil
	}
	l, err := ld.resolver.Load(ctx, spec)
	if err != nil {
		return nil, err
	}
	ld.mu.Lock()
	defer ld.mu.Unlock()
	if kept, ok := ld.models[spec]; ok {
		return kept, nil // another request loaded it first: share its memo
	}
	ld.models[spec] = l
	return l, nil
}
