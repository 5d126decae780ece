package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model/hub"
)

// TestDraftForwardBytesPerTokenByHand: the drafter's forward pass a token,
// for the shipped drafts (hidden 4096, intermediate 14336, 32 heads, 8 KV
// heads of 128), in bf16.
//
// EAGLE-3, TP 1: attention 2 x 32 x 128 + 2 x 8 x 128 + 4096 (the first
// layer's 2 x hidden input) = 14336; MLP 3 x 14336 = 43008, the wider;
// held 5 x 4096 = 20480 (residual, normed input, down output, the
// layer's input, the embeddings): (20480 + 43008) x 2 = 126976 B.
// EAGLE-3, TP 2: attention 2 x 16 x 128 + 2 x 4 x 128 + 4096 = 9216; MLP
// 3 x 7168 = 21504: (20480 + 21504) x 2 = 83968 B.
// EAGLE-1, TP 1: attention 10240; MLP 43008; held 4 x 4096 = 16384:
// (16384 + 43008) x 2 = 118784 B.
func TestDraftForwardBytesPerTokenByHand(t *testing.T) {
	draft := Draft{Method: "eagle3", Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Intermediate: 14336, Layers: 1}
	eagle := draft
	eagle.Method = "eagle"
	for _, tc := range []struct {
		name   string
		d      Draft
		tp     uint64
		want   uint64
		reason string
	}{
		{"eagle3 TP1", draft, 1, 126976, "(5 x 4096 + 3 x 14336) x 2"},
		{"eagle3 TP2", draft, 2, 83968, "(5 x 4096 + 3 x 7168) x 2"},
		{"eagle TP1", eagle, 1, 118784, "(4 x 4096 + 3 x 14336) x 2"},
	} {
		if got := draftForwardBytesPerToken(&tc.d, tc.tp, 2); got != tc.want {
			t.Errorf("%s: %d B a token, want %d = %s", tc.name, got, tc.want, tc.reason)
		}
	}
}

// TestDraftGraphsByHand: Llama-3.1-8B with the shipped EAGLE-3 draft, k =
// 3, 256 sequences, 8192 batched tokens, the default FULL_AND_PIECEWISE.
// The largest size is min(2 x 256 x 4, 512) = 512; the default sizes up to
// it (1, 2, 4, 8 ... 248, 256 ... 512: 51) rounded to multiples of 4 are
// 4, 8 ... 248, 256 ... 512: 49 sizes, each a PIECEWISE graph of the
// drafter. Its share: (49 - 1) x 1 layer x 156672 B (153 KiB, the
// per-layer-graph constant) = 7520256 B, and the first capture's
// 512 x 126976 B = 65011712 B: 72531968 B. At TP 2, 512 x 83968 =
// 42991616 B + 7520256 = 50511872 B. Under PIECEWISE the sizes are not
// rounded (no FULL decode graph): 50 x 156672 + 65011712 = 72845312 B.
// FULL_DECODE_ONLY keys no drafter graph (the dispatcher's mixed mode is
// NONE): 0. EAGLE-1: 512 x 118784 + 7520256 = 68337664 B.
func TestDraftGraphsByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	dir, eagleDir := WriteEagle3Draft(t), WriteEagleDraft(t)
	for _, tc := range []struct {
		name string
		spec string
		tp   uint64
		mode string
		want uint64
	}{
		{"FULL_AND_PIECEWISE", eagle3Spec(dir), 1, "", 72531968},
		{"TP 2", eagle3Spec(dir), 2, "", 50511872},
		{"PIECEWISE", eagle3Spec(dir), 1, graphsPiecewise, 72845312},
		{"FULL_DECODE_ONLY", eagle3Spec(dir), 1, graphsFullDecodeOnly, 0},
		{"EAGLE-1", `{"method": "eagle", "model": "` + eagleDir + `", "num_speculative_tokens": 3}`, 1, "", 68337664},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Serve{TensorParallelSize: tc.tp, MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192,
				Compilation: Compilation{GraphMode: tc.mode}, SpeculativeConfig: tc.spec}
			r, err := Resolve(s, a, bigClass, v1Llama)
			if err != nil {
				t.Fatal(err)
			}
			var got uint64
			for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
				if it.Name == "draft_cuda_graphs" {
					if it.Term != budget.TermGraphPool {
						t.Errorf("the draft's graphs are charged as %v, want the graph term", it.Term)
					}
					got += it.Bytes
				}
			}
			if got != tc.want {
				t.Errorf("draft_cuda_graphs %d B, want %d", got, tc.want)
			}
		})
	}
}

