package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// shippedIDs stand for the corpus the CLI passes (membudget.ModelNames).
var shippedIDs = []string{
	"Qwen__Qwen3-32B",
	"Qwen__Qwen3-32B-FP8",
	"Qwen__Qwen3-8B",
	"meta-llama__Llama-3.1-8B-Instruct",
	"meta-llama__Llama-3.2-1B-Instruct",
}

func shipped(id string) ([]byte, string, bool) {
	if !slices.Contains(shippedIDs, id) {
		return nil, "", false
	}
	return []byte(`{"shipped":"` + id + `"}`), "corpus/models/" + id + ".json", true
}

func withShipped(r Resolver) Resolver {
	r.Shipped, r.ShippedIDs = shipped, shippedIDs
	return r
}

// got is what a resolution test compares: where the model came from and
// which bytes it read.
type got struct {
	Kind             SourceKind
	Description      string
	Config           string
	RepoID, Revision string
	Commit           string
}

func summary(m *Model) got {
	return got{m.Source.Kind, m.Source.Description, string(m.Config), m.RepoID, m.Revision, m.Commit}
}

func TestResolveOrder(t *testing.T) {
	h := newFakeHub(t)
	llamaConfig, llamaShards := tinyLlama()
	h.add("meta-llama/Llama-tiny", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: checkpointFiles(t, llamaConfig, llamaShards...)}})
	qwenConfig, qwenShards := tinyQwen3MoE()
	h.add("Qwen/Qwen3-MoE-tiny", &fakeRepo{refs: map[string]string{"main": commitB, "refs/pr/1": commitC},
		files: map[string]map[string]fakeFile{
			commitB: checkpointFiles(t, qwenConfig, qwenShards...),
			commitC: checkpointFiles(t, `{"pr":1}`, qwenShards...),
		}})
	// The shipped Llama-3.1-8B-Instruct is also on the Hub: shipped wins
	// unless a revision is asked for.
	h.add("meta-llama/Llama-3.1-8B-Instruct", &fakeRepo{refs: map[string]string{"main": commitC},
		files: map[string]map[string]fakeFile{commitC: {"config.json": smallFile([]byte(`{"from":"hub"}`))}}})

	home := t.TempDir()
	r := withShipped(h.resolver(t))
	r.Home = home
	r.CacheDir = filepath.Join(home, ".cache", "huggingface", "hub")
	// The cache holds tiny Llama at commit A, main.
	writeCache(t, r.CacheDir, "meta-llama/Llama-tiny", commitA, []string{"main"}, checkpointFiles(t, llamaConfig, llamaShards...))

	dir := filepath.Join(home, "models", "llama")
	writeDir(t, dir, map[string]fakeFile{"config.json": smallFile([]byte(`{"dir":true}`))})

	tests := []struct {
		name     string
		spec     string
		want     got
		requests int // requests the fake Hub must have seen for it
	}{
		{
			name: "a config.json path", spec: filepath.Join(dir, "config.json"),
			want: got{Kind: SourcePath, Description: "file " + filepath.Join(dir, "config.json"), Config: `{"dir":true}`},
		},
		{
			name: "a directory holding config.json", spec: dir,
			want: got{Kind: SourcePath, Description: "directory " + dir, Config: `{"dir":true}`},
		},
		{
			name: "a shipped id wins over the Hub", spec: "meta-llama/Llama-3.1-8B-Instruct",
			want: got{Kind: SourceShipped, Description: "shipped with membudget (corpus/models/meta-llama__Llama-3.1-8B-Instruct.json)",
				Config: `{"shipped":"meta-llama__Llama-3.1-8B-Instruct"}`, RepoID: "meta-llama/Llama-3.1-8B-Instruct"},
		},
		{
			name: "a shipped id in any case, with __", spec: "META-LLAMA__llama-3.2-1b-instruct",
			want: got{Kind: SourceShipped, Description: "shipped with membudget (corpus/models/meta-llama__Llama-3.2-1B-Instruct.json)",
				Config: `{"shipped":"meta-llama__Llama-3.2-1B-Instruct"}`, RepoID: "meta-llama/Llama-3.2-1B-Instruct"},
		},
		{
			name: "the cache, refs/main", spec: "meta-llama/Llama-tiny",
			want: got{Kind: SourceCache, Description: "Hugging Face cache ~/.cache/huggingface/hub, snapshot aaaaaaa (refs/main)",
				Config: llamaConfig, RepoID: "meta-llama/Llama-tiny", Revision: "main", Commit: commitA},
		},
		{
			name: "the cache, by commit", spec: "meta-llama/Llama-tiny@" + commitA,
			want: got{Kind: SourceCache, Description: "Hugging Face cache ~/.cache/huggingface/hub, snapshot aaaaaaa",
				Config: llamaConfig, RepoID: "meta-llama/Llama-tiny", Revision: commitA, Commit: commitA},
		},
		{
			name: "the Hub", spec: "Qwen/Qwen3-MoE-tiny",
			want: got{Kind: SourceHub, Description: "Hugging Face Hub " + h.hub.URL + ", main at bbbbbbb, saved in ~/.cache/huggingface/hub",
				Config: qwenConfig, RepoID: "Qwen/Qwen3-MoE-tiny", Revision: "main", Commit: commitB},
			requests: 1,
		},
		{
			name: "then the cache has it", spec: "Qwen/Qwen3-MoE-tiny",
			want: got{Kind: SourceCache, Description: "Hugging Face cache ~/.cache/huggingface/hub, snapshot bbbbbbb (refs/main)",
				Config: qwenConfig, RepoID: "Qwen/Qwen3-MoE-tiny", Revision: "main", Commit: commitB},
		},
		{
			name: "a pull-request ref on the Hub", spec: "Qwen/Qwen3-MoE-tiny@refs/pr/1",
			want: got{Kind: SourceHub, Description: "Hugging Face Hub " + h.hub.URL + ", refs/pr/1 at ccccccc, saved in ~/.cache/huggingface/hub",
				Config: `{"pr":1}`, RepoID: "Qwen/Qwen3-MoE-tiny", Revision: "refs/pr/1", Commit: commitC},
			requests: 1,
		},
		{
			name: "a revision skips the shipped model", spec: "meta-llama/Llama-3.1-8B-Instruct@main",
			want: got{Kind: SourceHub, Description: "Hugging Face Hub " + h.hub.URL + ", main at ccccccc, saved in ~/.cache/huggingface/hub",
				Config: `{"from":"hub"}`, RepoID: "meta-llama/Llama-3.1-8B-Instruct", Revision: "main", Commit: commitC},
			requests: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(h.hubRequests())
			m, err := r.Resolve(context.Background(), tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summary(m)); diff != "" {
				t.Errorf("Resolve(%q) (-want +got):\n%s", tc.spec, diff)
			}
			if n := len(h.hubRequests()) - before; n != tc.requests {
				t.Errorf("the Hub saw %d requests, want %d", n, tc.requests)
			}
			if len(m.Warnings) > 0 {
				t.Errorf("warnings: %q", m.Warnings)
			}
		})
	}
	// The pull-request revision was asked with its slashes escaped, as
	// huggingface_hub's hf_hub_url quotes it.
	var sawPR bool
	for _, q := range h.hubRequests() {
		sawPR = sawPR || q.Path == "/Qwen/Qwen3-MoE-tiny/resolve/refs%2Fpr%2F1/config.json"
	}
	if !sawPR {
		t.Errorf("no request for refs%%2Fpr%%2F1 among %v", h.hubRequests())
	}
}

