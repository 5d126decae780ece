package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"membudget/model/safetensors"
)

// tinyDraftConfig is a Llama smaller than the tiny Llama, of its
// vocabulary, for a draft model: hidden 32, 4 heads of 8 (not the
// target's 16, so its rotary table is its own), 2 KV heads, intermediate
// 64, one layer, 128 positions, bf16, untied.
const tinyDraftConfig = `{"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":32,"num_attention_heads":4,` +
	`"num_key_value_heads":2,"intermediate_size":64,"num_hidden_layers":1,"vocab_size":256,"max_position_embeddings":128,"torch_dtype":"bfloat16"}`

// tinyDraftBytes is the tiny draft's weights at TP 1 in bf16, by hand (no
// checkpoint: derived from its config.json): qkv_proj 32 x (4 + 2 x 2) x
// 8 x 2 = 4096; o_proj 32 x 32 x 2 = 2048; gate_up 2 x 64 x 32 x 2 =
// 8192; down 64 x 32 x 2 = 4096; two norms 2 x 32 x 2 = 128; the
// embedding and the untied head 256 x 32 x 2 = 16384 each; the final norm
// 64; its rotary table 128 x 8 x 2 = 2048.
const tinyDraftBytes = 4096 + 2048 + 8192 + 4096 + 128 + 2*16384 + 64 + 2048

// specReport is what the draft tests read of a report.
type specReport struct {
	Serve struct {
		Speculative struct {
			Method           string `json:"method"`
			DraftWeightBytes uint64 `json:"draft_weight_bytes"`
		} `json:"speculative"`
	} `json:"serve"`
}

// TestDraftModelFromTheHub: a draft model named by its Hub id is read as
// --model is, through the same resolver, from the Hub (a local stand-in);
// its weights are the report's draft weights. A later run offline is
// answered too (the target from the cache the first run wrote, the draft
// as this process read it).
func TestDraftModelFromTheHub(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t, "")
	h.repos["acme/tiny-llama"] = tinyLlamaFiles(t)
	h.repos["acme/tiny-draft"] = map[string][]byte{"config.json": []byte(tinyDraftConfig)}
	home := t.TempDir()
	args := []string{"report", "--json", "--class", "h100-sxm-80g", "vllm", "serve", "acme/tiny-llama", "--enforce-eager",
		"--speculative-config", `{"model": "acme/tiny-draft", "num_speculative_tokens": 2}`}
	for _, env := range []map[string]string{
		{"HOME": home, "HF_ENDPOINT": h.srv.URL},
		{"HOME": home, "HF_HUB_OFFLINE": "1"},
	} {
		var stdout, stderr bytes.Buffer
		if code := envApp(env).run(&stdout, &stderr, args); code != 0 {
			t.Fatalf("%v: exit %d: %s", env, code, stderr.String())
		}
		var got specReport
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if sp := got.Serve.Speculative; sp.Method != "draft_model" || sp.DraftWeightBytes != tinyDraftBytes {
			t.Errorf("%v: %+v, want draft_model of %d B", env, sp, tinyDraftBytes)
		}
	}
	fetched := false
	for _, l := range h.log {
		fetched = fetched || strings.HasPrefix(l, "GET /acme/tiny-draft/resolve/main/config.json")
	}
	if !fetched {
		t.Errorf("the draft's config.json was not fetched from the Hub:\n%s", strings.Join(h.log, "\n"))
	}
	// A draft that is on no Hub: refused naming the flag, exit 2.
	var stdout, stderr bytes.Buffer
	bad := append(append([]string{}, args[:len(args)-1]...), `{"model": "acme/no-such-draft", "num_speculative_tokens": 2}`)
	if code := envApp(map[string]string{"HOME": home, "HF_ENDPOINT": h.srv.URL}).run(&stdout, &stderr, bad); code != 2 || !strings.Contains(stderr.String(), "--speculative-config draft_model: the draft") {
		t.Errorf("a draft on no Hub: exit %d, %s", code, stderr.String())
	}
}

