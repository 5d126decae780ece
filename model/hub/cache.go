package hub

import (
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"membudget/model/safetensors"
)

// headerCacheDir is membudget's folder inside a cached model's folder, where
// it keeps the safetensors headers it fetched by range requests.
// huggingface_hub's cache scan reads only refs/ and snapshots/ of a model
// folder (utils/_cache_manager.py, _scan_cached_repo), so it ignores this
// folder, and deleting the model with `hf cache delete` removes it too.
const headerCacheDir = ".membudget"

// repoCache is one model's folder in the cache: models--org--name.
type repoCache struct {
	repo string
	dir  string
}

func (r *Resolver) repoCache(repo string) repoCache {
	return repoCache{repo: repo, dir: filepath.Join(r.CacheDir, repoFolder(repo))}
}

func (c repoCache) snapshot(commit string) string { return filepath.Join(c.dir, "snapshots", commit) }

// headerPath is where the fetched header of file at commit is kept:
// .membudget/headers/<commit>/<file>. Its content is the shard's size as 8
// little-endian bytes, then the shard's first 8 + N bytes (the length and
// the JSON header), so that it parses like the start of the file itself.
func (c repoCache) headerPath(commit, file string) string {
	return filepath.Join(c.dir, headerCacheDir, "headers", commit, filepath.FromSlash(file))
}

// read reads a file of this model's cache folder, bounded, refusing a
// symbolic link that resolves outside the folder (huggingface_hub's links go
// from snapshots/<commit>/ to ../../blobs/). found is false when there is
// nothing at p, or a link whose target is gone (a blob that was deleted).
//
// A blob is checked against its name, the Hub's ETag (see [etagMatches]):
// one cut short or changed is an error wrapping errDamaged, so that the
// caller fetches it again rather than read it on every run.
func (c repoCache) read(p string, limit int64) (data []byte, found bool, err error) {
	target, found, err := c.resolve(p)
	if err != nil || !found {
		return nil, found, err
	}
	data, found, err = readRegular(target, limit)
	if err != nil || !found || filepath.Base(filepath.Dir(target)) != "blobs" {
		return data, found, err
	}
	if match, known := etagMatches(filepath.Base(target), data); known && !match {
		return nil, true, fmt.Errorf("%s: %w", p, errDamaged)
	}
	return data, true, nil
}

// errDamaged is wrapped by the error for a cached blob whose content does
// not match its name.
var errDamaged = errors.New("the cached blob does not match its ETag (cut short or changed)")

// etagMatches reports whether data is the content the Hub's etag names:
// a regular file's ETag is its git blob id, the sha1 of "blob <size>\x00"
// and the content (40 hex digits; huggingface_hub's utils/sha.py,
// git_hash), an LFS file's X-Linked-Etag the content's sha256 (64 hex
// digits). known is false for any other ETag (a mirror's), which names no
// hash this package can check.
func etagMatches(etag string, data []byte) (match, known bool) {
	if _, err := hex.DecodeString(etag); err != nil {
		return false, false
	}
	switch len(etag) {
	case 2 * sha1.Size:
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", len(data))
		h.Write(data)
		return hex.EncodeToString(h.Sum(nil)) == strings.ToLower(etag), true
	case 2 * sha256.Size:
		s := sha256.Sum256(data)
		return hex.EncodeToString(s[:]) == strings.ToLower(etag), true
	}
	return false, false
}

// open is read's counterpart for a file read in part (a shard's header).
func (c repoCache) open(p string) (f *os.File, size int64, found bool, err error) {
	target, found, err := c.resolve(p)
	if err != nil || !found {
		return nil, 0, found, err
	}
	return openRegular(target)
}

// resolve follows the links of p and checks that the target stays inside
// the model's folder.
func (c repoCache) resolve(p string) (string, bool, error) {
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	} else if err != nil {
		return "", false, err
	}
	target, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		// EvalSymlinks' own errors ("too many links" for a loop) do not
		// always name the file.
		return "", true, fmt.Errorf("%s: %w", p, unwrapPath(err))
	}
	root, err := filepath.EvalSymlinks(c.dir)
	if err != nil {
		return "", false, err
	}
	if !within(root, target) {
		return "", true, fmt.Errorf("%s leads to %s, outside the Hugging Face cache folder %s: refused", p, target, c.dir)
	}
	return target, true, nil
}