func TestResolveErrors(t *testing.T) {
	h := newFakeHub(t)
	h.add("meta-llama/Gated-tiny", &fakeRepo{gated: true, refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(`{}`))}}})
	h.add("someone/private-tiny", &fakeRepo{private: true, refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(`{}`))}}})
	h.add("org/no-config", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: {"README.md": smallFile([]byte(`hi`))}}})
	base := withShipped(h.resolver(t))
	noToken := base
	noToken.Token, noToken.TokenSource = "", ""
	offline := base
	offline.Offline = true
	ep := h.hub.URL

	tests := []struct {
		name     string
		r        Resolver
		spec     string
		want     string // the whole message
		status   int    // the HubError's status, 0 for none
		offline  bool   // errors.Is(err, ErrOffline)
		requests int
	}{
		{
			name: "missing repo, with a token: 404 RepoNotFound", r: base, spec: "org/missing",
			want:   `--model "org/missing": no such file, no shipped model, not in the Hugging Face cache (` + base.CacheDir + `), and no model org/missing on ` + ep + ` (HTTP 404) [Hub: "Repository not found"]`,
			status: 404, requests: 1,
		},
		{
			name: "missing repo, no token: the Hub answers 401", r: noToken, spec: "org/missing",
			want:   `--model "org/missing": no such file, no shipped model, not in the Hugging Face cache (` + base.CacheDir + `), and org/missing is gated, private or missing on ` + ep + ` (HTTP 401 without a token): set HF_TOKEN to a token with access [Hub: "Repository not found"]`,
			status: 401, requests: 1,
		},
		{
			name: "gated, no token", r: noToken, spec: "meta-llama/Gated-tiny",
			want:   `--model "meta-llama/Gated-tiny": no such file, no shipped model, not in the Hugging Face cache (` + base.CacheDir + `), and meta-llama/Gated-tiny is a gated model (HTTP 401): request access at ` + ep + `/meta-llama/Gated-tiny, then set HF_TOKEN to a token of the account that has it [Hub: "Access to model meta-llama/Gated-tiny is restricted. You must have access to it and be authenticated to access it."]`,
			status: 401, requests: 1,
		},
		{
			name: "gated, a token without access: 403", r: func() Resolver { r := base; r.Token = "hf_other"; return r }(), spec: "meta-llama/Gated-tiny",
			want:   `--model "meta-llama/Gated-tiny": no such file, no shipped model, not in the Hugging Face cache (` + base.CacheDir + `), and meta-llama/Gated-tiny is a gated model (HTTP 403): request access at ` + ep + `/meta-llama/Gated-tiny, then set HF_TOKEN to a token of the account that has it (the token from HF_TOKEN has no access yet) [Hub: "Access to model meta-llama/Gated-tiny is restricted and you are not in the authorized list."]`,
			status: 403, requests: 1,
		},
		{
			name: "private, a wrong token", r: func() Resolver { r := base; r.Token = "hf_wrong"; return r }(), spec: "someone/private-tiny",
			want:   `--model "someone/private-tiny": no such file, no shipped model, not in the Hugging Face cache (` + base.CacheDir + `), and the Hub refused the token from HF_TOKEN for someone/private-tiny (HTTP 401): it is invalid or has no access to this model; set HF_TOKEN to a token that has [Hub: "Invalid credentials in Authorization header"]`,
			status: 401, requests: 1,
		},
		{
			name: "missing revision: 404 RevisionNotFound", r: base, spec: "meta-llama/Gated-tiny@v9",
			want:   `--model "meta-llama/Gated-tiny@v9": no such file, no shipped model, not in the Hugging Face cache (` + base.CacheDir + `), and model meta-llama/Gated-tiny has no revision "v9" (HTTP 404) [Hub: "Invalid rev id: v9"]`,
			status: 404, requests: 1,
		},
		{
			name: "no config.json: 404 EntryNotFound", r: base, spec: "org/no-config",
			want:   `--model "org/no-config": no such file, no shipped model, not in the Hugging Face cache (` + base.CacheDir + `), and model org/no-config has no file config.json at revision main (HTTP 404) [Hub: "config.json does not exist"]`,
			status: 404, requests: 1,
		},
		{
			name: "offline and not cached", r: offline, spec: "org/anything",
			want:    `--model "org/anything": no such file, no shipped model, not in the Hugging Face cache (` + base.CacheDir + `), and offline (HF_HUB_OFFLINE=1)`,
			offline: true,
		},
		{
			name: "offline, a near miss of a shipped id", r: offline, spec: "meta-llama/Llama-3.1-8B-Instrct",
			// Instrct is 1 edit from Instruct; 3.2-1B-Instruct is 3 (two
			// digits and the u), within a quarter of the 32 characters.
			want:    `--model "meta-llama/Llama-3.1-8B-Instrct": no such file, no shipped model, not in the Hugging Face cache (` + base.CacheDir + `), and offline (HF_HUB_OFFLINE=1); did you mean "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.2-1B-Instruct"?`,
			offline: true,
		},
		{
			name: "offline, the name without its namespace", r: offline, spec: "qwen3-32b",
			// qwen3-32b is the name of Qwen__Qwen3-32B (distance 0), the
			// beginning of Qwen__Qwen3-32B-FP8 (distance 4, ranked before
			// the nearer edit for beginning with it), and 2 edits from
			// qwen3-8b (3->8, drop 2).
			want:    `--model "qwen3-32b": no such file, no shipped model, not in the Hugging Face cache (` + base.CacheDir + `), and offline (HF_HUB_OFFLINE=1); did you mean "Qwen/Qwen3-32B", "Qwen/Qwen3-32B-FP8", "Qwen/Qwen3-8B"?`,
			offline: true,
		},
		{
			name: "not a model id", r: base, spec: "a/b/c",
			want: `--model "a/b/c": no such file, no shipped model, and not a model id: "a/b/c": a model id is name or namespace/name, with one slash at most`,
		},
		{
			name: "a path that does not exist is not looked up further", r: base, spec: "./nope/config.json",
			want: `--model "./nope/config.json": no such file or directory`,
		},
		{
			name: "a revision that could leave refs/", r: base, spec: "org/name@../../x",
			want: `--model "org/name@../../x": no such file, no shipped model, and not a model id: revision "../../x": ".." and "@{" are not allowed`,
		},
		{
			name: "empty", r: base, spec: "",
			want: `--model "": empty: want a config.json path or a model id such as meta-llama/Llama-3.1-8B-Instruct`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(h.hubRequests())
			m, err := tc.r.Resolve(context.Background(), tc.spec)
			if err == nil {
				t.Fatalf("Resolve(%q) = %+v, want an error", tc.spec, summary(m))
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			var re *ResolveError
			if !errors.As(err, &re) || re.Spec != tc.spec {
				t.Errorf("error is %T, not a *ResolveError for %q", err, tc.spec)
			}
			var he *HubError
			if status := 0; errors.As(err, &he) {
				status = he.Status
				if status != tc.status {
					t.Errorf("HubError status %d, want %d", status, tc.status)
				}
			} else if tc.status != 0 {
				t.Errorf("no HubError, want status %d", tc.status)
			}
			if errors.Is(err, ErrOffline) != tc.offline {
				t.Errorf("errors.Is(err, ErrOffline) = %v, want %v", !tc.offline, tc.offline)
			}
			if n := len(h.hubRequests()) - before; n != tc.requests {
				t.Errorf("the Hub saw %d requests, want %d", n, tc.requests)
			}
			if strings.Contains(err.Error(), testToken) {
				t.Errorf("the error shows the token")
			}
		})
	}
}