// TestDraftModelRelativeDirectory: a draft named as a relative path that
// is there is read from the directory, as vLLM reads it, not from the Hub.
func TestDraftModelRelativeDirectory(t *testing.T) {
	dir, err := os.MkdirTemp(".", "draft-rel-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(tinyDraftConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newFakeHub(t, "")
	h.repos["acme/tiny-llama"] = tinyLlamaFiles(t)
	var stdout, stderr bytes.Buffer
	args := []string{"report", "--json", "--class", "h100-sxm-80g", "vllm", "serve", "acme/tiny-llama", "--enforce-eager",
		"--speculative-config", `{"model": "` + filepath.Base(dir) + `", "num_speculative_tokens": 2}`}
	if code := envApp(map[string]string{"HOME": t.TempDir(), "HF_ENDPOINT": h.srv.URL}).run(&stdout, &stderr, args); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got specReport
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Serve.Speculative.DraftWeightBytes != tinyDraftBytes {
		t.Errorf("draft weights %d B, want %d", got.Serve.Speculative.DraftWeightBytes, tinyDraftBytes)
	}
}

// TestEagleDraftFromTheHub: an EAGLE draft named by its Hub id is read as
// --model is, its config.json and its safetensors header (range requests,
// the data never read) from the Hub; its weights are the report's draft
// weights. The draft of the tiny Llama (hidden 64, 4 heads of 16, 2 KV
// heads, intermediate 128), one EAGLE-1 layer without the target's
// embedding or head: qkv_proj 64 x (4 + 2 x 2) x 16 x 2 = 16384; o_proj 64
// x 64 x 2 = 8192; gate_up 2 x 128 x 64 x 2 = 32768; down 128 x 64 x 2 =
// 16384; the post-attention norm 64 x 2 = 128 (the first layer has no
// input norm); fc 128 x 64 x 2 = 16384: 90240 B.
func TestEagleDraftFromTheHub(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t, "")
	h.repos["acme/tiny-llama"] = tinyLlamaFiles(t)
	head, data, err := safetensors.Encode([]safetensors.Tensor{
		bf16("fc.weight", 64, 128),
		bf16("layers.0.self_attn.q_proj.weight", 64, 64), bf16("layers.0.self_attn.k_proj.weight", 32, 64),
		bf16("layers.0.self_attn.v_proj.weight", 32, 64), bf16("layers.0.self_attn.o_proj.weight", 64, 64),
		bf16("layers.0.mlp.gate_proj.weight", 128, 64), bf16("layers.0.mlp.up_proj.weight", 128, 64),
		bf16("layers.0.mlp.down_proj.weight", 64, 128), bf16("layers.0.post_attention_layernorm.weight", 64),
	}, map[string]string{"format": "pt"})
	if err != nil {
		t.Fatal(err)
	}
	h.repos["acme/tiny-eagle"] = map[string][]byte{
		"config.json":       []byte(strings.Replace(tinyLlamaConfig, `"num_hidden_layers":2`, `"num_hidden_layers":1`, 1)),
		"model.safetensors": append(head, make([]byte, data)...),
	}
	var stdout, stderr bytes.Buffer
	args := []string{"report", "--json", "--class", "h100-sxm-80g", "--vllm-version", "0.21.0", "vllm", "serve", "acme/tiny-llama", "--enforce-eager",
		"--speculative-config", `{"method": "eagle", "model": "acme/tiny-eagle", "num_speculative_tokens": 2}`}
	if code := envApp(map[string]string{"HOME": t.TempDir(), "HF_ENDPOINT": h.srv.URL}).run(&stdout, &stderr, args); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got specReport
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if sp := got.Serve.Speculative; sp.Method != "eagle" || sp.DraftWeightBytes != 90240 {
		t.Errorf("%+v, want eagle of 90240 B", sp)
	}
	for _, l := range h.log {
		if strings.Contains(l, "tiny-eagle/resolve/main/model.safetensors") && strings.HasSuffix(l, " ") {
			t.Errorf("the draft's shard was read whole: %s", l)
		}
	}
}

// TestServeReadsADraftAsItsModel: serve reads a draft named by its Hub id
// as it reads a request's model: offline without --hub (the Hub sees no
// request, the refusal names the flag and HF_HUB_OFFLINE=1), from the Hub
// with it. The draft is Llama-3.2-1B-Instruct's config (corpus/models),
// the target's vocabulary.
func TestServeReadsADraftAsItsModel(t *testing.T) {
	t.Parallel()
	cfg, err := os.ReadFile("../../corpus/models/meta-llama__Llama-3.2-1B-Instruct.json")
	if err != nil {
		t.Fatal(err)
	}
	h := newFakeHub(t, "")
	h.repos["acme/small-llama"] = map[string][]byte{"config.json": cfg}
	env := map[string]string{"HOME": t.TempDir(), "HF_ENDPOINT": h.srv.URL}
	body, err := json.Marshal(map[string]any{"class": "h100-sxm-80g", "args": []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--enforce-eager",
		"--speculative-config", `{"method": "draft_model", "model": "acme/small-llama", "num_speculative_tokens": 3}`}})
	if err != nil {
		t.Fatal(err)
	}
	status, _, got := post(t, newTestServer(t, envApp(env), serveOptions{}), "/api/report", string(body))
	if status != http.StatusBadRequest || !strings.Contains(got, "--speculative-config draft_model: the draft") || !strings.Contains(got, "HF_HUB_OFFLINE=1") {
		t.Errorf("without --hub: status %d, %s; want 400 naming the flag and HF_HUB_OFFLINE=1", status, got)
	}
	h.mu.Lock()
	if len(h.log) != 0 {
		t.Errorf("without --hub the Hub saw %q", h.log)
	}
	h.mu.Unlock()
	status, exit, got := post(t, newTestServer(t, envApp(env), serveOptions{hub: true}), "/api/report", string(body))
	if status != http.StatusOK || exit != "0" {
		t.Fatalf("with --hub: status %d, exit %q: %s", status, exit, got)
	}
	var rep specReport
	if err := json.Unmarshal([]byte(got), &rep); err != nil {
		t.Fatal(err)
	}
	// Llama-3.2-1B's weights in bf16 at TP 1: 2488406016 B
	// (engine/vllm TestDraftModelByHand).
	if sp := rep.Serve.Speculative; sp.Method != "draft_model" || sp.DraftWeightBytes != 2488406016 {
		t.Errorf("with --hub: %+v, want draft_model of 2488406016 B", sp)
	}
}
