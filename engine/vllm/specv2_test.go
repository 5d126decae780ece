package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/hub"
)

// TestSpecV2ByHand: Llama-3.1-8B-Instruct with the shipped EAGLE-3 draft
// (SpecForge's llama3-8B-eagle3 config, k = 3) on vLLM main, which runs
// Llama on the V2 model runner, eager, T = 8192 batched tokens, N = 256
// sequences, bf16, TP 1. Every figure by hand:
//
// The speculator's buffers: input_ids 8192 x 4 = 32768, positions 8192 x
// 8 = 65536, is_padding 8192, query_start_loc 257 x 4 = 1028, seq_lens and
// dcp_local_seq_lens 256 x 4 = 1024 each, idx_mapping 1024, temperature
// 1024, seeds 256 x 8 = 2048, draft_tokens 256 x 3 x 8 = 6144,
// hidden_states 8192 x 4096 x 2 = 67108864, current_draft_step 8,
// last_token_indices 2048: 67230732 B.
//
// The profile run, h = 8192 x 4096 x 2 = 67108864 B:
//  1. the target's forward pass: (4 x 4096 + 3 x 14336) x 2 = 118784 B a
//     token, 973078528 B, and the three auxiliary states 3h = 201326592:
//     1174405120;
//  2. combine_hidden_states: 8h = 536870912;
//  3. the draft's forward pass: its bytes a token are (5 x 4096 + max(2
//     x 32 x 128 + 2 x 8 x 128 + 4096, 3 x 14336)) x 2 = (20480 + 43008)
//     x 2 = 126976, 1040187392 B over 8192 tokens, beside 5h = 335544320:
//     1375731712;
//  4. the draft's logits: 6h = 402653184, the sampled rows 256 x 4096 x 2
//     = 2097152, the draft vocabulary's logits 256 x 32000 x 2 = 16384000,
//     its arange and targets 2 x 31960 x 8 = 511360, logits_new 256 x
//     128256 x 2 = 65667072: 487312768.
//
// The largest is 3: 1375731712. Without the draft the peak is the forward
// pass, 973078528 (the V2 sampler's h + 256 x 128256 x 2 = 132775936
// stays below it), so the drafter adds 1375731712 - 973078528 =
// 402653184 B (6h), and the V1 proposer's buffers and the V1 dummy
// rejection sampler are gone.
func TestSpecV2ByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(WriteEagle3Draft(t))}
	r, err := Resolve(s, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	if !onV2Speculator(&r) {
		t.Fatal("the draft is not on the V2 speculator")
	}
	got := map[string]uint64{}
	for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
		got[it.Name] = it.Bytes
	}
	want := map[string]uint64{
		"v2_draft_buffers":  67230732,
		"draft_profile_run": 402653184,
		"draft_weights":     849635008 + llamaDraftRope, // as on the V1 runner (TestDraftWeightsByHand)
		"activation_peak":   973078528 + profileResidualV1,
		"sampler_logits":    0,
		"draft_buffers":     0, // the V1 proposer's
	}
	sub := map[string]uint64{}
	for name := range want {
		sub[name] = got[name] // 0 where the item is missing
	}
	if diff := cmp.Diff(want, sub); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if n := specSamplerBytes(&r, 256, budget.RoundUp(a.Vocab, vocabPadding)); n != 0 {
		t.Errorf("the V2 dummy sampler runs no rejection sampler, got %d B", n)
	}
	// The report's JSON names both.
	sz, err := Size(&hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}, bigClass, s, current)
	if err != nil {
		t.Fatal(err)
	}
	if j := sz.specJSON(); j == nil || j.V2BufferBytes != 67230732 || j.DraftProfileBytes != 402653184 {
		t.Errorf("the report's speculative JSON is %+v, want v2_speculator_buffer_bytes 67230732 and draft_profile_run_bytes 402653184", j)
	}
	// The draft's one attention layer joins the target's group as on the
	// V1 runner: 33 layers of a 65536 B page (TestDraftKV).
	if diff := cmp.Diff(kvShape{1, 33, false, 65536, 33}, kvShapeAt(t, a, s, current)); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
}

