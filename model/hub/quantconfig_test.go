package hub

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// modeloptFP8 is nvidia/Llama-3.1-70B-Instruct-FP8's hf_quant_config.json.
const modeloptFP8 = `{"producer":{"name":"modelopt","version":"0.23.0"},` +
	`"quantization":{"quant_algo":"FP8","kv_cache_quant_algo":"FP8","exclude_modules":["lm_head"]}}`

// quantFound is what an HFQuantConfig test compares.
type quantFound struct {
	data, path string
	found      bool
}

func hfQuant(t *testing.T, m *Model) (quantFound, error) {
	t.Helper()
	data, path, found, err := m.HFQuantConfig(context.Background())
	return quantFound{string(data), path, found}, err
}

// TestHFQuantConfigFromAPath: the file is read from the directory given
// or beside a config.json, never for a config.json that declares its own
// quantization (the file is then a directory, which reading would refuse),
// links are followed, and the read is bounded.
func TestHFQuantConfigFromAPath(t *testing.T) {
	root := t.TempDir()
	write := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plain := `{"model_type":"llama"}`
	dir := func(name string) string { return filepath.Join(root, name) }

	write(filepath.Join(dir("both"), "config.json"), plain)
	write(filepath.Join(dir("both"), QuantConfigFile), modeloptFP8)
	write(filepath.Join(dir("alone"), "config.json"), plain)
	write(filepath.Join(dir("renamed"), "llama-fp8.json"), plain)
	write(filepath.Join(dir("renamed"), QuantConfigFile), modeloptFP8)
	for _, name := range []string{"declared", "declared-null"} {
		if err := os.MkdirAll(filepath.Join(dir(name), QuantConfigFile), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir("declared"), "config.json"), `{"model_type":"llama","quantization_config":{"quant_method":"fp8"}}`)
	write(filepath.Join(dir("declared-null"), "config.json"), `{"model_type":"llama","quantization_config":null}`)
	write(filepath.Join(dir("linked"), "config.json"), plain)
	write(filepath.Join(dir("blobs"), "q"), modeloptFP8)
	if err := os.Symlink("../blobs/q", filepath.Join(dir("linked"), QuantConfigFile)); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(dir("huge"), "config.json"), plain)
	if err := os.WriteFile(filepath.Join(dir("huge"), QuantConfigFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Sparse: one byte over the cap costs nothing on disk.
	if err := os.Truncate(filepath.Join(dir("huge"), QuantConfigFile), MaxQuantConfigBytes+1); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(dir("not-json"), "config.json"), `{"model_type":`)
	write(filepath.Join(dir("not-json"), QuantConfigFile), modeloptFP8)

	tests := []struct {
		name, spec string
		want       quantFound
		wantErr    string
	}{
		{name: "a directory holding it", spec: dir("both"),
			want: quantFound{modeloptFP8, filepath.Join(dir("both"), QuantConfigFile), true}},
		{name: "beside a config.json given as a file", spec: filepath.Join(dir("both"), "config.json"),
			want: quantFound{modeloptFP8, filepath.Join(dir("both"), QuantConfigFile), true}},
		{name: "a directory without it", spec: dir("alone")},
		{name: "a config under another name stands alone", spec: filepath.Join(dir("renamed"), "llama-fp8.json")},
		{name: "config.json declares its quantization: not read", spec: dir("declared")},
		{name: "a null quantization_config is none: read", spec: dir("declared-null"), wantErr: "is a directory, not a file: refused"},
		{name: "a link is followed", spec: dir("linked"),
			want: quantFound{modeloptFP8, filepath.Join(dir("linked"), QuantConfigFile), true}},
		{name: "larger than the cap", spec: dir("huge"), wantErr: "more than the 67108864 this reads"},
		{name: "a config.json that is not JSON: left to its parser", spec: dir("not-json")},
	}
	r := Resolver{}
	for _, tc := range tests {
		m, err := r.Resolve(context.Background(), tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := hfQuant(t, m)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.wantErr)
		case got != tc.want:
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestHFQuantConfigShipped: a shipped model's comes from
// Resolver.ShippedQuantConfig, by the id the model was found by.
func TestHFQuantConfigShipped(t *testing.T) {
	quant := func(id string) ([]byte, string, bool) {
		if id != "Qwen__Qwen3-32B-FP8" {
			return nil, "", false
		}
		return []byte(modeloptFP8), "corpus/models/hf_quant_config/" + id + ".json", true
	}
	tests := []struct {
		name, spec string
		quant      func(string) ([]byte, string, bool)
		want       quantFound
	}{
		{"shipped with one, in another case", "qwen/qwen3-32b-fp8", quant,
			quantFound{modeloptFP8, "corpus/models/hf_quant_config/Qwen__Qwen3-32B-FP8.json", true}},
		{"shipped without one", "Qwen/Qwen3-8B", quant, quantFound{}},
		{"no ShippedQuantConfig", "Qwen/Qwen3-32B-FP8", nil, quantFound{}},
	}
	for _, tc := range tests {
		r := withShipped(Resolver{})
		r.ShippedQuantConfig = tc.quant
		m, err := r.Resolve(context.Background(), tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := hfQuant(t, m)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

// TestHFQuantConfigFromTheHub: fetched at the commit config.json resolved
// to, saved in the cache as huggingface_hub saves it, then read offline;
// a missing one is recorded in .no_exist; a config.json with its own
// quantization_config costs no request; a failure is an error.
func TestHFQuantConfigFromTheHub(t *testing.T) {
	h := newFakeHub(t)
	plain := `{"model_type":"llama"}`
	quantFile := smallFile([]byte(modeloptFP8))
	h.add("nvidia/fp8-tiny", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(plain)), QuantConfigFile: quantFile}}})
	h.add("acme/plain", &fakeRepo{refs: map[string]string{"main": commitB},
		files: map[string]map[string]fakeFile{commitB: {"config.json": smallFile([]byte(plain))}}})
	h.add("acme/declared", &fakeRepo{refs: map[string]string{"main": commitC},
		files: map[string]map[string]fakeFile{commitC: {
			"config.json":   smallFile([]byte(`{"model_type":"llama","quantization_config":{"quant_method":"fp8"}}`)),
			QuantConfigFile: quantFile,
		}}})
	online := h.resolver(t)
	offline := online
	offline.Offline = true
	resolve := func(r Resolver, spec string) *Model {
		t.Helper()
		m, err := r.Resolve(context.Background(), spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		return m
	}
	requested := func(file string) []string {
		var out []string
		for _, q := range h.hubRequests() {
			if strings.HasSuffix(q.Path, "/"+file) {
				out = append(out, q.Path)
			}
		}
		return out
	}
	model := filepath.Join(online.CacheDir, "models--nvidia--fp8-tiny")
	snapshotFile := filepath.Join(model, "snapshots", commitA, QuantConfigFile)

	got, err := hfQuant(t, resolve(online, "nvidia/fp8-tiny"))
	if want := (quantFound{modeloptFP8, snapshotFile, true}); err != nil || got != want {
		t.Fatalf("from the Hub: %+v, %v; want %+v", got, err, want)
	}
	// At the commit, not at main: a push between the two requests cannot
	// mix two checkpoints.
	if got, want := requested(QuantConfigFile), []string{"/nvidia/fp8-tiny/resolve/" + commitA + "/" + QuantConfigFile}; !equal(got, want) {
		t.Errorf("requests %v, want %v", got, want)
	}
	if link, err := os.Readlink(snapshotFile); err != nil || link != "../../blobs/"+quantFile.etag() {
		t.Errorf("snapshot link %q, %v; want ../../blobs/%s", link, err, quantFile.etag())
	}
	if data, err := os.ReadFile(filepath.Join(model, "blobs", quantFile.etag())); err != nil || string(data) != modeloptFP8 {
		t.Errorf("blob %q, %v", data, err)
	}
	before := len(h.hubRequests())
	m := resolve(offline, "nvidia/fp8-tiny")
	if got, err := hfQuant(t, m); err != nil || got != (quantFound{modeloptFP8, snapshotFile, true}) || m.Source.Kind != SourceCache {
		t.Errorf("offline from the cache: %+v, %v (source %s)", got, err, m.Source.Kind)
	}

	// None on the Hub: recorded, then known offline.
	if got, err := hfQuant(t, resolve(online, "acme/plain")); err != nil || got.found {
		t.Errorf("none on the Hub: %+v, %v", got, err)
	}
	marker := filepath.Join(online.CacheDir, "models--acme--plain", ".no_exist", commitB, QuantConfigFile)
	if fi, err := os.Lstat(marker); err != nil || !fi.Mode().IsRegular() {
		t.Errorf(".no_exist marker: %v", err)
	}
	if got, err := hfQuant(t, resolve(offline, "acme/plain")); err != nil || got.found {
		t.Errorf("none, offline: %+v, %v", got, err)
	}

	// config.json declares its quantization: hf_quant_config.json is
	// neither read nor asked for, though the Hub has one.
	if got, err := hfQuant(t, resolve(online, "acme/declared")); err != nil || got.found {
		t.Errorf("declared: %+v, %v", got, err)
	}
	for _, q := range h.hubRequests() {
		if strings.HasPrefix(q.Path, "/acme/declared/") && !strings.HasSuffix(q.Path, "/config.json") {
			t.Errorf("acme/declared: %s asked", q.Path)
		}
	}
	if n := len(h.hubRequests()) - before; n != 3 {
		t.Errorf("%d requests after the offline reads, want 3: config.json of acme/plain and acme/declared, hf_quant_config.json of acme/plain", n)
	}
}

// TestHFQuantConfigNotCachedOffline: offline, a snapshot with neither the
// file nor a .no_exist record cannot say: an error wrapping ErrOffline.
// Online, the cache's model fetches it at the snapshot's commit.
func TestHFQuantConfigNotCachedOffline(t *testing.T) {
	h := newFakeHub(t)
	h.add("nvidia/fp8-tiny", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(`{}`)), QuantConfigFile: smallFile([]byte(modeloptFP8))}}})
	online := h.resolver(t)
	writeCache(t, online.CacheDir, "nvidia/fp8-tiny", commitA, []string{"main"}, map[string]fakeFile{"config.json": smallFile([]byte(`{}`))})
	offline := online
	offline.Offline = true
	m, err := offline.Resolve(context.Background(), "nvidia/fp8-tiny")
	if err != nil {
		t.Fatal(err)
	}
	_, err = hfQuant(t, m)
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "nvidia/fp8-tiny@aaaaaaa/hf_quant_config.json is not in the Hugging Face cache") {
		t.Errorf("offline, not cached: %v", err)
	}
	m, err = online.Resolve(context.Background(), "nvidia/fp8-tiny")
	if err != nil {
		t.Fatal(err)
	}
	got, err := hfQuant(t, m)
	want := quantFound{modeloptFP8, filepath.Join(online.CacheDir, "models--nvidia--fp8-tiny", "snapshots", commitA, QuantConfigFile), true}
	if err != nil || got != want || m.Source.Kind != SourceCache {
		t.Errorf("online, from the cache's snapshot: %+v, %v (source %s); want %+v", got, err, m.Source.Kind, want)
	}
	if n := len(h.hubRequests()); n != 1 {
		t.Errorf("%d requests, want 1: hf_quant_config.json alone", n)
	}
}

