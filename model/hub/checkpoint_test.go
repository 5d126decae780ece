package hub

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// fixture is a model of the fake Hub and what its checkpoint must read as.
type fixture struct {
	repo   string
	config string
	shards []shard
}

func fixtures() []fixture {
	var out []fixture
	for _, f := range []struct {
		repo  string
		build func() (string, []shard)
	}{
		{"meta-llama/Llama-tiny", tinyLlama},
		{"Qwen/Qwen3-MoE-tiny", tinyQwen3MoE},
		{"deepseek-ai/DeepSeek-V3-tiny", tinyDeepSeekV3},
		{"TheBloke/Llama-tiny-AWQ", tinyAWQ},
	} {
		config, shards := f.build()
		out = append(out, fixture{f.repo, config, shards})
	}
	return out
}

// wantTensors is the fixture's tensor list with the offsets a writer lays
// out: back to back in each shard, shards in file-name order (the fixtures
// name them so).
func wantTensors(shards []shard) []safetensors.Tensor {
	var out []safetensors.Tensor
	for _, s := range shards {
		var off uint64
		for _, t := range s.tensors {
			width, _ := safetensors.DtypeBits(t.Dtype)
			n := width / 8
			for _, d := range t.Shape {
				n *= d
			}
			out = append(out, safetensors.Tensor{Name: t.Name, Dtype: t.Dtype, Shape: t.Shape, Begin: off, End: off + n})
			off += n
		}
	}
	return out
}

// byName finds a tensor of a checkpoint.
func byName(t *testing.T, ck *Checkpoint, name string) safetensors.Tensor {
	t.Helper()
	for _, tn := range ck.Tensors {
		if tn.Name == name {
			return tn
		}
	}
	t.Fatalf("no tensor %s", name)
	return safetensors.Tensor{}
}

// The tensors of each fixture, read from the Hub by range requests, then
// again offline from what the first reading left in the cache.
func TestTensorsFromHubThenCache(t *testing.T) {
	h := newFakeHub(t)
	for _, f := range fixtures() {
		h.add(f.repo, &fakeRepo{refs: map[string]string{"main": commitA},
			files: map[string]map[string]fakeFile{commitA: checkpointFiles(t, f.config, f.shards...)}})
	}
	r := h.resolver(t)
	offline := r
	offline.Offline = true
	for _, f := range fixtures() {
		t.Run(f.repo, func(t *testing.T) {
			want := wantTensors(f.shards)
			for _, step := range []struct {
				name string
				r    Resolver
				kind SourceKind
			}{{"online", r, SourceHub}, {"offline, from the cache", offline, SourceCache}} {
				before := len(h.hubRequests())
				m, err := step.r.Resolve(context.Background(), f.repo)
				if err != nil {
					t.Fatal(err)
				}
				mustJSON(t, m.Config)
				ck, err := m.Tensors(context.Background())
				if err != nil {
					t.Fatalf("%s: %v", step.name, err)
				}
				if m.Source.Kind != step.kind || ck.ShardCount() != len(f.shards) || len(ck.Warnings) > 0 {
					t.Errorf("%s: source %s, %d shards, warnings %q; want %s, %d, none", step.name, m.Source.Kind, ck.ShardCount(), ck.Warnings, step.kind, len(f.shards))
				}
				if diff := cmp.Diff(want, ck.Tensors); diff != "" {
					t.Errorf("%s: tensors (-want +got):\n%s", step.name, diff)
				}
				if step.r.Offline && len(h.hubRequests()) != before {
					t.Errorf("offline made %d requests", len(h.hubRequests())-before)
				}
			}
		})
	}
	// Only headers travelled: every request for a shard was a range, and the
	// CDN sent only header bytes (each shard's 8-byte length and header).
	var headerBytes int64
	for _, f := range fixtures() {
		for _, s := range f.shards {
			head, _, _ := safetensors.Encode(s.tensors, s.meta)
			headerBytes += int64(len(head))
		}
	}
	for _, q := range append(h.hubRequests(), h.cdnLog()...) {
		if strings.HasSuffix(q.Path, ".safetensors") && q.Range == "" {
			t.Errorf("%s was asked without a Range", q.Path)
		}
	}
	if h.servedShardBytes != headerBytes {
		t.Errorf("the CDN sent %d bytes, want the headers' %d", h.servedShardBytes, headerBytes)
	}
}

