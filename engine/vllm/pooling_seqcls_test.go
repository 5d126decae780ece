package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

// clsSmall is rmSmall as a Qwen2ForSequenceClassification of 3 labels:
// not a class of vLLM's registry, converted from Qwen2ForCausalLM by its
// suffix (config/model.py _SUFFIX_TO_DEFAULTS: pooling, classify).
var clsSmall = strings.Replace(strings.Replace(rmSmall, "Qwen2ForRewardModel", "Qwen2ForSequenceClassification", 1), `"torch_dtype"`, `"num_labels":3,"torch_dtype"`, 1)

// TestSeqClsResolve: under --runner auto a converted sequence classifier
// gets the pooling runner and --convert classify, no LM head and async
// off; its default LAST pooling keeps chunked prefill, so vLLM's 2048-token
// batch on a 24 GiB device stays (a MEAN --pooler-config raises it to
// max_model_len 4096). --runner pooling and --convert classify given say
// the same.
func TestSeqClsResolve(t *testing.T) {
	small := testClass(false)
	small.Device.MemoryBytes = 24 << 30
	a := parse(t, clsSmall)
	for _, c := range []struct {
		name    string
		s       Serve
		batched uint64
	}{
		{"auto", Serve{}, 2048},
		{"given", Serve{Runner: "pooling", Convert: "classify"}, 2048},
		{"MEAN", Serve{PoolerConfig: `{"seq_pooling_type":"MEAN"}`}, 4096},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Resolve(c.s, a, small, current)
			if err != nil {
				t.Fatal(err)
			}
			type got struct {
				Runner, Convert string
				Batched         uint64
				Async, NoHead   bool
			}
			want := got{"pooling", "classify", c.batched, false, true}
			if diff := cmp.Diff(want, got{r.Runner, r.Convert, r.MaxNumBatchedTokens, r.Async, r.Stages[0].NoHead}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSeqClsRunnerRefusals: --runner generate on a converted classifier
// falls back to vLLM's Transformers backend (not modelled), on GPT-2's
// registry class it is vLLM's error; --convert none is vLLM's error and
// --convert embed resolves no class; --convert classify on a causal LM is
// not sized.
func TestSeqClsRunnerRefusals(t *testing.T) {
	a := parse(t, clsSmall)
	gpt2 := parse(t, `{"model_type":"gpt2","architectures":["GPT2ForSequenceClassification"],"n_embd":64,"n_layer":2,"n_head":4,`+
		`"vocab_size":1000,"n_positions":1024,"torch_dtype":"float32"}`)
	causal := parse(t, strings.Replace(rmSmall, "Qwen2ForRewardModel", "Qwen2ForCausalLM", 1))
	for _, c := range []struct {
		name       string
		s          Serve
		arch       string
		flag, says string
	}{
		{"generate", Serve{Runner: "generate"}, "cls", "runner", "Transformers backend"},
		{"gpt2 generate", Serve{Runner: "generate"}, "gpt2", "runner", "Embedding models do not support `--runner generate`"},
		{"convert none", Serve{Convert: "none"}, "cls", "convert", "This model does not support `--runner pooling`"},
		{"convert embed", Serve{Convert: "embed"}, "cls", "convert", "--convert classify or auto"},
		{"classify a causal LM", Serve{Runner: "pooling", Convert: "classify"}, "causal", "convert", "sized only for"},
	} {
		t.Run(c.name, func(t *testing.T) {
			arch := a
			switch c.arch {
			case "gpt2":
				arch = gpt2
			case "causal":
				arch = causal
			}
			_, err := Resolve(c.s, arch, testClass(false), current)
			wantRefusal(t, err, c.flag, c.says)
		})
	}
}

// TestSeqClsByHand: the converted classifier against the same config
// generating as Qwen2ForCausalLM. Weights: the LM head, 1000 rows padded
// to 1024 x 64 x 2 B = 131,072 B, is gone, and the score head, 64 x 3
// labels x 4 B (float32, the pooling runner's head dtype) = 768 B, is
// there: 130,304 B less. The KV cache is the same; the sampler term is 0.
// Its compiled plan is the reference's.
func TestSeqClsByHand(t *testing.T) {
	a := parse(t, clsSmall)
	causal := parse(t, strings.Replace(rmSmall, "Qwen2ForRewardModel", "Qwen2ForCausalLM", 1))
	s := Serve{MaxNumBatchedTokens: 4096}
	gen, err := NewReference(causal, s, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := NewReference(a, s, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	g, p := gen.Evaluate(3, 100).Footprint, pool.Evaluate(3, 100).Footprint
	if d := g.Terms[budget.TermWeights] - p.Terms[budget.TermWeights]; d != 131_072-768 {
		t.Errorf("weights differ by %d B, want the LM head's 131,072 less the score head's 768 = 130,304", d)
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