// TestDraftGraphLines: the drafter's graphs are a line of the footprint
// right after the CUDA-graph line, which keeps the target's: charged to
// the budget from 0.20.0, beside it in 0.19.0 (its graphs are captured
// after the KV cache is sized), the two summing to the graph term; the
// report's JSON carries them; the speculative-decoding line says where
// they stand.
func TestDraftGraphLines(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, SpeculativeConfig: eagle3Spec(WriteEagle3Draft(t))}
	for _, tc := range []struct {
		release string
		beside  bool
		where   string
	}{
		{"0.19.0", true, "beside the budget"},
		{"0.21.0", false, "charged to the KV budget"},
	} {
		sz, err := Size(&hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}, bigClass, s, mustProfile(tc.release))
		if err != nil {
			t.Fatal(err)
		}
		fp := sz.Plan().Evaluate(1, 4096)
		lines := sz.Section().Lines(fp)
		var got []engine.FootprintLine
		var sum uint64
		for _, l := range lines {
			if l.Label == termLabels[budget.TermGraphPool] || l.Label == draftGraphsLabel {
				got = append(got, l)
				sum += l.Bytes
			}
		}
		want := []engine.FootprintLine{
			{Label: termLabels[budget.TermGraphPool], Bytes: fp.Terms[budget.TermGraphPool] - 72531968, Beside: tc.beside},
			{Label: draftGraphsLabel, Bytes: 72531968, Beside: tc.beside},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: graph lines (-want +got):\n%s", tc.release, diff)
		}
		if sum != fp.Terms[budget.TermGraphPool] {
			t.Errorf("%s: the graph lines sum to %d, want the term %d", tc.release, sum, fp.Terms[budget.TermGraphPool])
		}
		if j := sz.specJSON(); j == nil || j.DraftGraphBytes != 72531968 {
			t.Errorf("%s: the report's draft_graph_bytes is %+v, want 72531968", tc.release, j)
		}
		if line := sz.specSettings()[0]; !strings.Contains(line, "the drafter's PIECEWISE graphs at the 49 mixed sizes") || !strings.Contains(line, tc.where) {
			t.Errorf("%s: the speculative-decoding line %q does not name the drafter's 49 graphs %s", tc.release, line, tc.where)
		}
	}
}

// TestDraftGraphRefusals: what stays refused with graphs names its flag
// and what it would add; -O0 and --enforce-eager capture nothing, and the
// serve sizes without a drafter graph.
func TestDraftGraphRefusals(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	dir := WriteEagle3Draft(t)
	for _, tc := range []struct {
		name       string
		s          Serve
		flag, says string
	}{
		{"FULL", Serve{Compilation: Compilation{GraphMode: graphsFull}}, "compilation-config", "under cudagraph_mode FULL"},
		{"LoRA", Serve{LoRA: LoRA{Enable: true}}, "enable-lora", "drafter's CUDA graphs with LoRA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.MaxModelLen, tc.s.SpeculativeConfig = 8192, eagle3Spec(dir)
			_, err := Resolve(tc.s, a, bigClass, v1Llama)
			wantRefusal(t, err, tc.flag, tc.says)
			tc.s.EnforceEager = true
			if _, err := Resolve(tc.s, a, bigClass, v1Llama); err != nil {
				t.Errorf("with --enforce-eager: %v, want it sized", err)
			}
		})
	}
	for _, s := range []Serve{{EnforceEager: true}, {Compilation: Compilation{Level: "0"}}} {
		s.MaxModelLen, s.SpeculativeConfig = 8192, eagle3Spec(dir)
		r, err := Resolve(s, a, bigClass, v1Llama)
		if err != nil {
			t.Fatalf("%+v: %v", s.Compilation, err)
		}
		if n := draftGraphBytes(nil, &r, stageOf(&r, 0)); n != 0 {
			t.Errorf("no graphs captured, yet the drafter's are %d B", n)
		}
	}
}

