package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model/hub"
)

// eagle3Spec is an eagle3 --speculative-config of k = 3 on the draft in
// dir.
func eagle3Spec(dir string) string {
	return `{"method": "eagle3", "model": "` + dir + `", "num_speculative_tokens": 3}`
}

// v1Llama is a release that runs Llama-3.1-8B on the V1 model runner
// (the V2 runner takes dense Llama from 0.23.0, version.go V2Runner).
var v1Llama = mustProfile("0.21.0")

// llamaDraftRope is a Llama-3.1 draft's own rotary cos/sin table, by
// hand: the SpecForge and SafeAILab drafts give max_position_embeddings
// 2048 (and LlamaConfig's default is 2048 where a test config leaves it
// out) against Llama-3.1-8B-Instruct's 131072, so get_rope's key differs
// and the draft builds its own table of 2048 rows x 128 (head_dim, no
// partial rotary factor) in bf16: 2048 x 128 x 2 = 524,288 B.
const llamaDraftRope = 2048 * 128 * 2

// TestReadDraft: the shipped EAGLE-3 config as vLLM builds it, with the
// SpecForge checkpoint's tensor names: no embed_tokens (the target's is
// shared), an lm_head of 31960 rows (its own: not the target's shape), its
// own rotary table of 2048 rows x 128 (llamaDraftRope).
func TestReadDraft(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	dir := WriteEagle3Draft(t)
	got, err := readDraft(dir, "eagle3", a)
	if err != nil {
		t.Fatal(err)
	}
	// head_dim: 4096 / 32 = 128 (LlamaConfig's default); fc: 3 x 4096.
	want := Draft{Method: "eagle3", Path: dir, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Intermediate: 14336, Layers: 1,
		Vocab: 128256, DraftVocab: 31960, FCInput: 12288, RotaryRows: 2048, RotaryDim: 128, OwnHead: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("draft (-want +got):\n%s", diff)
	}
}

// TestDraftWeightsByHand: the draft's tensors on a GPU, in bf16 (the
// target's dtype), each by hand.
//
// TP 1: qkv_proj 8192 x (32 + 2 x 8) x 128 = 8192 x 6144 x 2 = 100663296;
// o_proj 4096 x 4096 x 2 = 33554432; gate_up 2 x 14336 x 4096 x 2 =
// 234881024; down 14336 x 4096 x 2 = 117440512; three norms 3 x 4096 x 2
// = 24576; fc 12288 x 4096 x 2 = 100663296; norm 8192; lm_head 31960
// rows padded to 32000 (500 x 64) x 4096 x 2 = 262144000; d2t 31960 x 8
// = 255680: 849635008 B (810.3 MiB; the SpecForge draft's fp16 file is
// "811MB"); its rotary table 524288 (llamaDraftRope): 850159296 B.
//
// TP 2: qkv 8192 x (16 + 2 x 4) x 128 x 2 = 50331648; o 2048 x 4096 x 2 =
// 16777216; gate_up 2 x 7168 x 4096 x 2 = 117440512; down 7168 x 4096 x
// 2 = 58720256; norms 24576; fc (replicated) 100663296; norm 8192;
// lm_head 16000 x 4096 x 2 = 131072000; d2t 255680: 475293376 B; the
// rotary table, whole on each rank, 524288: 475817664 B.
func TestDraftWeightsByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	dir := WriteEagle3Draft(t)
	for _, tc := range []struct {
		tp, want uint64
	}{{1, 849635008 + llamaDraftRope}, {2, 475293376 + llamaDraftRope}} {
		s := Serve{TensorParallelSize: tc.tp, MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(dir)}
		r, err := Resolve(s, a, bigClass, v1Llama)
		if err != nil {
			t.Fatal(err)
		}
		if got := draftWeightBytes(a, &r, stageOf(&r, 0)); got != tc.want {
			t.Errorf("TP %d: draft weights %d B, want %d", tc.tp, got, tc.want)
		}
		var item uint64
		for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
			if it.Name == "draft_weights" {
				item = it.Bytes
			}
		}
		if item != tc.want {
			t.Errorf("TP %d: the draft_weights item is %d B, want %d", tc.tp, item, tc.want)
		}
	}
	// The proposer's persistent buffers, with T = 8192 batched tokens, B =
	// 256 sequences and the draft's hidden 4096 in bf16: input_ids 8192 x
	// 4 = 32768, positions 8192 x 8 = 65536, hidden_states and
	// inputs_embeds 8192 x 4096 x 2 = 67108864 each, arange max(257, 8192)
	// x 4 = 32768, the slot mapping 65536, backup_next_token_ids 256 x 4 =
	// 1024: 134,415,360 B, whatever the TP (they are not sharded).
	for _, tp := range []uint64{1, 2} {
		s := Serve{TensorParallelSize: tp, MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(dir)}
		r, err := Resolve(s, a, bigClass, v1Llama)
		if err != nil {
			t.Fatal(err)
		}
		const want = 32768 + 65536 + 2*67108864 + 32768 + 65536 + 1024
		var item uint64
		for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
			if it.Name == "draft_buffers" {
				item = it.Bytes
			}
		}
		if item != want {
			t.Errorf("TP %d: the draft_buffers item is %d B, want %d", tp, item, want)
		}
	}
	// A checkpoint with its own embed_tokens of another shape keeps it:
	// 128256 rows (2004 x 64) x 4096 x 2 = 1050673152 B more at TP 1.
	own := append([]draftTensor{{"embed_tokens.weight", "F16", []uint64{128256, 2048}}}, eagle3Checkpoint...)
	n := draftBytesTP1(t, a, "eagle3", eagle3Config, own)
	if want := uint64(849635008 + llamaDraftRope + 1050673152); n != want {
		t.Errorf("with its own embedding: %d B, want %d", n, want)
	}
}

