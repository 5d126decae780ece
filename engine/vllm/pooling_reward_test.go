package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// prmArch is the shipped Qwen/Qwen2.5-Math-PRM-7B config
// (Qwen2ForProcessRewardModel: STEP token pooling, 4096 positions).
func prmArch(t *testing.T) *model.Arch { return whisperArch(t, "Qwen__Qwen2.5-Math-PRM-7B") }

// rmSmall is a Qwen2 reward model (ALL token pooling) of a few layers.
const rmSmall = `{"model_type":"qwen2","architectures":["Qwen2ForRewardModel"],"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,` +
	`"num_key_value_heads":2,"intermediate_size":16,"vocab_size":1000,"max_position_embeddings":4096,"torch_dtype":"bfloat16"}`

// TestRewardResolve: the pooling runner's defaults for a reward model.
// On a 24 GiB device vLLM's default batch is 2048 tokens; the PRM's STEP
// pooling turns chunked prefill off (config/model.py:2010-2022), so the
// batch is raised to max_model_len 4096, unless --pooler-config gives ALL;
// the RM's ALL pooling keeps 2048, as does its LAST sequence pooling,
// while MEAN raises it, given by --pooler-config or by the checkpoint's
// sentence-transformers config where the flag gives no sequence type. Every one: the pooling runner, --convert left
// as given (a pooling model needs none), no LM head, async off, the
// family's KV specs (2 layers of full attention for the small RM).
func TestRewardResolve(t *testing.T) {
	small := testClass(false)
	small.Device.MemoryBytes = 24 << 30
	prm, rm := prmArch(t), parse(t, rmSmall)
	// rmST is the RM with a sentence-transformers Pooling module of MEAN:
	// vLLM fills what --pooler-config leaves unset from it
	// (vllm/config/model.py:718-725), before the class's own defaults.
	rmST := parse(t, rmSmall)
	rmST.SentenceTransformers = &model.SentenceTransformers{File: "modules.json", PoolingConfig: "1_Pooling/config.json", SeqPoolingType: "MEAN"}
	for _, c := range []struct {
		name    string
		a       *model.Arch
		s       Serve
		batched uint64
	}{
		{"PRM: STEP", prm, Serve{}, 4096},
		{"PRM: ALL given", prm, Serve{PoolerConfig: `{"tok_pooling_type":"ALL"}`}, 2048},
		{"PRM: ALL by pooling_type", prm, Serve{Runner: "pooling", PoolerConfig: `{"pooling_type":"all"}`}, 2048},
		{"RM: ALL", rm, Serve{}, 2048},
		{"RM: MEAN", rm, Serve{PoolerConfig: `{"seq_pooling_type":"MEAN"}`}, 4096},
		{"RM: convert embed", rm, Serve{Convert: "embed"}, 2048},
		{"RM: MEAN from 1_Pooling", rmST, Serve{}, 4096},
		{"RM: --pooler-config LAST over 1_Pooling's MEAN", rmST, Serve{PoolerConfig: `{"seq_pooling_type":"LAST"}`}, 2048},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Resolve(c.s, c.a, small, current)
			if err != nil {
				t.Fatal(err)
			}
			type got struct {
				Runner        string
				Batched       uint64
				Async, NoHead bool
			}
			want := got{Runner: "pooling", Batched: c.batched, NoHead: true}
			if diff := cmp.Diff(want, got{Runner: r.Runner, Batched: r.MaxNumBatchedTokens, Async: r.Async, NoHead: r.Stages[0].NoHead}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	r, err := Resolve(Serve{}, rm, small, current)
	if err != nil {
		t.Fatal(err)
	}
	if specs := layerSpecs(rm, &r); len(specs) != 2 {
		t.Errorf("%d KV specs, want the 2 layers' own: a reward model keeps its decoder's KV cache", len(specs))
	}
}

// TestRewardRefusals: what vLLM refuses, or warns may crash, for a reward
// model is refused naming the flag.
func TestRewardRefusals(t *testing.T) {
	prm, rm := prmArch(t), parse(t, rmSmall)
	// rmST is the RM with a sentence-transformers Pooling module of MEAN:
	// vLLM fills what --pooler-config leaves unset from it
	// (vllm/config/model.py:718-725), before the class's own defaults.
	rmST := parse(t, rmSmall)
	rmST.SentenceTransformers = &model.SentenceTransformers{File: "modules.json", PoolingConfig: "1_Pooling/config.json", SeqPoolingType: "MEAN"}
	old, err := ProfileFor("0.19.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		a          *model.Arch
		s          Serve
		p          Profile
		flag, says string
	}{
		{"generate runner", rm, Serve{Runner: "generate"}, current, "runner", "Embedding models do not support `--runner generate`"},
		{"a release not read", rm, Serve{}, old, "runner", "read at"},
		{"chunked prefill under STEP", prm, Serve{ChunkedPrefill: engine.On}, current, "enable-chunked-prefill", "may cause the engine to crash"},
		// config/scheduler.py verify_max_model_len: 2048 < 4096 without
		// chunked prefill.
		{"a STEP batch below the length", prm, Serve{MaxNumBatchedTokens: 2048}, current, "max-num-batched-tokens", "smaller than max_model_len 4096"},
		{"quantized at load", rm, Serve{Quantization: "fp8"}, current, "quantization", "not modelled"},
		{"both pooling types", rm, Serve{PoolerConfig: `{"pooling_type":"ALL","tok_pooling_type":"STEP"}`}, current, "pooler-config", "Cannot set both `pooling_type` and `tok_pooling_type`"},
		{"a token pooling type vLLM lacks", rm, Serve{PoolerConfig: `{"tok_pooling_type":"EVERY"}`}, current, "pooler-config", "not one of vLLM's (ALL, STEP)"},
		{"a sequence pooling type vLLM lacks", rm, Serve{PoolerConfig: `{"seq_pooling_type":"ALL"}`}, current, "pooler-config", "not one of vLLM's (CLS, LAST, MEAN)"},
		{"speculative decoding", rm, Serve{SpeculativeConfig: `{"method":"ngram","num_speculative_tokens":2,"prompt_lookup_max":3}`}, current, "speculative-config", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Resolve(c.s, c.a, testClass(false), c.p)
			wantRefusal(t, err, c.flag, c.says)
		})
	}
}

// TestRewardByHand: a reward model against the same config generating as
// its family's causal LM. Weights: the LM head, 1000 rows (padded to 1024)
// x 64 x 2 B = 131,072 B, is gone and the score head, (64 x 64 + 64 + 64
// + 1) x 4 B = 16,900 B, is there: 114,172 B less. The KV cache is the
// same; the sampler term is 0. The forward pass's bytes a token stay the
// layers': (2 x 64 hidden + the attention's 2 x 4 x 16 + 2 x 2 x 16, wider
// than the MLP's 3 x 16) x 2 + the layer input and residual 2 x 64 x 2 =
// 896 B, above the head's float32 copy beside its first linear's output
// and ReLU, (64 + 2 x 64) x 4 = 768 B (a float32 head below bf16 layers
// whose attention alone is at least 2 x hidden wide).
func TestRewardByHand(t *testing.T) {
	rm := parse(t, rmSmall)
	causal := parse(t, strings.Replace(rmSmall, "Qwen2ForRewardModel", "Qwen2ForCausalLM", 1))
	gen, err := NewReference(causal, Serve{MaxNumBatchedTokens: 4096}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := NewReference(rm, Serve{MaxNumBatchedTokens: 4096}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	g, p := gen.Evaluate(3, 100).Footprint, pool.Evaluate(3, 100).Footprint
	if d := g.Terms[budget.TermWeights] - p.Terms[budget.TermWeights]; d != 131_072-16_900 {
		t.Errorf("weights differ by %d B, want the LM head's 131,072 less the score head's 16,900 = 114,172", d)
	}
	if p.Terms[budget.TermSampler] != 0 {
		t.Errorf("sampler %d B under the pooling runner, want 0", p.Terms[budget.TermSampler])
	}
	if g.Terms[budget.TermKVCache] != p.Terms[budget.TermKVCache] || p.Terms[budget.TermKVCache] == 0 {
		t.Errorf("KV %d B generating, %d pooling: want the same, above 0", g.Terms[budget.TermKVCache], p.Terms[budget.TermKVCache])
	}
	got := []uint64{forwardBytesPerToken(causal, 1, 2), forwardBytesPerToken(rm, 1, 2), model.PoolerHeadBytesPerToken(rm, 1, 2)}
	if diff := cmp.Diff([]uint64{896, 896, 768}, got); diff != "" {
		t.Errorf("forward bytes a token: causal, reward, the head alone (-want +got):\n%s", diff)
	}
}

// TestPoolingHeadsCompilerIsReference: the compiled plan of a reward
// model, a process reward model (whole-sequence batches), a ColBERT model
// and a multimodal model converted to embeddings is the reference's.
func TestPoolingHeadsCompilerIsReference(t *testing.T) {
	colbert := parse(t, `{"model_type":"bert","architectures":["HF_ColBERT"],"hidden_size":64,"num_hidden_layers":2,`+
		`"num_attention_heads":1,"intermediate_size":16,"vocab_size":1000,"max_position_embeddings":512,"type_vocab_size":2,`+
		`"colbert_dim":200,"torch_dtype":"float16"}`)
	for _, c := range []struct {
		name string
		a    *model.Arch
		s    Serve
	}{
		{"RM", parse(t, rmSmall), Serve{TensorParallelSize: 2}},
		{"PRM", prmArch(t), Serve{}},
		{"ColBERT", colbert, Serve{}},
		{"Qwen2-VL embedding", whisperArch(t, "Qwen__Qwen2-VL-7B-Instruct"), Serve{Runner: "pooling", PoolerConfig: `{"seq_pooling_type":"LAST"}`, MM: MM{ProcessorKwargs: `{"max_pixels": 1003520}`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ref, err := NewReference(c.a, c.s, testClass(false), current)
			if err != nil {
				t.Fatal(err)
			}
			_, plan, err := NewCompiler(c.a).Compile(c.s, testClass(false), current)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(ref.Plan(), plan); diff != "" {
				t.Errorf("Compiler != Reference (-reference +compiler):\n%s", diff)
			}
		})
	}
}
