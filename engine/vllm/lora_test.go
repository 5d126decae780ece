package vllm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// TestLoRASlotBytes pins the slots of one stage against vLLM's LoRA layer
// shapes, computed by hand (the per-layer sums are loraLayerElems's
// modules: qkv A + B, o A + B, gate_up A + B, down A + B).
func TestLoRASlotBytes(t *testing.T) {
	models := shipped(t)
	llama, qwen2 := models["meta-llama__Llama-3.1-8B-Instruct"], models["Qwen__Qwen2.5-7B-Instruct"]
	cases := []struct {
		name string
		arch string
		s    Serve
		want uint64
	}{
		// Llama-3.1-8B (H 4096, 32 x 128 q, 8 KV heads, I 14336, vocab
		// 128256, 32 layers), TP 1, 4 slots of rank 64, bf16. A layer:
		// qkv 3x64x4096 + (4096+2x1024)x64 = 1179648; o 64x4096 +
		// 4096x64 = 524288; gate_up 2x64x4096 + 2x14336x64 = 2359296;
		// down 64x14336 + 4096x64 = 1179648: 5242880, x32 = 167772160.
		// embed_tokens 128256x64 + 4096x64 = 8470528, lm_head the same:
		// 184713216 elements x 4 slots x 2 B.
		{"llama 8B, TP 1, 4 x r64", "llama", Serve{MaxNumBatchedTokens: 8192, LoRA: LoRA{Enable: true, MaxLoras: 4, MaxRank: 64}}, 184713216 * 4 * 2},
		// Qwen2.5-7B (H 3584, 28 x 128 q, 4 KV heads, I 18944, 28 layers;
		// Qwen2ForCausalLM lists no embedding_modules), TP 4, 2 slots of
		// rank 16. A rank holds q 896, one KV head 128, I/4 4736: qkv
		// 3x16x3584 + (896+256)x16 = 190464; o 16x896 + 3584x16 = 71680;
		// gate_up 2x16x3584 + 2x4736x16 = 266240; down 16x4736 + 3584x16
		// = 133120: 661504 a layer, x28 x2 slots x2 B.
		{"qwen2.5 7B, TP 4, 2 x r16", "qwen2", Serve{TensorParallelSize: 4, LoRA: LoRA{Enable: true, MaxLoras: 2, MaxRank: 16}}, 661504 * 28 * 2 * 2},
		// The same fully sharded: A of the column layers r/4 = 4 rows, B
		// of the row layers H/4 = 896: qkv 3x4x3584 + 1152x16 = 61440; o
		// 14336 + 896x16 = 28672; gate_up 2x4x3584 + 151552 = 180224;
		// down 75776 + 14336 = 90112: 360448 a layer.
		{"qwen2.5 7B, TP 4, fully sharded", "qwen2", Serve{TensorParallelSize: 4, LoRA: LoRA{Enable: true, MaxLoras: 2, MaxRank: 16, FullySharded: true}}, 360448 * 28 * 2 * 2},
		// --lora-dtype float16 on a float32 serve: 2 B, not 4.
		{"llama 8B, float32 serve, float16 LoRA", "llama", Serve{Dtype: "float32", MaxNumBatchedTokens: 8192, LoRA: LoRA{Enable: true, MaxLoras: 4, MaxRank: 64, Dtype: "float16"}}, 184713216 * 4 * 2},
		// Phi-4-multimodal (H 3072, 24 x 128 q, 8 KV heads, I 8192, 32
		// layers) as vLLM's docs launch it, --max-lora-rank 320 and one
		// slot: qkv_proj and gate_up_proj are one slice each, so one A
		// 320x3072 each and B (3072+2x1024)x320 and 16384x320; o 320x3072
		// + 3072x320; down 320x8192 + 3072x320: 14417920 a layer (320 x
		// 45056, an adapter of the checkpoint's shape), x32 x2 B. No head.
		{"phi4mm, TP 1, 1 x r320", "phi4mm", Serve{LoRA: LoRA{Enable: true, MaxRank: 320}}, 14417920 * 32 * 2},
		// TP 2, 2 slots of rank 256: q 1536, 4 KV heads 512, I/2 4096:
		// qkv 256x3072 + 2560x256; o 256x1536 + 3072x256; gate_up
		// 256x3072 + 8192x256; down 256x4096 + 3072x256: 7340032.
		{"phi4mm, TP 2, 2 x r256", "phi4mm", Serve{TensorParallelSize: 2, LoRA: LoRA{Enable: true, MaxLoras: 2, MaxRank: 256}}, 7340032 * 32 * 2 * 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := llama
			switch tc.arch {
			case "qwen2":
				a = qwen2
			case "phi4mm":
				a = models["microsoft__Phi-4-multimodal-instruct"]
			}
			r, err := Resolve(trusting(a, tc.s), a, bigClass, current)
			if err != nil {
				t.Fatal(err)
			}
			if got := loraSlotBytes(a, &r, stageOf(&r, 0)); got != tc.want {
				t.Errorf("slots %d B, want %d B", got, tc.want)
			}
		})
	}
}

