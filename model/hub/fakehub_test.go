package hub

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"membudget/model/safetensors"
)

// testToken is the token the fake Hub accepts; tests assert it never shows
// up where it must not.
const testToken = "hf_TESTtokenSECRET0123456789abcdefgh"

// Commits of the fake repos: 40 hex digits each.
const (
	commitA = "aaaaaaa1aaaaaaa2aaaaaaa3aaaaaaa4aaaaaaa5"
	commitB = "bbbbbbb1bbbbbbb2bbbbbbb3bbbbbbb4bbbbbbb5"
	commitC = "ccccccc1ccccccc2ccccccc3ccccccc4ccccccc5"
)

// fakeFile is a file of a fake repo: head, then zeros up to size (so that a
// multi-gigabyte shard costs only its header). lfs files are served as the
// Hub serves LFS files: a 302 to a CDN.
type fakeFile struct {
	head []byte
	size int64
	lfs  bool
}

func smallFile(data []byte) fakeFile { return fakeFile{head: data, size: int64(len(data))} }

// etag is what the Hub names the file by: the git blob's sha1 for a
// regular file (sha1 of "blob <size>\x00" and the content), the content's
// sha256 for an LFS file (that of the content when the head is all of it,
// else of the head and size, which identify a virtual file never fetched
// whole).
func (f fakeFile) etag() string {
	if f.lfs && f.size == int64(len(f.head)) {
		s := sha256.Sum256(f.head)
		return hex.EncodeToString(s[:])
	}
	if f.lfs {
		s := sha256.Sum256(append(slices.Clone(f.head), strconv.FormatInt(f.size, 10)...))
		return hex.EncodeToString(s[:])
	}
	s := sha1.Sum(append([]byte("blob "+strconv.FormatInt(f.size, 10)+"\x00"), f.bytes()...))
	return hex.EncodeToString(s[:])
}

func (f fakeFile) reader() io.ReadSeeker { return &virtualReader{head: f.head, size: f.size} }

// bytes returns the whole content, zeros included (for small files only).
func (f fakeFile) bytes() []byte {
	out := make([]byte, f.size)
	copy(out, f.head)
	return out
}

type virtualReader struct {
	head      []byte
	size, off int64
}

func (v *virtualReader) Read(p []byte) (int, error) {
	if v.off >= v.size {
		return 0, io.EOF
	}
	n := int64(len(p))
	if rest := v.size - v.off; n > rest {
		n = rest
	}
	for i := int64(0); i < n; i++ {
		if at := v.off + i; at < int64(len(v.head)) {
			p[i] = v.head[at]
		} else {
			p[i] = 0
		}
	}
	v.off += n
	return int(n), nil
}

func (v *virtualReader) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += v.off
	case io.SeekEnd:
		off += v.size
	}
	if off < 0 {
		return 0, errors.New("negative seek")
	}
	v.off = off
	return off, nil
}

// fakeRepo is a model on the fake Hub.
type fakeRepo struct {
	gated   bool // a token is needed: none gives 401 GatedRepo, a wrong one 403
	private bool // a token is needed: none gives 401 RepoNotFound
	refs    map[string]string
	files   map[string]map[string]fakeFile // commit -> path -> file
}

type fakeRequest struct {
	Path  string // escaped
	Range string
	Auth  string
}

// fakeHub speaks the Hub's resolve protocol (huggingface_hub file_download.py
// and utils/_http.py): GET /<org>/<name>/resolve/<revision>/<file> answers
// with X-Repo-Commit, a quoted ETag (and X-Linked-Etag, X-Linked-Size and a
// 302 to the CDN for LFS files), Range requests with 206 and Content-Range,
// 401/403 for gated and private repos, 404 with X-Error-Code RepoNotFound,
// RevisionNotFound or EntryNotFound.
type fakeHub struct {
	t       *testing.T
	hub     *httptest.Server
	cdn     *httptest.Server
	mu      sync.Mutex
	repos   map[string]*fakeRepo
	renamed map[string]string // old id -> new id, answered with a relative 307

	requests, cdnRequests []fakeRequest
	fail                  int           // answer the next fail requests with 503
	slow                  bool          // never answer; wait for the client to give up
	delay                 time.Duration // wait before each answer
	echoAuth              bool          // put the Authorization header into error messages
	truncate              bool          // announce more bytes than a small file body sends
	plain404              bool          // answer a missing file with a 404 without X-Error-Code, as a mirror may
	status                int           // answer every Hub request with this status (0: as the protocol says)
	retryAfter            string        // the Retry-After of those answers
	badRange              bool          // answer a Range request with a Content-Range for other bytes
	inFlight, maxInFlight int
	servedShardBytes      int64
}

