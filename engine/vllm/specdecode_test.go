package vllm

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// ngram3 is an ngram serve of k = 3 with prompt_lookup_max alone.
const ngram3 = `{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}`

// TestResolveSpec: vLLM's defaults for ngram and suffix, and each refusal
// naming its flag.
func TestResolveSpec(t *testing.T) {
	models := shipped(t)
	llama := models["meta-llama__Llama-3.1-8B-Instruct"]
	defaults := []struct {
		name, config string
		want         Speculative
	}{
		// prompt_lookup_min takes prompt_lookup_max when only it is given
		// (speculative.py:809-815).
		{"ngram, max alone", ngram3, Speculative{Method: "ngram", Tokens: 3, LookupMin: 4, LookupMax: 4}},
		// Both absent: 5 and 5 (:805-808).
		{"ngram, lookups default", `{"method": "ngram", "num_speculative_tokens": 2}`, Speculative{Method: "ngram", Tokens: 2, LookupMin: 5, LookupMax: 5}},
		// The model "[ngram]" without a method is ngram (:747-748).
		{"ngram by its model", `{"model": "[ngram]", "num_speculative_tokens": 5, "prompt_lookup_min": 2}`, Speculative{Method: "ngram", Tokens: 5, LookupMin: 2, LookupMax: 2}},
		// suffix: k defaults to suffix_decoding_max_tree_depth, 24 (:1148-1151).
		{"suffix, tokens default", `{"method": "suffix"}`, Speculative{Method: "suffix", Tokens: 24}},
		{"suffix, tree depth", `{"method": "suffix", "suffix_decoding_max_tree_depth": 8}`, Speculative{Method: "suffix", Tokens: 8}},
	}
	for _, tc := range defaults {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolve(Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, SpeculativeConfig: tc.config}, llama, bigClass, current)
			if err != nil {
				t.Fatal(err)
			}
			got := r.Spec
			got.HostBytes = 0 // TestSpecHostBytes
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("resolved (-want +got):\n%s", diff)
			}
		})
	}
	cases := []struct {
		name, model, release string
		s                    Serve
		unified              bool
		flag, says           string
	}{
		{"an EAGLE-3 draft", "meta-llama__Llama-3.1-8B-Instruct", "main",
			Serve{SpeculativeConfig: `{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}`}, false,
			"speculative-config", "from the Hugging Face Hub, not read"},
		{"DeepSeek's MTP alias", "deepseek-ai__DeepSeek-V3", "main", Serve{Compilation: Compilation{GraphMode: graphsFull}, SpeculativeConfig: `{"method": "deepseek_mtp", "num_speculative_tokens": 1}`}, false,
			"compilation-config", "the MTP drafter's CUDA graphs under cudagraph_mode FULL"},
		{"medusa by a Hub id not read", "meta-llama__Llama-3.1-8B-Instruct", "main", Serve{SpeculativeConfig: `{"method": "medusa", "model": "m", "num_speculative_tokens": 3}`}, false,
			"speculative-config", "from the Hugging Face Hub, not read"},
		{"mlp_speculator", "meta-llama__Llama-3.1-8B-Instruct", "main", Serve{SpeculativeConfig: `{"method": "mlp_speculator", "model": "m", "num_speculative_tokens": 3}`}, false,
			"speculative-config", "the MLP speculator's weights"},
		{"a method vLLM has not", "meta-llama__Llama-3.1-8B-Instruct", "main", Serve{SpeculativeConfig: `{"method": "lookahead", "num_speculative_tokens": 3}`}, false,
			"speculative-config", "vLLM refuses the method"},
		{"ngram without tokens", "meta-llama__Llama-3.1-8B-Instruct", "main", Serve{SpeculativeConfig: `{"method": "ngram"}`}, false,
			"speculative-config", "num_speculative_tokens must be provided"},
		{"lookup min above max", "meta-llama__Llama-3.1-8B-Instruct", "main",
			Serve{SpeculativeConfig: `{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_min": 6, "prompt_lookup_max": 4}`}, false,
			"speculative-config", "prompt_lookup_min=6 must be <= prompt_lookup_max=4"},
		{"tokens of a wrong type", "meta-llama__Llama-3.1-8B-Instruct", "main", Serve{SpeculativeConfig: `{"method": "ngram", "num_speculative_tokens": "3"}`}, false,
			"speculative-config", "an integer of 1 or more"},
		{"not an object", "meta-llama__Llama-3.1-8B-Instruct", "main", Serve{SpeculativeConfig: `[1]`}, false,
			"speculative-config", "want a JSON object"},
		{"a key not read", "meta-llama__Llama-3.1-8B-Instruct", "main",
			Serve{SpeculativeConfig: `{"method": "ngram", "num_speculative_tokens": 3, "max_model_len": 4096}`}, false, "speculative-config", `max_model_len`},
		{"before 0.14.0", "meta-llama__Llama-3.1-8B-Instruct", "0.10.2", Serve{SpeculativeConfig: ngram3}, false, "speculative-config", "from vLLM 0.14.0"},
		{"before the flag", "meta-llama__Llama-3.1-8B-Instruct", "0.6.6", Serve{SpeculativeConfig: ngram3}, false, "speculative-config", "vLLM 0.8.0 added it"},
		{"the release of the V2 runner for every model", "meta-llama__Llama-3.1-8B-Instruct", "0.29.0", Serve{SpeculativeConfig: ngram3}, false, "speculative-config", "PR #53183"},
		// vllm/config/vllm.py:1153-1173.
		{"async scheduling asked for", "meta-llama__Llama-3.1-8B-Instruct", "main", Serve{SpeculativeConfig: ngram3, AsyncScheduling: engine.On}, false,
			"async-scheduling", "only supported with EAGLE/MTP"},
		{"suffix on a unified device", "meta-llama__Llama-3.1-8B-Instruct", "main", Serve{SpeculativeConfig: `{"method": "suffix"}`}, true,
			"speculative-config", "unified device"},
		// 1 + 600 is above the largest capture, 512: no size survives the
		// rounding (compilation.py:1553-1560).
		{"k above every graph size", "meta-llama__Llama-3.1-8B-Instruct", "main", Serve{SpeculativeConfig: `{"method": "ngram", "num_speculative_tokens": 600}`}, false,
			"speculative-config", "No valid cudagraph sizes"},
		{"a hybrid model", "Qwen__Qwen3-Next-80B-A3B-Thinking", "main", Serve{SpeculativeConfig: ngram3}, false,
			"speculative-config", "Qwen3.5's own MTP layers"},
		{"a dense model on Blackwell", "meta-llama__Llama-3.1-8B-Instruct", "main", Serve{SpeculativeConfig: ngram3}, false,
			"speculative-config", "compute capability 10.0"},
		{"a pooling runner", "meta-llama__Llama-3.1-8B-Instruct", "main", Serve{SpeculativeConfig: ngram3, Runner: "pooling", PoolerConfig: `{"seq_pooling_type": "LAST"}`}, false,
			"speculative-config", "generating model"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := bigClass
			if tc.unified {
				c = testClass(true)
			}
			if strings.Contains(tc.name, "Blackwell") {
				c.Device.Silicon.Major = 10
			}
			_, err := Resolve(tc.s, models[tc.model], c, mustProfile(tc.release))
			wantRefusal(t, err, tc.flag, tc.says)
		})
	}
	t.Run("an MLA model on Blackwell", func(t *testing.T) {
		// FlashInfer-MLA, the first MLA backend on SM10x, takes a uniform
		// batch (flashinfer_mla.py:116): sized.
		c := bigClass
		c.Device.Silicon.Major = 10
		if _, err := Resolve(Serve{SpeculativeConfig: ngram3, MaxModelLen: 8192}, models["deepseek-ai__DeepSeek-V3"], c, current); err != nil {
			t.Errorf("got %v, want it sized", err)
		}
	})
	t.Run("a dense model on Blackwell, eager", func(t *testing.T) {
		c := bigClass
		c.Device.Silicon.Major = 10
		if _, err := Resolve(Serve{SpeculativeConfig: ngram3, EnforceEager: true}, llama, c, current); err != nil {
			t.Errorf("got %v, want it sized: without graphs the backend's decode graphs do not matter", err)
		}
	})
	t.Run("k above every graph size, eager", func(t *testing.T) {
		s := Serve{SpeculativeConfig: `{"method": "ngram", "num_speculative_tokens": 600}`, EnforceEager: true}
		if _, err := Resolve(s, llama, bigClass, current); err != nil {
			t.Errorf("got %v; without graphs nothing is rounded", err)
		}
	})
}