// Every failed attempt of a request that cannot answer in time is cut at
// the timeout, and retried a bounded number of times.
func TestResolveTimeout(t *testing.T) {
	h := newFakeHub(t)
	h.slow = true
	r := h.resolver(t)
	r.Timeout = 50 * time.Millisecond
	r.Retries = 2
	start := time.Now()
	_, err := r.Resolve(context.Background(), "org/slow")
	if err == nil || !strings.Contains(err.Error(), "no complete answer within 50ms (3 tries)") {
		t.Fatalf("err = %v, want a timeout after 3 tries", err)
	}
	if n := len(h.hubRequests()); n != 3 {
		t.Errorf("%d requests, want 1 + 2 retries", n)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("took %v for three 50 ms attempts", took)
	}
}

// A caller's cancellation stops at once, without retries.
func TestResolveCanceled(t *testing.T) {
	h := newFakeHub(t)
	h.slow = true
	r := h.resolver(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := r.Resolve(ctx, "org/slow")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the caller's deadline", err)
	}
	if n := len(h.hubRequests()); n != 1 {
		t.Errorf("%d requests after the caller gave up, want 1", n)
	}
}

func TestResolveRetries(t *testing.T) {
	tests := []struct {
		name      string
		fail      int // 503 answers before the Hub recovers
		retries   int
		wantErr   string
		requests  int
		backoffs  []int
		wantFetch bool
	}{
		// 2 failures, 3 retries allowed: the third attempt succeeds.
		{name: "recovers within the retries", fail: 2, retries: 3, requests: 3, backoffs: []int{1, 2}, wantFetch: true},
		// Always failing: 1 attempt + 3 retries = 4 requests, then the error.
		{name: "bounded", fail: 100, retries: 3, requests: 4, backoffs: []int{1, 2, 3}, wantErr: "HTTP 503 (4 tries)"},
		{name: "no retries", fail: 100, retries: 0, requests: 1, wantErr: "HTTP 503"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newFakeHub(t)
			h.add("org/model", &fakeRepo{refs: map[string]string{"main": commitA},
				files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(`{}`))}}})
			h.fail = tc.fail
			r := h.resolver(t)
			r.Retries = tc.retries
			var backoffs []int
			r.Backoff = func(n int) time.Duration { backoffs = append(backoffs, n); return 0 }
			_, err := r.Resolve(context.Background(), "org/model")
			if tc.wantFetch != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if n := len(h.hubRequests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			if diff := cmp.Diff(tc.backoffs, backoffs); diff != "" {
				t.Errorf("backoffs (-want +got):\n%s", diff)
			}
		})
	}
}

