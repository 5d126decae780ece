package hub

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SourceKind says where a model's config.json came from.
type SourceKind string

// The sources, in the order Resolve tries them.
const (
	SourcePath    SourceKind = "path"
	SourceShipped SourceKind = "shipped"
	SourceCache   SourceKind = "cache"
	SourceHub     SourceKind = "hub"
)

// Source is where a model came from: its kind, and a description for
// people, such as "Hugging Face cache ~/.cache/huggingface/hub, snapshot
// 0e9e39f (refs/main)".
type Source struct {
	Kind        SourceKind
	Description string
}

// String returns the description.
func (s Source) String() string { return s.Description }

// ErrOffline is wrapped by the errors for something that is not in the
// cache while HF_HUB_OFFLINE=1 forbids fetching it.
var ErrOffline = errors.New("offline (HF_HUB_OFFLINE=1)")

// ResolveError is a --model value that could not be resolved. Detail says
// what was tried and why it failed; Suggestions are shipped ids close to
// Spec; Err is the cause (a *HubError, ErrOffline, a file error) or nil.
type ResolveError struct {
	Spec        string
	Detail      string
	Suggestions []string
	Err         error
}

// Unwrap returns the cause.
func (e *ResolveError) Unwrap() error { return e.Err }

// Error returns `--model "spec": detail`, with the suggestions after it.
func (e *ResolveError) Error() string {
	s := fmt.Sprintf("--model %q: %s", e.Spec, e.Detail)
	if len(e.Suggestions) > 0 {
		q := make([]string, len(e.Suggestions))
		for i, id := range e.Suggestions {
			q[i] = fmt.Sprintf("%q", id)
		}
		s += "; did you mean " + strings.Join(q, ", ") + "?"
	}
	return s
}

// Model is a resolved --model: its config.json and where it came from.
type Model struct {
	// Spec is the --model value as given.
	Spec string
	// Config is the content of config.json.
	Config []byte
	// Path names config.json in messages: a file path, a shipped file's
	// path, or the cache snapshot's file.
	Path string
	// Source is where it came from.
	Source Source
	// RepoID is the model id (org/name); "" for a path.
	RepoID string
	// Revision is the revision asked for (main by default) and Commit the
	// commit it resolved to; both "" for a path or a shipped model.
	Revision string
	Commit   string
	// Warnings are things that did not stop the resolution, such as a
	// cache that could not be written.
	Warnings []string

	// dir holds the checkpoint of a path model.
	dir string
	// quantDir holds the hf_quant_config.json of a path model: the
	// directory given, or the one of a file named config.json; "" for a
	// config under another name, which stands alone.
	quantDir string
	// shippedID is the id a shipped model was found by.
	shippedID string
	// res is the resolver that made the model, for Tensors; a pointer, so
	// that printing a Model never prints the token.
	res *Resolver
}

// Resolve finds the model that spec names and reads its config.json,
// trying in turn:
//
//  1. a path: a config.json file, or a directory holding one;
//  2. a shipped model, by id (org/name or org__name, any case), when spec
//     has no @revision;
//  3. the Hugging Face cache: refs/<revision> (main by default) to a
//     commit, snapshots/<commit>/config.json; a revision that is a commit
//     hash is its own snapshot;
//  4. the Hub at r.Endpoint, unless r.Offline: the file is fetched, and
//     written into the cache the way huggingface_hub writes it.
//
// A spec that can only be a path (absolute, starting with "." or "~", or
// ending in .json) stops at step 1. Failures are a *ResolveError.
func (r Resolver) Resolve(ctx context.Context, spec string) (*Model, error) {
	ctx, cancel := r.withDeadline(ctx)
	defer cancel()
	m, err := r.resolve(ctx, spec)
	if err != nil {
		return nil, err
	}
	if err := checkJSONText(m.Config); err != nil {
		return nil, &ResolveError{Spec: spec, Detail: m.Path + ": " + err.Error(), Err: err}
	}
	return m, nil
}