// TestDraftNeverShrinksDraftlessSpec: with CUDA graphs, an EAGLE or
// EAGLE-3 draft (or a draft model, from 0.27.0) never shrinks a term of the same serve speculating as
// many tokens without a draft (ngram: the same capture sizes, rounded to
// multiples of k+1, and the same rejection sampler), and grows the graph
// term whenever PIECEWISE graphs are captured. (Against a serve without
// speculative decoding the target's own graphs may be fewer once the
// sizes are rounded to k+1: that is speculative decoding's, not the
// draft's.)
func TestDraftNeverShrinksDraftlessSpec(t *testing.T) {
	models := shipped(t)
	dirs := map[string]string{"eagle3": WriteEagle3Draft(t), "eagle": WriteEagleDraft(t), "draft_model": WriteDraftModel(t)}
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B"}
	profiles := []Profile{mustProfile("0.14.0"), mustProfile("0.19.0"), mustProfile("0.20.0"), v1Llama, mustProfile("0.28.0")}
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom(names).Draw(t, "model")
		a := models[name]
		p := rapid.SampledFrom(profiles).Draw(t, "profile")
		var methods []string
		if !p.V2Runner(a) {
			// The V2 runner's speculator stays refused.
			methods = append(methods, "eagle3", "eagle")
		}
		if p.DraftModelGraphs && name == names[0] {
			// The shipped draft model shares Llama's vocabulary only.
			methods = append(methods, "draft_model")
		}
		if len(methods) == 0 {
			t.Skip("no draft sized with graphs for this model and release")
		}
		k := rapid.Uint64Range(1, 8).Draw(t, "k")
		s := Serve{
			TensorParallelSize:  rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MaxModelLen:         rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:          rapid.Uint64Range(1, 512).Draw(t, "seqs"),
			MaxNumBatchedTokens: 8192,
			AsyncScheduling:     engine.Off,
			Compilation:         Compilation{GraphMode: rapid.SampledFrom([]string{"", graphsPiecewise, graphsFullDecodeOnly}).Draw(t, "mode")},
			SpeculativeConfig:   `{"method": "ngram", "num_speculative_tokens": ` + itoa(k) + `}`,
		}
		plain, err := Compile(a, s, bigClass, p)
		if err != nil {
			t.Skip(err)
		}
		method := rapid.SampledFrom(methods).Draw(t, "method")
		s.SpeculativeConfig = `{"method": "` + method + `", "model": "` + dirs[method] + `", "num_speculative_tokens": ` + itoa(k) + `}`
		r, err := Resolve(s, a, bigClass, p)
		if err != nil {
			t.Fatalf("%s refused where ngram sizes: %v", method, err)
		}
		spec, err := Compile(a, s, bigClass, p)
		if err != nil {
			t.Fatalf("%s resolves but does not compile: %v", method, err)
		}
		seqs, tokens := rapid.Uint64Range(1, s.MaxNumSeqs).Draw(t, "at seqs"), rapid.Uint64Range(1, s.MaxModelLen).Draw(t, "at tokens")
		pf, sf := plain.Evaluate(seqs, tokens), spec.Evaluate(seqs, tokens)
		for term := range budget.NumTerms {
			if sf.Terms[term] < pf.Terms[term] {
				t.Fatalf("%s shrinks with an %s draft: %d -> %d", budget.Term(term), method, pf.Terms[term], sf.Terms[term])
			}
		}
		if mixed, _ := r.Graphs.counts(); mixed > 0 && sf.Terms[budget.TermGraphPool] <= pf.Terms[budget.TermGraphPool] {
			t.Fatalf("%d PIECEWISE graphs captured, yet the graph term does not grow with the drafter's: %d -> %d", mixed, pf.Terms[budget.TermGraphPool], sf.Terms[budget.TermGraphPool])
		}
	})
}

