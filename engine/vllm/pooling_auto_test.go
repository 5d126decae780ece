package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

// embedSmall is rmSmall named Qwen2Model (the architectures entry of
// gte-Qwen2-7B-instruct; its real config is not in the corpus, so the
// small Qwen2 config stands in with architectures replaced), untied as
// Qwen2Config defaults.
var embedSmall = strings.Replace(rmSmall, "Qwen2ForRewardModel", "Qwen2Model", 1)

// TestEmbeddingBaseModelRunner: --runner auto pools a Qwen2Model (vLLM
// picks pooling from the sentence-transformers config such a checkpoint
// carries) and converts it to an embedding model. --runner generate is refused while its LM
// head is untied (a base-model export has no lm_head.weight for the
// causal LM's untied head: vLLM's loader raises) and sized as generation
// when tied (the embedding serves as the head).
func TestEmbeddingBaseModelRunner(t *testing.T) {
	a := parse(t, embedSmall)
	r, err := Resolve(Serve{PoolerConfig: `{"seq_pooling_type":"LAST"}`}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Runner, Convert string
		NoHead, Async   bool
	}
	if diff := cmp.Diff(got{"pooling", "embed", true, false}, got{r.Runner, r.Convert, r.Stages[0].NoHead, r.Async}); diff != "" {
		t.Errorf("auto (-want +got):\n%s", diff)
	}
	_, err = Resolve(Serve{Runner: "generate"}, a, testClass(false), current)
	wantRefusal(t, err, "runner", "Following weights were not initialized from checkpoint")
	tied := parse(t, strings.Replace(embedSmall, `"torch_dtype"`, `"tie_word_embeddings":true,"torch_dtype"`, 1))
	r, err = Resolve(Serve{Runner: "generate"}, tied, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if r.Runner != "generate" || r.Stages[0].NoHead {
		t.Errorf("tied, --runner generate: runner %q, no head %v: want generation with its head", r.Runner, r.Stages[0].NoHead)
	}
	// A causal LM name stays generation under auto.
	causal := parse(t, strings.Replace(rmSmall, "Qwen2ForRewardModel", "Qwen2ForCausalLM", 1))
	r, err = Resolve(Serve{}, causal, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if r.Runner == "pooling" {
		t.Errorf("Qwen2ForCausalLM under auto: pooling, want generation")
	}
}

// TestEmbeddingBaseModelByHand: the Qwen2Model embedder against the same
// config generating as Qwen2ForCausalLM: the LM head, 1000 rows padded to
// 1024 x 64 x 2 B = 131,072 B, is gone and nothing replaces it (the
// embedding adapter's pooler has no weights); the KV cache is the same;
// no sampler.
func TestEmbeddingBaseModelByHand(t *testing.T) {
	a := parse(t, embedSmall)
	causal := parse(t, strings.Replace(rmSmall, "Qwen2ForRewardModel", "Qwen2ForCausalLM", 1))
	s := Serve{MaxNumBatchedTokens: 4096, PoolerConfig: `{"seq_pooling_type":"LAST"}`}
	gen, err := NewReference(causal, Serve{MaxNumBatchedTokens: 4096}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := NewReference(a, s, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	g, p := gen.Evaluate(3, 100).Footprint, pool.Evaluate(3, 100).Footprint
	if d := g.Terms[budget.TermWeights] - p.Terms[budget.TermWeights]; d != 131_072 {
		t.Errorf("weights differ by %d B, want the LM head's 131,072", d)
	}
	if p.Terms[budget.TermSampler] != 0 {
		t.Errorf("sampler %d B under the pooling runner, want 0", p.Terms[budget.TermSampler])
	}
	if g.Terms[budget.TermKVCache] != p.Terms[budget.TermKVCache] || p.Terms[budget.TermKVCache] == 0 {
		t.Errorf("KV %d B generating, %d pooling: want the same, above 0", g.Terms[budget.TermKVCache], p.Terms[budget.TermKVCache])
	}
	_, plan, err := NewCompiler(a).Compile(s, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pool.Plan(), plan); diff != "" {
		t.Errorf("Compiler != Reference (-reference +compiler):\n%s", diff)
	}
}