// TestLoRAItems pins the items a LoRA serve adds to the Llama-3.1-8B
// ledger on an H100 (8192 batched tokens, 1024 sequences): the metadata
// is 5 int64 rows of 8192 tokens (327680 B) and 3 of 1024 sequences
// (24576 B), plus two kernel metas of 2 int32 rows (65536 B) and rows of
// 5, 5 and 6 int32 (64 B): 352256 + 2 x 65600 = 483456 B; the
// shrink buffer 8192 tokens x 64 x 4 B; the host cache 4 adapters of the
// TP 1 slots' size.
// loraItems is s resolved on c under p and the LoRA items of its first
// stage.
func loraItems(t *testing.T, a *model.Arch, s Serve, c budget.Class, p Profile) (Resolved, []budget.Item) {
	t.Helper()
	r, err := Resolve(s, a, c, p)
	if err != nil {
		t.Fatal(err)
	}
	var got []budget.Item
	for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
		if strings.HasPrefix(it.Name, "lora_") {
			got = append(got, it)
		}
	}
	return r, got
}

func TestLoRAItems(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 1024, TensorParallelSize: 2, LoRA: LoRA{Enable: true, MaxLoras: 4, MaxRank: 64}}
	r, got := loraItems(t, a, s, testClass(true), current)
	// TP 2 slots: q 2048, KV 4 x 128 = 512, I 7168 a rank: qkv
	// 3x64x4096 + (2048+1024)x64 = 983040; o 64x2048 + 4096x64 = 393216;
	// gate_up 2x64x4096 + 2x7168x64 = 1441792; down 64x7168 + 4096x64 =
	// 720896: 3538944 a layer, x32 = 113246208, with the unsharded
	// embedding and LM head 16941056: 130187264 x 4 x 2 B; and at TP 2 the
	// LM head's map of the padded vocabulary, 128256 x 8 B.
	want := []budget.Item{
		{Name: "lora_slots", Term: budget.TermWeights, Bytes: 130187264*4*2 + 128256*8},
		{Name: "lora_metadata", Term: budget.TermWeights, Bytes: 483456},
		{Name: "lora_shrink_buffer", Term: budget.TermActivation, Bytes: 8192 * 64 * 4},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LoRA items (-want +got):\n%s", diff)
	}
	// Every worker caches whole adapters: TP 1's 184713216 elements.
	if want, got := uint64(184713216*4*2), r.LoRAHostBytes; got != want {
		t.Errorf("host cache %d B, want %d B", got, want)
	}
	if want, got := budget.SatAdd(r.LoRAHostBytes, 0), r.hostBytes(); got != want {
		t.Errorf("hostBytes %d, want the LoRA cache %d (V1 keeps no swap)", got, want)
	}
}