// A renamed repository answers with a relative redirect on the Hub's own
// host: it is followed, with the token.
func TestResolveFollowsRenamedRepo(t *testing.T) {
	h := newFakeHub(t)
	h.add("new-org/model", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(`{"renamed":true}`))}}})
	h.renamed["old-org/model"] = "new-org/model"
	r := h.resolver(t)
	m, err := r.Resolve(context.Background(), "old-org/model")
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Config) != `{"renamed":true}` || m.Commit != commitA {
		t.Errorf("got %s at %s", m.Config, m.Commit)
	}
	want := []fakeRequest{
		{Path: "/old-org/model/resolve/main/config.json", Auth: "Bearer " + testToken},
		{Path: "/new-org/model/resolve/main/config.json", Auth: "Bearer " + testToken},
	}
	if diff := cmp.Diff(want, h.hubRequests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// An https endpoint that redirects to plain http is not followed.
func TestResolveRefusesRedirectToHTTP(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the plain-http target was asked %s", r.URL)
	}))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Repo-Commit", commitA)
		http.Redirect(w, r, plain.URL+"/blob", http.StatusFound)
	}))
	defer secure.Close()
	r := Resolver{CacheDir: t.TempDir(), Endpoint: secure.URL, Client: secure.Client(), Token: testToken}
	_, err := r.Resolve(context.Background(), "org/model")
	if err == nil || !strings.Contains(err.Error(), "redirect to "+plain.URL+"/blob refused: only https is followed") {
		t.Fatalf("err = %v, want the redirect refused", err)
	}
}