// TestDraftKV: the draft's one attention layer has the target's spec (8
// KV heads of 128, bf16, block 16: a page of 16 x 2 x 8 x 128 x 2 =
// 65536 B), so it joins the target's group: one group of 33 layers, 33
// tensors of that page; a block costs 33 pages instead of 32, and the
// draft's share of the cache is blocks x 65536.
func TestDraftKV(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(WriteEagle3Draft(t))}
	if diff := cmp.Diff(kvShape{1, 33, false, 65536, 33}, kvShapeOf(t, a, s)); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
	sz, err := Size(&hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}, bigClass, s, v1Llama)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sz.draftKVBytes(), sz.Capacity().Blocks*65536; got != want || got == 0 {
		t.Errorf("draft KV %d B, want %d (blocks x 65536)", got, want)
	}
}

// TestResolveDraftRefusals: each refusal names its flag.
func TestResolveDraftRefusals(t *testing.T) {
	models := shipped(t)
	llama := models["meta-llama__Llama-3.1-8B-Instruct"]
	dir := WriteEagle3Draft(t)
	sameEmbed := append([]draftTensor{{"embed_tokens.weight", "F16", []uint64{128256, 4096}}}, eagle3Checkpoint...)
	cases := []struct {
		name       string
		model      string
		p          Profile
		s          Serve
		flag, says string
	}{
		{"a Hub draft", "meta-llama__Llama-3.1-8B-Instruct", v1Llama,
			Serve{EnforceEager: true, SpeculativeConfig: `{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}`},
			"speculative-config", "from the Hugging Face Hub"},
		{"no draft", "meta-llama__Llama-3.1-8B-Instruct", v1Llama,
			Serve{EnforceEager: true, SpeculativeConfig: `{"method": "eagle3", "num_speculative_tokens": 3}`}, "speculative-config", "without speculative model"},
		{"no tokens", "meta-llama__Llama-3.1-8B-Instruct", v1Llama,
			Serve{EnforceEager: true, SpeculativeConfig: `{"method": "eagle3", "model": "` + dir + `"}`}, "speculative-config", "num_speculative_tokens must be provided"},
		// With graphs the V1 runner's drafter is sized (specgraphs.go) but
		// under FULL, where the backend decides, and with LoRA.
		{"graphs under FULL", "meta-llama__Llama-3.1-8B-Instruct", v1Llama,
			Serve{Compilation: Compilation{GraphMode: graphsFull}, SpeculativeConfig: eagle3Spec(dir)}, "compilation-config", "which backend serves is not modelled"},
		{"graphs with LoRA", "meta-llama__Llama-3.1-8B-Instruct", v1Llama,
			Serve{LoRA: LoRA{Enable: true}, SpeculativeConfig: eagle3Spec(dir)}, "enable-lora", "lands in the per-graph sample"},
		// Llama runs the V2 runner on main, whose speculator is sized
		// (specv2.go, specv2graphs.go); its graphs under cudagraph_mode
		// FULL, the graphs of 0.22 to 0.26 (sized eager) and the
		// speculators of 0.29 stay refused (specv2_test.go,
		// specv2graphs_test.go).
		{"FULL graphs on the V2 runner", "meta-llama__Llama-3.1-8B-Instruct", current, Serve{Compilation: Compilation{GraphMode: graphsFull}, SpeculativeConfig: eagle3Spec(dir)}, "compilation-config", "pass --enforce-eager"},
		{"the V2 runner's graphs of 0.26", "meta-llama__Llama-3.1-8B-Instruct", mustProfile("0.26.0"), Serve{SpeculativeConfig: eagle3Spec(dir)}, "speculative-config", "PR #49364"},
		{"the V2 runner of 0.29", "meta-llama__Llama-3.1-8B-Instruct", mustProfile("0.29.0"), Serve{EnforceEager: true, SpeculativeConfig: eagle3Spec(dir)}, "speculative-config", "V2 model runner"},
		{"pipeline parallel", "meta-llama__Llama-3.1-8B-Instruct", v1Llama, Serve{EnforceEager: true, PipelineParallelSize: 2, SpeculativeConfig: eagle3Spec(dir)}, "pipeline-parallel-size", "EAGLE-3"},
		{"a target without auxiliary states", "google__gemma-2-9b-it", v1Llama, Serve{EnforceEager: true, SpeculativeConfig: eagle3Spec(dir)}, "speculative-config", "auxiliary hidden states"},
		{"an embedding of the target's shape", "meta-llama__Llama-3.1-8B-Instruct", v1Llama,
			Serve{EnforceEager: true, SpeculativeConfig: eagle3Spec(writeDraftDir(t, eagle3Config, sameEmbed))}, "speculative-config", "values equal the target's"},
		{"no safetensors", "meta-llama__Llama-3.1-8B-Instruct", v1Llama,
			Serve{EnforceEager: true, SpeculativeConfig: eagle3Spec(writeDraftDir(t, eagle3Config, nil))}, "speculative-config", "no safetensors checkpoint"},
		{"fc_norm", "meta-llama__Llama-3.1-8B-Instruct", v1Llama,
			Serve{EnforceEager: true, SpeculativeConfig: eagle3Spec(writeDraftDir(t, `{"architectures": ["LlamaForCausalLMEagle3"], "hidden_size": 4096, "fc_norm": true}`, eagle3Checkpoint))}, "speculative-config", `"fc_norm"`},
		{"another draft architecture", "meta-llama__Llama-3.1-8B-Instruct", v1Llama,
			Serve{EnforceEager: true, SpeculativeConfig: eagle3Spec(writeDraftDir(t, `{"architectures": ["Eagle3DeepseekV2ForCausalLM"]}`, eagle3Checkpoint))}, "speculative-config", "EAGLE-3 Llama draft"},
		{"EAGLE (1) on an EAGLE-3 draft", "meta-llama__Llama-3.1-8B-Instruct", v1Llama,
			Serve{EnforceEager: true, SpeculativeConfig: `{"method": "eagle", "model": "` + dir + `", "num_speculative_tokens": 3}`}, "speculative-config", "EAGLE Llama draft"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.MaxModelLen = 8192
			_, err := Resolve(tc.s, models[tc.model], bigClass, tc.p)
			wantRefusal(t, err, tc.flag, tc.says)
		})
	}
	if _, err := Resolve(Serve{MaxModelLen: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(dir)}, llama, bigClass, v1Llama); err != nil {
		t.Errorf("the shipped draft on Llama-3.1-8B under 0.21.0: %v, want it sized", err)
	}
}