// TestLoRAGraphs: every graph size is captured without adapters and with
// them (cudagraph_specialize_lora), so the graphs beyond each mode's first
// double: 1024 sequences capture PIECEWISE 51 and FULL 51 sizes, 100
// further graphs, 202 with LoRA, at graphBytesPerLayerGraph a layer.
func TestLoRAGraphs(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 1024}
	plain, err := Resolve(s, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	s.LoRA = LoRA{Enable: true}
	lora, err := Resolve(s, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	st := stageOf(&plain, 0)
	per := forwardBytesPerToken(a, plain.TensorParallelSize, plain.DtypeBytes)
	got := graphBytes(&lora, st, per) - graphBytes(&plain, st, per)
	if want := uint64(102 * 32 * graphBytesPerLayerGraph); got != want {
		t.Errorf("LoRA adds %d B of graphs, want %d", got, want)
	}
}

// TestResolveLoRA: vLLM's defaults, and each refusal naming its flag.
func TestResolveLoRA(t *testing.T) {
	models := shipped(t)
	llama := models["meta-llama__Llama-3.1-8B-Instruct"]
	on := func(l LoRA) Serve { l.Enable = true; return Serve{LoRA: l} }
	t.Run("defaults", func(t *testing.T) {
		r, err := Resolve(on(LoRA{}), llama, bigClass, current)
		if err != nil {
			t.Fatal(err)
		}
		want := LoRA{Enable: true, MaxLoras: 1, MaxRank: 16, MaxCPULoras: 1, Dtype: "auto"}
		if diff := cmp.Diff(want, r.LoRA); diff != "" {
			t.Errorf("resolved LoRA (-want +got):\n%s", diff)
		}
	})
	cases := []struct {
		name, model, release string
		s                    Serve
		flag, says           string
	}{
		{"before 0.14.0", "meta-llama__Llama-3.1-8B-Instruct", "0.13.0", on(LoRA{}), "enable-lora", "membudget sizes LoRA from vLLM 0.14.0"},
		// Qwen3 lists embed_tokens and lm_head from PR #29816 (2026-02-06),
		// which 0.15's branch is not known to hold.
		{"Qwen3 before its output-embedding LoRA", "Qwen__Qwen3-8B", "0.15.0", on(LoRA{}), "enable-lora", "Qwen3's LoRA from vLLM 0.16.0"},
		{"Phi-4-multimodal before 0.17.0", "microsoft__Phi-4-multimodal-instruct", "0.16.0", on(LoRA{MaxRank: 320}), "enable-lora", "Phi-4-multimodal's LoRA from vLLM 0.17.0"},
		// Qwen3 runs the V2 runner from 0.22.0, whose LoRA warmup came in
		// PR #35536 (2026-06-16).
		{"the V2 runner before its LoRA warmup", "Qwen__Qwen3-8B", "0.22.0", on(LoRA{}), "enable-lora", "on the V2 model runner"},
		{"a MoE model", "Qwen__Qwen3-30B-A3B", "main", on(LoRA{}), "enable-lora", "Qwen3MoeForCausalLM"},
		{"an MLA model", "deepseek-ai__DeepSeek-V2-Lite", "main", on(LoRA{}), "enable-lora", "not modelled for"},
		{"a rank argparse refuses", "meta-llama__Llama-3.1-8B-Instruct", "main", on(LoRA{MaxRank: 4}), "max-lora-rank", "takes only 1, 8, 16"},
		{"fewer CPU than GPU adapters", "meta-llama__Llama-3.1-8B-Instruct", "main", on(LoRA{MaxLoras: 4, MaxCPULoras: 2}), "max-cpu-loras", "max_cpu_loras (2) must be >= max_loras (4)"},
		{"a LoRA dtype vLLM has not", "meta-llama__Llama-3.1-8B-Instruct", "main", on(LoRA{Dtype: "float32"}), "lora-dtype", "auto, float16 or bfloat16"},
		{"an adapter above the rank", "meta-llama__Llama-3.1-8B-Instruct", "main",
			on(LoRA{MaxRank: 16, Adapters: Adapters{MaxRank: 64, MaxRankOf: "sql=/a", Read: 1}}), "lora-modules", "LoRA rank 64 is greater than max_lora_rank 16"},
		{"an adapter with a bias", "meta-llama__Llama-3.1-8B-Instruct", "main",
			on(LoRA{Adapters: Adapters{Bias: "all", BiasOf: "b=/b", Read: 1}}), "lora-modules", "Adapter bias is not supported"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(tc.s, models[tc.model], bigClass, mustProfile(tc.release))
			wantRefusal(t, err, tc.flag, tc.says)
		})
	}
	t.Run("adapters without --enable-lora", func(t *testing.T) {
		_, err := Resolve(Serve{LoRA: LoRA{Modules: "a=b"}}, llama, bigClass, current)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "lora-modules" || !strings.Contains(err.Error(), "LoRA is not enabled") {
			t.Errorf("got %v, want a refusal of --lora-modules", err)
		}
	})
	t.Run("--max-cpu-loras 0 or less is the default", func(t *testing.T) {
		for _, v := range []string{"0", "-3"} {
			var n uint64 = 9
			if err := (cpuLorasFlag{&n}).Set(v); err != nil || n != 0 {
				t.Errorf("--max-cpu-loras %s: %d, %v; want 0 (the default)", v, n, err)
			}
		}
	})
	t.Run("fully sharded rank not divisible", func(t *testing.T) {
		s := on(LoRA{MaxRank: 1, FullySharded: true})
		s.TensorParallelSize = 2
		_, err := Resolve(s, llama, bigClass, current)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "fully-sharded-loras" {
			t.Errorf("got %v, want a refusal of --fully-sharded-loras", err)
		}
	})
}

