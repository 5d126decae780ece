package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"membudget/internal/untrusted"
	"membudget/model/safetensors"
)

// The checkpoint files Tensors reads, as transformers and vLLM name them.
const (
	IndexFile  = "model.safetensors.index.json"
	SingleFile = "model.safetensors"
)

// ErrNoCheckpoint is wrapped by Tensors' error when the model has neither a
// model.safetensors.index.json nor a model.safetensors (a shipped config, or
// a config.json with no weights beside it).
var ErrNoCheckpoint = errors.New("no safetensors checkpoint")

// Shard is one safetensors file of a checkpoint and its header.
type Shard struct {
	// File is the name the index gives (or model.safetensors).
	File string
	// From says where the header was read: a file path, the header cache,
	// or the Hub.
	From   string
	Header *safetensors.Header
}

// Checkpoint is the tensor list of a safetensors checkpoint, read from the
// shards' headers only.
type Checkpoint struct {
	// Index is IndexFile for a sharded checkpoint, "" for a single file.
	Index string
	// Shards are in file-name order.
	Shards []Shard
	// Tensors are every tensor, shard by shard in Shards' order, each
	// shard's in offset order.
	Tensors []safetensors.Tensor
	// Warnings are things that did not stop the reading, such as a header
	// that could not be cached.
	Warnings []string
}

// ShardCount returns the number of safetensors files.
func (c *Checkpoint) ShardCount() int { return len(c.Shards) }

// TensorCount returns the number of tensors in all shards.
func (c *Checkpoint) TensorCount() int { return len(c.Tensors) }

// DataBytes returns the bytes of tensor data in all shards, saturating at
// the largest uint64.
func (c *Checkpoint) DataBytes() uint64 {
	var sum uint64
	for _, s := range c.Shards {
		if sum += s.Header.DataBytes; sum < s.Header.DataBytes {
			return ^uint64(0)
		}
	}
	return sum
}

// String returns "4 shards, 291 tensors".
func (c *Checkpoint) String() string {
	plural := func(n int, one string) string {
		if n == 1 {
			return fmt.Sprintf("1 %s", one)
		}
		return fmt.Sprintf("%d %ss", n, one)
	}
	return plural(c.ShardCount(), "shard") + ", " + plural(c.TensorCount(), "tensor")
}

// location is where a checkpoint's files are: a directory, or a cached
// snapshot that the Hub can fill.
type location interface {
	// file returns a whole small file; found is false when it does not exist.
	file(ctx context.Context, name string, limit int64) (data []byte, found bool, err error)
	// header returns a shard's header; found is false when it does not exist.
	header(ctx context.Context, name string) (h *safetensors.Header, from string, found bool, err error)
	// display names a file in messages.
	display(name string) string
}

// Tensors reads the model's checkpoint: model.safetensors.index.json and
// the header of every shard it names, or the header of model.safetensors,
// never the weights. For a cache or Hub model, missing files are fetched
// from the Hub (headers by range requests, then kept in the cache) unless
// offline. Shards are read concurrently, at most r.Parallel at once. A
// shipped model, or a path with no safetensors beside its config.json,
// gives an error wrapping ErrNoCheckpoint.
func (m *Model) Tensors(ctx context.Context) (*Checkpoint, error) {
	if m.res == nil {
		return nil, errors.New("hub: Tensors of a Model that Resolve did not make")
	}
	r := m.res
	switch m.Source.Kind {
	case SourceShipped:
		return nil, fmt.Errorf("%s: a shipped config.json has no weights beside it: %w", m.Path, ErrNoCheckpoint)
	case SourcePath:
		return readCheckpoint(ctx, dirLocation{dir: m.dir}, r.Parallel)
	case SourceCache, SourceHub:
		snap := &snapshotLocation{r: r, c: r.repoCache(m.RepoID), commit: m.Commit}
		ck, err := readCheckpoint(ctx, snap, r.Parallel)
		if errors.Is(err, ErrUnreachable) {
			m.Warnings = append(m.Warnings, snap.warnings...)
		}
		if err != nil {
			return nil, err
		}
		ck.Warnings = snap.warnings
		return ck, nil
	}
	return nil, fmt.Errorf("hub: unknown source %q", m.Source.Kind)
}