// Hand-computed checks of the fixtures' checkpoints.
func TestTensorsHandComputed(t *testing.T) {
	h := newFakeHub(t)
	for _, f := range fixtures() {
		h.add(f.repo, &fakeRepo{refs: map[string]string{"main": commitA},
			files: map[string]map[string]fakeFile{commitA: checkpointFiles(t, f.config, f.shards...)}})
	}
	r := h.resolver(t)
	read := func(repo string) *Checkpoint {
		m, err := r.Resolve(context.Background(), repo)
		if err != nil {
			t.Fatal(err)
		}
		ck, err := m.Tensors(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return ck
	}

	// Llama-tiny, BF16: embed 256 x 64 x 2 = 32,768; a layer is 2 norms of
	// 64 x 2 = 128, q and o 64 x 64 x 2 = 8,192, k and v 32 x 64 x 2 =
	// 4,096, gate, up and down 128 x 64 x 2 = 16,384: 256 + 16,384 + 8,192
	// + 49,152 = 73,984; norm 128; lm_head 32,768. Total 32,768 + 2 x 73,984
	// + 128 + 32,768 = 213,632.
	llama := read("meta-llama/Llama-tiny")
	if llama.String() != "2 shards, 21 tensors" || llama.DataBytes() != 213632 || llama.Index != IndexFile {
		t.Errorf("llama: %s, %d bytes, index %q; want 2 shards, 21 tensors, 213632 bytes", llama, llama.DataBytes(), llama.Index)
	}

	// DeepSeek-V3-tiny: q_b_proj is fp8 [2 x (16 + 8), 32] = 48 x 32 x 1 =
	// 1,536 bytes; kv_a_proj_with_mqa's scale is F32 [ceil(24/128),
	// ceil(256/128)] = [1, 2] = 8 bytes; o_proj's [ceil(256/128),
	// ceil(32/128)] = [2, 1].
	ds := read("deepseek-ai/DeepSeek-V3-tiny")
	if got := byName(t, ds, "model.layers.1.self_attn.q_b_proj.weight"); got.Dtype != "F8_E4M3" || got.Bytes() != 1536 {
		t.Errorf("q_b_proj: %+v, want F8_E4M3 of 1536 bytes", got)
	}
	if got := byName(t, ds, "model.layers.0.self_attn.kv_a_proj_with_mqa.weight_scale_inv"); got.Dtype != "F32" || got.Bytes() != 8 {
		t.Errorf("kv_a_proj_with_mqa scale: %+v, want F32 of 8 bytes", got)
	}
	if got := byName(t, ds, "model.layers.1.self_attn.o_proj.weight_scale_inv"); !cmp.Equal(got.Shape, []uint64{2, 1}) {
		t.Errorf("o_proj scale shape %v, want [2 1]", got.Shape)
	}
	if ds.ShardCount() != 3 {
		t.Errorf("deepseek: %s, want 3 shards", ds)
	}

	// AWQ, group 128: q_proj.qweight int32 [256, 256/8] = 256 x 32 x 4 =
	// 32,768 bytes; qzeros int32 [256/128, 32] = 2 x 32 x 4 = 256; scales
	// fp16 [2, 256] = 2 x 256 x 2 = 1,024. down_proj.qweight [512, 32] =
	// 65,536.
	awq := read("TheBloke/Llama-tiny-AWQ")
	for name, want := range map[string]uint64{
		"model.layers.0.self_attn.q_proj.qweight": 32768,
		"model.layers.0.self_attn.q_proj.qzeros":  256,
		"model.layers.0.self_attn.q_proj.scales":  1024,
		"model.layers.0.mlp.down_proj.qweight":    65536,
	} {
		if got := byName(t, awq, name).Bytes(); got != want {
			t.Errorf("%s: %d bytes, want %d", name, got, want)
		}
	}
	if awq.Index != "" || awq.Shards[0].Header.Metadata["format"] != "pt" {
		t.Errorf("awq: index %q, metadata %v; want a single file with format pt", awq.Index, awq.Shards[0].Header.Metadata)
	}
}

// Llama-3.1-8B-Instruct at full size: 4 shards of about 4 GB each are
// served (as virtual files) and only their headers cross the wire.
func TestTensorsLlama31_8BFullSize(t *testing.T) {
	h := newFakeHub(t)
	shards := llama31_8B()
	h.add("meta-llama/Llama-3.1-8B-Instruct", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: checkpointFiles(t, `{"model_type":"llama"}`, shards...)}})
	r := h.resolver(t)
	m, err := r.Resolve(context.Background(), "meta-llama/Llama-3.1-8B-Instruct")
	if err != nil {
		t.Fatal(err)
	}
	ck, err := m.Tensors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// embed and lm_head: 128,256 x 4,096 x 2 = 1,050,673,152 each; a layer:
	// 2 norms 4,096 x 2 = 16,384, q and o 4,096 x 4,096 x 2 = 33,554,432
	// each, k and v 1,024 x 4,096 x 2 = 8,388,608 each, gate, up and down
	// 14,336 x 4,096 x 2 = 117,440,512 each: 436,224,000; 32 layers
	// 13,959,168,000; norm 8,192. Total 2 x 1,050,673,152 + 13,959,168,000 +
	// 8,192 = 16,060,522,496 (the index's published total_size).
	if ck.String() != "4 shards, 291 tensors" || ck.DataBytes() != 16060522496 {
		t.Errorf("checkpoint: %s, %d bytes; want 4 shards, 291 tensors, 16060522496 bytes", ck, ck.DataBytes())
	}
	// down_proj: 4,096 x 14,336 x 2 = 117,440,512 bytes.
	if got := byName(t, ck, "model.layers.31.mlp.down_proj.weight"); got.Bytes() != 117440512 {
		t.Errorf("down_proj: %d bytes, want 117440512", got.Bytes())
	}
	if h.servedShardBytes > 1<<20 {
		t.Errorf("the CDN sent %d bytes for 16 GB of shards; want only headers", h.servedShardBytes)
	}
	// Two range requests per shard, each redirected to the CDN.
	if n := len(h.cdnLog()); n != 8 {
		t.Errorf("%d CDN requests, want 2 per shard = 8", n)
	}
}

