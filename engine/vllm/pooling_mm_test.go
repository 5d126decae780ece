package vllm

import (
	"testing"

	"membudget/budget"
	"membudget/model"
)

// TestMultimodalEmbedding: Qwen2-VL-7B-Instruct served as an embedding
// model (--runner pooling, --convert embed, as vLLM's registry lists
// Qwen2VLForConditionalGeneration among its multimodal embedding models).
// Under LAST pooling vLLM keeps chunked prefill, and its profile run is
// the generating runner's but for the sampler: the same encoder cache and
// encoder pass (the activation term equal to generation's), no LM head
// (152064 rows x 3584 x 2 B = 1,089,994,752 B less weights), no sampler,
// the same KV cache a token. Under MEAN pooling, or with no pooling type
// given, chunked prefill is off or unknown, and the encoder cache is left
// unsized, saying why.
func TestMultimodalEmbedding(t *testing.T) {
	a := whisperArch(t, "Qwen__Qwen2-VL-7B-Instruct")
	mm := MM{ProcessorKwargs: `{"max_pixels": 1003520}`}
	gen, err := NewReference(a, Serve{MM: mm}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := NewReference(a, Serve{MM: mm, Runner: "pooling", PoolerConfig: `{"seq_pooling_type":"LAST"}`}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	g, p := gen.Evaluate(2, 1000).Footprint, pool.Evaluate(2, 1000).Footprint
	if d := g.Terms[budget.TermWeights] - p.Terms[budget.TermWeights]; d != 1_089_994_752 {
		t.Errorf("weights differ by %d B, want the LM head's 1,089,994,752", d)
	}
	if g.Terms[budget.TermActivation] != p.Terms[budget.TermActivation] {
		t.Errorf("activation %d B generating, %d pooling: want the same encoder cache and pass beside the same forward pass", g.Terms[budget.TermActivation], p.Terms[budget.TermActivation])
	}
	if p.Terms[budget.TermSampler] != 0 || g.Terms[budget.TermKVCache] != p.Terms[budget.TermKVCache] {
		t.Errorf("sampler %d B (want 0), KV %d B pooling against %d generating (want the same)", p.Terms[budget.TermSampler], p.Terms[budget.TermKVCache], g.Terms[budget.TermKVCache])
	}
	// The checkpoint's sentence-transformers config gives LAST where
	// --pooler-config gives none (vllm/config/model.py:718-725): the
	// same profile run as LAST given by the flag.
	withST := *a
	withST.SentenceTransformers = &model.SentenceTransformers{File: "modules.json", PoolingConfig: "1_Pooling/config.json", SeqPoolingType: "LAST"}
	byST, err := NewReference(&withST, Serve{MM: mm, Runner: "pooling"}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if st := byST.Evaluate(2, 1000).Footprint; st.Terms[budget.TermActivation] != p.Terms[budget.TermActivation] {
		t.Errorf("activation %d B with LAST from 1_Pooling, %d with it given: want the same encoder cache and pass", st.Terms[budget.TermActivation], p.Terms[budget.TermActivation])
	}
	for _, s := range []Serve{
		{MM: mm, Runner: "pooling", PoolerConfig: `{"seq_pooling_type":"MEAN"}`},
		{MM: mm, Runner: "pooling", MaxNumBatchedTokens: 32768},
	} {
		r, err := Resolve(s, a, testClass(false), current)
		if err != nil {
			t.Fatal(err)
		}
		if r.Encoder.Why != poolingEncoderWhy {
			t.Errorf("%+v: encoder %+v, want it unsized: %q", s, r.Encoder, poolingEncoderWhy)
		}
	}
}