// TestReadAdapter: --lora-modules' forms, and adapter_config.json read
// with errors naming the file and the key.
func TestReadAdapter(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if body != "" {
			if err := os.WriteFile(filepath.Join(p, "adapter_config.json"), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	good := write("good", `{"r": 32, "lora_alpha": 64, "bias": "none"}`)
	noR := write("nor", `{"lora_alpha": 64}`)
	badR := write("badr", `{"r": "x"}`)
	missing := write("missing", "")
	big := write("big", `{"r": 8, "pad": "`+strings.Repeat("x", maxAdapterConfig)+`"}`)
	cases := []struct {
		in      string
		want    Adapter
		wantErr string
	}{
		{"sql=" + good, Adapter{Name: "sql", Path: good, Rank: 32, Bias: "none", Read: true}, ""},
		{`{"name": "sql", "path": "` + good + `", "base_model_name": "m"}`, Adapter{Name: "sql", Path: good, Rank: 32, Bias: "none", Read: true}, ""},
		// A Hub repository is not downloaded: kept unread.
		{"sql=org/adapter", Adapter{Name: "sql", Path: "org/adapter"}, ""},
		{"sql", Adapter{}, "invalid format for --lora-modules"},
		{`{"name": "x"}`, Adapter{}, `needs "name" and "path"`},
		{"a=" + noR, Adapter{}, `adapter_config.json: no key "r"`},
		{"a=" + badR, Adapter{}, `key "r" is "x"`},
		{"a=" + missing, Adapter{}, "adapter_config.json"},
		{"a=" + big, Adapter{}, "larger than"},
	}
	for _, tc := range cases {
		got, err := ReadAdapter(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ReadAdapter(%.60q): %v, want an error saying %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ReadAdapter(%.60q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ReadAdapter(%.60q) (-want +got):\n%s", tc.in, diff)
		}
	}
	// The flag: several adapters, JSON among them, summed up.
	var l LoRA
	f := &adaptersFlag{&l}
	value := "a=" + good + ` {"name": "b", "path": "org/b"} c=org/c`
	if err := f.Set(value); err != nil {
		t.Fatal(err)
	}
	want := Adapters{MaxRank: 32, MaxRankOf: "a=" + good, Read: 1, NotRead: 2}
	if diff := cmp.Diff(want, l.Adapters); diff != "" {
		t.Errorf("adapters (-want +got):\n%s", diff)
	}
	// An object with text right after it is one word, which vLLM's
	// json.loads refuses (Extra data); a space between is two adapters.
	for _, v := range []string{`{"name": "b", "path": "org/b"}{"name": "c", "path": "org/c"}`, `{"name": "b", "path": "org/b"}c=org/c`} {
		if err := (&adaptersFlag{&LoRA{}}).Set(v); err == nil || !strings.Contains(err.Error(), "invalid JSON format for --lora-modules") {
			t.Errorf("Set(%s): %v, want invalid JSON format", v, err)
		}
	}
	if err := (&adaptersFlag{&LoRA{}}).Set(`{"name": "b", "path": "org/b"}` + "\t" + `{"name": "c", "path": "org/c"}`); err != nil {
		t.Errorf("two objects a tab apart: %v", err)
	}
	var b strings.Builder
	l.Enable, l.MaxLoras, l.MaxRank, l.MaxCPULoras, l.Dtype = true, 2, 32, 2, "auto"
	writeLoRAFlags(&b, l)
	if want := " --enable-lora --max-loras 2 --max-lora-rank 32 --lora-modules a=" + good + ` '{"name": "b", "path": "org/b"}' c=org/c`; b.String() != want {
		t.Errorf("launch line flags:\n got %s\nwant %s", b.String(), want)
	}
}

// TestLoRANeverShrinksFootprint: adding LoRA to a serve never lowers any
// term of its footprint, at any sequences and tokens, and grows its
// ledger. (The allocator's slack may fall: it rounds the KV pool, which
// the slots leave smaller; so the property is on the footprint before
// slack.)
func TestLoRANeverShrinksFootprint(t *testing.T) {
	models := shipped(t)
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen2.5-7B-Instruct", "Qwen__Qwen3-8B", "google__gemma-2-9b-it"}
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom(names).Draw(t, "model")]
		s := Serve{
			TensorParallelSize:  rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MaxModelLen:         rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:          rapid.Uint64Range(1, 256).Draw(t, "seqs"),
			MaxNumBatchedTokens: 8192,
			EnforceEager:        rapid.Bool().Draw(t, "eager"),
		}
		plain, err := Compile(a, s, bigClass, current)
		if err != nil {
			t.Skip(err)
		}
		s.LoRA = LoRA{Enable: true, MaxLoras: rapid.Uint64Range(1, 16).Draw(t, "loras"),
			MaxRank: rapid.SampledFrom(loraRanks).Draw(t, "rank"), FullySharded: rapid.Bool().Draw(t, "sharded")}
		lora, err := Compile(a, s, bigClass, current)
		if err != nil {
			t.Skip(err) // a rank the TP does not divide, fully sharded
		}
		seqs, tokens := rapid.Uint64Range(1, s.MaxNumSeqs).Draw(t, "at seqs"), rapid.Uint64Range(1, s.MaxModelLen).Draw(t, "at tokens")
		p, l := plain.Evaluate(seqs, tokens), lora.Evaluate(seqs, tokens)
		for term := range budget.NumTerms {
			if l.Terms[term] < p.Terms[term] {
				t.Fatalf("%s shrinks with LoRA: %d -> %d", budget.Term(term), p.Terms[term], l.Terms[term])
			}
		}
		if l.Ledger <= p.Ledger {
			t.Fatalf("the ledger does not grow with LoRA: %d -> %d", p.Ledger, l.Ledger)
		}
		if before, after := p.Total()-p.Slack, l.Total()-l.Slack; after < before {
			t.Fatalf("the footprint before slack shrinks with LoRA: %d -> %d", before, after)
		}
	})
}