func newFakeHub(t *testing.T) *fakeHub {
	h := &fakeHub{t: t, repos: map[string]*fakeRepo{}, renamed: map[string]string{}}
	h.cdn = httptest.NewServer(http.HandlerFunc(h.serveCDN))
	h.hub = httptest.NewServer(http.HandlerFunc(h.serveHub))
	t.Cleanup(func() {
		h.hub.Close()
		h.cdn.Close()
	})
	return h
}

func (h *fakeHub) add(id string, repo *fakeRepo) *fakeRepo {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.repos[id] = repo
	return repo
}

func (h *fakeHub) hubRequests() []fakeRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.requests)
}

func (h *fakeHub) cdnLog() []fakeRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.cdnRequests)
}

func (h *fakeHub) enter(r *http.Request, log *[]fakeRequest) {
	h.mu.Lock()
	*log = append(*log, fakeRequest{Path: r.URL.EscapedPath(), Range: r.Header.Get("Range"), Auth: r.Header.Get("Authorization")})
	h.inFlight++
	h.maxInFlight = max(h.maxInFlight, h.inFlight)
	delay, slow := h.delay, h.slow
	h.mu.Unlock()
	if slow {
		<-r.Context().Done()
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
		}
	}
}

func (h *fakeHub) leave() {
	h.mu.Lock()
	h.inFlight--
	h.mu.Unlock()
}

func (h *fakeHub) fail503() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fail > 0 {
		h.fail--
		return true
	}
	return false
}