// TestSpecV2EagleByHand: Llama-3.1-8B-Instruct with the shipped EAGLE-1
// draft (EAGLE-LLaMA3-Instruct-8B: one layer, hidden 4096, 32/8 heads of
// 128, intermediate 14336), k = 3, on vLLM main, eager, T = 8192, N =
// 256, bf16, TP 1, h = 67108864 B:
//
// The buffers are EAGLE-3's (TestSpecV2ByHand): 67230732 B.
//
// The profile run: 1. the target's forward pass alone, 973078528 (no
// auxiliary states: EAGLE-1 reads the last hidden state only); 2. the
// draft's fc, 5h = 335544320; 3. the draft's layer, (4 x 4096 + max(2 x
// 32 x 128 + 2 x 8 x 128, 3 x 14336)) x 2 = (16384 + 43008) x 2 = 118784
// B a token, 973078528 over 8192 tokens, beside 2h: 1107296256; 4. the
// logits: 2h + 256 x 4096 x 2 + 256 x 128256 x 2 = 134217728 + 2097152 +
// 65667072 = 201981952. The largest is 3, 2h above the forward pass:
// 134217728 B.
func TestSpecV2EagleByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagleSpec(WriteEagleDraft(t))}
	r, err := Resolve(s, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
		got[it.Name] = it.Bytes
	}
	want := map[string]uint64{"v2_draft_buffers": 67230732, "draft_profile_run": 134217728, "activation_peak": 973078528 + profileResidualV1, "sampler_logits": 0, "draft_buffers": 0}
	sub := map[string]uint64{}
	for name := range want {
		sub[name] = got[name]
	}
	if diff := cmp.Diff(want, sub); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

