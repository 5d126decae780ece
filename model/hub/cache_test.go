package hub

import (
	"context"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// What a Hub resolution writes is huggingface_hub's layout, byte for byte
// where huggingface_hub fixes the bytes.
func TestCacheLayoutAfterHub(t *testing.T) {
	h := newFakeHub(t)
	config, shards := tinyLlama()
	files := checkpointFiles(t, config, shards...)
	// The index is served as an LFS file: its blob is named by
	// X-Linked-Etag (its sha256), not by the CDN's own ETag.
	index := files[IndexFile]
	index.lfs = true
	files[IndexFile] = index
	h.add("meta-llama/Llama-tiny", &fakeRepo{refs: map[string]string{"main": commitA, "refs/pr/1": commitA},
		files: map[string]map[string]fakeFile{commitA: files}})
	r := h.resolver(t)
	for _, spec := range []string{"meta-llama/Llama-tiny", "meta-llama/Llama-tiny@refs/pr/1"} {
		m, err := r.Resolve(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Tensors(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(r.CacheDir, "models--meta-llama--Llama-tiny")

	// refs/<revision> holds the commit, no newline; refs/pr/1 is nested.
	for _, ref := range []string{"refs/main", "refs/refs/pr/1"} {
		if data, err := os.ReadFile(filepath.Join(dir, ref)); err != nil || string(data) != commitA {
			t.Errorf("%s = %q, %v; want %q", ref, data, err, commitA)
		}
	}
	// Snapshot files are relative links to blobs named by ETag.
	for _, name := range []string{"config.json", IndexFile} {
		link := filepath.Join(dir, "snapshots", commitA, name)
		target, err := os.Readlink(link)
		if err != nil {
			t.Fatal(err)
		}
		if want := "../../blobs/" + files[name].etag(); target != want {
			t.Errorf("%s -> %s, want %s", name, target, want)
		}
		data, err := os.ReadFile(link)
		if err != nil || string(data) != string(files[name].head) {
			t.Errorf("%s reads %q, %v", name, data, err)
		}
	}
	// Shards are not downloaded; their headers are kept under .membudget:
	// the shard's size (8 bytes, little-endian), then its first 8 + N bytes.
	for _, s := range shards {
		if _, err := os.Lstat(filepath.Join(dir, "snapshots", commitA, s.file)); err == nil {
			t.Errorf("shard %s was written into the snapshot", s.file)
		}
		f := files[s.file]
		got, err := os.ReadFile(filepath.Join(dir, ".membudget", "headers", commitA, s.file))
		if err != nil {
			t.Fatal(err)
		}
		want := binary.LittleEndian.AppendUint64(nil, uint64(f.size))
		want = append(want, f.head...)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("header cache of %s (-want +got):\n%s", s.file, diff)
		}
	}
	assertNoTemporaryFiles(t, r.CacheDir)

	// The layout reads back the way huggingface_hub's scan reads it.
	models, err := ListCached(r.CacheDir)
	if err != nil {
		t.Fatal(err)
	}
	want := []CachedModel{{RepoID: "meta-llama/Llama-tiny", Dir: dir, Snapshots: []CachedSnapshot{
		{Commit: commitA, Refs: []string{"main", "refs/pr/1"}, HasConfig: true},
	}}}
	if diff := cmp.Diff(want, models); diff != "" {
		t.Errorf("ListCached (-want +got):\n%s", diff)
	}
}

func assertNoTemporaryFiles(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".incomplete") || strings.HasSuffix(p, ".tmp") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// A body cut short never leaves a file in the cache, partial or whole.
func TestCacheNoPartialFile(t *testing.T) {
	h := newFakeHub(t)
	h.add("org/model", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(`{"hidden_size":64}`))}}})
	h.truncate = true
	r := h.resolver(t)
	_, err := r.Resolve(context.Background(), "org/model")
	if err == nil || !strings.Contains(err.Error(), "unexpected EOF (3 tries)") {
		t.Fatalf("err = %v, want the short body reported after 3 tries", err)
	}
	err = filepath.WalkDir(r.CacheDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("file left in the cache: %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writeAtomic removes its temporary file when the rename fails.
func TestWriteAtomicCleansUp(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "blobs", "abc")
	if err := os.MkdirAll(target, 0o755); err != nil { // a directory where the file goes
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(target, []byte("data")); err == nil {
		t.Fatal("writeAtomic over a non-empty directory succeeded")
	}
	assertNoTemporaryFiles(t, dir)
}

// Links in the cache must resolve inside the model's folder.
func TestCacheRefusesLinksLeavingIt(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "config.json"), []byte(`{"evil":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	head, data, err := safetensors.Encode([]safetensors.Tensor{bf16("a", 4)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "model.safetensors"), append(head, make([]byte, data)...), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		file     string // the snapshot file (or ref) replaced by a link out
		target   string
		tensors  bool // the refusal comes from Tensors, not Resolve
		wantPart string
	}{
		{name: "config.json, absolute", file: "snapshots/" + commitA + "/config.json", target: filepath.Join(outside, "config.json"), wantPart: "outside the Hugging Face cache folder"},
		{name: "config.json, climbing", file: "snapshots/" + commitA + "/config.json", target: "../../../../../" + filepath.Base(outside) + "/config.json", wantPart: "outside the Hugging Face cache folder"},
		{name: "a ref", file: "refs/main", target: filepath.Join(outside, "config.json"), wantPart: "outside the Hugging Face cache folder"},
		{name: "a shard", file: "snapshots/" + commitA + "/model.safetensors", target: filepath.Join(outside, "model.safetensors"), tensors: true, wantPart: "outside the Hugging Face cache folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cache := filepath.Join(filepath.Dir(outside), "cache-"+strings.ReplaceAll(tc.name, " ", "-"), "hub")
			t.Cleanup(func() { os.RemoveAll(filepath.Dir(cache)) })
			dir := writeCache(t, cache, "org/model", commitA, []string{"main"}, map[string]fakeFile{
				"config.json": smallFile([]byte(`{}`)),
			})
			p := filepath.Join(dir, filepath.FromSlash(tc.file))
			os.Remove(p)
			if err := os.Symlink(tc.target, p); err != nil {
				t.Fatal(err)
			}
			r := Resolver{CacheDir: cache, Offline: true}
			m, err := r.Resolve(context.Background(), "org/model")
			if tc.tensors {
				if err != nil {
					t.Fatal(err)
				}
				_, err = m.Tensors(context.Background())
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantPart) || !strings.Contains(err.Error(), "refused") {
				t.Errorf("err = %v, want the link refused", err)
			}
		})
	}
}

func TestListCached(t *testing.T) {
	cache := t.TempDir()
	config := smallFile([]byte(`{}`))
	writeCache(t, cache, "meta-llama/Llama-3.1-8B-Instruct", commitA, []string{"main"}, map[string]fakeFile{"config.json": config})
	writeCache(t, cache, "meta-llama/Llama-3.1-8B-Instruct", commitB, []string{"v1.0", "refs/pr/3"}, map[string]fakeFile{"README.md": config})
	writeCache(t, cache, "gpt2", commitC, nil, map[string]fakeFile{"config.json": config})
	// Not models: a dataset, the locks folder, a stray file.
	for _, d := range []string{"datasets--org--data/snapshots", ".locks/models--x--y"} {
		if err := os.MkdirAll(filepath.Join(cache, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(cache, "CACHEDIR.TAG"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ListCached(cache)
	if err != nil {
		t.Fatal(err)
	}
	want := []CachedModel{
		{RepoID: "gpt2", Dir: filepath.Join(cache, "models--gpt2"), Snapshots: []CachedSnapshot{
			{Commit: commitC, HasConfig: true},
		}},
		{RepoID: "meta-llama/Llama-3.1-8B-Instruct", Dir: filepath.Join(cache, "models--meta-llama--Llama-3.1-8B-Instruct"), Snapshots: []CachedSnapshot{
			{Commit: commitA, Refs: []string{"main"}, HasConfig: true},
			{Commit: commitB, Refs: []string{"refs/pr/3", "v1.0"}, HasConfig: false},
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListCached (-want +got):\n%s", diff)
	}
	if got, err := ListCached(filepath.Join(cache, "absent")); err != nil || got != nil {
		t.Errorf("a missing cache: %v, %v; want nothing, no error", got, err)
	}
}
