package hub

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// oneConfig is a fake repo holding only config.json.
func oneConfig(data string) *fakeRepo {
	return &fakeRepo{refs: map[string]string{"main": commitA}, files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(data))}}}
}

// TestHubMisbehaviours: each misbehaviour of a hostile Hub gets its
// number of tries and its error. A 4xx other than 429 and a broken
// protocol are the same again: tried once. A Retry-After beyond what
// membudget waits is not waited for.
func TestHubMisbehaviours(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		set      func(h *fakeHub)
		requests int
		want     string
	}{
		{"400", func(h *fakeHub) { h.status = http.StatusBadRequest }, 1, "HTTP 400"},
		{"410", func(h *fakeHub) { h.status = http.StatusGone }, 1, "HTTP 410"},
		{"404 without a code", func(h *fakeHub) { h.status = http.StatusNotFound }, 1, "not found (HTTP 404)"},
		// 1 try and Retries (2) more.
		{"429 retried", func(h *fakeHub) { h.status = http.StatusTooManyRequests }, 3, "HTTP 429 (3 tries)"},
		{"Retry-After past the longest wait", func(h *fakeHub) { h.status, h.retryAfter = http.StatusServiceUnavailable, "3600" }, 1,
			"HTTP 503 (the Hub asked to retry after 1h0m0s)"},
	} {
		h := newFakeHub(t)
		h.add("org/m", oneConfig(`{}`))
		c.set(h)
		_, err := h.resolver(t).Resolve(context.Background(), "org/m")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error holding %q", c.name, err, c.want)
		}
		if n := len(h.hubRequests()); n != c.requests {
			t.Errorf("%s: %d requests, want %d", c.name, n, c.requests)
		}
	}
}

// TestBadContentRangeTriedOnce: a 206 for other bytes than asked breaks
// the protocol the same way every time: one request, not four.
func TestBadContentRangeTriedOnce(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	config, shards := tinyLlama()
	files := checkpointFiles(t, config, shards...)
	shard := files[firstShard(files)]
	shard.lfs = false // served by the Hub itself, which misbehaves
	h.add("org/m", &fakeRepo{refs: map[string]string{"main": commitA}, files: map[string]map[string]fakeFile{commitA: {"config.json": files["config.json"], SingleFile: shard}}})
	h.badRange = true
	m, err := h.resolver(t).Resolve(context.Background(), "org/m")
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Tensors(context.Background())
	if want := "the answer breaks the protocol: asked for bytes 0-7, got Content-Range \"bytes 100-107/1000\""; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Tensors: %v, want an error holding %q", err, want)
	}
	ranged := 0
	for _, r := range append(h.hubRequests(), h.cdnLog()...) {
		if r.Range != "" {
			ranged++
		}
	}
	if ranged != 1 {
		t.Errorf("%d range requests, want 1", ranged)
	}
}

// firstShard is the name of a fixture's first .safetensors file.
func firstShard(files map[string]fakeFile) string {
	for name := range files {
		if strings.HasSuffix(name, ".safetensors") {
			return name
		}
	}
	return ""
}

// TestRetryAfterHonoured: a 429 with Retry-After: 1 is retried after at
// least that second, though the backoff asks none.
func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.add("org/m", oneConfig(`{}`))
	h.status, h.retryAfter = http.StatusTooManyRequests, "1"
	r := h.resolver(t)
	r.Retries = 1
	start := time.Now()
	_, err := r.Resolve(context.Background(), "org/m")
	if err == nil || !strings.Contains(err.Error(), "HTTP 429 (2 tries) (the Hub asked to retry after 1s)") {
		t.Errorf("Resolve: %v", err)
	}
	// A lower bound, which no scheduler can break: the wait happened.
	if d := time.Since(start); d < time.Second {
		t.Errorf("retried after %v, before the Hub's Retry-After of 1 s", d)
	}
}

func TestRetryAfterForms(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		h    string
		want time.Duration
	}{
		{"", 0},
		{"7", 7 * time.Second},
		{" 7 ", 7 * time.Second},
		{"-1", 0},
		{"1.5", 0},
		{"Fri, 04 Dec 2026 12:00:30 GMT", 30 * time.Second},
		{"Fri, 04 Dec 2026 11:00:00 GMT", 0}, // in the past
		{"soon", 0},
	} {
		if got := retryAfter(c.h, now); got != c.want {
			t.Errorf("retryAfter(%q) = %v, want %v", c.h, got, c.want)
		}
	}
}

