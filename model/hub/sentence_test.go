package hub

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model"
)

// qwen3EmbeddingModules and qwen3EmbeddingPooling are
// Qwen/Qwen3-Embedding-0.6B's modules.json and 1_Pooling/config.json
// (pooling_mode_lasttoken true, a Normalize module).
const (
	qwen3EmbeddingModules = `[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},` +
		`{"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"},` +
		`{"idx":2,"name":"2","path":"2_Normalize","type":"sentence_transformers.models.Normalize"}]`
	qwen3EmbeddingPooling = `{"word_embedding_dimension":1024,"pooling_mode_cls_token":false,"pooling_mode_mean_tokens":false,"pooling_mode_lasttoken":true,"include_prompt":true}`
	qwen3Config           = `{"model_type":"qwen3","architectures":["Qwen3ForCausalLM"]}`
)

// TestSentenceTransformersFromAPath: modules.json and the Pooling module's
// config.json are read beside config.json; no modules.json, or one without
// a Pooling module, is none; a Pooling module without its config.json is
// one with no pooling type (vLLM's `or {}`); a modules.json vLLM would
// raise on is an error naming it; a config under another name stands
// alone.
func TestSentenceTransformersFromAPath(t *testing.T) {
	root := t.TempDir()
	write := func(dir, name, data string) { t.Helper(); writeUnder(t, root, dir, name, data) }
	write("embed", "config.json", qwen3Config)
	write("embed", "modules.json", qwen3EmbeddingModules)
	write("embed", "1_Pooling/config.json", qwen3EmbeddingPooling)
	write("plain", "config.json", qwen3Config)
	write("nopool", "config.json", qwen3Config)
	write("nopool", "modules.json", `[{"type":"sentence_transformers.models.Transformer","path":""}]`)
	write("noconf", "config.json", qwen3Config)
	write("noconf", "modules.json", `[{"type":"sentence_transformers.models.Pooling","path":"1_Pooling"}]`)
	write("bad", "config.json", qwen3Config)
	write("bad", "modules.json", `{"type":"sentence_transformers.models.Pooling"}`)
	write("trailing", "config.json", qwen3Config)
	write("trailing", "modules.json", qwen3EmbeddingModules)
	write("trailing", "1_Pooling/config.json", qwen3EmbeddingPooling+"\n}")
	write("renamed", "qwen3.json", qwen3Config)
	write("renamed", "modules.json", qwen3EmbeddingModules)

	r := Resolver{CacheDir: t.TempDir(), Offline: true}
	tests := []struct {
		name, spec string
		want       *model.SentenceTransformers
		err        string
	}{
		{"Qwen3-Embedding", filepath.Join(root, "embed"), &model.SentenceTransformers{File: filepath.Join(root, "embed", "modules.json"),
			PoolingConfig: "1_Pooling/config.json", SeqPoolingType: "LAST", Normalize: true}, ""},
		{"beside a config.json named", filepath.Join(root, "embed", "config.json"), &model.SentenceTransformers{File: filepath.Join(root, "embed", "modules.json"),
			PoolingConfig: "1_Pooling/config.json", SeqPoolingType: "LAST", Normalize: true}, ""},
		{"no modules.json", filepath.Join(root, "plain"), nil, ""},
		{"no Pooling module", filepath.Join(root, "nopool"), nil, ""},
		{"no Pooling config", filepath.Join(root, "noconf"), &model.SentenceTransformers{File: filepath.Join(root, "noconf", "modules.json"),
			PoolingConfig: "1_Pooling/config.json"}, ""},
		{"not a list", filepath.Join(root, "bad"), nil, "modules.json: want a JSON list"},
		// vLLM's json.load refuses the brace after the object.
		{"text after the Pooling config", filepath.Join(root, "trailing"), nil, "1_Pooling/config.json: text after the JSON object"},
		{"a config under another name stands alone", filepath.Join(root, "renamed", "qwen3.json"), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := r.Resolve(context.Background(), tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.SentenceTransformers(context.Background())
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// Load attaches it to the architecture.
	l, err := r.Load(context.Background(), filepath.Join(root, "embed"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Arch.SentenceTransformers == nil || l.Arch.SentenceTransformers.SeqPoolingType != "LAST" {
		t.Errorf("Load: SentenceTransformers %+v, want LAST pooling", l.Arch.SentenceTransformers)
	}
}

// TestSentenceTransformersFromTheHub: both files are fetched at the
// resolved commit and kept in the cache, so that offline they are read
// from it without a request; a repository without modules.json is
// recorded missing and not asked again.
func TestSentenceTransformersFromTheHub(t *testing.T) {
	h := newFakeHub(t)
	h.add("Qwen/Qwen3-Embedding-0.6B", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(qwen3Config)),
			"modules.json": smallFile([]byte(qwen3EmbeddingModules)), "1_Pooling/config.json": smallFile([]byte(qwen3EmbeddingPooling))}}})
	h.add("acme/plain", &fakeRepo{refs: map[string]string{"main": commitB},
		files: map[string]map[string]fakeFile{commitB: {"config.json": smallFile([]byte(qwen3Config))}}})
	online := h.resolver(t)
	offline := online
	offline.Offline = true
	read := func(r Resolver, spec string) *model.SentenceTransformers {
		t.Helper()
		m, err := r.Resolve(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		st, err := m.SentenceTransformers(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	snap := filepath.Join(online.CacheDir, "models--Qwen--Qwen3-Embedding-0.6B", "snapshots", commitA)
	want := &model.SentenceTransformers{File: filepath.Join(snap, "modules.json"), PoolingConfig: "1_Pooling/config.json", SeqPoolingType: "LAST", Normalize: true}
	if diff := cmp.Diff(want, read(online, "Qwen/Qwen3-Embedding-0.6B")); diff != "" {
		t.Errorf("online (-want +got):\n%s", diff)
	}
	var asked []string
	for _, q := range h.hubRequests() {
		if strings.Contains(q.Path, "modules.json") || strings.Contains(q.Path, "Pooling") {
			asked = append(asked, q.Path)
		}
	}
	wantAsked := []string{"/Qwen/Qwen3-Embedding-0.6B/resolve/" + commitA + "/modules.json", "/Qwen/Qwen3-Embedding-0.6B/resolve/" + commitA + "/1_Pooling/config.json"}
	if diff := cmp.Diff(wantAsked, asked); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	before := len(h.hubRequests())
	if diff := cmp.Diff(want, read(offline, "Qwen/Qwen3-Embedding-0.6B")); diff != "" {
		t.Errorf("offline, from the cache (-want +got):\n%s", diff)
	}
	if st := read(online, "acme/plain"); st != nil {
		t.Errorf("acme/plain: %+v, want none", st)
	}
	if st := read(offline, "acme/plain"); st != nil {
		t.Errorf("acme/plain offline: %+v, want none (recorded missing)", st)
	}
	// Offline reads ask nothing; acme/plain online asks for its
	// config.json and modules.json (a 404, recorded missing) only.
	if n := len(h.hubRequests()) - before; n != 2 {
		t.Errorf("%d requests after the first model, want 2 (acme/plain's config.json and modules.json)", n)
	}
}

// TestSentenceTransformersPoolingConfigOffline: offline, with modules.json
// in the cache and the Pooling module's config.json neither cached nor
// recorded missing, vLLM's get_hf_file_to_dict answers None for the
// config (vllm/transformers_utils/repo_utils.py: OfflineModeIsEnabled,
// and a Hub it cannot reach, give None) and get_pooling_config reads it as
// {}: still a sentence-transformers model (the pooling runner by default),
// with no pooling type. The source says the config was read as none.
func TestSentenceTransformersPoolingConfigOffline(t *testing.T) {
	h := newFakeHub(t)
	h.add("Qwen/Qwen3-Embedding-0.6B", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(qwen3Config)),
			"modules.json": smallFile([]byte(qwen3EmbeddingModules)), "1_Pooling/config.json": smallFile([]byte(qwen3EmbeddingPooling))}}})
	online := h.resolver(t)
	m, err := online.Resolve(context.Background(), "Qwen/Qwen3-Embedding-0.6B")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.SentenceTransformers(context.Background()); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(online.CacheDir, "models--Qwen--Qwen3-Embedding-0.6B", "snapshots", commitA)
	if err := os.Remove(filepath.Join(snap, "1_Pooling", "config.json")); err != nil {
		t.Fatal(err)
	}
	offline := online
	offline.Offline = true
	m, err = offline.Resolve(context.Background(), "Qwen/Qwen3-Embedding-0.6B")
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.SentenceTransformers(context.Background())
	if err != nil {
		t.Fatalf("offline without the Pooling config: %v; want it read as {}", err)
	}
	want := &model.SentenceTransformers{File: filepath.Join(snap, "modules.json"), PoolingConfig: "1_Pooling/config.json", Normalize: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if note := "no 1_Pooling/config.json in the cache (offline: read as none, as vLLM does)"; !strings.Contains(m.Source.Description, note) {
		t.Errorf("source %q, want it to say %q", m.Source.Description, note)
	}
}

// TestModulesFileCheckedBeforeTheCache: the cache keeps only what every
// later run can read, so a modules.json fetched from the Hub must be a JSON
// list (sentence-transformers writes one), where every other file fetched
// beside config.json must be an object: an object or a list cut short is
// refused, naming the file, and not written; a Pooling config that is a
// list is refused as any other file would be.
func TestModulesFileCheckedBeforeTheCache(t *testing.T) {
	for _, tt := range []struct {
		name, modules, pooling, want string
		cachedModules                bool
	}{
		{"modules.json an object", `{"type": "sentence_transformers.models.Pooling", "path": "1_Pooling"}`, qwen3EmbeddingPooling, "modules.json: not a JSON list (from the Hub; not saved to the cache)", false},
		{"modules.json cut short", `[{"type": "sentence_transformers.models.Pooling"`, qwen3EmbeddingPooling, "modules.json: not a JSON list (from the Hub; not saved to the cache)", false},
		{"a Pooling config that is a list", qwen3EmbeddingModules, `[true]`, "1_Pooling/config.json:", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHub(t)
			h.add("Qwen/Qwen3-Embedding-0.6B", &fakeRepo{refs: map[string]string{"main": commitA},
				files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(qwen3Config)),
					"modules.json": smallFile([]byte(tt.modules)), "1_Pooling/config.json": smallFile([]byte(tt.pooling))}}})
			r := h.resolver(t)
			m, err := r.Resolve(context.Background(), "Qwen/Qwen3-Embedding-0.6B")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.SentenceTransformers(context.Background()); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error saying %q", err, tt.want)
			}
			snap := filepath.Join(r.CacheDir, "models--Qwen--Qwen3-Embedding-0.6B", "snapshots", commitA)
			_, err = os.Lstat(filepath.Join(snap, "modules.json"))
			if cached := err == nil; cached != tt.cachedModules {
				t.Errorf("modules.json in the cache: %v, want %v", cached, tt.cachedModules)
			}
			if _, err := os.Lstat(filepath.Join(snap, "1_Pooling", "config.json")); err == nil {
				t.Errorf("the Pooling config was saved to the cache")
			}
		})
	}
}

// writeUnder writes data to root/dir/name (name a slash path), making the
// folders it needs: a model folder's files for the path tests.
func writeUnder(t *testing.T, root, dir, name, data string) {
	t.Helper()
	p := filepath.Join(root, dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