// A model directory on disk, and the cases without a checkpoint.
func TestTensorsFromDirectory(t *testing.T) {
	config, shards := tinyDeepSeekV3()
	dir := t.TempDir()
	writeDir(t, dir, checkpointFiles(t, config, shards...))
	m, err := Resolver{}.Resolve(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := m.Tensors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantTensors(shards), ck.Tensors); diff != "" {
		t.Errorf("tensors (-want +got):\n%s", diff)
	}
	// The config.json path reads the checkpoint beside it.
	m, err = Resolver{}.Resolve(context.Background(), filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if ck, err := m.Tensors(context.Background()); err != nil || ck.ShardCount() != 3 {
		t.Errorf("beside config.json: %v, %v", ck, err)
	}

	bare := t.TempDir()
	writeDir(t, bare, map[string]fakeFile{"config.json": smallFile([]byte(`{}`))})
	m, err = Resolver{}.Resolve(context.Background(), filepath.Join(bare, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Tensors(context.Background()); !errors.Is(err, ErrNoCheckpoint) {
		t.Errorf("a bare config.json: err = %v, want ErrNoCheckpoint", err)
	}
	m, err = withShipped(Resolver{}).Resolve(context.Background(), "Qwen/Qwen3-8B")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Tensors(context.Background()); !errors.Is(err, ErrNoCheckpoint) {
		t.Errorf("a shipped model: err = %v, want ErrNoCheckpoint", err)
	}
}

// rawIndex is an index whose weight_map is given as is.
func rawIndex(weightMap string) fakeFile {
	return smallFile([]byte(`{"metadata":{"total_size":8},"weight_map":` + weightMap + `}`))
}

// rawShard is a safetensors file with this header and data length.
func rawShard(header string, data int) fakeFile {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return fakeFile{head: b, size: int64(len(b) + data)}
}

const oneTensor = `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`

func TestTensorsBadCheckpoint(t *testing.T) {
	good := rawShard(oneTensor, 8)
	tests := []struct {
		name    string
		files   map[string]fakeFile
		wantErr string
	}{
		{
			name:    "an index that climbs out of the folder",
			files:   map[string]fakeFile{IndexFile: rawIndex(`{"a":"../../etc/passwd"}`)},
			wantErr: `model.safetensors.index.json: weight_map["a"] = "../../etc/passwd": a ".." in a file name is refused`,
		},
		{
			name:    "an absolute path",
			files:   map[string]fakeFile{IndexFile: rawIndex(`{"a":"/etc/x.safetensors"}`)},
			wantErr: `weight_map["a"] = "/etc/x.safetensors": an absolute path is refused`,
		},
		{
			name:    "a backslash",
			files:   map[string]fakeFile{IndexFile: rawIndex(`{"a":"..\\x.safetensors"}`)},
			wantErr: `a backslash or colon in a file name is refused`,
		},
		{
			name:    "not a safetensors file",
			files:   map[string]fakeFile{IndexFile: rawIndex(`{"a":"pytorch_model.bin"}`)},
			wantErr: `not a .safetensors file`,
		},
		{
			name:    "an index that is not JSON",
			files:   map[string]fakeFile{IndexFile: smallFile([]byte(`{"weight_map": [`))},
			wantErr: `model.safetensors.index.json: not a safetensors index`,
		},
		{
			name:    "an empty weight_map",
			files:   map[string]fakeFile{IndexFile: rawIndex(`{}`)},
			wantErr: `no weight_map, or an empty one`,
		},
		{
			name:    "a shard that is missing",
			files:   map[string]fakeFile{IndexFile: rawIndex(`{"a":"model-00001-of-00002.safetensors"}`)},
			wantErr: `shard model-00001-of-00002.safetensors, named by model.safetensors.index.json, does not exist`,
		},
		{
			name:    "a tensor the index places in a shard that lacks it",
			files:   map[string]fakeFile{IndexFile: rawIndex(`{"a":"s1.safetensors","b":"s1.safetensors"}`), "s1.safetensors": good},
			wantErr: `weight_map puts tensor "b" in s1.safetensors, but no shard holds it`,
		},
		{
			name:    "a tensor in two shards",
			files:   map[string]fakeFile{IndexFile: rawIndex(`{"a":"s1.safetensors","b":"s2.safetensors"}`), "s1.safetensors": good, "s2.safetensors": good},
			wantErr: `tensor "a" is in both s1.safetensors and s2.safetensors`,
		},
		{
			name:    "a header length over 100 MB",
			files:   map[string]fakeFile{SingleFile: {head: binary.LittleEndian.AppendUint64(nil, 100_000_001), size: 1 << 40}},
			wantErr: `header length 100000001 exceeds the format's limit of 100000000 bytes`,
		},
		{
			name:    "overlapping offsets",
			files:   map[string]fakeFile{SingleFile: rawShard(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8)},
			wantErr: `tensor "b": data_offsets [4, 8] overlap those of tensor "a" [0, 8]`,
		},
		{
			// oneTensor is 54 bytes: {"a": 5, {"dtype":"F32", 15, "shape":[2], 12,
			// "data_offsets":[0,8] 20, }} 2.
			name:    "a truncated header",
			files:   map[string]fakeFile{SingleFile: {head: rawShard(oneTensor, 0).head[:30], size: 30}},
			wantErr: `truncated: the 54-byte header runs past the end of the 30-byte file`,
		},
		{
			// 8 + 54 + 4 bytes: the tensor's 8 bytes of data end at byte 70.
			name:    "data past the end of the file",
			files:   map[string]fakeFile{SingleFile: rawShard(oneTensor, 4)},
			wantErr: `ends at byte 70 (8 + 54 header + 8 data), past the end of the 66-byte file`,
		},
		{
			name:    "no checkpoint",
			files:   map[string]fakeFile{},
			wantErr: `no model.safetensors.index.json or model.safetensors: no safetensors checkpoint`,
		},
	}
	h := newFakeHub(t)
	for i, tc := range tests {
		repo := "org/bad-" + string(rune('a'+i))
		files := map[string]fakeFile{"config.json": smallFile([]byte(`{}`))}
		for name, f := range tc.files {
			f.lfs = strings.HasSuffix(name, ".safetensors")
			files[name] = f
		}
		h.add(repo, &fakeRepo{refs: map[string]string{"main": commitA}, files: map[string]map[string]fakeFile{commitA: files}})
		t.Run(tc.name, func(t *testing.T) {
			// From a directory (small files only) and from the Hub.
			var sources []string
			if !strings.Contains(tc.name, "100 MB") {
				dir := t.TempDir()
				writeDir(t, dir, files)
				sources = append(sources, dir)
			}
			sources = append(sources, repo)
			r := h.resolver(t)
			for _, spec := range sources {
				m, err := r.Resolve(context.Background(), spec)
				if err != nil {
					t.Fatal(err)
				}
				ck, err := m.Tensors(context.Background())
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("%s: Tensors = %v, %v; want an error containing %q", m.Source.Kind, ck, err, tc.wantErr)
				}
			}
		})
	}
}

// A header length over the limit is refused after the first range request:
// the 100 MB are never asked for.
func TestTensorsHugeHeaderOneRequest(t *testing.T) {
	h := newFakeHub(t)
	h.add("org/huge", &fakeRepo{refs: map[string]string{"main": commitA}, files: map[string]map[string]fakeFile{commitA: {
		"config.json": smallFile([]byte(`{}`)),
		SingleFile:    {head: binary.LittleEndian.AppendUint64(nil, 1<<62), size: 1 << 40, lfs: true},
	}}})
	r := h.resolver(t)
	m, err := r.Resolve(context.Background(), "org/huge")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Tensors(context.Background()); err == nil || !strings.Contains(err.Error(), "exceeds the format's limit") {
		t.Fatalf("err = %v", err)
	}
	var ranges []string
	for _, q := range h.cdnLog() {
		ranges = append(ranges, q.Range)
	}
	if diff := cmp.Diff([]string{"bytes=0-7"}, ranges); diff != "" {
		t.Errorf("CDN ranges (-want +got):\n%s", diff)
	}
}

// Shards are read concurrently, never more than Parallel at once.
func TestTensorsParallelBound(t *testing.T) {
	h := newFakeHub(t)
	var shards []shard
	for i := range 12 {
		shards = append(shards, shard{file: "model-" + string(rune('a'+i)) + ".safetensors",
			tensors: []safetensors.Tensor{bf16("t"+string(rune('a'+i)), 4)}})
	}
	h.add("org/many", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: checkpointFiles(t, `{}`, shards...)}})
	count := &countingTransport{base: http.DefaultTransport}
	r := h.resolver(t)
	r.Parallel = 3
	r.Client = &http.Client{Transport: count}
	m, err := r.Resolve(context.Background(), "org/many")
	if err != nil {
		t.Fatal(err)
	}
	h.delay = 5 * time.Millisecond // so that readers overlap
	ck, err := m.Tensors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ck.String() != "12 shards, 12 tensors" {
		t.Errorf("got %s", ck)
	}
	// Each shard reader has one request at a time (to the Hub, then the
	// CDN), so requests in flight are readers at work.
	if count.max > 3 || count.max < 2 {
		t.Errorf("%d requests in flight at most, want 2 or 3 (Parallel = 3)", count.max)
	}
}