// TestHFQuantConfigHubFailures: a 404 without the Hub's X-Error-Code (a
// mirror's) is none, not recorded; a 503 that outlasts the retries is an
// error.
func TestHFQuantConfigHubFailures(t *testing.T) {
	h := newFakeHub(t)
	h.add("acme/plain", &fakeRepo{refs: map[string]string{"main": commitB},
		files: map[string]map[string]fakeFile{commitB: {"config.json": smallFile([]byte(`{}`))}}})
	r := h.resolver(t)
	m, err := r.Resolve(context.Background(), "acme/plain")
	if err != nil {
		t.Fatal(err)
	}
	h.plain404 = true
	if got, err := hfQuant(t, m); err != nil || got.found {
		t.Errorf("a bare 404: %+v, %v", got, err)
	}
	if _, err := os.Lstat(filepath.Join(r.CacheDir, "models--acme--plain", ".no_exist")); err == nil {
		t.Errorf("a bare 404 was recorded in .no_exist")
	}
	h.mu.Lock()
	h.fail = 1 + r.Retries
	h.mu.Unlock()
	_, err = hfQuant(t, m)
	var he *HubError
	if !errors.As(err, &he) || he.Status != http.StatusServiceUnavailable || he.Tries != 1+r.Retries || he.File != QuantConfigFile {
		t.Errorf("a 503 every try: %v", err)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