// TestSpecRunsV1: from 0.22.0 an ngram serve runs the V1 model runner
// (the V2 runner lists ngram among what it does not support), with async
// scheduling off by default: one batch in flight.
func TestSpecRunsV1(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192}
	plain, err := Resolve(s, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	s.SpeculativeConfig = ngram3
	spec, err := Resolve(s, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	type runner struct {
		V2                 bool
		Async              bool
		MaxConcurrent      uint64
		Graphs             GraphRule
		AsyncFromSpecNoted bool
	}
	got := func(r Resolved) runner {
		why, _ := r.Sources.Get("async-scheduling")
		return runner{r.Profile.V2Runner(a), r.Async, r.MaxConcurrentBatches, r.Profile.GraphsFor(a), strings.Contains(why, "speculative decoding")}
	}
	// Llama on main: V2 (graphs beside, up to 0.28's rules for V2), async
	// on with pp+1 = 2 batches; with ngram: V1, whose graphs main charges,
	// async off, 1 batch.
	want := []runner{{true, true, 2, GraphsBeside, false}, {false, false, 1, GraphsCharged, true}}
	if diff := cmp.Diff(want, []runner{got(plain), got(spec)}); diff != "" {
		t.Errorf("plain, ngram (-want +got):\n%s", diff)
	}
}

// TestSpecGraphCounts pins the rounded capture sizes by hand.
func TestSpecGraphCounts(t *testing.T) {
	cases := []struct {
		name                     string
		largest, q, seqs         uint64
		piecewise, full, topSize uint64
	}{
		// 1, 2, 4 -> 4; 8..248 by 8 (31) and 256..512 by 16 (17) are
		// multiples of 4 already: 49 sizes, all from 4 to 4 x 1024.
		{"k 3, 1024 seqs", 512, 4, 1024, 49, 49, 512},
		// Rounded to 3: 1, 2 -> 3; 4 -> 6; each 8j a distinct multiple of
		// 3 (31); 256 + 16j -> 258 ... 498 for j < 16, 512 -> 513 above
		// 512 and dropped (16): 49, the largest 498.
		{"k 2, 1024 seqs", 512, 3, 1024, 49, 49, 498},
		// 4 sequences, k 3: largest 2 x 4 x 4 = 32; 1, 2, 4 -> 4, then
		// 8, 16, 24, 32: 5 sizes; FULL from 4 to 16: 4, 8, 16.
		{"k 3, 4 seqs", 32, 4, 4, 5, 3, 32},
		// One sequence, k 1: largest 4; 1, 2 -> 2, 4: 2 sizes, FULL 2.
		{"k 1, 1 seq", 4, 2, 1, 2, 1, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, f, top := specGraphCounts(tc.largest, tc.q, tc.seqs)
			if diff := cmp.Diff([3]uint64{tc.piecewise, tc.full, tc.topSize}, [3]uint64{p, f, top}); diff != "" {
				t.Errorf("piecewise, full, largest (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSpecGraphCountsAreVLLMs: specGraphCounts, through specSizes and
// Graphs.counts, counts what vLLM's list code keeps: the
// default sizes (_set_cudagraph_sizes), each rounded up to a multiple of
// q, de-duplicated, those above the largest dropped, or q alone when none
// is left (adjust_cudagraph_sizes_for_spec_decode), and the FULL decode
// sizes from q to q x max_num_seqs (cudagraph_dispatcher.py:208-225).
func TestSpecGraphCountsAreVLLMs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seqs := rapid.Uint64Range(1, 2048).Draw(t, "seqs")
		q := rapid.Uint64Range(2, 17).Draw(t, "q")
		largest := min(2*seqs*q, rapid.SampledFrom([]uint64{512, 1024}).Draw(t, "ceiling"))
		var sizes []uint64
		for _, s := range []uint64{1, 2, 4} {
			if s <= largest {
				sizes = append(sizes, s)
			}
		}
		for s := uint64(8); s < min(largest+1, 256); s += 8 {
			sizes = append(sizes, s)
		}
		for s := uint64(256); s < largest+1; s += 16 {
			sizes = append(sizes, s)
		}
		// vLLM then sets max_cudagraph_capture_size to the list's last
		// size (valid_max_size, vllm/config/vllm.py:2003-2027), the bound
		// the rounding keeps to.
		largest = slices.Max(sizes)
		kept := map[uint64]bool{}
		for _, s := range sizes {
			if r := (s + q - 1) / q * q; r <= largest {
				kept[r] = true
			}
		}
		if len(kept) == 0 && q <= largest {
			kept[q] = true
		}
		var full, top uint64
		for s := range kept {
			top = max(top, s)
			if s >= q && s <= q*seqs {
				full++
			}
		}
		want := [3]uint64{uint64(len(kept)), full, top}
		p, f, tp := specGraphCounts(largest, q, seqs)
		if diff := cmp.Diff(want, [3]uint64{p, f, tp}); diff != "" {
			t.Fatalf("largest %d, q %d, seqs %d: piecewise, full, largest (-vLLM's lists +specGraphCounts):\n%s", largest, q, seqs, diff)
		}
	})
}

// TestSpecGraphs: with k 3 at 1024 sequences the largest capture stays
// 512 (2 x 1024 x 4 is above the ceiling) and each mode captures 49 sizes
// instead of 51: 4 graphs fewer beyond the first of each mode, at
// graphBytesPerLayerGraph a layer. At 4 sequences the largest grows from
// 8 to 32 tokens, the first capture's activations with it.
func TestSpecGraphs(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	for _, tc := range []struct {
		name string
		seqs uint64
		want int64
	}{
		{"1024 seqs", 1024, -4 * 32 * graphBytesPerLayerGraph},
		// Plain: largest 8, sizes 1, 2, 4, 8 (4), FULL up to 4 (3): 5
		// further graphs; k 3: 5 and 3, 6 further graphs, and 24 more
		// tokens in the first capture.
		{"4 seqs", 4, 1*32*graphBytesPerLayerGraph + 24*int64(forwardBytesPerToken(a, 1, 2))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Serve{MaxModelLen: 8192, MaxNumSeqs: tc.seqs, MaxNumBatchedTokens: 8192}
			plain, err := Resolve(s, a, bigClass, current)
			if err != nil {
				t.Fatal(err)
			}
			s.SpeculativeConfig = ngram3
			spec, err := Resolve(s, a, bigClass, current)
			if err != nil {
				t.Fatal(err)
			}
			st := stageOf(&plain, 0)
			per := forwardBytesPerToken(a, 1, 2)
			if got := int64(graphBytes(&spec, st, per)) - int64(graphBytes(&plain, st, per)); got != tc.want {
				t.Errorf("ngram k 3 changes the graphs by %d B, want %d", got, tc.want)
			}
		})
	}
}

// TestSpecSampler: the profile's dummy rejection sampler adds reqs x
// padded vocab x (2 x dtype + 4) above the sampler's peak: Llama-3.1-8B
// at 1024 sequences, bf16, 128256 tokens: 1024 x 128256 x 8. Compared on
// 0.21.0, where Llama runs the V1 runner with or without it. The sampler
// item is what the sampler holds above the forward pass (8192 tokens x
// (4 x 4096 + 3 x 14336) x 2 B = 0.91 GiB); at 1024 rows it is above it
// both ways (1024 x 128256 x 14 B = 1.71 GiB without), so the difference
// is the rejection sampler's whole.
func TestSpecSampler(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	p := mustProfile("0.21.0")
	sampler := func(config string) uint64 {
		s := Serve{MaxModelLen: 8192, MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192, SpeculativeConfig: config}
		r, err := Resolve(s, a, bigClass, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
			if it.Name == "sampler_logits" {
				return it.Bytes
			}
		}
		t.Fatal("no sampler_logits item")
		return 0
	}
	if got, want := sampler(ngram3)-sampler(""), uint64(1024*128256*8); got != want {
		t.Errorf("the rejection sampler adds %d B, want %d", got, want)
	}
}

// TestSpecHostBytes: ngram's host buffers of max_num_seqs x k and
// max_num_seqs int32, and its warmup's 1024 x max_model_len int32 tokens:
// 256 x 4 x 4 + 1024 x 8192 x 4 = 4096 + 33554432. Suffix holds nothing
// sized.
func TestSpecHostBytes(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	for _, tc := range []struct {
		config string
		want   uint64
	}{
		{ngram3, 4096 + 33554432},
		{`{"method": "suffix"}`, 0},
	} {
		r, err := Resolve(Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, SpeculativeConfig: tc.config}, a, bigClass, current)
		if err != nil {
			t.Fatal(err)
		}
		if r.Spec.HostBytes != tc.want || r.hostBytes() != tc.want {
			t.Errorf("%s: host %d B (hostBytes %d), want %d", tc.config, r.Spec.HostBytes, r.hostBytes(), tc.want)
		}
	}
}

// TestSpecNeverShrinksFootprint: adding ngram or suffix speculative
// decoding to a serve never shrinks a term of its footprint but the CUDA
// graphs, and leaves its KV cache as it was. The graphs may shrink, as
// they do in vLLM: rounded to multiples of k+1, fewer sizes are captured
// and the largest may round down (TestSpecGraphCounts), a few MiB. The
// serve without it runs without async scheduling too, as vLLM runs the
// speculative one: what async scheduling's second batch holds is async
// scheduling's cost, not speculative decoding's. The non-torch term is
// compared without the V2 runner's request state (v2state.go): vLLM runs
// ngram and suffix on the V1 runner, which holds none of it, so the serve
// that speculates may hold less of it than the one that does not.
func TestSpecNeverShrinksFootprint(t *testing.T) {
	models := shipped(t)
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen2.5-7B-Instruct", "Qwen__Qwen3-8B", "google__gemma-2-9b-it", "Qwen__Qwen3-30B-A3B"}
	profiles := []Profile{current, mustProfile("0.28.0"), mustProfile("0.25.0"), mustProfile("0.21.0"), mustProfile("0.14.0")}
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom(names).Draw(t, "model")]
		p := rapid.SampledFrom(profiles).Draw(t, "profile")
		s := Serve{
			TensorParallelSize:  rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MaxModelLen:         rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:          rapid.Uint64Range(1, 512).Draw(t, "seqs"),
			MaxNumBatchedTokens: 8192,
			EnforceEager:        rapid.Bool().Draw(t, "eager"),
			AsyncScheduling:     engine.Off,
		}
		plain, err := Compile(a, s, bigClass, p)
		if err != nil {
			t.Skip(err)
		}
		plainServe := s
		k := rapid.Uint64Range(1, 8).Draw(t, "k")
		s.SpeculativeConfig = rapid.SampledFrom([]string{
			`{"method": "ngram", "num_speculative_tokens": ` + itoa(k) + `}`,
			`{"method": "suffix", "num_speculative_tokens": ` + itoa(k) + `}`,
		}).Draw(t, "config")
		spec, err := Compile(a, s, bigClass, p)
		if err != nil {
			t.Fatalf("ngram or suffix refused where the plain serve sizes: %v", err)
		}
		seqs, tokens := rapid.Uint64Range(1, s.MaxNumSeqs).Draw(t, "at seqs"), rapid.Uint64Range(1, s.MaxModelLen).Draw(t, "at tokens")
		pf, sf := plain.Evaluate(seqs, tokens), spec.Evaluate(seqs, tokens)
		pf.Terms[budget.TermNonTorch] -= v2StateOf(t, a, plainServe, p)
		sf.Terms[budget.TermNonTorch] -= v2StateOf(t, a, s, p)
		for term := range budget.NumTerms {
			if term != budget.TermGraphPool && sf.Terms[term] < pf.Terms[term] {
				t.Fatalf("%s shrinks with speculative decoding: %d -> %d", budget.Term(term), pf.Terms[term], sf.Terms[term])
			}
		}
		if sf.Terms[budget.TermKVCache] != pf.Terms[budget.TermKVCache] {
			t.Fatalf("ngram and suffix hold no KV of their own, yet the KV term changes: %d -> %d", pf.Terms[budget.TermKVCache], sf.Terms[budget.TermKVCache])
		}
	})
}