// countingTransport counts the requests in flight, from the client's side.
type countingTransport struct {
	base   http.RoundTripper
	mu     sync.Mutex
	n, max int
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n++
	c.max = max(c.max, c.n)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.n--
		c.mu.Unlock()
	}()
	return c.base.RoundTrip(req)
}

// Offline, a cached config without its checkpoint names what is missing.
func TestTensorsOfflineMissing(t *testing.T) {
	r := Resolver{CacheDir: t.TempDir(), Offline: true}
	writeCache(t, r.CacheDir, "org/model", commitA, []string{"main"}, map[string]fakeFile{"config.json": smallFile([]byte(`{}`))})
	m, err := r.Resolve(context.Background(), "org/model")
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Tensors(context.Background())
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "org/model@aaaaaaa/model.safetensors.index.json is not in the Hugging Face cache") {
		t.Errorf("err = %v, want the index named, offline", err)
	}
}

// The Hub's "no such file" for the index is recorded in .no_exist, as
// huggingface_hub records it, and read back offline.
func TestTensorsRecordsMissingIndex(t *testing.T) {
	h := newFakeHub(t)
	config, shards := tinyQwen3MoE()
	h.add("Qwen/Qwen3-MoE-tiny", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: checkpointFiles(t, config, shards...)}})
	r := h.resolver(t)
	m, err := r.Resolve(context.Background(), "Qwen/Qwen3-MoE-tiny")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Tensors(context.Background()); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(r.CacheDir, "models--Qwen--Qwen3-MoE-tiny", ".no_exist", commitA, IndexFile)
	if fi, err := os.Stat(marker); err != nil || fi.Size() != 0 {
		t.Errorf(".no_exist marker: %v, %v", fi, err)
	}
	offline := r
	offline.Offline = true
	m, err = offline.Resolve(context.Background(), "Qwen/Qwen3-MoE-tiny")
	if err != nil {
		t.Fatal(err)
	}
	if ck, err := m.Tensors(context.Background()); err != nil || ck.TensorCount() != 24 {
		t.Errorf("offline: %v, %v; want 24 tensors", ck, err)
	}
}
