package vllm

import "testing"

// TestColBERTPeakByHand: a ColBERT model of a wide projection holds more
// a token after its encoder than inside it, as a token classifier does.
// Hidden 64, one head of 64, intermediate 16, colbert_dim 200, float16:
// inside a layer (4 x 64 + max(4 x 64, 2 x 16)) x 2 = 1,024 B a token;
// after it, the hidden state (64 x 2), its float32 copy (64 x 4), the
// float32 projection (200 x 4) and its normalized copy (200 x 4): 1,984
// B. 2048 batched tokens x 1,984 = 4,063,232, plus the residual
// 54,525,952 (TestTokenClassifierPeakByHand's): 58,589,184. The serve is
// an encoder's: the pooling runner by default, no KV cache, whole
// sequences a batch.
func TestColBERTPeakByHand(t *testing.T) {
	a := parse(t, `{"model_type":"bert","architectures":["HF_ColBERT"],"hidden_size":64,"num_hidden_layers":2,`+
		`"num_attention_heads":1,"intermediate_size":16,"vocab_size":1000,"max_position_embeddings":512,"type_vocab_size":2,`+
		`"colbert_dim":200,"torch_dtype":"float16"}`)
	r, err := Resolve(Serve{MaxNumBatchedTokens: 2048}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if r.Runner != runnerPooling || len(layerSpecs(a, &r)) != 0 {
		t.Errorf("runner %q, %d KV specs: want pooling, none", r.Runner, len(layerSpecs(a, &r)))
	}
	found := false
	for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
		if it.Name == "activation_peak" {
			found = true
			if it.Bytes != 58_589_184 {
				t.Errorf("activation peak %d B, want 58,589,184", it.Bytes)
			}
		}
	}
	if !found {
		t.Error("no activation peak")
	}
	if _, err := Resolve(Serve{Runner: "generate"}, a, testClass(false), current); err == nil {
		t.Error("--runner generate: want vLLM's refusal")
	} else {
		wantRefusal(t, err, "runner", "encoder-only")
	}
}