// v2StateOf is the V2 runner's request state on the first stage of serve
// s (v2state.go).
func v2StateOf(t *rapid.T, a *model.Arch, s Serve, p Profile) uint64 {
	r, err := Resolve(s, a, bigClass, p)
	if err != nil {
		t.Fatal(err)
	}
	return v2StateBytes(a, &r, stageOf(&r, 0))
}

// itoa is n in decimal, for the tests' JSON.
func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// TestSpecCompilerEqualsReference: with speculative decoding on, the
// compiled plan is the reference's, field for field, on discrete and
// unified classes.
func TestSpecCompilerEqualsReference(t *testing.T) {
	models := shipped(t)
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B", "google__gemma-2-9b-it", "Qwen__Qwen3-30B-A3B"}
	profiles := []Profile{current, mustProfile("0.29.0"), mustProfile("0.21.0"), mustProfile("0.14.0")}
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
			SpeculativeConfig:    `{"method": "ngram", "num_speculative_tokens": ` + itoa(rapid.Uint64Range(1, 8).Draw(t, "k")) + `}`,
		}
		compilerIsReference(t, a, s, c, p)
	})
}

// TestWriteSpecFlags: the launch line carries the JSON as given, quoted
// for a shell.
func TestWriteSpecFlags(t *testing.T) {
	var b strings.Builder
	writeSpecFlags(&b, ngram3)
	if want := ` --speculative-config '` + ngram3 + `'`; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	writeSpecFlags(&b, "")
	if b.String() != "" {
		t.Errorf("no config wrote %q", b.String())
	}
}

