package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/hub"
)

// bgeM3Config is BAAI/bge-m3's numbers (XLMRobertaModel: 1024 hidden, 24
// layers of 16 heads, 4096 intermediate, 250002 tokens, 8194 positions
// from pad_token_id 1, one token type, float32).
const bgeM3Config = `{"model_type":"xlm-roberta","architectures":["XLMRobertaModel"],"hidden_size":1024,"num_hidden_layers":24,` +
	`"num_attention_heads":16,"intermediate_size":4096,"vocab_size":250002,"max_position_embeddings":8194,"type_vocab_size":1,` +
	`"pad_token_id":1,"torch_dtype":"float32"}`

func parse(t testing.TB, config string) *model.Arch {
	t.Helper()
	a, err := model.ParseConfig("config.json", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestEncoderOnlyResolve: the pooling runner's defaults for BGE-M3 on an
// 80 GiB Hopper: runner pooling (auto), max_model_len the position table's
// 8194 - 2 = 8192, max_num_batched_tokens raised from the device's 8192 to
// max(8192, 8192) = 8192, async scheduling off, float16 for a float32
// checkpoint; and on an L4-sized device the default 2048 raised to 8192.
func TestEncoderOnlyResolve(t *testing.T) {
	a := parse(t, bgeM3Config)
	r, err := Resolve(Serve{}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Runner, Dtype           string
		MaxLen, Batched, Seqs   uint64
		Async                   bool
		MaxConcurrent, InFlight uint64
	}
	want := got{Runner: "pooling", Dtype: "float16", MaxLen: 8192, Batched: 8192, Seqs: 1024, MaxConcurrent: 1, InFlight: 8192}
	if diff := cmp.Diff(want, got{r.Runner, r.Dtype, r.MaxModelLen, r.MaxNumBatchedTokens, r.MaxNumSeqs, r.Async, r.MaxConcurrentBatches, r.InFlightTokens}); diff != "" {
		t.Errorf("80 GiB (-want +got):\n%s", diff)
	}
	small := testClass(false)
	small.Device.MemoryBytes = 24 << 30
	r, err = Resolve(Serve{}, a, small, current)
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxNumBatchedTokens != 8192 || r.MaxNumSeqs != 256 {
		t.Errorf("24 GiB: batched %d seqs %d, want max(8192, 2048) = 8192 and 256", r.MaxNumBatchedTokens, r.MaxNumSeqs)
	}
	// A length given below the default batch keeps the default batch.
	r, err = Resolve(Serve{MaxModelLen: 512}, a, small, current)
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxNumBatchedTokens != 2048 {
		t.Errorf("--max-model-len 512: batched %d, want max(512, 2048) = 2048", r.MaxNumBatchedTokens)
	}
}

// TestEncoderOnlyRefusals: what vLLM refuses, or warns may crash, for an
// encoder-only model is refused naming the flag.
func TestEncoderOnlyRefusals(t *testing.T) {
	a := parse(t, bgeM3Config)
	decoder := parse(t, `{"model_type":"qwen3","architectures":["Qwen3ForCausalLM"],"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,`+
		`"num_key_value_heads":2,"head_dim":16,"intermediate_size":128,"vocab_size":1000,"max_position_embeddings":4096,"torch_dtype":"bfloat16"}`)
	old, err := ProfileFor("0.19.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		a    *model.Arch
		s    Serve
		p    Profile
		flag string
	}{
		{"generate runner", a, Serve{Runner: "generate"}, current, "runner"},
		{"prefix caching", a, Serve{EnablePrefixCaching: engine.On}, current, "enable-prefix-caching"},
		{"chunked prefill", a, Serve{ChunkedPrefill: engine.On}, current, "enable-chunked-prefill"},
		// config/scheduler.py verify_max_model_len: 4096 < 8192.
		{"batch below the length", a, Serve{MaxNumBatchedTokens: 4096}, current, "max-num-batched-tokens"},
		{"past the position table", a, Serve{MaxModelLen: 8193, AllowLongMaxModelLen: true}, current, "max-model-len"},
		{"a KV cache size", a, Serve{KVCacheMemoryBytes: 1 << 30}, current, "kv-cache-memory-bytes"},
		{"pipeline parallel", a, Serve{PipelineParallelSize: 2}, current, "pipeline-parallel-size"},
		{"a release not read", a, Serve{}, old, "runner"},
		// The pooling type is the checkpoint's sentence-transformers
		// config, which is not read: it must be given.
		{"a converted decoder without its pooling type", decoder, Serve{Runner: "pooling"}, current, "pooler-config"},
		{"convert embed without its pooling type", decoder, Serve{Convert: "embed"}, current, "pooler-config"},
		{"both pooling types", decoder, Serve{Runner: "pooling", PoolerConfig: `{"pooling_type":"LAST","seq_pooling_type":"LAST"}`}, current, "pooler-config"},
		{"a pooling type not sized", decoder, Serve{Runner: "pooling", PoolerConfig: `{"seq_pooling_type":"STEP"}`}, current, "pooler-config"},
		{"convert none under pooling", decoder, Serve{Runner: "pooling", Convert: "none"}, current, "convert"},
		{"convert classify", decoder, Serve{Runner: "pooling", Convert: "classify"}, current, "convert"},
		{"convert embed for generation", decoder, Serve{Runner: "generate", Convert: "embed"}, current, "convert"},
		// MEAN pooling runs without chunked prefill: 2048 < 4096.
		{"a MEAN batch below the length", decoder, Serve{Runner: "pooling", PoolerConfig: `{"seq_pooling_type":"MEAN"}`, MaxNumBatchedTokens: 2048}, current, "max-num-batched-tokens"},
		{"an unknown runner", a, Serve{Runner: "pool"}, current, "runner"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Resolve(c.s, c.a, testClass(false), c.p)
			wantRefusal(t, err, c.flag, "")
		})
	}
}

// TestEncoderOnlyNoKV: an encoder-only model's layers have no KV cache
// spec, so its plan has no pool and its footprint is the same at every
// sequence count and length; vLLM starts it.
func TestEncoderOnlyNoKV(t *testing.T) {
	a := parse(t, bgeM3Config)
	r, err := Resolve(Serve{}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if specs := layerSpecs(a, &r); len(specs) != 0 {
		t.Fatalf("%d KV specs, want none", len(specs))
	}
	k, plan, err := NewCompiler(a).compile(Serve{}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if g := plan.Stages[0].Pool.Groups; len(g) != 0 {
		t.Errorf("pool groups %v, want none", g)
	}
	one, many := plan.Evaluate(1, 1), plan.Evaluate(1024, 8192)
	if one.Terms != many.Terms {
		t.Errorf("terms at (1, 1) %v differ from (1024, 8192) %v: nothing should grow", one.Terms, many.Terms)
	}
	if one.Terms[budget.TermKVCache] != 0 || one.Terms[budget.TermSampler] != 0 {
		t.Errorf("KV %d, sampler %d: want 0 and 0", one.Terms[budget.TermKVCache], one.Terms[budget.TermSampler])
	}
	if c := k.capacity(plan); !c.Starts || c.Blocks != 0 {
		t.Errorf("capacity %+v: want a start with no blocks", c)
	}
	ref, err := NewReference(a, Serve{}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if got := ref.Plan().Evaluate(7, 300).Terms; got != one.Terms {
		t.Errorf("the reference's terms %v, the plan's %v", got, one.Terms)
	}
}

// TestEncoderPeakByHand: BGE-M3 at TP 2 on the 80 GiB class, float16:
// 8192 batched tokens x (4 x 1024 + max(4 x 8 x 64, 2 x 2048)) x 2 B =
// 8192 x 8192 x 2 = 134,217,728 B, plus the V1 residual 52 MiB =
// 54,525,952: 188,743,680. No sampler term. Graphs: PIECEWISE only, 51
// sizes up to min(2 x 1024, 512) = 512 (1, 2, 4, 8..248 by 8, 256..512 by
// 16: 3 + 31 + 17), so 50 after the first; the first holds 324 MiB plus
// 512 x 16,384 B = 8 MiB: 332 MiB = 348,127,232; then 50 x 24 layers x
// 153 KiB = 1200 x 156,672 = 188,006,400: 536,133,632.
func TestEncoderPeakByHand(t *testing.T) {
	a := parse(t, bgeM3Config)
	r, err := Resolve(Serve{TensorParallelSize: 2}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	st := stageOf(&r, 0)
	got := map[string]uint64{}
	for _, it := range peakItems(a, &r, st) {
		got[it.Name] = it.Bytes
	}
	want := map[string]uint64{
		"activation_peak":  188_743_680,
		"cuda_graph_pool":  536_133_632,
		"non_torch_growth": nonTorchV1From018 + tpNonTorchV1From019,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("peak items (-want +got):\n%s", diff)
	}
}

// TestEncoderBatchBounds: the queries' caps for an encoder-only serve:
// whole sequences of one batch. BGE-M3 on the 80 GiB class batches 8192
// tokens of at most 1024 sequences: 8192 / 300 = 27 sequences of 300,
// 1024 of 8 (8192 / 8 = 1024, the max_num_seqs cap itself); 8192 / 3 =
// 2730 tokens at 3 sequences, 8192 at 1.
func TestEncoderBatchBounds(t *testing.T) {
	a := parse(t, bgeM3Config)
	k, plan, err := NewCompiler(a).compile(Serve{}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	sz := &Sizing{Model: &hub.Loaded{Name: "BAAI/bge-m3", Arch: a}, plan: plan, check: k}
	sz.Serve = &sz.check.r
	for _, c := range []struct {
		seqs, length, want uint64
		flag               string
	}{
		{0, 300, 27, "--max-num-batched-tokens"},
		{0, 8, 1024, "--max-num-seqs"},
	} {
		b, ok := sz.SeqsAt(c.length)
		if !ok || b.Value != c.want || b.Flag != c.flag {
			t.Errorf("SeqsAt(%d) = %+v, %v; want %d by %s", c.length, b, ok, c.want, c.flag)
		}
	}
	for _, c := range []struct {
		seqs, want uint64
		flag       string
	}{
		{3, 2730, "--max-num-batched-tokens"},
		{1, 8192, "--max-model-len"},
	} {
		b, ok := sz.LenAt(c.seqs)
		if !ok || b.Value != c.want || b.Flag != c.flag {
			t.Errorf("LenAt(%d) = %+v, %v; want %d by %s", c.seqs, b, ok, c.want, c.flag)
		}
	}
	var lines strings.Builder
	sz.writePooling(&lines)
	if !strings.Contains(lines.String(), "KV cache: none") {
		t.Errorf("the report's KV lines %q do not say there is none", lines.String())
	}
}

// qwen3Untied is a small Qwen3 with its own LM head: 64 hidden, 2 layers,
// 4 heads and 2 KV heads of 16, 128 intermediate, 1000 tokens, 4096
// positions.
const qwen3Untied = `{"model_type":"qwen3","architectures":["Qwen3ForCausalLM"],"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,` +
	`"num_key_value_heads":2,"head_dim":16,"intermediate_size":128,"vocab_size":1000,"max_position_embeddings":4096,"torch_dtype":"bfloat16",` +
	`"tie_word_embeddings":false}`

// TestConvertedDecoderResolve: a causal LM under the pooling runner keeps
// its KV cache and loses its LM head, sampler and FULL graphs; LAST pooling
// keeps the device's batch (2048 on 24 GiB), MEAN raises it to
// max_model_len 4096; a batch given at least max_model_len needs no
// pooling type.
func TestConvertedDecoderResolve(t *testing.T) {
	a := parse(t, qwen3Untied)
	small := testClass(false)
	small.Device.MemoryBytes = 24 << 30
	for _, c := range []struct {
		name    string
		s       Serve
		batched uint64
	}{
		{"LAST", Serve{Runner: "pooling", PoolerConfig: `{"seq_pooling_type":"last"}`}, 2048},
		{"MEAN by pooling_type", Serve{Convert: "embed", PoolerConfig: `{"pooling_type":"MEAN"}`}, 4096},
		{"a whole-sequence batch", Serve{Runner: "pooling", MaxNumBatchedTokens: 4096}, 4096},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Resolve(c.s, a, small, current)
			if err != nil {
				t.Fatal(err)
			}
			if r.Runner != "pooling" || r.Convert != "embed" || r.MaxNumBatchedTokens != c.batched || r.Async || !r.Stages[0].NoHead {
				t.Errorf("runner %q convert %q batched %d async %v no head %v; want pooling, embed, %d, false, true",
					r.Runner, r.Convert, r.MaxNumBatchedTokens, r.Async, r.Stages[0].NoHead, c.batched)
			}
			if specs := layerSpecs(a, &r); len(specs) != 2 {
				t.Errorf("%d KV specs, want the 2 layers' own", len(specs))
			}
		})
	}
}

// TestConvertedDecoderByHand: the pooling runner's terms beside the KV
// cache, against the same serve generating. The LM head, 1000 rows
// (padded to 1024) x 64 x 2 B = 131,072 B, is not built; the sampler term
// is 0; the graphs are PIECEWISE only (51 sizes up to min(2 x 1024, 512)
// = 512: 1, 2, 4, 8..248 by 8, 256..512 by 16), where generation also
// captures FULL graphs of the decode sizes up to min(512, max_num_seqs
// 1024): 51 more, all but the first at 2 layers x 153 KiB: 50 x 313,344 =
// 15,667,200 B.
func TestConvertedDecoderByHand(t *testing.T) {
	a := parse(t, qwen3Untied)
	gen, err := NewReference(a, Serve{MaxNumBatchedTokens: 4096, EnforceEager: false}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := NewReference(a, Serve{Runner: "pooling", MaxNumBatchedTokens: 4096, AsyncScheduling: engine.On}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	g, p := gen.Evaluate(3, 100).Footprint, pool.Evaluate(3, 100).Footprint
	if d := g.Terms[budget.TermWeights] - p.Terms[budget.TermWeights]; d != 1024*64*2 {
		t.Errorf("weights differ by %d B, want the LM head's 131,072", d)
	}
	if p.Terms[budget.TermSampler] != 0 {
		t.Errorf("sampler %d B under the pooling runner, want 0", p.Terms[budget.TermSampler])
	}
	if g.Terms[budget.TermKVCache] != p.Terms[budget.TermKVCache] || p.Terms[budget.TermKVCache] == 0 {
		t.Errorf("KV %d B generating, %d pooling: want the same, above 0", g.Terms[budget.TermKVCache], p.Terms[budget.TermKVCache])
	}
	const full = 15_667_200
	if d := g.Terms[budget.TermGraphPool] - p.Terms[budget.TermGraphPool]; d != full {
		t.Errorf("graph pools differ by %d B, want the FULL graphs' %d", d, full)
	}
}

// TestEncoderConvertEmbedIsNothing: --convert embed leaves a pooling model
// as it is (as_embedding_model returns a pooling class unchanged): the
// serve is the encoder's own.
func TestEncoderConvertEmbedIsNothing(t *testing.T) {
	a := parse(t, bgeM3Config)
	plain, err := Resolve(Serve{}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	converted, err := Resolve(Serve{Convert: "embed"}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Runner != converted.Runner || plain.MaxNumBatchedTokens != converted.MaxNumBatchedTokens || converted.Stages[0].NoHead {
		t.Errorf("converted: runner %q batched %d no head %v; plain: %q %d", converted.Runner, converted.MaxNumBatchedTokens, converted.Stages[0].NoHead, plain.Runner, plain.MaxNumBatchedTokens)
	}
}

// TestTokenClassifierPeakByHand: a token classifier of many labels holds
// more a token after its encoder than inside it. Hidden 64, one head of
// 64, intermediate 16, 200 labels, float16: inside a layer (4 x 64 +
// max(4 x 64, 2 x 16)) x 2 = 1,024 B a token; after it, the hidden state
// (64 x 2), its float32 copy (64 x 4) and the float32 logits (200 x 4):
// 1,184 B. 2048 batched tokens x 1,184 = 2,424,832, plus the residual
// 54,525,952: 56,950,784.
func TestTokenClassifierPeakByHand(t *testing.T) {
	a := parse(t, `{"model_type":"bert","architectures":["BertForTokenClassification"],"hidden_size":64,"num_hidden_layers":2,`+
		`"num_attention_heads":1,"intermediate_size":16,"vocab_size":1000,"max_position_embeddings":512,"type_vocab_size":2,`+
		`"num_labels":200,"torch_dtype":"float16"}`)
	r, err := Resolve(Serve{MaxNumBatchedTokens: 2048}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
		if it.Name == "activation_peak" && it.Bytes != 56_950_784 {
			t.Errorf("activation peak %d B, want 56,950,784", it.Bytes)
		}
	}
}