// TestBuildServeReadsLoRA: the LoRA settings of a log's non-default args
// fill the serve (and are no longer a warning of memory left out).
func TestBuildServeReadsLoRA(t *testing.T) {
	log := "INFO non-default args: {'model': 'm', 'enable_lora': True, 'max_loras': 4, 'max_lora_rank': 64, 'max_cpu_loras': 8, 'lora_dtype': 'bfloat16'}\n"
	got, err := buildServe(logSource(t, log).Log, Serve{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := LoRA{Enable: true, MaxLoras: 4, MaxRank: 64, MaxCPULoras: 8, Dtype: "bfloat16"}
	if diff := cmp.Diff(want, got.Serve.LoRA); diff != "" {
		t.Errorf("LoRA (-want +got):\n%s", diff)
	}
	if len(got.Warnings) != 0 {
		t.Errorf("warnings %q, want none", got.Warnings)
	}
	if got.From["max-loras"].Line != 1 {
		t.Errorf("max-loras from %+v, want line 1", got.From["max-loras"])
	}
}

// TestDropUnsizedLoRA: a log's LoRA that membudget does not size (an
// older release, a MoE model) is left out with a warning, so the log is
// still explained; a sized one is kept.
func TestDropUnsizedLoRA(t *testing.T) {
	models := shipped(t)
	log := "INFO non-default args: {'model': 'm', 'enable_lora': True, 'max_loras': 4}\n"
	cases := []struct {
		name, model, release string
		keep                 bool
	}{
		{"sized", "meta-llama__Llama-3.1-8B-Instruct", "main", true},
		{"an older release", "meta-llama__Llama-3.1-8B-Instruct", "0.13.0", false},
		{"0.14.0", "mistralai__Mistral-7B-Instruct-v0.3", "0.14.0", true},
		{"Qwen3 on 0.15.0", "Qwen__Qwen3-8B", "0.15.0", false},
		{"Qwen3 on 0.16.0", "Qwen__Qwen3-8B", "0.16.0", true},
		{"a MoE model", "Qwen__Qwen3-30B-A3B", "main", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ls, err := buildServe(logSource(t, log).Log, Serve{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ls.dropUnsizedLoRA(models[tc.model], mustProfile(tc.release))
			_, from := ls.From["max-loras"]
			if ls.Serve.LoRA.Enable != tc.keep || from != tc.keep || (len(ls.Warnings) == 0) == !tc.keep {
				t.Errorf("LoRA kept %v (from %v), warnings %q; want kept %v", ls.Serve.LoRA.Enable, from, ls.Warnings, tc.keep)
			}
		})
	}
}

// TestLoRACompilerEqualsReference: with LoRA on, the compiled plan is the
// reference's, field for field (the slots, the metadata and their
// allocator slack counted alike), on discrete and unified classes.
func TestLoRACompilerEqualsReference(t *testing.T) {
	models := shipped(t)
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen2.5-7B-Instruct", "Qwen__Qwen3-8B", "google__gemma-2-9b-it", "meta-llama__Llama-3.2-1B-Instruct"}
	profiles := []Profile{current, mustProfile("0.29.0"), mustProfile("0.19.0"), mustProfile("0.17.0"), mustProfile("0.16.0"), mustProfile("0.14.0")}
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom(names).Draw(t, "model")]
		p := rapid.SampledFrom(profiles).Draw(t, "profile")
		c := testClass(rapid.Bool().Draw(t, "unified"))
		s := Serve{
			TensorParallelSize:   rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			PipelineParallelSize: rapid.SampledFrom([]uint64{1, 2}).Draw(t, "pp"),
			MaxModelLen:          rapid.Uint64Range(256, 16384).Draw(t, "len"),
			MaxNumSeqs:           rapid.Uint64Range(1, 512).Draw(t, "seqs"),
			EnforceEager:         rapid.Bool().Draw(t, "eager"),
			LoRA: LoRA{Enable: true, MaxLoras: rapid.Uint64Range(1, 16).Draw(t, "loras"),
				MaxRank: rapid.SampledFrom(loraRanks).Draw(t, "rank"), FullySharded: rapid.Bool().Draw(t, "sharded"),
				MaxCPULoras: rapid.Uint64Range(0, 32).Draw(t, "cpu_loras")},
		}
		compilerIsReference(t, a, s, c, p)
	})
}