// TestSpecV2ReleasesByHand: TestSpecV2ByHand's serve (Llama-3.1-8B with
// the shipped EAGLE-3 draft, k = 3, eager, T = 8192, N = 256, bf16, TP 1)
// under each release from 0.23.0, the first to run Llama on the V2
// runner, to 0.27.1, whose eager speculator is main's (specV2Read):
//   - the draft's weights, 849635008 + 524288 B (its rotary table,
//     llamaDraftRope), and its part of the profile run,
//     6h = 402653184 B (the draft's forward pass beside 5h, above the
//     target's forward pass of 973078528 B), are main's at every release;
//   - the buffers, 67230732 B at main, are charged only where vLLM
//     charges what was made after its startup snapshot: from 0.26.1 (PR
//     #49208), whose branch has main's buffers, is_padding (T = 8192 B,
//     PR #46428 of 2026-06-23) among them, so 67230732 B there; 0 at
//     0.23.0 to 0.26.0, where they stand beside the budget.
//
// Qwen3-8B runs on the V2 runner from 0.22.0: the same draft there has
// main's profile-run share for the same serve (by hand below), and no
// charged buffers.
func TestSpecV2ReleasesByHand(t *testing.T) {
	models := shipped(t)
	dir := WriteEagle3Draft(t)
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(dir)}
	items := func(t *testing.T, a *model.Arch, p Profile) map[string]uint64 {
		t.Helper()
		r, err := Resolve(s, a, bigClass, p)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if !onV2Speculator(&r) {
			t.Fatalf("%s: the draft is not on the V2 speculator", p.Name)
		}
		got := map[string]uint64{"v2_draft_buffers": 0, "draft_profile_run": 0, "draft_weights": 0}
		for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
			if _, ok := got[it.Name]; ok {
				got[it.Name] = it.Bytes
			}
		}
		return got
	}
	llama := models["meta-llama__Llama-3.1-8B-Instruct"]
	for _, tc := range []struct {
		spec    string
		buffers uint64
	}{
		{"0.23.0", 0}, {"0.24.0", 0}, {"0.25.0", 0}, {"0.25.1", 0}, {"0.26.0", 0},
		{"0.26.1", 67230732}, {"0.27.0", 67230732}, {"0.27.1", 67230732},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			want := map[string]uint64{"v2_draft_buffers": tc.buffers, "draft_profile_run": 402653184, "draft_weights": 849635008 + llamaDraftRope}
			if diff := cmp.Diff(want, items(t, llama, mustProfile(tc.spec))); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
	// Qwen3-8B's forward pass is (4 x 4096 + 3 x 12288) x 2 = 106496 B a
	// token (Llama's, 118784, has intermediate 14336), so the draft's part
	// of the profile run is 5h + 8192 x (126976 - 106496) = 335544320 +
	// 167772160 = 503316480 B; the weights are the draft's own, and the
	// buffers depend on T, N, hidden and k alone: Llama's 67230732 B on
	// main, none charged on 0.22.0.
	for _, tc := range []struct {
		spec    string
		buffers uint64
	}{{"0.22.0", 0}, {"main", 67230732}} {
		t.Run("Qwen3-8B on "+tc.spec, func(t *testing.T) {
			want := map[string]uint64{"v2_draft_buffers": tc.buffers, "draft_profile_run": 503316480, "draft_weights": 849635008 + llamaDraftRope}
			if diff := cmp.Diff(want, items(t, models["Qwen__Qwen3-8B"], mustProfile(tc.spec))); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("Llama on 0.22.0 runs the V1 proposer", func(t *testing.T) {
		r, err := Resolve(s, llama, bigClass, mustProfile("0.22.0"))
		if err != nil {
			t.Fatal(err)
		}
		if onV2Speculator(&r) {
			t.Error("Llama's draft is on the V2 speculator under 0.22.0, which runs Llama on V1 (PR #43458 came in 0.23.0)")
		}
	})
}

// kvShapeAt is kvShapeOf under profile p.
func kvShapeAt(t testing.TB, a *model.Arch, s Serve, p Profile) kvShape {
	t.Helper()
	r, err := Resolve(s, a, bigClass, p)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := kvLayoutOf(layerSpecs(a, &r), r.Profile.KVGroupRatio)
	if err != nil || len(layout.groups) == 0 {
		t.Fatalf("no KV cache groups: %v", err)
	}
	pool := layout.pool(&r, stageOf(&r, 0))
	return kvShape{len(layout.groups), len(layout.groups[0].layers), layout.uniformType, pool.PageBytes, pool.Tensors}
}

// TestSpecV2Refusals: what stays refused on the V2 runner names the flag
// and says what is missing.
func TestSpecV2Refusals(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	dir := WriteEagle3Draft(t)
	cases := []struct {
		name string
		p    Profile
		s    Serve
		flag string
		says []string
	}{
		{"FULL graphs on main", current, Serve{Compilation: Compilation{GraphMode: graphsFull}, SpeculativeConfig: eagle3Spec(dir)}, "compilation-config",
			[]string{"CUDA graphs on the V2 model runner under cudagraph_mode FULL", "its prefill set takes the target's mode", "pass --enforce-eager"}},
		{"LoRA with graphs on 0.28", mustProfile("0.28.0"), Serve{LoRA: LoRA{Enable: true}, SpeculativeConfig: eagle3Spec(dir)}, "enable-lora",
			[]string{"CUDA graphs on the V2 model runner with LoRA", "not modelled for vLLM 0.28.0", "pass --enforce-eager"}},
		{"graphs on 0.29", mustProfile("0.29.0"), Serve{SpeculativeConfig: eagle3Spec(dir)}, "speculative-config",
			[]string{"not modelled for vLLM 0.29.0", "PR #53306"}},
		// 0.22 to 0.26 size the speculator eager (TestSpecV2ReleasesByHand),
		// not its graphs: one draft step a decode graph as on 0.27.0, but a
		// capture without PR #49364 (and #48261 before 0.26, #44078 and
		// #44253 on 0.22.0).
		{"graphs on 0.23, the first release running Llama on V2", mustProfile("0.23.0"), Serve{SpeculativeConfig: eagle3Spec(dir)}, "speculative-config",
			[]string{"the EAGLE-3 drafter's CUDA graphs on the V2 model runner", "not modelled for vLLM 0.23.0", "one draft step", "as 0.27.0's does", "PR #46849", "PR #48261", "PR #49364", "pass --enforce-eager"}},
		{"graphs on 0.26.1", mustProfile("0.26.1"), Serve{SpeculativeConfig: eagle3Spec(dir)}, "speculative-config",
			[]string{"not modelled for vLLM 0.26.1", "PR #49364", "first landing", "pass --enforce-eager"}},
		{"graphs on 0.22.0, Qwen3 on V2", mustProfile("0.22.0"), Serve{SpeculativeConfig: eagle3Spec(dir)}, "speculative-config",
			[]string{"not modelled for vLLM 0.22.0", "PR #44078", "PR #44253", "pass --enforce-eager"}},
		{"EAGLE-1 graphs on 0.25.0", mustProfile("0.25.0"), Serve{SpeculativeConfig: eagleSpec(WriteEagleDraft(t))}, "speculative-config",
			[]string{"the EAGLE drafter's CUDA graphs on the V2 model runner", "not modelled for vLLM 0.25.0", "pass --enforce-eager"}},
		{"0.29", mustProfile("0.29.0"), Serve{EnforceEager: true, SpeculativeConfig: eagle3Spec(dir)}, "speculative-config",
			[]string{"not modelled for vLLM 0.29.0", "PR #53306"}},
		{"EAGLE-1 with FULL graphs on main", current, Serve{Compilation: Compilation{GraphMode: graphsFull}, SpeculativeConfig: eagleSpec(WriteEagleDraft(t))}, "compilation-config",
			[]string{"the EAGLE drafter's CUDA graphs on the V2 model runner", "pass --enforce-eager"}},
		{"other auxiliary layers", current, Serve{EnforceEager: true, SpeculativeConfig: eagle3Spec(writeDraftDir(t, `{"architectures": ["LlamaForCausalLMEagle3"], "hidden_size": 4096, "eagle_aux_hidden_state_layer_ids": [1, 15, 40]}`, eagle3Checkpoint))}, "speculative-config",
			[]string{`"eagle_aux_hidden_state_layer_ids"`}},
	}
	qwen := shipped(t)["Qwen__Qwen3-8B"] // on the V2 runner from 0.22.0, Llama from 0.23.0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			target := a
			if !tc.p.V2Runner(target) {
				target = qwen
			}
			_, err := Resolve(tc.s, target, bigClass, tc.p)
			var se *engine.SettingError
			if !errors.As(err, &se) || se.Flag != tc.flag {
				t.Fatalf("got %v, want a *engine.SettingError naming --%s", err, tc.flag)
			}
			for _, w := range tc.says {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %v; want it to say %q", err, w)
				}
			}
		})
	}
}