// TestBuildServeReadsSpec: a log's ngram or suffix speculative_config, a
// Python dict in its non-default args, fills the serve (and is no longer
// a warning of memory left out); a method membudget does not size stays a
// warning; a sized one the profile or model does not take is dropped with
// a warning.
func TestBuildServeReadsSpec(t *testing.T) {
	models := shipped(t)
	llama := models["meta-llama__Llama-3.1-8B-Instruct"]
	line := func(spec string) string {
		return "INFO non-default args: {'model': 'm', 'max_model_len': 8192, 'speculative_config': " + spec + "}\n"
	}
	cases := []struct {
		name, log, release string
		want               string
		warned             bool
	}{
		{"ngram", line("{'method': 'ngram', 'num_speculative_tokens': 3, 'prompt_lookup_max': 4, 'prompt_lookup_min': None}"), "main",
			`{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4, "prompt_lookup_min": null}`, false},
		{"suffix", line("{'method': 'suffix'}"), "main", `{"method": "suffix"}`, false},
		// The engine config's repr alone (a line of LLM(...), no args).
		{"the engine config's repr", "INFO Initializing a V1 LLM engine (v0.19.0) with config: model='m', speculative_config=SpeculativeConfig(method='ngram', model=None, num_spec_tokens=3), tokenizer='m'\n", "main",
			`{"method": "ngram", "num_speculative_tokens": 3}`, false},
		{"the dict before the repr", line("{'method': 'ngram', 'num_speculative_tokens': 3, 'prompt_lookup_max': 2}") +
			"INFO Initializing a V1 LLM engine (v0.19.0) with config: model='m', speculative_config=SpeculativeConfig(method='ngram', model=None, num_spec_tokens=3), tokenizer='m'\n", "main",
			`{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 2}`, false},
		{"an EAGLE repr stays a warning", "INFO Initializing a V1 LLM engine (v0.19.0) with config: model='m', speculative_config=SpeculativeConfig(method='eagle3', model='yuhuili/EAGLE3-LLaMA3.1-Instruct-8B', num_spec_tokens=3), tokenizer='m'\n", "main", "", true},
		{"mtp stays a warning", line("{'method': 'mtp', 'num_speculative_tokens': 1}"), "main", "", true},
		{"an mtp repr stays a warning", "INFO Initializing a V1 LLM engine (v0.19.0) with config: model='m', speculative_config=SpeculativeConfig(method='mtp', model='m', num_spec_tokens=2), tokenizer='m'\n", "main", "", true},
		{"an older release drops it", line("{'method': 'ngram', 'num_speculative_tokens': 3}"), "0.10.2", "", true},
	}
	// The mtp cases' target is one whose MTP layers membudget sizes, so
	// that only explain's leaving mtp out (loggedSpecMethods) drops them.
	targets := map[string]*model.Arch{"mtp stays a warning": models["deepseek-ai__DeepSeek-V3"], "an mtp repr stays a warning": models["deepseek-ai__DeepSeek-V3"]}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ls, err := buildServe(logSource(t, tc.log).Log, Serve{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := llama
			if target, ok := targets[tc.name]; ok {
				a = target
			}
			ls.dropUnsizedSpec(a, bigClass, mustProfile(tc.release))
			if ls.Serve.SpeculativeConfig != tc.want || (len(ls.Warnings) > 0) != tc.warned {
				t.Errorf("config %q, warnings %q; want %q, warned %v", ls.Serve.SpeculativeConfig, ls.Warnings, tc.want, tc.warned)
			}
			if _, from := ls.From["speculative-config"]; from != (tc.want != "") {
				t.Errorf("speculative-config from the log: %v, want %v", from, tc.want != "")
			}
		})
	}
}