// ErrDeadline is wrapped by the error of a Load or Resolve that ran past
// [Resolver.Deadline]; it wraps context.DeadlineExceeded.
var ErrDeadline = fmt.Errorf("the deadline of a whole resolution passed: %w", context.DeadlineExceeded)

// withDeadline bounds ctx by r.Deadline (DefaultDeadline when 0), its
// cause naming the deadline.
func (r Resolver) withDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	d := r.withDefaults().Deadline
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("no whole answer within %v: %w", d, ErrDeadline))
}

// resolve is Resolve before the config's text is checked.
func (r Resolver) resolve(ctx context.Context, spec string) (*Model, error) {
	r = r.withDefaults()
	fail := func(detail string, cause error) error {
		return &ResolveError{Spec: spec, Detail: detail, Suggestions: suggest(spec, r.ShippedIDs), Err: cause}
	}
	if strings.TrimSpace(spec) == "" {
		return nil, &ResolveError{Spec: spec, Detail: "empty: want a config.json path or a model id such as meta-llama/Llama-3.1-8B-Instruct"}
	}
	if m, done, err := r.fromPath(spec); done {
		if err != nil {
			return nil, &ResolveError{Spec: spec, Detail: err.Error(), Err: err}
		}
		return m, nil
	}
	if m, err := r.fromShipped(spec); m != nil || err != nil {
		if err != nil {
			return nil, &ResolveError{Spec: spec, Detail: err.Error(), Err: err}
		}
		return m, nil
	}
	repo, rev, err := splitSpec(spec)
	if err != nil {
		return nil, fail("no such file, no shipped model, and not a model id: "+err.Error(), err)
	}
	if r.CacheDir == "" {
		return nil, fail("no such file, no shipped model, and no Hugging Face cache directory to look in", nil)
	}
	revision := rev
	if revision == "" {
		revision = DefaultRevision
	}
	c := r.repoCache(repo)
	m, err := r.fromCache(c, spec, revision)
	refetched := ""
	if errors.Is(err, errDamaged) && !r.Offline {
		refetched = err.Error() + "; fetched again from the Hub"
		err = nil
	}
	if err != nil {
		return nil, fail(err.Error(), err)
	}
	if m != nil {
		return m, nil
	}
	notCached := fmt.Sprintf("no such file, no shipped model, not in the Hugging Face cache (%s)", r.tilde(r.CacheDir))
	if r.Offline {
		return nil, fail(notCached+", and offline (HF_HUB_OFFLINE=1)", ErrOffline)
	}
	m, err = r.fromHub(ctx, c, spec, revision)
	if err != nil {
		return nil, fail(notCached+", and "+err.Error(), err)
	}
	if refetched != "" {
		m.Warnings = append(m.Warnings, refetched)
	}
	return m, nil
}

// tilde shortens a path under the home directory to ~/...
func (r *Resolver) tilde(p string) string {
	if r.Home != "" && r.Home != "/" {
		if rest, ok := strings.CutPrefix(p, r.Home+string(filepath.Separator)); ok {
			return "~" + string(filepath.Separator) + rest
		}
	}
	return p
}

// fromPath reads spec as a file or a directory. done is false when nothing
// is there and spec may still be a model id.
func (r Resolver) fromPath(spec string) (m *Model, done bool, err error) {
	fi, err := os.Stat(spec)
	if err != nil {
		switch {
		case !looksLikePath(spec):
		case errors.Is(err, fs.ErrNotExist):
			return nil, true, errors.New("no such file or directory")
		default:
			return nil, true, err
		}
		return nil, false, nil
	}
	config, dir, desc := spec, filepath.Dir(spec), "file "+spec
	quantDir := ""
	if filepath.Base(spec) == "config.json" {
		quantDir = dir
	}
	if fi.IsDir() {
		config, dir, quantDir, desc = filepath.Join(spec, "config.json"), spec, spec, "directory "+spec
	}
	data, found, err := readRegular(config, MaxConfigBytes)
	if err != nil {
		return nil, true, err
	}
	if !found {
		return nil, true, fmt.Errorf("directory %s has no config.json", spec)
	}
	res := r
	return &Model{Spec: spec, Config: data, Path: config, dir: dir, quantDir: quantDir, res: &res,
		Source: Source{Kind: SourcePath, Description: desc}}, true, nil
}

