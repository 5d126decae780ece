package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"membudget"
	"membudget/model"
	"membudget/model/safetensors"
)

// testEnv is the environment the CLI's tests run under: a home with no
// Hugging Face cache or token, offline. No test reads the user's cache or
// token, or reaches the Hub.
var testEnv = map[string]string{"HOME": "/nonexistent-home", "HF_HUB_OFFLINE": "1"}

// envApp is membudget under env instead of testEnv.
func envApp(env map[string]string) *app {
	return newApp(func(k string) string { return env[k] }, strings.NewReader(""))
}

// testApp is membudget under testEnv.
func testApp() *app { return envApp(testEnv) }

// run runs membudget as a user would, under testEnv.
func run(stdout, stderr io.Writer, args []string) int { return testApp().run(stdout, stderr, args) }

// A Llama at reduced size, as its checkpoint names its tensors: hidden 64,
// 4 heads of 16, 2 KV heads, intermediate 128, vocabulary 256, 2 layers,
// 128 positions, bf16, in two shards.
const tinyLlamaConfig = `{"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":64,"num_attention_heads":4,` +
	`"num_key_value_heads":2,"intermediate_size":128,"num_hidden_layers":2,"vocab_size":256,"max_position_embeddings":128,"torch_dtype":"bfloat16"}`

func bf16(name string, shape ...uint64) safetensors.Tensor {
	return safetensors.Tensor{Name: name, Dtype: "BF16", Shape: shape}
}

func tinyLlamaLayer(l int) []safetensors.Tensor {
	p := fmt.Sprintf("model.layers.%d.", l)
	return []safetensors.Tensor{
		bf16(p+"input_layernorm.weight", 64),
		bf16(p+"self_attn.q_proj.weight", 64, 64),
		bf16(p+"self_attn.k_proj.weight", 32, 64),
		bf16(p+"self_attn.v_proj.weight", 32, 64),
		bf16(p+"self_attn.o_proj.weight", 64, 64),
		bf16(p+"post_attention_layernorm.weight", 64),
		bf16(p+"mlp.gate_proj.weight", 128, 64),
		bf16(p+"mlp.up_proj.weight", 128, 64),
		bf16(p+"mlp.down_proj.weight", 64, 128),
	}
}

// The tiny Llama's weights per GPU, by hand (model/checkpoint_test.go has
// the sums): TP1 2 x 73984 per layer + embedding and head 32768 each +
// norm 128 + rotary table 128 x 16 x 2 = 4096; TP2 2 x 37120 + 16384 x 2 +
// 128 + 4096; PP2 the embedding and layer 0, then layer 1, the norm and
// the head, each stage with the rotary table.
const (
	tinyLlamaTP1    = 2*73984 + 2*32768 + 128 + 4096
	tinyLlamaTP2    = 2*37120 + 2*16384 + 128 + 4096
	tinyLlamaStage0 = 32768 + 73984 + 4096
	tinyLlamaStage1 = 73984 + 128 + 32768 + 4096
)

// tinyLlamaFiles are the files of the tiny Llama's repo: config.json, the
// index and two shards (with their data, zeros).
func tinyLlamaFiles(t *testing.T) map[string][]byte {
	t.Helper()
	s1 := append([]safetensors.Tensor{bf16("model.embed_tokens.weight", 256, 64)}, tinyLlamaLayer(0)...)
	s2 := append(tinyLlamaLayer(1), bf16("model.norm.weight", 64), bf16("lm_head.weight", 256, 64))
	files := map[string][]byte{"config.json": []byte(tinyLlamaConfig)}
	weightMap := map[string]string{}
	for i, ts := range [][]safetensors.Tensor{s1, s2} {
		name := fmt.Sprintf("model-%05d-of-00002.safetensors", i+1)
		head, data, err := safetensors.Encode(ts, map[string]string{"format": "pt"})
		if err != nil {
			t.Fatal(err)
		}
		files[name] = append(head, make([]byte, data)...)
		for _, tn := range ts {
			weightMap[tn.Name] = name
		}
	}
	idx, err := json.Marshal(map[string]any{"metadata": map[string]any{"total_size": 0}, "weight_map": weightMap})
	if err != nil {
		t.Fatal(err)
	}
	files["model.safetensors.index.json"] = idx
	return files
}

const tinyCommit = "0123456789abcdef0123456789abcdef01234567"