func readCheckpoint(ctx context.Context, loc location, parallel int) (*Checkpoint, error) {
	idx, found, err := loc.file(ctx, IndexFile, MaxIndexBytes)
	if err != nil {
		return nil, err
	}
	if !found {
		h, from, found, err := loc.header(ctx, SingleFile)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("%s: no %s or %s: %w", loc.display(""), IndexFile, SingleFile, ErrNoCheckpoint)
		}
		return &Checkpoint{Shards: []Shard{{File: SingleFile, From: from, Header: h}}, Tensors: h.Tensors}, nil
	}
	weightMap, files, err := parseIndex(loc.display(IndexFile), idx)
	if err != nil {
		return nil, err
	}
	shards, err := readShards(ctx, loc, files, parallel)
	if err != nil {
		return nil, err
	}
	ck := &Checkpoint{Index: IndexFile, Shards: shards}
	in := map[string]string{} // tensor -> the shard that holds it
	for _, s := range shards {
		for _, t := range s.Header.Tensors {
			if other, dup := in[t.Name]; dup {
				return nil, fmt.Errorf("%s: tensor %s is in both %s and %s", loc.display(IndexFile), untrusted.Quote(t.Name), other, s.File)
			}
			in[t.Name] = s.File
		}
		ck.Tensors = append(ck.Tensors, s.Header.Tensors...)
	}
	names := make([]string, 0, len(weightMap))
	for n := range weightMap {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if got := in[n]; got != weightMap[n] {
			where := "no shard holds it"
			if got != "" {
				where = "it is in " + got
			}
			return nil, fmt.Errorf("%s: weight_map puts tensor %s in %s, but %s", loc.display(IndexFile), untrusted.Quote(n), untrusted.Text(weightMap[n]), where)
		}
	}
	return ck, nil
}

// parseIndex reads an index's weight_map and returns it with its shard
// files, sorted and checked (no "..", absolute path or backslash).
func parseIndex(display string, data []byte) (map[string]string, []string, error) {
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := checkJSONText(data); err != nil {
		return nil, nil, fmt.Errorf("%s: not a safetensors index: %v", display, err)
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, nil, fmt.Errorf("%s: not a safetensors index: %v", display, untrusted.Text(err.Error()))
	}
	if len(idx.WeightMap) == 0 {
		return nil, nil, fmt.Errorf("%s: no weight_map, or an empty one", display)
	}
	tensors := make([]string, 0, len(idx.WeightMap))
	for t := range idx.WeightMap {
		tensors = append(tensors, t)
	}
	slices.Sort(tensors) // so that the error for a bad index is always the same
	seen := map[string]bool{}
	var files []string
	for _, tensor := range tensors {
		file := idx.WeightMap[tensor]
		if seen[file] {
			continue
		}
		if err := checkRepoFile(file); err != nil {
			return nil, nil, fmt.Errorf("%s: weight_map[%s] = %s: %v", display, untrusted.Quote(tensor), untrusted.Quote(file), err)
		}
		seen[file] = true
		files = append(files, file)
	}
	slices.Sort(files)
	return idx.WeightMap, files, nil
}

// readShards reads the headers of files, at most parallel at once. The
// first failure cancels the rest; the error reported is the failing shard's
// that comes first in file order.
func readShards(ctx context.Context, loc location, files []string, parallel int) ([]Shard, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([]Shard, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(parallel, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				h, from, found, err := loc.header(ctx, files[i])
				if err == nil && !found {
					err = fmt.Errorf("%s: shard %s, named by %s, does not exist", loc.display(files[i]), files[i], IndexFile)
				}
				if err != nil {
					errs[i] = err
					cancel()
					continue
				}
				out[i] = Shard{File: files[i], From: from, Header: h}
			}
		}()
	}
feed:
	for i := range files {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	var canceled error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if errors.Is(err, context.Canceled) {
			canceled = err // a consequence of another shard's failure, or of the caller's
			continue
		}
		return nil, err
	}
	if err := ctx.Err(); err != nil || canceled != nil {
		if canceled == nil {
			canceled = err
		}
		return nil, canceled
	}
	return out, nil
}