// fromShipped finds spec among the shipped ids; nil when it is not one.
func (r Resolver) fromShipped(spec string) (*Model, error) {
	if r.Shipped == nil || strings.Contains(spec, "@") {
		return nil, nil
	}
	key := shippedKey(spec)
	for _, id := range r.ShippedIDs {
		if shippedKey(id) != key {
			continue
		}
		data, path, ok := r.Shipped(id)
		if !ok {
			return nil, fmt.Errorf("shipped model %s is listed but cannot be read", id)
		}
		res := r
		return &Model{Spec: spec, Config: data, Path: path, RepoID: displayID(id), shippedID: id, res: &res,
			Source: Source{Kind: SourceShipped, Description: "shipped with membudget (" + path + ")"}}, nil
	}
	return nil, nil
}

// fromCache reads config.json of revision from the cache; nil when the
// revision or its config.json is not there.
func (r Resolver) fromCache(c repoCache, spec, revision string) (*Model, error) {
	commit, found, err := c.commitOf(revision)
	if err != nil || !found {
		return nil, err
	}
	config := filepath.Join(c.snapshot(commit), "config.json")
	data, found, err := c.read(config, MaxConfigBytes)
	if err != nil || !found {
		return nil, err
	}
	desc := fmt.Sprintf("Hugging Face cache %s, snapshot %s", r.tilde(r.CacheDir), commit[:7])
	if revision != commit {
		desc += " (refs/" + revision + ")"
	}
	res := r
	return &Model{Spec: spec, Config: data, Path: config, RepoID: c.repo, Revision: revision, Commit: commit, res: &res,
		Source: Source{Kind: SourceCache, Description: desc}}, nil
}

// fromHub fetches config.json of revision and writes it into the cache.
func (r Resolver) fromHub(ctx context.Context, c repoCache, spec, revision string) (*Model, error) {
	u := r.fileURL(c.repo, revision, "config.json")
	a, err := r.get(ctx, asked{c.repo, revision, "config.json"}, u, 0, -1, MaxConfigBytes)
	if err != nil {
		return nil, err
	}
	if !isCommit(a.commit) {
		return nil, fmt.Errorf("the answer for %s has no X-Repo-Commit commit hash (is %s the Hub?)", redactString(u), r.Endpoint)
	}
	// The cache keeps only what was checked: a config.json that would fail
	// every later run is not written.
	if err := checkJSONObject(a.body); err != nil {
		return nil, fmt.Errorf("config.json from the Hub (%s at %s): %v; not saved to the cache", revision, a.commit[:7], err)
	}
	m := &Model{Spec: spec, Config: a.body, Path: u, RepoID: c.repo, Revision: revision, Commit: a.commit}
	desc := fmt.Sprintf("Hugging Face Hub %s, %s at %s", r.Endpoint, revision, a.commit[:7])
	if p, err := c.store(revision, a.commit, "config.json", a.etag, a.body); err != nil {
		m.Warnings = append(m.Warnings, fmt.Sprintf("config.json was not saved to the Hugging Face cache: %v", err))
	} else {
		m.Path = p
		desc += ", saved in " + r.tilde(r.CacheDir)
	}
	m.Source = Source{Kind: SourceHub, Description: desc}
	res := r
	m.res = &res
	return m, nil
}

// redactString is redactURL for a URL held as a string.
func redactString(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		return u[:i]
	}
	return u
}