// TestDraftNeverShrinksFootprint: adding an EAGLE-3, EAGLE or draft model to a serve
// never shrinks a term, and grows the weights by the draft's and the KV
// block by its layer.
func TestDraftNeverShrinksFootprint(t *testing.T) {
	models := shipped(t)
	a := models["meta-llama__Llama-3.1-8B-Instruct"]
	dirs := map[string]string{"eagle3": WriteEagle3Draft(t), "eagle": WriteEagleDraft(t), "draft_model": WriteDraftModel(t)}
	profiles := []Profile{v1Llama, mustProfile("0.14.0"), mustProfile("0.22.0")}
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom(profiles).Draw(t, "profile")
		s := Serve{
			TensorParallelSize:  rapid.SampledFrom([]uint64{1, 2, 4, 8}).Draw(t, "tp"),
			MaxModelLen:         rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:          rapid.Uint64Range(1, 512).Draw(t, "seqs"),
			MaxNumBatchedTokens: 8192,
			EnforceEager:        true,
			AsyncScheduling:     engine.Off,
		}
		plain, err := Compile(a, s, bigClass, p)
		if err != nil {
			t.Skip(err)
		}
		method := rapid.SampledFrom([]string{"eagle3", "eagle", "draft_model"}).Draw(t, "method")
		s.SpeculativeConfig = `{"method": "` + method + `", "model": "` + dirs[method] + `", "num_speculative_tokens": ` + itoa(rapid.Uint64Range(1, 8).Draw(t, "k")) + `}`
		spec, err := Compile(a, s, bigClass, p)
		if err != nil {
			t.Fatalf("%s refused where the plain serve sizes: %v", method, err)
		}
		seqs, tokens := rapid.Uint64Range(1, s.MaxNumSeqs).Draw(t, "at seqs"), rapid.Uint64Range(1, s.MaxModelLen).Draw(t, "at tokens")
		pf, sf := plain.Evaluate(seqs, tokens), spec.Evaluate(seqs, tokens)
		for term := range budget.NumTerms {
			if sf.Terms[term] < pf.Terms[term] {
				t.Fatalf("%s shrinks with an %s draft: %d -> %d", budget.Term(term), method, pf.Terms[term], sf.Terms[term])
			}
		}
		if sf.Terms[budget.TermWeights] <= pf.Terms[budget.TermWeights] {
			t.Fatalf("the weights do not grow with the draft: %d -> %d", pf.Terms[budget.TermWeights], sf.Terms[budget.TermWeights])
		}
		if sf.Terms[budget.TermKVCache] <= pf.Terms[budget.TermKVCache] {
			t.Fatalf("the KV cache of %d x %d does not grow with the draft's layer: %d -> %d", seqs, tokens, pf.Terms[budget.TermKVCache], sf.Terms[budget.TermKVCache])
		}
	})
}

// TestDraftCompilerEqualsReference: with an EAGLE-3, EAGLE or draft model the compiled
// plan is the reference's, field for field.
func TestDraftCompilerEqualsReference(t *testing.T) {
	models := shipped(t)
	specs := []string{eagle3Spec(WriteEagle3Draft(t)), eagleSpec(WriteEagleDraft(t)), draftModelSpec(WriteDraftModel(t))}
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B"}
	profiles := []Profile{v1Llama, mustProfile("0.14.0")}
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom(names).Draw(t, "model")]
		p := rapid.SampledFrom(profiles).Draw(t, "profile")
		c := testClass(rapid.Bool().Draw(t, "unified"))
		s := Serve{
			TensorParallelSize: rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MaxModelLen:        rapid.Uint64Range(256, 16384).Draw(t, "len"),
			MaxNumSeqs:         rapid.Uint64Range(1, 512).Draw(t, "seqs"),
			EnforceEager:       true,
			SpeculativeConfig:  rapid.SampledFrom(specs).Draw(t, "spec"),
		}
		compilerIsReference(t, a, s, c, p)
	})
}