// dirLocation is a directory on disk: a --model path.
type dirLocation struct{ dir string }

func (d dirLocation) display(name string) string {
	if name == "" {
		return d.dir
	}
	return filepath.Join(d.dir, filepath.FromSlash(name))
}

func (d dirLocation) file(_ context.Context, name string, limit int64) ([]byte, bool, error) {
	return readRegular(d.display(name), limit)
}

func (d dirLocation) header(_ context.Context, name string) (*safetensors.Header, string, bool, error) {
	p := d.display(name)
	f, size, found, err := openRegular(p)
	if err != nil || !found {
		return nil, "", found, err
	}
	defer f.Close()
	h, err := safetensors.ReadHeader(p, f, size)
	return h, p, true, err
}

// snapshotLocation is a commit of a model in the cache, filled from the Hub
// when a file is missing and the resolver is online.
type snapshotLocation struct {
	r      *Resolver
	c      repoCache
	commit string

	mu       sync.Mutex
	warnings []string
}

func (s *snapshotLocation) display(name string) string {
	return s.c.repo + "@" + s.commit[:7] + "/" + name
}

func (s *snapshotLocation) warn(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warnings = append(s.warnings, fmt.Sprintf(format, args...))
}

// unreachable is the error for a file not cached while the Hub cannot be
// reached (err, wrapping ErrUnreachable): it wraps ErrOffline too, so that
// the file is read as HF_HUB_OFFLINE=1 reads it (none, said so), as
// huggingface_hub and vLLM read a cached model without a network; a
// warning says what happened.
func (s *snapshotLocation) unreachable(name string, err error) error {
	s.warn("the Hub cannot be reached (%v): %s, which is not in the cache, is read as HF_HUB_OFFLINE=1 reads it", err, name)
	return fmt.Errorf("%s is not in the Hugging Face cache (%s) and the Hub cannot be reached: %w (%w)",
		s.display(name), s.r.tilde(s.c.snapshot(s.commit)), ErrUnreachable, ErrOffline)
}

// offline is the error for a file neither cached nor fetchable.
func (s *snapshotLocation) offline(name string) error {
	return fmt.Errorf("%s is not in the Hugging Face cache (%s) and HF_HUB_OFFLINE=1: %w",
		s.display(name), s.r.tilde(s.c.snapshot(s.commit)), ErrOffline)
}

func (s *snapshotLocation) file(ctx context.Context, name string, limit int64) ([]byte, bool, error) {
	p := filepath.Join(s.c.snapshot(s.commit), filepath.FromSlash(name))
	if data, found, err := s.c.read(p, limit); err != nil || found {
		if !errors.Is(err, errDamaged) || s.r.Offline {
			return data, found, err
		}
		s.warn("%v; fetched again from the Hub", err)
	}
	if s.c.missing(s.commit, name) {
		return nil, false, nil
	}
	if s.r.Offline {
		if name == IndexFile && s.cached(SingleFile) {
			// A single-file checkpoint downloaded without a lookup of
			// the index: the file itself says there is no index.
			return nil, false, nil
		}
		return nil, false, s.offline(name)
	}
	a, err := s.r.get(ctx, asked{s.c.repo, s.commit, name}, s.r.fileURL(s.c.repo, s.commit, name), 0, -1, limit)
	if errors.Is(err, ErrUnreachable) {
		return nil, false, s.unreachable(name, err)
	}
	if err != nil {
		return nil, false, s.notFound(err, name)
	}
	// The cache keeps only what was checked: a file that would fail every
	// later run is not written.
	if err := checkJSONFile(name, a.body); err != nil {
		what := ""
		if name == IndexFile {
			what = " not a safetensors index:" // as parseIndex says
		}
		return nil, true, fmt.Errorf("%s:%s %v (from the Hub; not saved to the cache)", s.display(name), what, err)
	}
	if _, err := s.c.store(s.commit, s.commit, name, a.etag, a.body); err != nil {
		s.warn("%s was not saved to the Hugging Face cache: %v", name, err)
	}
	return a.body, true, nil
}

