package hub

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInvalidUTF8Refused: a config.json or an index that is not UTF-8 is
// refused naming the file and the byte, from a path, the cache and the
// Hub (issue 19, defect 6): before, Go's decoder read the bytes as U+FFFD,
// exit 0, while transformers raises UnicodeDecodeError.
func TestInvalidUTF8Refused(t *testing.T) {
	t.Parallel()
	// {"model_type":"llama","x":"\xff"}: byte 27 is the 0xff.
	bad := []byte("{\"model_type\":\"llama\",\"x\":\"\xff\"}")
	h := newFakeHub(t)
	h.add("org/bad-config", &fakeRepo{refs: map[string]string{"main": commitA}, files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile(bad)}}})
	r := h.resolver(t)
	dir := t.TempDir()
	writeDir(t, dir, map[string]fakeFile{"config.json": smallFile(bad)})
	cache := t.TempDir()
	writeCache(t, cache, "org/cached", commitB, []string{"main"}, map[string]fakeFile{"config.json": smallFile(bad)})
	rc := r
	rc.CacheDir = cache
	rc.Offline = true
	for _, c := range []struct {
		name string
		r    Resolver
		spec string
		want string
	}{
		{"a path", r, dir, "config.json: not valid UTF-8 (byte 27 is 0xff), which transformers refuses"},
		{"the cache", rc, "org/cached", "config.json: not valid UTF-8 (byte 27 is 0xff), which transformers refuses"},
		{"the Hub", r, "org/bad-config", "config.json from the Hub (main at aaaaaaa): not valid UTF-8 (byte 27 is 0xff), which transformers refuses; not saved to the cache"},
	} {
		_, err := c.r.Resolve(context.Background(), c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error holding %q", c.name, err, c.want)
		}
	}
	// The Hub's bad config.json was not cached: nothing under the model's
	// folder holds it.
	if _, err := os.Stat(filepath.Join(r.CacheDir, "models--org--bad-config", "snapshots")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the bad config.json reached the cache: %v", err)
	}

	// The index: a tensor name with a byte that is not UTF-8.
	idx := smallFile([]byte("{\"weight_map\":{\"a\xfe\":\"model-1.safetensors\"}}"))
	h.add("org/bad-index", &fakeRepo{refs: map[string]string{"main": commitA}, files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(`{}`)), IndexFile: idx}}})
	m, err := r.Resolve(context.Background(), "org/bad-index")
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Tensors(context.Background())
	if want := "model.safetensors.index.json: not a safetensors index: not valid UTF-8 (byte 17 is 0xfe), which transformers refuses (from the Hub; not saved to the cache)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("the index: %v, want an error holding %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(r.CacheDir, "models--org--bad-index", "snapshots", commitA, IndexFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the bad index reached the cache: %v", err)
	}
	dir2 := t.TempDir()
	writeDir(t, dir2, map[string]fakeFile{"config.json": smallFile([]byte(`{}`)), IndexFile: idx})
	m, err = r.Resolve(context.Background(), dir2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Tensors(context.Background()); err == nil || !strings.Contains(err.Error(), "not valid UTF-8 (byte 17 is 0xfe)") {
		t.Errorf("the index from a directory: %v", err)
	}
}

// TestMalformedConfigNotCached: a config.json from the Hub that is not a
// JSON object is refused and not written into the cache, so that the next
// run asks again rather than failing on the cached copy forever.
func TestMalformedConfigNotCached(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.add("org/html", &fakeRepo{refs: map[string]string{"main": commitA}, files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte("<html>rate limited</html>"))}}})
	r := h.resolver(t)
	_, err := r.Resolve(context.Background(), "org/html")
	if err == nil || !strings.Contains(err.Error(), "not a JSON object; not saved to the cache") {
		t.Errorf("Resolve: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.CacheDir, "models--org--html")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the model's cache folder exists: %v", err)
	}
}

// TestSymlinkLoopNamesTheFile: a link loop in the cache is an error that
// names the link (issue 19, defect 7; before: "EvalSymlinks: too many
// links" alone).
func TestSymlinkLoopNamesTheFile(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	snap := filepath.Join(cache, "models--org--loop", "snapshots", commitA)
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(snap, "config.json")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink("config.json", filepath.Join(snap, "a")); err != nil {
		t.Fatal(err)
	}
	r := Resolver{CacheDir: cache, Offline: true}
	_, err := r.Resolve(context.Background(), "org/loop@"+commitA)
	if want := filepath.Join(snap, "config.json") + ": EvalSymlinks: too many links"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Resolve: %v, want an error holding %q", err, want)
	}
}

// TestIndexErrorsEscaped: tensor and file names of an index are quoted
// escaped and cut in errors (issue 19, defects 2 and 3).
func TestIndexErrorsEscaped(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 1<<20)
	for _, c := range []struct {
		name, weightMap, want string
	}{
		{"an escape in a file name", `{"a":"\u001b[2J.safetensors"}`, `weight_map["a"] = "\x1b[2J.safetensors": a control character in a file name is refused`},
		{"a 1 MiB tensor name", `{"` + long + `":"../x.safetensors"}`, `weight_map["` + strings.Repeat("x", 256) + `"…(1048320 more bytes)] = "../x.safetensors"`},
	} {
		_, _, err := parseIndex("idx", []byte(`{"weight_map":`+c.weightMap+`}`))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.ContainsRune(err.Error(), 0x1b) || len(err.Error()) > 1024 {
			t.Errorf("%s: %.400v, want an error holding %q, escaped and short", c.name, err, c.want)
		}
	}
}

// TestReadersAtTheirBounds: a config.json of MaxConfigBytes is read, one
// byte more is refused, from a path and from the Hub (where the answer
// over the bound is not retried: it would be as large again).
func TestReadersAtTheirBounds(t *testing.T) {
	t.Parallel()
	// A JSON object padded with spaces to the size wanted.
	of := func(n int) []byte {
		b := []byte(strings.Repeat(" ", n))
		copy(b, `{}`)
		return b
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "config.json")
	for _, c := range []struct {
		n  int
		ok bool
	}{{MaxConfigBytes, true}, {MaxConfigBytes + 1, false}} {
		if err := os.WriteFile(p, of(c.n), 0o644); err != nil {
			t.Fatal(err)
		}
		_, found, err := readRegular(p, MaxConfigBytes)
		if (err == nil) != c.ok || !found {
			t.Errorf("a path of %d bytes: found %v, %v; want ok %v", c.n, found, err, c.ok)
		}
	}
	h := newFakeHub(t)
	h.add("org/at", oneConfig(string(of(MaxConfigBytes))))
	h.add("org/over", oneConfig(string(of(MaxConfigBytes+1))))
	r := h.resolver(t)
	if _, err := r.Resolve(context.Background(), "org/at"); err != nil {
		t.Errorf("the Hub's %d bytes: %v", MaxConfigBytes, err)
	}
	before := len(h.hubRequests())
	_, err := r.Resolve(context.Background(), "org/over")
	if want := "answer larger than expected: 4194305 bytes, more than the 4194304 this reads"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("the Hub's %d bytes: %v, want %q", MaxConfigBytes+1, err, want)
	}
	if n := len(h.hubRequests()) - before; n != 1 {
		t.Errorf("%d requests for an answer over the bound, want 1", n)
	}
}