// TestDraftGraphsCompilerEqualsReference: with the drafter's graphs the
// compiled plan is the reference's, field for field.
func TestDraftGraphsCompilerEqualsReference(t *testing.T) {
	models := shipped(t)
	specs := []string{eagle3Spec(WriteEagle3Draft(t)), eagleSpec(WriteEagleDraft(t)), draftModelSpec(WriteDraftModel(t))}
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B"}
	profiles := []Profile{mustProfile("0.19.0"), v1Llama, mustProfile("0.14.0"), mustProfile("0.28.0")}
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom(names).Draw(t, "model")]
		p := rapid.SampledFrom(profiles).Draw(t, "profile")
		c := testClass(rapid.Bool().Draw(t, "unified"))
		s := Serve{
			TensorParallelSize: rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MaxModelLen:        rapid.Uint64Range(256, 16384).Draw(t, "len"),
			MaxNumSeqs:         rapid.Uint64Range(1, 512).Draw(t, "seqs"),
			Compilation:        Compilation{GraphMode: rapid.SampledFrom([]string{"", graphsPiecewise}).Draw(t, "mode")},
			SpeculativeConfig:  rapid.SampledFrom(specs).Draw(t, "spec"),
		}
		compilerIsReference(t, a, s, c, p)
	})
}