// TestV2DraftNeverShrinksFootprint: adding an EAGLE-3 or EAGLE draft to a serve on
// the V2 runner, under every release whose speculator membudget sizes
// (0.22.0 to 0.28 and main; eager before 0.27, whose graphs are refused),
// eager or with CUDA graphs, never shrinks a term of the
// footprint, and grows the ledger (the draft's weights at least); and the
// draft serve with graphs is never smaller, term by term, than the same
// serve eager (the V2 speculator's graphs only add, beside the budget).
func TestV2DraftNeverShrinksFootprint(t *testing.T) {
	models := shipped(t)
	dirs := map[string]string{"eagle3": WriteEagle3Draft(t), "eagle": WriteEagleDraft(t)}
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B"}
	var profiles []Profile
	for _, spec := range []string{"main", "0.28.0", "0.27.1", "0.27.0", "0.26.1", "0.26.0", "0.25.1", "0.25.0", "0.24.0", "0.23.0", "0.22.0"} {
		profiles = append(profiles, mustProfile(spec))
	}
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom(names).Draw(t, "model")]
		p := rapid.SampledFrom(profiles).Draw(t, "profile")
		if !p.V2Runner(a) {
			a = models["Qwen__Qwen3-8B"] // on the V2 runner from 0.22.0; Llama from 0.23.0
		}
		s := Serve{
			TensorParallelSize:  rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MaxModelLen:         rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:          rapid.Uint64Range(1, 512).Draw(t, "seqs"),
			MaxNumBatchedTokens: rapid.SampledFrom([]uint64{2048, 8192, 16384}).Draw(t, "batched"),
			EnforceEager:        !specV2GraphsRead(p) || rapid.Bool().Draw(t, "eager"),
		}
		if !s.EnforceEager {
			s.Compilation.GraphMode = rapid.SampledFrom([]string{"", graphsPiecewise, graphsFullDecodeOnly, graphsFullAndPiecewise}).Draw(t, "mode")
		}
		plain, err := Compile(a, s, bigClass, p)
		if err != nil {
			t.Skip(err)
		}
		method := rapid.SampledFrom([]string{"eagle3", "eagle"}).Draw(t, "method")
		s.SpeculativeConfig = `{"method": "` + method + `", "model": "` + dirs[method] + `", "num_speculative_tokens": ` + rapid.SampledFrom([]string{"1", "3", "5"}).Draw(t, "k") + `}`
		spec, err := Compile(a, s, bigClass, p)
		if err != nil {
			t.Skip(err) // a draft of another hidden size (Qwen3-8B's 4096 matches; others refuse)
		}
		// The property is the V2 speculator's: every profile runs the
		// target drawn on the V2 runner, so a draft that compiled is on it.
		r, err := Resolve(s, a, bigClass, p)
		if err != nil || !onV2Speculator(&r) {
			t.Fatalf("the draft compiled but does not resolve onto the V2 speculator (err %v)", err)
		}
		seqs, tokens := rapid.Uint64Range(1, s.MaxNumSeqs).Draw(t, "at seqs"), rapid.Uint64Range(1, s.MaxModelLen).Draw(t, "at tokens")
		before, after := plain.Evaluate(seqs, tokens), spec.Evaluate(seqs, tokens)
		for term := range budget.NumTerms {
			if after.Terms[term] < before.Terms[term] {
				t.Fatalf("%s shrinks with the draft: %d -> %d", budget.Term(term), before.Terms[term], after.Terms[term])
			}
		}
		if after.Ledger <= before.Ledger {
			t.Fatalf("the ledger does not grow with the draft: %d -> %d", before.Ledger, after.Ledger)
		}
		if b, a := before.Total()-before.Slack, after.Total()-after.Slack; a < b {
			t.Fatalf("the footprint before slack shrinks with the draft: %d -> %d", b, a)
		}
		if s.EnforceEager {
			return
		}
		s.EnforceEager = true
		eagerSpec, err := Compile(a, s, bigClass, p)
		if err != nil {
			t.Fatalf("the draft serve compiles with graphs but not eager: %v", err)
		}
		eager := eagerSpec.Evaluate(seqs, tokens)
		for term := range budget.NumTerms {
			if after.Terms[term] < eager.Terms[term] {
				t.Fatalf("%s is smaller with graphs than eager: %d < %d", budget.Term(term), after.Terms[term], eager.Terms[term])
			}
		}
		// The target's own graphs alone would make the graph term grow:
		// the drafter's graphs are charged, and on top of the eager term.
		drafter := draftGraphBytes(a, &r, stageOf(&r, len(r.Stages)-1))
		if drafter == 0 {
			t.Fatalf("the drafter's graphs are not charged under %s", r.Graphs)
		}
		if g, e := after.Terms[budget.TermGraphPool], eager.Terms[budget.TermGraphPool]; g < budget.SatAdd(e, drafter) {
			t.Fatalf("the graph term with graphs, %d, is below the eager one and the drafter's graphs: %d + %d", g, e, drafter)
		}
	})
}

