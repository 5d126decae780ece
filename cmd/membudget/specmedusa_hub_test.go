package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"membudget/model/safetensors"
)

// TestMedusaFromTheHub: Medusa heads named by their Hub id are read as an
// EAGLE draft is, their config.json and safetensors header from the Hub
// (a local stand-in); their weights are the report's draft weights. Two
// heads on the tiny Llama (hidden 64, vocabulary 256, bf16), one residual
// block each: two Linear of 64 x 64 x 2 = 8192 B and two LM heads of 256
// rows (a multiple of 64) x 64 x 2 = 32768 B: 81920 B.
func TestMedusaFromTheHub(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t, "")
	h.repos["acme/tiny-llama"] = tinyLlamaFiles(t)
	head, data, err := safetensors.Encode([]safetensors.Tensor{
		bf16("blocks.0.layers.0.weight", 64, 64), bf16("lm_heads.0.weight", 256, 64),
		bf16("blocks.1.layers.0.weight", 64, 64), bf16("lm_heads.1.weight", 256, 64),
	}, map[string]string{"format": "pt"})
	if err != nil {
		t.Fatal(err)
	}
	h.repos["acme/tiny-medusa"] = map[string][]byte{
		"config.json":       []byte(`{"model_type": "medusa", "architectures": ["MedusaModel"], "hidden_size": 64, "vocab_size": 256, "num_heads": 2, "num_hidden_layers": 1}`),
		"model.safetensors": append(head, make([]byte, data)...),
	}
	var stdout, stderr bytes.Buffer
	args := []string{"report", "--json", "--class", "h100-sxm-80g", "vllm", "serve", "acme/tiny-llama",
		"--speculative-config", `{"method": "medusa", "model": "acme/tiny-medusa", "num_speculative_tokens": 2}`}
	if code := envApp(map[string]string{"HOME": t.TempDir(), "HF_ENDPOINT": h.srv.URL}).run(&stdout, &stderr, args); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got specReport
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if sp := got.Serve.Speculative; sp.Method != "medusa" || sp.DraftWeightBytes != 81920 {
		t.Errorf("%+v, want medusa of 81920 B", sp)
	}
}