// commitOf returns the commit a revision names in the cache: the revision
// itself when it is a commit hash, else the content of refs/<revision>.
func (c repoCache) commitOf(revision string) (string, bool, error) {
	if isCommit(revision) {
		return revision, true, nil
	}
	ref := filepath.Join(c.dir, "refs", filepath.FromSlash(revision))
	data, found, err := c.read(ref, maxRefBytes)
	if err != nil || !found {
		return "", found, err
	}
	commit := strings.TrimSpace(string(data))
	if !isCommit(commit) {
		return "", true, fmt.Errorf("%s holds %q, not a commit hash", ref, shorten(commit))
	}
	return commit, true, nil
}

// missing reports whether huggingface_hub recorded that file does not exist
// at commit: an empty file at .no_exist/<commit>/<file> (file_download.py,
// _get_metadata_or_catch_error).
func (c repoCache) missing(commit, file string) bool {
	fi, err := os.Lstat(filepath.Join(c.dir, ".no_exist", commit, filepath.FromSlash(file)))
	return err == nil && fi.Mode().IsRegular()
}

// markMissing records that file does not exist at commit, as
// huggingface_hub does.
func (c repoCache) markMissing(commit, file string) error {
	p := filepath.Join(c.dir, ".no_exist", commit, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o666)
	if err != nil {
		return err
	}
	return f.Close()
}

// store writes a fetched file into the cache as huggingface_hub does: the
// bytes to blobs/<etag>, a relative link snapshots/<commit>/<file> ->
// ../../blobs/<etag> (a copy where links are not allowed), and, when the
// revision asked is not the commit itself, refs/<revision> holding the
// commit with no newline. It returns the snapshot path.
func (c repoCache) store(revision, commit, file, etag string, data []byte) (string, error) {
	if !isCommit(commit) {
		return "", fmt.Errorf("the Hub gave commit %q, not a commit hash", shorten(commit))
	}
	if err := checkEtag(etag); err != nil {
		return "", err
	}
	if match, known := etagMatches(etag, data); known && !match {
		return "", fmt.Errorf("%w: the content does not match the Hub's ETag %s", errDamaged, etag)
	}
	// Written every time, over a blob that may have been cut short: the
	// files stored here are small (config.json, the index).
	blob := filepath.Join(c.dir, "blobs", etag)
	if err := writeAtomic(blob, data); err != nil {
		return "", err
	}
	pointer := filepath.Join(c.snapshot(commit), filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(pointer), 0o777); err != nil {
		return "", err
	}
	rel, err := filepath.Rel(filepath.Dir(pointer), blob)
	if err != nil {
		return "", err
	}
	if err := linkAtomic(rel, pointer); err != nil {
		if err := writeAtomic(pointer, data); err != nil {
			return "", err
		}
	}
	if revision != commit {
		ref := filepath.Join(c.dir, "refs", filepath.FromSlash(revision))
		if old, err := os.ReadFile(ref); err != nil || string(old) != commit {
			if err := writeAtomic(ref, []byte(commit)); err != nil {
				return "", err
			}
		}
	}
	return pointer, nil
}

// checkEtag refuses an ETag that cannot be a blob's file name. The Hub's are
// a git blob sha1 or an LFS sha256 in hex; a CDN-style "hash-parts" is
// allowed too.
func checkEtag(etag string) error {
	if etag == "" {
		return errors.New("the Hub's answer has no ETag: its blob cannot be named")
	}
	if len(etag) > 128 || strings.HasPrefix(etag, ".") || strings.ContainsFunc(etag, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}) {
		return fmt.Errorf("the Hub's ETag %q cannot name a file", shorten(etag))
	}
	return nil
}

// tempName is p with a random suffix: "<etag>.<8 hex>.incomplete" beside a
// blob, huggingface_hub's own process-unique name (file_download.py,
// _download_to_tmp_and_move), and "<name>.<8 hex>.tmp" elsewhere.
func tempName(p, suffix string) string {
	var b [4]byte
	rand.Read(b[:])
	return p + "." + hex.EncodeToString(b[:]) + suffix
}