func etagOf(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// writeCache lays files out in cache as huggingface_hub does: blobs named
// by ETag, snapshot links ../../blobs/<etag>, refs/main.
func writeCache(t *testing.T, cache, repo, commit string, files map[string][]byte) {
	t.Helper()
	dir := filepath.Join(cache, "models--"+strings.ReplaceAll(repo, "/", "--"))
	for name, data := range files {
		blob := filepath.Join(dir, "blobs", etagOf(data))
		link := filepath.Join(dir, "snapshots", commit, name)
		for _, d := range []string{filepath.Dir(blob), filepath.Dir(link)} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(blob, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../../blobs/"+etagOf(data), link); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "refs", "main"), []byte(commit), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeHub answers the Hub's resolve URLs (GET /<org>/<name>/resolve/<rev>/<file>)
// as huggingface.co does: X-Repo-Commit, a quoted ETag, range requests,
// 401 and 403 with X-Error-Code GatedRepo for a gated repo without the
// right token, 404 with EntryNotFound for a missing file. The hub package's
// own tests cover the protocol in depth (redirects, LFS, retries); this
// one serves the CLI's end-to-end tests.
type fakeHub struct {
	srv   *httptest.Server
	token string
	mu    sync.Mutex
	repos map[string]map[string][]byte // repo -> file -> content
	gated map[string]bool
	// broken answers "repo/file" with this status (not one retried).
	broken map[string]int
	log    []string // "GET path range"
}

func newFakeHub(t *testing.T, token string) *fakeHub {
	h := &fakeHub{token: token, repos: map[string]map[string][]byte{}, gated: map[string]bool{}, broken: map[string]int{}}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.log = append(h.log, r.Method+" "+r.URL.Path+" "+r.Header.Get("Range"))
	h.mu.Unlock()
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 5)
	if len(parts) < 5 || parts[2] != "resolve" {
		http.NotFound(w, r)
		return
	}
	repo, rev, file := parts[0]+"/"+parts[1], parts[3], parts[4]
	files, ok := h.repos[repo]
	deny := func(status int, code, msg string) {
		w.Header().Set("X-Error-Code", code)
		w.Header().Set("X-Error-Message", msg)
		http.Error(w, msg, status)
	}
	switch auth := r.Header.Get("Authorization"); {
	case !ok:
		deny(http.StatusNotFound, "RepoNotFound", "Repository not found")
		return
	case h.gated[repo] && auth == "":
		deny(http.StatusUnauthorized, "GatedRepo", "Access to model "+repo+" is restricted.")
		return
	case h.gated[repo] && auth != "Bearer "+h.token:
		deny(http.StatusForbidden, "GatedRepo", "Access to model "+repo+" is restricted and you are not in the authorized list.")
		return
	case rev != "main" && rev != "v1" && rev != tinyCommit: // v1: a tag at the same commit
		deny(http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	}
	w.Header().Set("X-Repo-Commit", tinyCommit)
	if status := h.broken[repo+"/"+file]; status != 0 {
		http.Error(w, "broken", status)
		return
	}
	data, ok := files[file]
	if !ok {
		deny(http.StatusNotFound, "EntryNotFound", file+" does not exist")
		return
	}
	w.Header().Set("ETag", `"`+etagOf(data)+`"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

// reportOf runs report --json with args and decodes it.
func reportOf(t *testing.T, a *app, args ...string) (reportJSON, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := a.run(&stdout, &stderr, append([]string{"report", "--json", "--class", "h100-sxm-80g"}, args...))
	var got reportJSON
	if err := jsonUnmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("report %s: exit %d, %v; stderr %s", strings.Join(args, " "), code, err, stderr.String())
	}
	return got, stderr.String()
}

// checkTinyLlama checks the weights of the tiny Llama's report: read from
// its checkpoint, per GPU, at TP1, TP2 and PP2, to the byte.
func checkTinyLlama(t *testing.T, a *app, spec string) {
	t.Helper()
	for _, tc := range []struct {
		args  []string
		stage int
		want  uint64
	}{
		{nil, 0, tinyLlamaTP1},
		{[]string{"-tp", "2"}, 0, tinyLlamaTP2},
		{[]string{"-pp", "2"}, 0, tinyLlamaStage0},
		{[]string{"-pp", "2"}, 1, tinyLlamaStage1},
	} {
		got, stderr := reportOf(t, a, append([]string{"--model", spec}, tc.args...)...)
		w := got.Model.Weights
		if stderr != "" {
			t.Errorf("%s %v: stderr %q", spec, tc.args, stderr)
		}
		if w.From != "checkpoint" || w.Description != "checkpoint: 2 shards, 21 tensors" {
			t.Errorf("%s %v: weights from %q, %q", spec, tc.args, w.From, w.Description)
		}
		if w.PipelineStage != tc.stage {
			// The other stage binds: its figures are checked by the
			// stage's own case.
			continue
		}
		if w.CheckpointBytes == nil || *w.CheckpointBytes != tc.want || w.DerivedBytes != tc.want || w.DifferencePercent != 0 {
			t.Errorf("%s %v stage %d: checkpoint %v, derived %d, %+v %%; want %d both", spec, tc.args, tc.stage, w.CheckpointBytes, w.DerivedBytes, w.DifferencePercent, tc.want)
		}
		if got.Footprint.Weights != tc.want {
			t.Errorf("%s %v: footprint weights %d B, want %d", spec, tc.args, got.Footprint.Weights, tc.want)
		}
	}
}

func TestModelFromTheCacheOffline(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeCache(t, filepath.Join(home, ".cache", "huggingface", "hub"), "acme/tiny-llama", tinyCommit, tinyLlamaFiles(t))
	a := envApp(map[string]string{"HOME": home, "HF_HUB_OFFLINE": "1"})
	checkTinyLlama(t, a, "acme/tiny-llama")
	got, _ := reportOf(t, a, "--model", "acme__tiny-llama")
	// Offline, hf_quant_config.json is neither cached nor recorded
	// missing: none, as vLLM reads it offline, and the source says so.
	want := sourceJSON{Kind: "cache", Description: "Hugging Face cache ~/.cache/huggingface/hub, snapshot 0123456 (refs/main); no hf_quant_config.json in the cache (offline: read as none, as vLLM does); no modules.json in the cache (offline: read as none, as vLLM does)",
		Config: filepath.Join(home, ".cache/huggingface/hub/models--acme--tiny-llama/snapshots", tinyCommit, "config.json"), Revision: "main", Commit: tinyCommit}
	if got.Model.Name != "acme/tiny-llama" {
		t.Errorf("name %q, want the model id", got.Model.Name)
	}
	if diff := cmp.Diff(want, got.Model.Source); diff != "" {
		t.Errorf("source (-want +got):\n%s", diff)
	}
	runGoldenIn(t, a, []cliCase{
		{"report-cached-checkpoint", []string{"report", "--model", "acme/tiny-llama@main", "--class", "l4", "-pp", "2"}, exitOK},
	})
}

// TestModelFromTheHub: the config.json and the shards' headers come from
// the Hub by range requests (never a shard's data), and land in the cache,
// from which an offline run then reads them.
func TestModelFromTheHub(t *testing.T) {
	t.Parallel()
	const token = "hf_cliTESTtoken0123456789SECRET"
	h := newFakeHub(t, token)
	files := tinyLlamaFiles(t)
	h.repos["acme/tiny-llama"] = files
	h.repos["acme/gated"] = files
	h.gated["acme/gated"] = true
	home := t.TempDir()
	a := envApp(map[string]string{"HOME": home, "HF_ENDPOINT": h.srv.URL, "HF_TOKEN": token})
	checkTinyLlama(t, a, "acme/tiny-llama")
	got, _ := reportOf(t, a, "--model", "acme/gated")
	if got.Model.Source.Kind != "hub" || got.Model.Weights.From != "checkpoint" {
		t.Errorf("a gated model with its token: source %+v, weights %+v", got.Model.Source, got.Model.Weights)
	}
	for _, l := range h.log {
		if strings.Contains(l, ".safetensors ") && !strings.HasSuffix(l, "bytes=0-7") && !strings.Contains(l, "bytes=8-") {
			t.Errorf("a shard was read whole: %s", l)
		}
	}
	// The first run fetched; every later one read the cache (the Hub's
	// "no hf_quant_config.json" and "no modules.json" are recorded in
	// .no_exist).
	if n := len(h.log); n != 2*(1+1+1+1+2*2) {
		t.Errorf("%d requests, want 16: per model config.json, hf_quant_config.json (404), modules.json (404), the index, and 2 range requests per shard:\n%s", n, strings.Join(h.log, "\n"))
	}
	a = envApp(map[string]string{"HOME": home, "HF_HUB_OFFLINE": "1"})
	checkTinyLlama(t, a, "acme/tiny-llama")
}

func TestModelFromADirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, data := range tinyLlamaFiles(t) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkTinyLlama(t, testApp(), dir)
	got, _ := reportOf(t, testApp(), "--model", dir)
	if got.Model.Source.Kind != "path" || got.Model.Source.Description != "directory "+dir || got.Model.Name != dir {
		t.Errorf("name %q, source %+v", got.Model.Name, got.Model.Source)
	}
	// A config.json alone: the weights are derived from it.
	alone := t.TempDir()
	if err := os.WriteFile(filepath.Join(alone, "config.json"), []byte(tinyLlamaConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ = reportOf(t, testApp(), "--model", filepath.Join(alone, "config.json"))
	w := got.Model.Weights
	if w.From != "config" || w.Description != "derived from config.json (no safetensors checkpoint beside config.json)" || w.CheckpointBytes != nil || w.DerivedBytes != tinyLlamaTP1 {
		t.Errorf("a config.json alone: %+v", w)
	}
}

// TestCheckpointThatDiffersIsWarned: a checkpoint that is not what its
// config.json says (here the embedding and a tensor no llama has, counted
// whole) is counted as it is, and the difference is a warning.
func TestCheckpointThatDiffersIsWarned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := tinyLlamaFiles(t)
	extra := []safetensors.Tensor{bf16("model.embed_tokens.weight", 256, 64), bf16("model.extra_embed.weight", 256, 64)}
	head, data, err := safetensors.Encode(extra, nil)
	if err != nil {
		t.Fatal(err)
	}
	delete(files, "model.safetensors.index.json")
	for name := range files {
		if strings.HasSuffix(name, ".safetensors") {
			delete(files, name)
		}
	}
	files["model.safetensors"] = append(head, make([]byte, data)...)
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, stderr := reportOf(t, testApp(), "--model", dir)
	w := got.Model.Weights
	// The checkpoint holds the embedding 32768, the extra tensor 32768 and
	// the rotary table 4096, 69632; config.json gives 217728: 68.02 % less.
	if w.CheckpointBytes == nil || *w.CheckpointBytes != 32768+32768+4096 || w.DerivedBytes != tinyLlamaTP1 {
		t.Fatalf("weights %+v", w)
	}
	for _, want := range []string{
		"membudget report: warning: 1 checkpoint tensor(s) that model_type llama's rules do not name, counted whole on every rank: model.extra_embed.weight\n",
		"membudget report: warning: the checkpoint's weights, 0.00 GiB (69632 B) per GPU, differ by -68.02 % from those derived from config.json, 0.00 GiB (217728 B): model_type llama's rules miss something\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
}

// TestModelErrors: hub's errors reach the user naming --model, with exit
// 2, and never with the token.
func TestModelErrors(t *testing.T) {
	t.Parallel()
	const token = "hf_cliWRONGtoken0123456789SECRET"
	h := newFakeHub(t, "hf_the_right_one")
	h.repos["acme/gated"] = tinyLlamaFiles(t)
	h.gated["acme/gated"] = true
	home := t.TempDir()
	tests := []struct {
		name string
		env  map[string]string
		spec string
		want string
	}{
		{"gated, a token without access", map[string]string{"HOME": home, "HF_ENDPOINT": h.srv.URL, "HF_TOKEN": token}, "acme/gated",
			`membudget report: --model "acme/gated": no such file, no shipped model, not in the Hugging Face cache (~/.cache/huggingface/hub), and acme/gated is a gated model (HTTP 403): request access at ` + h.srv.URL + `/acme/gated, then set HF_TOKEN to a token of the account that has it (the token from HF_TOKEN has no access yet) [Hub: "Access to model acme/gated is restricted and you are not in the authorized list."]`},
		{"not on the Hub", map[string]string{"HOME": home, "HF_ENDPOINT": h.srv.URL}, "acme/none",
			`membudget report: --model "acme/none": no such file, no shipped model, not in the Hugging Face cache (~/.cache/huggingface/hub), and no model acme/none on ` + h.srv.URL + ` (HTTP 404) [Hub: "Repository not found"]`},
		{"a bad HF_HUB_OFFLINE", map[string]string{"HOME": home, "HF_HUB_OFFLINE": "maybe"}, "acme/none",
			`membudget report: --model: HF_HUB_OFFLINE="maybe": want 1, ON, YES or TRUE (offline), or 0, OFF, NO or FALSE`},
		{"offline, a near miss of a shipped model", map[string]string{"HOME": home, "HF_HUB_OFFLINE": "1", "HF_TOKEN": token}, "meta-llama/Llama-3.1-8B-Instrct",
			`membudget report: --model "meta-llama/Llama-3.1-8B-Instrct": no such file, no shipped model, not in the Hugging Face cache (~/.cache/huggingface/hub), and offline (HF_HUB_OFFLINE=1); did you mean "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.2-1B-Instruct"? ('membudget models' lists the shipped and cached models)`},
	}
	for _, tc := range tests {
		a := envApp(tc.env)
		var stdout, stderr bytes.Buffer
		code := a.run(&stdout, &stderr, []string{"report", "--model", tc.spec, "--class", "l4"})
		if code != exitBadArgs || stdout.Len() > 0 {
			t.Errorf("%s: exit %d, stdout %q", tc.name, code, stdout.String())
		}
		if got := strings.TrimSuffix(stderr.String(), "\n"); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if strings.Contains(stderr.String(), token) {
			t.Errorf("%s: the token is printed", tc.name)
		}
	}
}

// TestModelsCommand lists the shipped models and the cache's, with their
// model_type and whether they can be sized.
func TestModelsCommand(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cache := filepath.Join(home, ".cache", "huggingface", "hub")
	writeCache(t, cache, "acme/tiny-llama", tinyCommit, tinyLlamaFiles(t))
	writeCache(t, cache, "acme/odd", tinyCommit, map[string][]byte{"config.json": []byte(`{"model_type":"made_up_type"}`)})
	// A shipped id in the cache is reached with its revision: the shipped
	// config answers the id alone.
	writeCache(t, cache, "Qwen/Qwen3-8B", tinyCommit, map[string][]byte{"config.json": []byte(tinyLlamaConfig)})
	a := envApp(map[string]string{"HOME": home, "HF_HUB_OFFLINE": "1"})
	runGoldenIn(t, a, []cliCase{{"models", []string{"models"}, exitOK}})
	var stdout, stderr bytes.Buffer
	if code := a.run(&stdout, &stderr, []string{"models", "--json"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got modelsJSON
	if err := jsonUnmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var cached []modelEntryJSON
	for _, m := range got.Models {
		if m.Source == "cache" {
			cached = append(cached, m)
		}
		// Every shipped config sizes and names its type, Nemotron-H's
		// "time_step_limit": [0.0, Infinity] included.
		if m.Source == "shipped" && (!m.Sizable || m.ModelType == "") {
			t.Errorf("shipped %s: sizable %v, model_type %q", m.Model, m.Sizable, m.ModelType)
		}
	}
	want := []modelEntryJSON{
		{Model: "Qwen/Qwen3-8B@main", Source: "cache", Commit: tinyCommit, Refs: []string{"main"}, ModelType: "llama", Sizable: true},
		{Model: "acme/odd", Source: "cache", Commit: tinyCommit, Refs: []string{"main"}, ModelType: "made_up_type", Reason: `model_type "made_up_type" is not one membudget knows`},
		{Model: "acme/tiny-llama", Source: "cache", Commit: tinyCommit, Refs: []string{"main"}, ModelType: "llama", Sizable: true},
	}
	if diff := cmp.Diff(want, cached); diff != "" {
		t.Errorf("cached models (-want +got):\n%s", diff)
	}
	if got.Cache != cache {
		t.Errorf("cache %q, want %q", got.Cache, cache)
	}
	// Each listed --model value resolves to what is listed.
	for _, m := range want {
		if !m.Sizable {
			continue
		}
		r, _ := reportOf(t, a, "--model", m.Model)
		if r.Model.Source.Kind != "cache" || r.Model.ModelType != m.ModelType {
			t.Errorf("--model %s: %+v", m.Model, r.Model.Source)
		}
		if m.Model == "Qwen/Qwen3-8B@main" && r.Model.Weights.Description != "derived from config.json (the checkpoint's headers are not in the Hugging Face cache and HF_HUB_OFFLINE=1)" {
			t.Errorf("--model %s: a config.json cached alone, offline: %q", m.Model, r.Model.Weights.Description)
		}
	}
}

// shippedQuant is what resolveModel parses a shipped config.json with: its
// hf_quant_config.json, when one ships beside it.
func shippedQuant(name string) []model.Option {
	if data, path, ok := membudget.ModelQuantConfig(name); ok {
		return []model.Option{model.WithHFQuantConfig(path, data)}
	}
	return nil
}

// attachShippedProcessors attaches shipped model name's processor files
// to a, as the commands' loader does (membudget.Resolver).
func attachShippedProcessors(a *model.Arch, name string) error {
	combined, cpath, _ := membudget.ModelProcessor(name, model.ProcessorFile)
	single, spath, _ := membudget.ModelProcessor(name, model.PreprocessorFile)
	video, vpath, _ := membudget.ModelProcessor(name, model.VideoPreprocessorFile)
	image, ipath, video, vpath, err := model.PickProcessors(cpath, combined, spath, single, vpath, video)
	if err != nil {
		return err
	}
	return model.AttachProcessors(a, ipath, image, vpath, video)
}

// TestShippedModelOptFP8IsSizedInFP8: nvidia/Llama-3.1-70B-Instruct-FP8's
// config.json declares no quantization; its hf_quant_config.json (ModelOpt
// FP8, lm_head excluded) makes every linear layer fp8. Weights per GPU at
// TP2, by hand from the config (hidden 8192, 64 heads of 128, 8 KV heads,
// intermediate 28672, 80 layers, vocabulary 128256, 131072 positions,
// bf16), each rank holding half of each linear:
//
//	qkv_proj (8192 + 2 x 1024) x 8192 / 2 =  41,943,040 weights
//	o_proj    8192 x 8192 / 2             =  33,554,432
//	gate_up   2 x 28672 x 8192 / 2        = 234,881,024
//	down      8192 x 28672 / 2            = 117,440,512
//	                                        427,819,008 per layer
//
// In fp8, 1 B a weight, plus ModelOpt's per-tensor weight_scale and
// input_scale (one fp32 each per linear after loading: 4 x 8 = 32 B) and
// two RMSNorms of 8192 in bf16 (32,768 B): 427,851,808 B per layer, x 80 =
// 34,228,144,640 B. The embedding and the excluded lm_head stay bf16:
// 128256 rows (a multiple of 64, no padding) / 2 x 8192 x 2 B =
// 1,050,673,152 B each. The final norm is 16,384 B and the rotary cos/sin
// table 131072 x 128 x 2 B = 33,554,432 B: 36,363,061,760 B in all.
// meta-llama's bf16 checkpoint of the same shapes has 2 B a linear weight
// and no scales: 80 x (855,638,016 + 32,768) + 2 x 1,050,673,152 + 16,384
// + 33,554,432 = 70,588,579,840 B.
func TestShippedModelOptFP8IsSizedInFP8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model, quantConfig, quantization, description string
		weights                                       uint64
	}{
		{"nvidia/Llama-3.1-70B-Instruct-FP8", "corpus/models/hf_quant_config/nvidia__Llama-3.1-70B-Instruct-FP8.json", "modelopt",
			"shipped with membudget (corpus/models/nvidia__Llama-3.1-70B-Instruct-FP8.json); quantization from hf_quant_config.json", 36363061760},
		{"meta-llama/Llama-3.1-70B-Instruct", "", "",
			"shipped with membudget (corpus/models/meta-llama__Llama-3.1-70B-Instruct.json)", 70588579840},
	}
	for _, tc := range tests {
		got, _ := reportOf(t, testApp(), "--model", tc.model, "-tp", "2")
		src := got.Model.Source
		if src.QuantConfig != tc.quantConfig || src.Description != tc.description || got.Serve.Quantization != tc.quantization {
			t.Errorf("%s: quant_config %q, quantization %q, source %q; want %q, %q, %q", tc.model, src.QuantConfig, got.Serve.Quantization, src.Description,
				tc.quantConfig, tc.quantization, tc.description)
		}
		if got.Footprint.Weights != tc.weights || got.Model.Weights.DerivedBytes != tc.weights {
			t.Errorf("%s: weights %d B per GPU (derived %d), want %d", tc.model, got.Footprint.Weights, got.Model.Weights.DerivedBytes, tc.weights)
		}
	}
}

// modeloptFP8 is nvidia/Llama-3.1-70B-Instruct-FP8's hf_quant_config.json.
const modeloptFP8 = `{"producer":{"name":"modelopt","version":"0.23.0"},` +
	`"quantization":{"quant_algo":"FP8","kv_cache_quant_algo":"FP8","exclude_modules":["lm_head"]}}`

// The tiny Llama in ModelOpt FP8 with lm_head excluded, by hand: per layer
// the linears' 128 x 64 + 64 x 64 + 256 x 64 + 64 x 128 = 36864 weights of
// 1 B, a weight_scale and an input_scale of 4 B for each of the 4 linears
// (32 B), and the two norms 2 x 64 x 2 B = 256 B: 37152 B; 2 layers, the
// embedding and lm_head 256 x 64 x 2 B each in bf16, the norm 128 B and
// the rotary table 4096 B.
const tinyLlamaFP8 = 2*37152 + 2*32768 + 128 + 4096

// TestHFQuantConfigFromTheHub: a model whose config.json declares no
// quantization is sized with the hf_quant_config.json fetched beside it,
// at the same commit, saved in the cache and read from it offline; one
// whose config.json declares it costs no request for the file; a failure
// other than 404 names --model.
func TestHFQuantConfigFromTheHub(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t, "")
	h.repos["nvidia/tiny-fp8"] = map[string][]byte{"config.json": []byte(tinyLlamaConfig), "hf_quant_config.json": []byte(modeloptFP8)}
	declared := strings.TrimSuffix(tinyLlamaConfig, "}") + `,"quantization_config":{"quant_method":"fp8","activation_scheme":"dynamic"}}`
	h.repos["acme/declared"] = map[string][]byte{"config.json": []byte(declared), "hf_quant_config.json": []byte(modeloptFP8)}
	h.repos["acme/broken"] = map[string][]byte{"config.json": []byte(tinyLlamaConfig)}
	h.broken["acme/broken/hf_quant_config.json"] = http.StatusBadRequest
	home := t.TempDir()
	snapshot := filepath.Join(home, ".cache/huggingface/hub/models--nvidia--tiny-fp8/snapshots", tinyCommit)
	a := envApp(map[string]string{"HOME": home, "HF_ENDPOINT": h.srv.URL})
	got, stderr := reportOf(t, a, "--model", "nvidia/tiny-fp8")
	want := sourceJSON{Kind: "hub", Description: "Hugging Face Hub " + h.srv.URL + ", main at 0123456, saved in ~/.cache/huggingface/hub; quantization from hf_quant_config.json",
		Config: filepath.Join(snapshot, "config.json"), Revision: "main", Commit: tinyCommit, QuantConfig: filepath.Join(snapshot, "hf_quant_config.json")}
	if diff := cmp.Diff(want, got.Model.Source); diff != "" || stderr != "" {
		t.Errorf("source (-want +got):\n%s\nstderr %q", diff, stderr)
	}
	if got.Footprint.Weights != tinyLlamaFP8 || got.Serve.Quantization != "modelopt" {
		t.Errorf("weights %d B, quantization %q; want %d, modelopt", got.Footprint.Weights, got.Serve.Quantization, tinyLlamaFP8)
	}
	wantLog := "GET /nvidia/tiny-fp8/resolve/" + tinyCommit + "/hf_quant_config.json "
	if len(h.log) < 2 || h.log[1] != wantLog {
		t.Errorf("requests %q; want config.json, then %q", h.log, wantLog)
	}

	got, _ = reportOf(t, a, "--model", "acme/declared")
	if got.Serve.Quantization != "fp8" || got.Model.Source.QuantConfig != "" {
		t.Errorf("config.json's own quantization_config: %q, quant_config %q", got.Serve.Quantization, got.Model.Source.QuantConfig)
	}
	for _, l := range h.log {
		if strings.HasPrefix(l, "GET /acme/declared/") && strings.Contains(l, "hf_quant_config.json") {
			t.Errorf("asked for although config.json declares its quantization: %s", l)
		}
	}

	var stdout, errOut bytes.Buffer
	code := a.run(&stdout, &errOut, []string{"report", "--model", "acme/broken", "--class", "l4"})
	wantErr := `membudget report: --model "acme/broken": reading hf_quant_config.json: GET ` + h.srv.URL + "/acme/broken/resolve/" + tinyCommit + "/hf_quant_config.json: HTTP 400\n"
	if code != exitBadArgs || errOut.String() != wantErr {
		t.Errorf("a broken hf_quant_config.json: exit %d, stderr\n%s\nwant\n%s", code, errOut.String(), wantErr)
	}

	a = envApp(map[string]string{"HOME": home, "HF_HUB_OFFLINE": "1"})
	got, _ = reportOf(t, a, "--model", "nvidia/tiny-fp8")
	if got.Model.Source.Kind != "cache" || got.Model.Source.QuantConfig != filepath.Join(snapshot, "hf_quant_config.json") || got.Footprint.Weights != tinyLlamaFP8 {
		t.Errorf("offline from the cache: %+v, weights %d", got.Model.Source, got.Footprint.Weights)
	}
}

// TestModelsCommandReadsHFQuantConfig: the listing parses a cached model
// with its hf_quant_config.json, so one membudget cannot read is listed as
// such; one not in the cache is none, as vLLM reads it offline.
func TestModelsCommandReadsHFQuantConfig(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cache := filepath.Join(home, ".cache", "huggingface", "hub")
	writeCache(t, cache, "nvidia/tiny-fp8", tinyCommit, map[string][]byte{"config.json": []byte(tinyLlamaConfig), "hf_quant_config.json": []byte(modeloptFP8)})
	writeCache(t, cache, "nvidia/tiny-odd", tinyCommit, map[string][]byte{"config.json": []byte(tinyLlamaConfig),
		"hf_quant_config.json": []byte(`{"producer":{"name":"modelopt"},"quantization":{"quant_algo":"W9A9"}}`)})
	writeCache(t, cache, "nvidia/tiny-uncached", tinyCommit, map[string][]byte{"config.json": []byte(tinyLlamaConfig)})
	a := envApp(map[string]string{"HOME": home, "HF_HUB_OFFLINE": "1"})
	var stdout, stderr bytes.Buffer
	if code := a.run(&stdout, &stderr, []string{"models", "--json"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got modelsJSON
	if err := jsonUnmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	sizable := map[string]bool{}
	for _, m := range got.Models {
		sizable[m.Model] = m.Sizable
		if m.Model == "nvidia/tiny-odd" && !strings.Contains(m.Reason, `"W9A9" is not supported`) {
			t.Errorf("nvidia/tiny-odd: reason %q, want the quant_algo named", m.Reason)
		}
	}
	want := map[string]bool{"nvidia/tiny-fp8": true, "nvidia/tiny-odd": false, "nvidia/tiny-uncached": true,
		"nvidia/Llama-3.1-70B-Instruct-FP8": true, "nvidia/Qwen3-235B-A22B-NVFP4": true, "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4": true}
	for m, w := range want {
		if s, ok := sizable[m]; !ok || s != w {
			t.Errorf("%s: listed %v, sizable %v; want sizable %v", m, ok, s, w)
		}
	}
}

// TestServeLineKeepsTheRevision: --model org/name@v1 is printed as
// `vllm serve org/name --revision v1` (main, the default, as no flag), by
// report and by plan, and that line pasted back sizes the same serve at
// the same revision.
func TestServeLineKeepsTheRevision(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t, "")
	h.repos["acme/tiny-llama"] = tinyLlamaFiles(t)
	home := t.TempDir()
	a := envApp(map[string]string{"HOME": home, "HF_ENDPOINT": h.srv.URL})
	var stdout, stderr bytes.Buffer
	if code := a.run(&stdout, &stderr, []string{"report", "--model", "acme/tiny-llama@v1", "--class", "l4"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := "\nserve   vllm serve acme/tiny-llama --revision v1 --gpu-memory-utilization "; !strings.Contains(stdout.String(), want) {
		t.Errorf("no %q in\n%s", want, stdout.String())
	}
	if got, _ := reportOf(t, a, "--model", "acme/tiny-llama"); strings.Contains(got.Serve.Command, "--revision") {
		t.Errorf("main, the default: %s", got.Serve.Command)
	}

	a = envApp(map[string]string{"HOME": home, "HF_HUB_OFFLINE": "1"})
	first := reportServe(t, a, []string{"report", "--json", "--model", "acme/tiny-llama@v1", "--class", "l4"})
	again := reportServe(t, a, append([]string{"report", "--json", "--class", "l4"}, strings.Fields(first.Serve.Command)...))
	first.Serve.Defaults, again.Serve.Defaults = nil, nil
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("%s: the printed line sizes another serve (-first +again):\n%s", first.Serve.Command, diff)
	}
	if again.Model.Source.Revision != "v1" {
		t.Errorf("the pasted line resolved revision %q, want v1", again.Model.Source.Revision)
	}

	// plan's commands load the revision planned.
	stdout.Reset()
	if code := a.run(&stdout, &stderr, []string{"plan", "--json", "--model", "acme/tiny-llama@v1", "--classes", "l4", "--length", "128", "--concurrency", "1"}); code != exitOK {
		t.Fatalf("plan: exit %d: %s", code, stderr.String())
	}
	var plan planJSON
	if err := jsonUnmarshal(stdout.Bytes(), &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Rows) == 0 {
		t.Fatal("plan: no rows for a tiny model on an L4")
	}
	for _, r := range plan.Rows {
		if !strings.HasPrefix(r.Command, "vllm serve acme/tiny-llama --revision v1 ") {
			t.Errorf("plan: %s does not load revision v1", r.Command)
		}
	}
}

// TestLaunchLineKeepsTheRevision: with --engine sglang, --model
// org/name@v1 is printed as `--model-path org/name --revision v1`, and that
// launch line pasted back resolves the same revision; a pasted revision
// that contradicts --model is an error naming both.
func TestLaunchLineKeepsTheRevision(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t, "")
	h.repos["acme/tiny-llama"] = tinyLlamaFiles(t)
	a := envApp(map[string]string{"HOME": t.TempDir(), "HF_ENDPOINT": h.srv.URL})
	var stdout, stderr bytes.Buffer
	if code := a.run(&stdout, &stderr, []string{"report", "--engine", "sglang", "--model", "acme/tiny-llama@v1", "--class", "l4"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	line := ""
	for l := range strings.Lines(stdout.String()) {
		if _, after, ok := strings.Cut(l, "python -m sglang.launch_server"); ok {
			line = "python -m sglang.launch_server " + strings.TrimSpace(after)
		}
	}
	if !strings.HasPrefix(line, "python -m sglang.launch_server --model-path acme/tiny-llama --revision v1 ") {
		t.Fatalf("launch line %q does not load revision v1:\n%s", line, stdout.String())
	}
	stdout.Reset()
	args := append([]string{"report", "--json", "--engine", "sglang", "--class", "l4"}, strings.Fields(line)...)
	if code := a.run(&stdout, &stderr, args); code != exitOK {
		t.Fatalf("pasted back: exit %d: %s", code, stderr.String())
	}
	var again struct {
		Model struct {
			Source struct{ Revision string }
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &again); err != nil {
		t.Fatal(err)
	}
	if again.Model.Source.Revision != "v1" {
		t.Errorf("the pasted launch line resolved revision %q, want v1", again.Model.Source.Revision)
	}
	stderr.Reset()
	bad := []string{"report", "--engine", "sglang", "--class", "l4", "--model", "acme/tiny-llama@v2", "python", "-m", "sglang.launch_server", "--revision", "v1"}
	if code := run(io.Discard, &stderr, bad); code != exitBadArgs || !strings.Contains(stderr.String(), "--model acme/tiny-llama@v2 and the launch line's --revision v1 name two revisions") {
		t.Errorf("contradicting revisions: exit %d, %q", code, stderr.String())
	}
}

// TestPastedRevision: a pasted --revision is read into the model's
// resolution: main changes nothing, a path has no revisions (listed as
// ignored), and a missing, malformed or conflicting one is refused.
func TestPastedRevision(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(tinyLlamaConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	got := reportServe(t, testApp(), []string{"report", "--json", "--class", "l4", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--revision", "main"})
	if got.Model.Source.Kind != "shipped" || strings.Contains(got.Serve.Command, "--revision") {
		t.Errorf("--revision main: source %s, %s", got.Model.Source.Kind, got.Serve.Command)
	}
	got = reportServe(t, testApp(), []string{"report", "--json", "--class", "l4", "vllm", "serve", dir, "--revision=v1"})
	if diff := cmp.Diff([]string{"--revision v1"}, got.Serve.Ignored); diff != "" || strings.Contains(got.Serve.Command, "--revision") {
		t.Errorf("a path: ignored (-want +got):\n%s\n%s", diff, got.Serve.Command)
	}
	for _, tc := range []struct{ args, want string }{
		{"--model acme/tiny@v2 vllm serve --revision v1", "--model acme/tiny@v2 and the vllm serve line's --revision v1 name two revisions"},
		{"vllm serve acme/tiny --revision", "--revision in the vllm serve line needs a value: a branch, tag or commit"},
		{"vllm serve acme/tiny --revision v1 --revision=v2", "the vllm serve line gives --revision twice: v1 and v2"},
		{"vllm serve acme/tiny --revision a..b", `--revision in the vllm serve line: revision "a..b": ".." and "@{" are not allowed`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, append([]string{"report", "--class", "l4"}, strings.Fields(tc.args)...))
		if code != exitBadArgs || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}