// TestPyDictJSON: the Python literals vLLM logs a config in, as JSON, and
// what is left alone.
func TestPyDictJSON(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"{'a': 1, 'b': True, 'c': None, 'd': 'x y'}", `{"a": 1, "b": true, "c": null, "d": "x y"}`, true},
		{"{'model': 'it\\'s'}", "", false},
		{`{'model': "q"}`, "", false},
		{"{'a': 'unterminated}", "", false},
		{"[1, 2]", "", false},
		{"{'a': Ellipsis}", "{\"a\": Ellipsis}", false},
	} {
		got, ok := pyDictJSON(tc.in)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("pyDictJSON(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// specGraphCounts (the tests' helper) is the CUDA graphs of the default FULL_AND_PIECEWISE
// mode under speculative decoding, for the default sizes up to largest
// (see [specSizes]): PIECEWISE for every rounded size, FULL for those from
// q to q x maxSeqs; top is the largest rounded size, the first capture's
// batch.
func specGraphCounts(largest, q, maxSeqs uint64) (piecewise, full, top uint64) {
	sizes, err := specSizes(defaultSizes(largest), q)
	if err != nil {
		return 0, 0, 0
	}
	g := Graphs{Mode: graphsFullAndPiecewise, Sizes: sizes, MaxNumSeqs: maxSeqs, DecodeQuery: q}
	piecewise, full = g.counts()
	return piecewise, full, g.Largest()
}