// The token never leaves through an error, a print of the resolver or the
// model, JSON, or a file in the cache; a server that echoes it back in its
// error message is scrubbed.
func TestTokenNeverLeaks(t *testing.T) {
	h := newFakeHub(t)
	h.echoAuth = true
	llamaConfig, llamaShards := tinyLlama()
	h.add("meta-llama/Llama-tiny", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: checkpointFiles(t, llamaConfig, llamaShards...)}})
	h.add("meta-llama/Gated-tiny", &fakeRepo{gated: true, refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(`{}`))}}})
	r := h.resolver(t)

	var texts []string
	for _, spec := range []string{"org/missing", "meta-llama/Llama-tiny@v9", "meta-llama/Llama-tiny@refs/pr/9"} {
		_, err := r.Resolve(context.Background(), spec)
		if err == nil {
			t.Fatalf("Resolve(%q) succeeded", spec)
		}
		if !strings.Contains(err.Error(), "you sent Bearer [redacted]") {
			t.Errorf("the echo was not scrubbed: %v", err)
		}
		texts = append(texts, err.Error(), fmt.Sprintf("%+v %#v", err, err))
	}
	wrong := r
	wrong.Token = testToken + "x" // a wrong token that contains the real one
	if _, err := wrong.Resolve(context.Background(), "meta-llama/Gated-tiny"); err != nil {
		texts = append(texts, err.Error())
	}
	m, err := r.Resolve(context.Background(), "meta-llama/Llama-tiny")
	if err != nil {
		t.Fatal(err)
	}
	ck, err := m.Tensors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(struct{ T Token }{r.Token})
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts,
		fmt.Sprint(r), fmt.Sprintf("%v %+v %#v %s %q %x", r, r, r, r.Token, r.Token, r.Token),
		fmt.Sprintf("%v %+v %#v", m, m, *m), fmt.Sprintf("%+v", ck), string(js))
	for _, s := range texts {
		if strings.Contains(s, testToken) {
			t.Errorf("the token shows in %q", s)
		}
	}
	if string(js) != `{"T":"[redacted]"}` {
		t.Errorf("JSON of the token = %s", js)
	}
	err = filepath.Walk(r.CacheDir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if strings.Contains(string(data), testToken) {
			t.Errorf("the token is written in %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The Hub got the token on every request; the CDN never did.
	for _, q := range h.hubRequests() {
		if q.Auth != "Bearer "+testToken && q.Auth != "Bearer "+testToken+"x" {
			t.Errorf("the Hub got Authorization %q for %s", q.Auth, q.Path)
		}
	}
	if len(h.cdnLog()) == 0 {
		t.Fatal("no shard header came from the CDN")
	}
	for _, q := range h.cdnLog() {
		if q.Auth != "" {
			t.Errorf("the CDN got Authorization for %s", q.Path)
		}
	}
}

// The token goes to the endpoint's exact scheme, host and port only. Go's
// own redirect rule would also send it to a subdomain (isDomainOrSubdomain
// in net/http), which is where the Hub's CDN lives; huggingface_hub drops it
// whenever the host changes (file_download.py, _get_metadata_or_catch_error).
func TestSameOrigin(t *testing.T) {
	endpoint, _ := url.Parse("https://huggingface.co")
	tests := []struct {
		u    string
		want bool
	}{
		{"https://huggingface.co/org/m/resolve/main/config.json", true},
		{"https://HuggingFace.co/x", true},
		{"https://cdn-lfs.huggingface.co/repos/ab/cd", false},
		{"https://huggingface.co:8443/x", false},
		{"http://huggingface.co/x", false},
		{"https://huggingface.co.evil.example/x", false},
	}
	for _, tc := range tests {
		u, err := url.Parse(tc.u)
		if err != nil {
			t.Fatal(err)
		}
		if got := sameOrigin(u, endpoint); got != tc.want {
			t.Errorf("sameOrigin(%s) = %v, want %v", tc.u, got, tc.want)
		}
	}
}

// refusingEndpoint is a Hub address whose connections are refused: port 1
// of the loopback address. A closed httptest server's port would do only
// until a test running in parallel is given it again (the kernel hands out
// ephemeral ports, 32768 and up on Linux, where no test server can take
// port 1).
const refusingEndpoint = "http://127.0.0.1:1"

// A refused connection is retried, a bounded number of times.
func TestResolveConnectionRefused(t *testing.T) {
	r := Resolver{CacheDir: t.TempDir(), Endpoint: refusingEndpoint, Retries: 2, Backoff: func(int) time.Duration { return 0 }}
	_, err := r.Resolve(context.Background(), "org/model")
	if err == nil || !strings.Contains(err.Error(), "connection refused (3 tries)") {
		t.Fatalf("err = %v, want the refusal after 1 + 2 tries", err)
	}
}