// TestLoRABefore017 sizes Mistral-7B (H 4096, 32 x 128 q, 8 KV heads of
// 128, I 14336, vocab 32768, 32 layers, bf16) with --max-loras 1
// --max-lora-rank 16 on vLLM 0.14.0, whose LoRA layers allocate what
// main's do (vllm/lora/layers/ at 19504ac07, 2026-01-11), by hand:
//   - qkv_proj: A 3 slices of 16 x 4096 = 196608, B (4096 + 2 x 1024) x 16
//     = 98304;
//   - o_proj: A 16 x 4096 = 65536, B 4096 x 16 = 65536;
//   - gate_up_proj: A 2 x 16 x 4096 = 131072, B 2 x 14336 x 16 = 458752;
//   - down_proj: A 16 x 14336 = 229376, B 4096 x 16 = 65536;
//
// 1310720 elements a layer (16 x 81920), x 32 = 41943040. On 0.14 the
// registry maps MistralForCausalLM to LlamaForCausalLM, whose
// embedding_modules wrap embed_tokens, A 32768 x 16 + B 4096 x 16 =
// 589824, and lm_head the same: 43122688 elements x 1 slot x 2 B =
// 86245376 B (0.080 GiB). From 0.15.0 (PR #32780) mistral.py's class
// lists none: the layers' 41943040 elements alone, 83886080 B, on
// 0.15.0 to 0.17.0 and main. The punica metadata
// at 8192 batched tokens and 256 sequences: int64 rows 3 x 8192 x 8 =
// 196608, 2 x 8192 x 8 = 131072 and 3 x 256 x 8 = 6144; two kernel metas
// of 2 x 8192 int32 (65536 each) and rows of 2, 2 and 3 int32 (28 each):
// 464952 B. The shrink buffer 8192 x 16 x 4 B = 524288.
func TestLoRABefore017(t *testing.T) {
	models := shipped(t)
	a := models["mistralai__Mistral-7B-Instruct-v0.3"]
	s := Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256, LoRA: LoRA{Enable: true, MaxLoras: 1, MaxRank: 16}}
	for _, tc := range []struct {
		release string
		slots   uint64 // elements, above
	}{
		{"0.14.0", 43122688},
		{"0.14.1", 43122688},
		{"0.15.0", 41943040}, // loraMistralEmbedUntil
		{"0.15.1", 41943040},
		{"0.16.0", 41943040},
		{"0.17.0", 41943040},
		{"main", 41943040},
	} {
		t.Run(tc.release, func(t *testing.T) {
			_, got := loraItems(t, a, s, bigClass, mustProfile(tc.release))
			want := []budget.Item{
				{Name: "lora_slots", Term: budget.TermWeights, Bytes: tc.slots * 2},
				{Name: "lora_metadata", Term: budget.TermWeights, Bytes: 464952},
				{Name: "lora_shrink_buffer", Term: budget.TermActivation, Bytes: 8192 * 16 * 4},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("LoRA items (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoRAVocabLimit: LogitsProcessorWithLoRA refuses a vocabulary above
// 257024 before PR #34773 (logits_processor.py:92-95 at 19504ac07: "32000
// < vocab_size > 257024" is true above 257024 only), above 258048 from
// 0.17.0; a model without embedding_modules (Gemma 3 1B's 262144 rows) is
// not refused by it.
func TestLoRAVocabLimit(t *testing.T) {
	models := shipped(t)
	llama := *models["meta-llama__Llama-3.1-8B-Instruct"]
	on := Serve{LoRA: LoRA{Enable: true}}
	cases := []struct {
		vocab   uint64
		release string
		refused string
	}{
		{257024, "0.16.0", ""},
		{257025, "0.16.0", "vocab_size <= 257024"},
		{257025, "0.14.0", "vocab_size <= 257024"},
		{257025, "0.17.0", ""},
		{258048, "0.17.0", ""},
		{258049, "0.17.0", "vocab size must be <= 258048"},
		// 32000 rows pass: the chained comparison's lower bound refuses nothing.
		{32000, "0.14.0", ""},
	}
	for _, tc := range cases {
		a := llama
		a.Vocab = tc.vocab
		_, err := Resolve(on, &a, bigClass, mustProfile(tc.release))
		if tc.refused == "" {
			if err != nil {
				t.Errorf("vocab %d on %s: %v, want it sized", tc.vocab, tc.release, err)
			}
			continue
		}
		wantRefusal(t, err, "enable-lora", tc.refused)
	}
	// Gemma 3 1B (Gemma3ForCausalLM, 262144 rows, above both limits) has no
	// LogitsProcessorWithLoRA to refuse it.
	for _, release := range []string{"0.14.0", "0.16.0", "main"} {
		if _, err := Resolve(on, models["google__gemma-3-1b-it"], bigClass, mustProfile(release)); err != nil {
			t.Errorf("Gemma 3 1B on %s: %v, want it sized", release, err)
		}
	}
}