// writeAtomic writes data to p through a temporary file in the same
// directory, synced and renamed over p, so that no reader ever sees a
// partial file; on any failure the temporary file is removed. Permissions
// are 0666 less the umask, as huggingface_hub leaves its blobs.
func writeAtomic(p string, data []byte) (err error) {
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return err
	}
	suffix := ".tmp"
	if filepath.Base(filepath.Dir(p)) == "blobs" {
		suffix = ".incomplete"
	}
	tmp := tempName(p, suffix)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o666)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// linkAtomic points p at target with a symbolic link made under a temporary
// name and renamed over p.
func linkAtomic(target, p string) error {
	if old, err := os.Readlink(p); err == nil && old == target {
		return nil
	}
	tmp := tempName(p, ".tmp")
	if err := os.Symlink(target, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// storeHeader keeps a fetched header (see headerPath for the format).
func (c repoCache) storeHeader(commit, file string, size uint64, head []byte) error {
	data := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(head)), size)
	return writeAtomic(c.headerPath(commit, file), append(data, head...))
}

// cachedHeader reads a header that storeHeader kept; found is false when
// there is none.
func (c repoCache) cachedHeader(commit, file, display string) (*safetensors.Header, bool, error) {
	p := c.headerPath(commit, file)
	data, found, err := c.read(p, 2*safetensors.PrefixBytes+safetensors.MaxHeaderBytes)
	if err != nil || !found {
		return nil, found, err
	}
	if len(data) < 2*safetensors.PrefixBytes {
		return nil, true, fmt.Errorf("%s: damaged header cache file (%d bytes); delete it", p, len(data))
	}
	size := binary.LittleEndian.Uint64(data)
	n, err := safetensors.HeaderLength(display, data[8:16])
	if err != nil || uint64(len(data)-16) != n {
		return nil, true, fmt.Errorf("%s: damaged header cache file; delete it", p)
	}
	h, err := safetensors.ParseHeader(display, data[16:], size)
	return h, true, err
}

// CachedModel is a model in the Hugging Face cache.
type CachedModel struct {
	// RepoID is the model's id, org/name.
	RepoID string
	// Dir is its folder, models--org--name.
	Dir string
	// Snapshots are its cached commits, sorted by commit.
	Snapshots []CachedSnapshot
}

// CachedSnapshot is one cached commit of a model.
type CachedSnapshot struct {
	Commit string
	// Refs are the revisions (refs/ files) that point at it, sorted.
	Refs []string
	// HasConfig says whether the snapshot holds a readable config.json.
	HasConfig bool
}

// ListCached returns the models in the Hugging Face cache at cacheDir,
// sorted by id, with their snapshots and the refs pointing at each. A
// missing cache is empty, not an error; a folder that is not a model
// (datasets--, spaces--, .locks) is skipped.
func ListCached(cacheDir string) ([]CachedModel, error) {
	entries, err := os.ReadDir(cacheDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []CachedModel
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "models--")
		if !ok || !e.IsDir() {
			continue
		}
		repo := strings.Replace(rest, "--", "/", 1)
		if CheckRepoID(repo) != nil {
			continue
		}
		c := repoCache{repo: repo, dir: filepath.Join(cacheDir, e.Name())}
		m := CachedModel{RepoID: repo, Dir: c.dir}
		refs, err := c.refs()
		if err != nil {
			return nil, err
		}
		snaps, err := os.ReadDir(filepath.Join(c.dir, "snapshots"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, s := range snaps {
			if !s.IsDir() || !isCommit(s.Name()) {
				continue
			}
			_, hasConfig, err := c.read(filepath.Join(c.snapshot(s.Name()), "config.json"), MaxConfigBytes)
			m.Snapshots = append(m.Snapshots, CachedSnapshot{Commit: s.Name(), Refs: refs[s.Name()], HasConfig: hasConfig && err == nil})
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b CachedModel) int { return strings.Compare(a.RepoID, b.RepoID) })
	return out, nil
}

// refs maps each commit to the refs that hold it.
func (c repoCache) refs() (map[string][]string, error) {
	root := filepath.Join(c.dir, "refs")
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == root {
			return fs.SkipDir
		}
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, ".tmp") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		data, _, err := c.read(p, maxRefBytes)
		if commit := strings.TrimSpace(string(data)); err == nil && isCommit(commit) {
			out[commit] = append(out[commit], filepath.ToSlash(rel))
		}
		return nil
	})
	for _, v := range out {
		slices.Sort(v)
	}
	return out, err
}

// unwrapPath drops a *fs.PathError's operation and path, for an error that
// names the file itself.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