// TestSpecV2BuffersBesideTheBudget: before 0.26.1 the V2 speculator's
// buffers stand beside the budget with the runner's request state
// (besideAfterSnapshot), from 0.26.1 both are charged. Llama-3.1-8B with
// the EAGLE-3 draft, N = 256, T = 8192, k = 3 (q = 4), V = 128256 (a packed
// row cdiv(128256, 32) = 4008 int32):
//   - every stage: 256 x 4 x 2 + 256 x 8 + 256 x 3 x 8 + 256 x 4 + 8192 x
//     4 + 8192 x 8 + 8192 + 257 x 4 + 256 x 4 x 2 = 120836 B;
//   - the last: 256 x 4008 x 4 = 4104192, 256 x 128256 x 4 = 131334144,
//     256 x 1024 x 4 x 3 = 3145728, 256 x 128 x 4 = 131072, 256 x 1024 x
//     4 = 1048576, 256 x 129 x 4 = 132096, 256 x 128 x 4 = 131072, 256 x
//     4 x 4 = 4096, 256 x 4 x 4008 x 4 = 16416768: 156447744 B;
//   - the speculator's buffers, 67230732 B (TestSpecV2ByHand).
func TestSpecV2BuffersBesideTheBudget(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(WriteEagle3Draft(t))}
	const state, buffers = 120836 + 156447744, 67230732
	for _, tc := range []struct {
		spec   string
		beside uint64
	}{
		{"0.23.0", state + buffers}, // Llama on V2 from 0.23.0 (#43458)
		{"0.26.0", state + buffers},
		{"0.26.1", 0}, // charged (#49208)
	} {
		r, err := Resolve(s, a, bigClass, mustProfile(tc.spec))
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if got := besideAfterSnapshot(a, &r, stageOf(&r, 0)); got != tc.beside {
			t.Errorf("%s: %d B beside the budget, want %d", tc.spec, got, tc.beside)
		}
		sz, err := Size(&hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}, bigClass, s, mustProfile(tc.spec))
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if got := sz.Plan().Stages[0].BesideFixed; got != tc.beside {
			t.Errorf("%s: the plan's stage holds %d B beside the budget, want %d", tc.spec, got, tc.beside)
		}
	}
}