func (h *fakeHub) serveHub(w http.ResponseWriter, r *http.Request) {
	h.enter(r, &h.requests)
	defer h.leave()
	if r.Context().Err() != nil {
		return
	}
	if h.fail503() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	h.mu.Lock()
	status, after := h.status, h.retryAfter
	h.mu.Unlock()
	if status != 0 {
		if after != "" {
			w.Header().Set("Retry-After", after)
		}
		w.WriteHeader(status)
		return
	}
	auth := r.Header.Get("Authorization")
	deny := func(status int, code, msg string) {
		if code != "" {
			w.Header().Set("X-Error-Code", code)
		}
		if h.echoAuth {
			msg += " (you sent " + auth + ")"
		}
		w.Header().Set("X-Error-Message", msg)
		http.Error(w, msg, status)
	}
	parts := strings.SplitN(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/", 5)
	if len(parts) < 5 || parts[2] != "resolve" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		deny(http.StatusNotFound, "", "not a resolve URL")
		return
	}
	id := parts[0] + "/" + parts[1]
	rev, err1 := url.PathUnescape(parts[3])
	file, err2 := url.PathUnescape(parts[4])
	if err1 != nil || err2 != nil {
		deny(http.StatusBadRequest, "", "bad escape")
		return
	}
	if to, ok := h.renamed[id]; ok {
		http.Redirect(w, r, "/"+to+"/resolve/"+parts[3]+"/"+parts[4], http.StatusTemporaryRedirect)
		return
	}
	h.mu.Lock()
	repo := h.repos[id]
	h.mu.Unlock()
	authed := auth == "Bearer "+testToken
	switch {
	case repo == nil && auth == "":
		deny(http.StatusUnauthorized, "RepoNotFound", "Repository not found")
		return
	case repo == nil:
		deny(http.StatusNotFound, "RepoNotFound", "Repository not found")
		return
	case repo.private && auth == "":
		deny(http.StatusUnauthorized, "RepoNotFound", "Repository not found")
		return
	case repo.private && !authed:
		deny(http.StatusUnauthorized, "", "Invalid credentials in Authorization header")
		return
	case repo.gated && auth == "":
		deny(http.StatusUnauthorized, "GatedRepo", "Access to model "+id+" is restricted. You must have access to it and be authenticated to access it.")
		return
	case repo.gated && !authed:
		deny(http.StatusForbidden, "GatedRepo", "Access to model "+id+" is restricted and you are not in the authorized list.")
		return
	}
	commit := repo.refs[rev]
	if _, ok := repo.files[rev]; ok {
		commit = rev
	}
	if commit == "" {
		deny(http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	}
	w.Header().Set("X-Repo-Commit", commit)
	f, ok := repo.files[commit][file]
	if !ok && h.plain404 {
		http.NotFound(w, r)
		return
	}
	if !ok {
		deny(http.StatusNotFound, "EntryNotFound", file+" does not exist")
		return
	}
	if f.lfs {
		w.Header().Set("X-Linked-Etag", `"`+f.etag()+`"`)
		w.Header().Set("X-Linked-Size", strconv.FormatInt(f.size, 10))
		w.Header().Set("ETag", `"0123456789abcdef0123456789abcdef01234567"`) // the LFS pointer's
		http.Redirect(w, r, h.cdn.URL+"/repos/"+f.etag()+"?X-Amz-Signature=cdnsecret", http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+f.etag()+`"`)
	if h.badRange && r.Header.Get("Range") != "" {
		w.Header().Set("Content-Range", "bytes 100-107/1000")
		w.WriteHeader(http.StatusPartialContent)
		w.Write(make([]byte, 8))
		return
	}
	if h.truncate {
		w.Header().Set("Content-Length", strconv.FormatInt(f.size+1000, 10))
		w.Write(f.head)
		return
	}
	http.ServeContent(w, r, "", time.Time{}, f.reader())
}

// countingWriter counts the body bytes the CDN sends.
type countingWriter struct {
	http.ResponseWriter
	n *int64
	h *fakeHub
}

func (c countingWriter) Write(p []byte) (int, error) {
	c.h.mu.Lock()
	*c.n += int64(len(p))
	c.h.mu.Unlock()
	return c.ResponseWriter.Write(p)
}

func (h *fakeHub) serveCDN(w http.ResponseWriter, r *http.Request) {
	h.enter(r, &h.cdnRequests)
	defer h.leave()
	if r.Context().Err() != nil {
		return
	}
	etag := strings.TrimPrefix(r.URL.Path, "/repos/")
	h.mu.Lock()
	var found *fakeFile
	for _, repo := range h.repos {
		for _, files := range repo.files {
			for _, f := range files {
				if f.lfs && f.etag() == etag {
					found = &f
				}
			}
		}
	}
	h.mu.Unlock()
	if found == nil {
		http.Error(w, "NoSuchKey", http.StatusNotFound)
		return
	}
	w.Header().Set("ETag", `"s3-`+etag[:8]+`"`) // a CDN's own ETag, which must not name the blob
	http.ServeContent(countingWriter{w, &h.servedShardBytes, h}, r, "", time.Time{}, found.reader())
}

// resolver returns a Resolver on the fake Hub, with its cache in a fresh
// directory, the test token, and no wait between retries.
func (h *fakeHub) resolver(t *testing.T) Resolver {
	return Resolver{
		CacheDir:    filepath.Join(t.TempDir(), "hub"),
		Endpoint:    h.hub.URL,
		Token:       testToken,
		TokenSource: "HF_TOKEN",
		Timeout:     5 * time.Second,
		Retries:     2,
		Backoff:     func(int) time.Duration { return 0 },
	}
}

// shard is the content of one safetensors file of a fixture.
type shard struct {
	file    string
	tensors []safetensors.Tensor
	meta    map[string]string
}

// encodeShard builds a safetensors file: a real header and zeroed data
// (virtual: nothing past the header is allocated).
func encodeShard(t testing.TB, s shard) fakeFile {
	t.Helper()
	head, data, err := safetensors.Encode(s.tensors, s.meta)
	if err != nil {
		t.Fatalf("encoding %s: %v", s.file, err)
	}
	return fakeFile{head: head, size: int64(len(head)) + int64(data), lfs: true}
}

// checkpointFiles returns the files of a checkpoint: the shards, and an
// index when there is more than one, plus config.json.
func checkpointFiles(t testing.TB, config string, shards ...shard) map[string]fakeFile {
	t.Helper()
	files := map[string]fakeFile{"config.json": smallFile([]byte(config))}
	if len(shards) == 1 && shards[0].file == SingleFile {
		files[SingleFile] = encodeShard(t, shards[0])
		return files
	}
	weightMap := map[string]string{}
	for _, s := range shards {
		files[s.file] = encodeShard(t, s)
		for _, tn := range s.tensors {
			weightMap[tn.Name] = s.file
		}
	}
	idx, err := json.Marshal(map[string]any{"metadata": map[string]any{"total_size": 0}, "weight_map": weightMap})
	if err != nil {
		t.Fatal(err)
	}
	files[IndexFile] = smallFile(idx)
	return files
}

// writeDir writes files into dir, as a downloaded model folder.
func writeDir(t testing.TB, dir string, files map[string]fakeFile) {
	t.Helper()
	for name, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeCache lays files out in cacheDir as huggingface_hub does, written by
// hand (not by this package): blobs named by ETag, snapshot links
// ../../blobs/<etag>, and refs.
func writeCache(t testing.TB, cacheDir, repo, commit string, refs []string, files map[string]fakeFile) string {
	t.Helper()
	dir := filepath.Join(cacheDir, "models--"+strings.ReplaceAll(repo, "/", "--"))
	for name, f := range files {
		blob := filepath.Join(dir, "blobs", f.etag())
		if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(blob, f.bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "snapshots", commit, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		up := strings.Repeat("../", 2+strings.Count(name, "/"))
		if err := os.Symlink(up+"blobs/"+f.etag(), link); err != nil {
			t.Fatal(err)
		}
	}
	for _, ref := range refs {
		p := filepath.Join(dir, "refs", filepath.FromSlash(ref))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(commit), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Fixture architectures at reduced size, with the tensor names of the real
// ones (transformers' modeling files and the published checkpoints).

func bf16(name string, shape ...uint64) safetensors.Tensor {
	return safetensors.Tensor{Name: name, Dtype: "BF16", Shape: shape}
}

func typed(dtype, name string, shape ...uint64) safetensors.Tensor {
	return safetensors.Tensor{Name: name, Dtype: dtype, Shape: shape}
}

// llamaLayer is one decoder layer of a Llama: hidden h, q heads x head_dim
// = q, kv heads x head_dim = kv, intermediate i.
func llamaLayer(l int, h, q, kv, i uint64) []safetensors.Tensor {
	p := fmt.Sprintf("model.layers.%d.", l)
	return []safetensors.Tensor{
		bf16(p+"input_layernorm.weight", h),
		bf16(p+"self_attn.q_proj.weight", q, h),
		bf16(p+"self_attn.k_proj.weight", kv, h),
		bf16(p+"self_attn.v_proj.weight", kv, h),
		bf16(p+"self_attn.o_proj.weight", h, q),
		bf16(p+"post_attention_layernorm.weight", h),
		bf16(p+"mlp.gate_proj.weight", i, h),
		bf16(p+"mlp.up_proj.weight", i, h),
		bf16(p+"mlp.down_proj.weight", h, i),
	}
}

// tinyLlama is a Llama at reduced size in two shards: hidden 64, 4 heads of
// 16, 2 KV heads, intermediate 128, vocabulary 256, 2 layers: 1 + 2 x 9 + 2
// = 21 tensors.
func tinyLlama() (config string, shards []shard) {
	config = `{"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":64,"num_attention_heads":4,` +
		`"num_key_value_heads":2,"intermediate_size":128,"num_hidden_layers":2,"vocab_size":256,"torch_dtype":"bfloat16"}`
	s1 := append([]safetensors.Tensor{bf16("model.embed_tokens.weight", 256, 64)}, llamaLayer(0, 64, 64, 32, 128)...)
	s2 := append(llamaLayer(1, 64, 64, 32, 128), bf16("model.norm.weight", 64), bf16("lm_head.weight", 256, 64))
	return config, []shard{
		{file: "model-00001-of-00002.safetensors", tensors: s1},
		{file: "model-00002-of-00002.safetensors", tensors: s2},
	}
}

// llama31_8B is meta-llama/Llama-3.1-8B-Instruct at full size (hidden 4096,
// 32 heads of 128, 8 KV heads, intermediate 14336, vocabulary 128256, 32
// layers) in 4 shards: 1 + 32 x 9 + 2 = 291 tensors.
func llama31_8B() []shard {
	all := []safetensors.Tensor{bf16("model.embed_tokens.weight", 128256, 4096)}
	for l := range 32 {
		all = append(all, llamaLayer(l, 4096, 4096, 1024, 14336)...)
	}
	all = append(all, bf16("model.norm.weight", 4096), bf16("lm_head.weight", 128256, 4096))
	// Cut after the embedding and 9 layers, after 19, after 28.
	cuts := []int{1 + 9*9, 1 + 19*9, 1 + 28*9, len(all)}
	var out []shard
	from := 0
	for i, to := range cuts {
		out = append(out, shard{file: fmt.Sprintf("model-%05d-of-00004.safetensors", i+1), tensors: all[from:to]})
		from = to
	}
	return out
}

// tinyQwen3MoE is a Qwen3-MoE at reduced size in one file: hidden 32, 2
// heads of 16, 1 KV head, q_norm and k_norm, a router over 4 experts of
// intermediate 16, vocabulary 64, 1 layer: 1 + 21 + 2 = 24 tensors.
func tinyQwen3MoE() (config string, shards []shard) {
	config = `{"architectures":["Qwen3MoeForCausalLM"],"model_type":"qwen3_moe","hidden_size":32,"num_attention_heads":2,` +
		`"num_key_value_heads":1,"head_dim":16,"num_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":16,"num_hidden_layers":1,"vocab_size":64}`
	p := "model.layers.0."
	ts := []safetensors.Tensor{
		bf16("model.embed_tokens.weight", 64, 32),
		bf16(p+"input_layernorm.weight", 32),
		bf16(p+"self_attn.q_proj.weight", 32, 32),
		bf16(p+"self_attn.k_proj.weight", 16, 32),
		bf16(p+"self_attn.v_proj.weight", 16, 32),
		bf16(p+"self_attn.o_proj.weight", 32, 32),
		bf16(p+"self_attn.q_norm.weight", 16),
		bf16(p+"self_attn.k_norm.weight", 16),
		bf16(p+"post_attention_layernorm.weight", 32),
		bf16(p+"mlp.gate.weight", 4, 32),
	}
	for e := range 4 {
		q := fmt.Sprintf("%smlp.experts.%d.", p, e)
		ts = append(ts, bf16(q+"gate_proj.weight", 16, 32), bf16(q+"up_proj.weight", 16, 32), bf16(q+"down_proj.weight", 32, 16))
	}
	ts = append(ts, bf16("model.norm.weight", 32), bf16("lm_head.weight", 64, 32))
	return config, []shard{{file: SingleFile, tensors: ts}}
}

// fp8 is a block-quantized fp8 weight [out, in] and its weight_scale_inv,
// one F32 per 128 x 128 block: [ceil(out/128), ceil(in/128)].
func fp8(name string, out, in uint64) []safetensors.Tensor {
	return []safetensors.Tensor{
		typed("F8_E4M3", name+".weight", out, in),
		typed("F32", name+".weight_scale_inv", (out+127)/128, (in+127)/128),
	}
}

// tinyDeepSeekV3 is a DeepSeek-V3 (MLA, fp8 blocks, a dense layer then an
// MoE layer with a shared expert) at reduced size in three shards: hidden
// 256, 2 heads, q_lora_rank 32, kv_lora_rank 16, qk_nope 16, qk_rope 8,
// v_head 16, intermediate 32, 2 routed experts of 16, vocabulary 128.
func tinyDeepSeekV3() (config string, shards []shard) {
	config = `{"architectures":["DeepseekV3ForCausalLM"],"model_type":"deepseek_v3","hidden_size":256,"num_attention_heads":2,` +
		`"q_lora_rank":32,"kv_lora_rank":16,"qk_nope_head_dim":16,"qk_rope_head_dim":8,"v_head_dim":16,"intermediate_size":32,` +
		`"moe_intermediate_size":16,"n_routed_experts":2,"n_shared_experts":1,"first_k_dense_replace":1,"num_hidden_layers":2,"vocab_size":128,` +
		`"quantization_config":{"quant_method":"fp8","fmt":"e4m3","weight_block_size":[128,128],"activation_scheme":"dynamic"}}`
	attn := func(l int) []safetensors.Tensor {
		p := fmt.Sprintf("model.layers.%d.", l)
		var ts []safetensors.Tensor
		ts = append(ts, bf16(p+"input_layernorm.weight", 256))
		ts = append(ts, fp8(p+"self_attn.q_a_proj", 32, 256)...)
		ts = append(ts, bf16(p+"self_attn.q_a_layernorm.weight", 32))
		ts = append(ts, fp8(p+"self_attn.q_b_proj", 2*(16+8), 32)...)
		ts = append(ts, fp8(p+"self_attn.kv_a_proj_with_mqa", 16+8, 256)...)
		ts = append(ts, bf16(p+"self_attn.kv_a_layernorm.weight", 16))
		ts = append(ts, fp8(p+"self_attn.kv_b_proj", 2*(16+16), 16)...)
		ts = append(ts, fp8(p+"self_attn.o_proj", 256, 2*16)...)
		return append(ts, bf16(p+"post_attention_layernorm.weight", 256))
	}
	mlp := func(p string, i uint64) []safetensors.Tensor {
		var ts []safetensors.Tensor
		ts = append(ts, fp8(p+"gate_proj", i, 256)...)
		ts = append(ts, fp8(p+"up_proj", i, 256)...)
		return append(ts, fp8(p+"down_proj", 256, i)...)
	}
	s1 := append([]safetensors.Tensor{bf16("model.embed_tokens.weight", 128, 256)}, attn(0)...)
	s1 = append(s1, mlp("model.layers.0.mlp.", 32)...)
	s2 := append(attn(1),
		bf16("model.layers.1.mlp.gate.weight", 2, 256),
		typed("F32", "model.layers.1.mlp.gate.e_score_correction_bias", 2))
	for e := range 2 {
		s2 = append(s2, mlp(fmt.Sprintf("model.layers.1.mlp.experts.%d.", e), 16)...)
	}
	s2 = append(s2, mlp("model.layers.1.mlp.shared_experts.", 16)...)
	s3 := []safetensors.Tensor{bf16("model.norm.weight", 256), bf16("lm_head.weight", 128, 256)}
	return config, []shard{
		{file: "model-00001-of-00003.safetensors", tensors: s1},
		{file: "model-00002-of-00003.safetensors", tensors: s2},
		{file: "model-00003-of-00003.safetensors", tensors: s3},
	}
}

// tinyAWQ is one layer of a Llama quantized with AWQ (4 bits, group 128):
// qweight int32 [in, out/8], qzeros int32 [in/128, out/8], scales fp16
// [in/128, out], with hidden 256 and intermediate 512.
func tinyAWQ() (config string, shards []shard) {
	config = `{"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":256,"intermediate_size":512,` +
		`"quantization_config":{"quant_method":"awq","bits":4,"group_size":128,"zero_point":true,"version":"gemm"}}`
	awq := func(name string, in, out uint64) []safetensors.Tensor {
		return []safetensors.Tensor{
			typed("I32", name+".qweight", in, out/8),
			typed("I32", name+".qzeros", in/128, out/8),
			typed("F16", name+".scales", in/128, out),
		}
	}
	p := "model.layers.0."
	var ts []safetensors.Tensor
	ts = append(ts, typed("F16", "model.embed_tokens.weight", 64, 256))
	ts = append(ts, awq(p+"self_attn.q_proj", 256, 256)...)
	ts = append(ts, awq(p+"mlp.gate_proj", 256, 512)...)
	ts = append(ts, awq(p+"mlp.down_proj", 512, 256)...)
	ts = append(ts, typed("F16", p+"input_layernorm.weight", 256))
	return config, []shard{{file: SingleFile, tensors: ts, meta: map[string]string{"format": "pt"}}}
}

// mustJSON reports whether data is JSON (the fixtures' configs).
func mustJSON(t testing.TB, data []byte) {
	t.Helper()
	if !json.Valid(bytes.TrimSpace(data)) {
		t.Fatalf("not JSON: %s", data)
	}
}