// cached reports whether a shard's file or its kept header is in the cache.
func (s *snapshotLocation) cached(name string) bool {
	for _, p := range []string{filepath.Join(s.c.snapshot(s.commit), filepath.FromSlash(name)), s.c.headerPath(s.commit, name)} {
		if _, err := os.Lstat(p); err == nil {
			return true
		}
	}
	return false
}

// notFound turns the Hub's "no such file" into found == false (the error
// is then nil), recording it in .no_exist as huggingface_hub does.
func (s *snapshotLocation) notFound(err error, name string) error {
	var he *HubError
	if errors.As(err, &he) && he.Status == http.StatusNotFound && he.Code == "EntryNotFound" {
		if err := s.c.markMissing(s.commit, name); err != nil {
			s.warn("could not record in the cache that %s does not exist: %v", name, err)
		}
		return nil
	}
	return err
}

func (s *snapshotLocation) header(ctx context.Context, name string) (*safetensors.Header, string, bool, error) {
	p := filepath.Join(s.c.snapshot(s.commit), filepath.FromSlash(name))
	f, size, found, err := s.c.open(p)
	if err != nil {
		return nil, "", true, err
	}
	if found {
		defer f.Close()
		h, err := safetensors.ReadHeader(s.display(name), f, size)
		return h, p, true, err
	}
	if h, found, err := s.c.cachedHeader(s.commit, name, s.display(name)); err != nil || found {
		return h, s.c.headerPath(s.commit, name), found, err
	}
	if s.c.missing(s.commit, name) {
		return nil, "", false, nil
	}
	if s.r.Offline {
		return nil, "", false, s.offline(name)
	}
	h, err := s.fetchHeader(ctx, name)
	if errors.Is(err, ErrUnreachable) {
		return nil, "", false, s.unreachable(name, err)
	}
	if err != nil {
		err = s.notFound(err, name)
		return nil, "", err != nil, err
	}
	return h, s.r.fileURL(s.c.repo, s.commit, name), true, nil
}

// fetchHeader reads a shard's header by two range requests: bytes 0-7 for
// its length N, then bytes 8 to 8+N-1; it keeps the result in the cache.
func (s *snapshotLocation) fetchHeader(ctx context.Context, name string) (*safetensors.Header, error) {
	display := s.display(name)
	u := s.r.fileURL(s.c.repo, s.commit, name)
	what := asked{s.c.repo, s.commit, name}
	a, err := s.r.get(ctx, what, u, 0, safetensors.PrefixBytes-1, safetensors.PrefixBytes)
	if err != nil {
		return nil, err
	}
	n, err := safetensors.HeaderLength(display, a.body)
	if err != nil {
		return nil, err
	}
	if a.size >= 0 && (a.size < safetensors.PrefixBytes || uint64(a.size-safetensors.PrefixBytes) < n) {
		return nil, &safetensors.HeaderError{File: display, Detail: fmt.Sprintf("truncated: the %d-byte header runs past the end of the %d-byte file", n, a.size)}
	}
	b, err := s.r.get(ctx, what, u, safetensors.PrefixBytes, safetensors.PrefixBytes+int64(n)-1, int64(n))
	if err != nil {
		return nil, err
	}
	if uint64(len(b.body)) != n {
		return nil, &safetensors.HeaderError{File: display, Detail: fmt.Sprintf("truncated: got %d of the %d header bytes", len(b.body), n)}
	}
	size := b.size
	if size < 0 {
		size = a.size
	}
	var fileSize uint64
	if size > 0 {
		fileSize = uint64(size)
	}
	h, err := safetensors.ParseHeader(display, b.body, fileSize)
	if err != nil {
		return nil, err
	}
	if fileSize == 0 {
		fileSize = h.FileBytes()
	}
	if err := s.c.storeHeader(s.commit, name, fileSize, append(a.body[:safetensors.PrefixBytes:safetensors.PrefixBytes], b.body...)); err != nil {
		s.warn("the header of %s was not cached: %v", name, err)
	}
	return h, nil
}