// TestDraftModelGraphsByHand: Llama-3.2-1B-Instruct as the draft model of
// Llama-3.1-8B-Instruct, k = 3, 256 sequences, 8192 batched tokens, under
// 0.28.0, which captures a draft model's graphs (PR #47460): the 49
// PIECEWISE sizes of TestDraftGraphsByHand, 16 draft layers each after the
// first: 48 x 16 x 156672 = 120324096 B. Its forward pass a token, the
// target's rule on the draft (hidden 2048, intermediate 8192, 32 heads and
// 8 KV heads of 64): attention 2 x 32 x 64 + 2 x 8 x 64 = 5120, MLP 3 x
// 8192 = 24576, the wider; 2 x 2048 + 24576 = 28672, plus the layer's
// input and the down output 2 x 2048: 32768 x 2 = 65536 B, at 512 tokens
// 33554432 B. In all 153878528 B. Before 0.27.0 the graphs are refused by
// name (the dispatcher had no keys until PR #47460); eager, they size.
func TestDraftModelGraphsByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, SpeculativeConfig: draftModelSpec(WriteDraftModel(t))}
	r, err := Resolve(s, a, bigClass, mustProfile("0.28.0"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := draftGraphBytes(nil, &r, stageOf(&r, 0)), uint64(153878528); got != want {
		t.Errorf("the draft model's graphs: %d B, want %d", got, want)
	}
	for _, release := range []string{"0.26.1", "0.21.0"} {
		_, err := Resolve(s, a, bigClass, mustProfile(release))
		wantRefusal(t, err, "speculative-config", "the draft model's CUDA graphs before vLLM 0.27.0")
		eager := s
		eager.EnforceEager = true
		if _, err := Resolve(eager, a, bigClass, mustProfile(release)); err != nil {
			t.Errorf("%s with --enforce-eager: %v, want it sized", release, err)
		}
	}
}

// TestMTPGraphsByHand: DeepSeek-V3 at TP 8 with its MTP layer as the draft
// (k = 1), 64 sequences, 8192 batched tokens, on main. The largest size is
// min(2 x 64 x 2, 512) = 256; the default sizes up to it (1, 2, 4, 8 ...
// 248, 256: 35) rounded to multiples of 2 are 2, 4, 8 ... 256: 34
// PIECEWISE graphs, the MTP layer in each after the first: 33 x 1 x
// 156672 = 5170176 B. Its forward pass a token is the target's (the same
// decoder layer): MLA attention on 16 heads a rank, 16 x (128 + 64) + 16 x
// (128 + 128) + 16 x 128 + 512 + 64 = 9792; the MoE MLP, 8 experts x (3 x
// 2048 / 8 + 7168) + 3 x 2048 / 8 for the shared expert = 64256, the
// wider; 2 x 7168 + 64256 + 2 x 7168 = 92928, x 2 B = 185856 B; at 256
// tokens 47579136 B. In all 52749312 B.
func TestMTPGraphsByHand(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V3"]
	if got, want := forwardBytesPerToken(a, 8, 2), uint64(185856); got != want {
		t.Errorf("DeepSeek-V3's forward pass at TP 8: %d B a token, want %d", got, want)
	}
	s := Serve{TensorParallelSize: 8, MaxModelLen: 8192, MaxNumSeqs: 64, MaxNumBatchedTokens: 8192, SpeculativeConfig: mtp1}
	r, err := Resolve(s, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := draftGraphBytes(a, &r, stageOf(&r, 0)), uint64(52749312); got != want {
		t.Errorf("the MTP layer's graphs: %d B, want %d", got, want)
	}
	s.Compilation.GraphMode = graphsFull
	_, err = Resolve(s, a, bigClass, current)
	wantRefusal(t, err, "compilation-config", "the MTP drafter's CUDA graphs under cudagraph_mode FULL")
}

// TestMTPNeverShrinksDraftlessSpec: with CUDA graphs, DeepSeek-V3's MTP
// layer never shrinks a term of the same serve speculating as many tokens
// with ngram (the same capture sizes), and grows the graph term whenever
// PIECEWISE graphs are captured; the compiled plan is the reference's.
func TestMTPNeverShrinksDraftlessSpec(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V3"]
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.Uint64Range(1, 4).Draw(t, "k")
		s := Serve{
			TensorParallelSize:  rapid.SampledFrom([]uint64{8, 16}).Draw(t, "tp"),
			MaxModelLen:         rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:          rapid.Uint64Range(1, 256).Draw(t, "seqs"),
			MaxNumBatchedTokens: 8192,
			AsyncScheduling:     engine.Off,
			Compilation:         Compilation{GraphMode: rapid.SampledFrom([]string{"", graphsPiecewise, graphsFullDecodeOnly}).Draw(t, "mode")},
			SpeculativeConfig:   `{"method": "ngram", "num_speculative_tokens": ` + itoa(k) + `}`,
		}
		plain, err := Compile(a, s, bigClass, current)
		if err != nil {
			t.Skip(err)
		}
		s.SpeculativeConfig = `{"method": "mtp", "num_speculative_tokens": ` + itoa(k) + `}`
		r, err := Resolve(s, a, bigClass, current)
		if err != nil {
			t.Fatalf("mtp refused where ngram sizes: %v", err)
		}
		compilerIsReference(t, a, s, bigClass, current)
		spec, err := Compile(a, s, bigClass, current)
		if err != nil {
			t.Fatal(err)
		}
		seqs, tokens := rapid.Uint64Range(1, s.MaxNumSeqs).Draw(t, "at seqs"), rapid.Uint64Range(1, s.MaxModelLen).Draw(t, "at tokens")
		pf, sf := plain.Evaluate(seqs, tokens), spec.Evaluate(seqs, tokens)
		for term := range budget.NumTerms {
			if sf.Terms[term] < pf.Terms[term] {
				t.Fatalf("%s shrinks with the MTP draft: %d -> %d", budget.Term(term), pf.Terms[term], sf.Terms[term])
			}
		}
		if mixed, _ := r.Graphs.counts(); mixed > 0 && sf.Terms[budget.TermGraphPool] <= pf.Terms[budget.TermGraphPool] {
			t.Fatalf("%d PIECEWISE graphs captured, yet the graph term does not grow with the MTP layer's: %d -> %d", mixed, pf.Terms[budget.TermGraphPool], sf.Terms[budget.TermGraphPool])
		}
	})
}