// TestResolutionDeadline: a Hub that answers each request just under the
// per-request timeout cannot stretch a resolution past its deadline.
func TestResolutionDeadline(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	_, shards := tinyLlama()
	h.add("org/m", &fakeRepo{refs: map[string]string{"main": commitA}, files: map[string]map[string]fakeFile{commitA: checkpointFiles(t, llamaConfig, shards...)}})
	h.delay = 200 * time.Millisecond
	r := h.resolver(t)
	r.Timeout = time.Second
	r.Deadline = 500 * time.Millisecond
	r.Parallel = 1
	_, err := r.Load(context.Background(), "org/m")
	if !errors.Is(err, ErrDeadline) || !strings.Contains(err.Error(), "no whole answer within 500ms") {
		t.Errorf("Load: %v, want an error wrapping ErrDeadline", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Load: %v does not wrap context.DeadlineExceeded", err)
	}
}

// TestTruncatedBlobFetchedAgain: a cached config.json whose blob was cut
// short no longer matches its name (the Hub's ETag): it is fetched again
// and the blob rewritten; offline, the error says so. A body cut short on
// the wire is not cached.
func TestTruncatedBlobFetchedAgain(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.add("org/m", oneConfig(llamaConfig))
	r := h.resolver(t)
	f := smallFile([]byte(llamaConfig))
	dir := writeCache(t, r.CacheDir, "org/m", commitA, []string{"main"}, map[string]fakeFile{"config.json": f})
	blob := filepath.Join(dir, "blobs", f.etag())
	if err := os.WriteFile(blob, []byte(llamaConfig[:40]), 0o644); err != nil {
		t.Fatal(err)
	}
	off := r
	off.Offline = true
	if _, err := off.Resolve(context.Background(), "org/m"); err == nil || !strings.Contains(err.Error(), "the cached blob does not match its ETag (cut short or changed)") {
		t.Errorf("offline: %v", err)
	}
	m, err := r.Resolve(context.Background(), "org/m")
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Config) != llamaConfig || m.Source.Kind != SourceHub || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "fetched again from the Hub") {
		t.Errorf("config %q from %s, warnings %q", m.Config, m.Source.Kind, m.Warnings)
	}
	if data, err := os.ReadFile(blob); err != nil || string(data) != llamaConfig {
		t.Errorf("the blob was not rewritten: %q, %v", data, err)
	}
	if _, err := off.Resolve(context.Background(), "org/m"); err != nil {
		t.Errorf("offline after the fetch: %v", err)
	}
}

// TestCutBodyNotCached: a body shorter than the file, with no error from
// the connection (a server that sends no Content-Length and closes), does
// not match the ETag: retried, then refused, and nothing cached.
func TestCutBodyNotCached(t *testing.T) {
	t.Parallel()
	full := []byte(llamaConfig)
	etag := smallFile(full).etag()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Repo-Commit", commitA)
		w.Header().Set("ETag", `"`+etag+`"`)
		w.(http.Flusher).Flush() // chunked: no Content-Length
		w.Write(full[:40])
	}))
	t.Cleanup(srv.Close)
	r := Resolver{CacheDir: t.TempDir(), Endpoint: srv.URL, Retries: 1, Backoff: func(int) time.Duration { return 0 }}
	_, err := r.Resolve(context.Background(), "org/m")
	if want := "the 40 bytes received do not match the file's ETag " + etag + ": cut short or changed (2 tries)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Resolve: %v, want an error holding %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(r.CacheDir, "models--org--m")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("something was cached: %v", err)
	}
}

// TestCachedModelWithoutNetwork: a model whose config.json is cached
// resolves and loads when the Hub cannot be reached, without
// HF_HUB_OFFLINE=1, as huggingface_hub and vLLM do: the files that are not
// cached (hf_quant_config.json, the checkpoint) are read as offline reads
// them, and a warning says the Hub could not be reached (issue 20).
func TestCachedModelWithoutNetwork(t *testing.T) {
	t.Parallel()
	endpoint := refusingEndpoint
	cache := t.TempDir()
	writeCache(t, cache, "org/m", commitA, []string{"main"}, map[string]fakeFile{"config.json": smallFile([]byte(llamaConfig))})
	r := Resolver{CacheDir: cache, Endpoint: endpoint, Retries: 0}
	l, err := r.Load(context.Background(), "org/m")
	if err != nil {
		t.Fatalf("Load without a network: %v", err)
	}
	if l.NoCheckpoint != "the checkpoint's headers are not in the Hugging Face cache and the Hub cannot be reached" {
		t.Errorf("NoCheckpoint %q", l.NoCheckpoint)
	}
	if !strings.Contains(l.Model.Source.Description, "the Hub cannot be reached: read as none") {
		t.Errorf("source %q does not say the quantization file was read as none", l.Model.Source.Description)
	}
	joined := strings.Join(l.Warnings, "\n")
	if !strings.Contains(joined, "the Hub cannot be reached (GET "+endpoint) || !strings.Contains(joined, "connection refused") {
		t.Errorf("warnings do not say the Hub could not be reached:\n%s", joined)
	}
	// An HTTP error answer is not a connection error: it is still an error.
	h := newFakeHub(t)
	h.status = http.StatusInternalServerError
	r.Endpoint = h.hub.URL
	r.Backoff = func(int) time.Duration { return 0 }
	if _, err := r.Load(context.Background(), "org/m"); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("Load against a Hub answering 500: %v, want the error", err)
	}
}
