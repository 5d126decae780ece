package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/model/hub"
)

// row241 is the serve of corpus/observed/vllm.csv row 241 (Qwen3-32B at
// TP 2, util 0.426, max_model_len 32768) and the class it ran on.
func row241(t *testing.T, s Serve) (*Resolved, budget.Class) {
	t.Helper()
	c := kernelClass(t, "rtx-pro-6000")
	a := shipped(t)["Qwen__Qwen3-32B"]
	s.GPUMemoryUtilization, s.MaxModelLen = 0.426, 32768
	r, err := Resolve(s, a, c, mustProfile("0.27.1"))
	if err != nil {
		t.Fatal(err)
	}
	return &r, c
}

// TestV2StateTensorsByHand pins each tensor of the V2 runner's request
// state for row 241's serve: vLLM's defaults on the RTX PRO 6000 (95 GiB,
// not an A100: engine/arg_utils.py get_batch_defaults) are 1024 sequences
// (N) and 8192 batched tokens (T); Qwen3's vocabulary (V) is 151936, so a
// packed mask row is cdiv(151936, 32) = 4748 int32; no speculative
// decoding (k = 0, q = 1).
func TestV2StateTensorsByHand(t *testing.T) {
	r, _ := row241(t, Serve{TensorParallelSize: 2})
	a := shipped(t)["Qwen__Qwen3-32B"]
	if r.MaxNumSeqs != 1024 || r.MaxNumBatchedTokens != 8192 || a.Vocab != 151936 {
		t.Fatalf("the case moved: %d sequences, %d tokens, vocabulary %d", r.MaxNumSeqs, r.MaxNumBatchedTokens, a.Vocab)
	}
	type tensor struct{ Bytes, Count uint64 }
	every := []tensor{
		{1024 * 4, 2}, // total_len, num_computed_tokens: N int32
		{1024 * 8, 1}, // last_sampled_tokens: N int64
		{0, 1},        // draft_tokens: N x k int64, k = 0
		{1024 * 4, 1}, // next_prefill_tokens: N int32
		{8192 * 4, 1}, // input_ids: T int32
		{8192 * 8, 1}, // positions: T int64
		{8192, 1},     // is_padding: T bool
		{1025 * 4, 1}, // query_start_loc: N + 1 int32
		{1024 * 4, 2}, // seq_lens, dcp_local_seq_lens: N int32
	}
	last := append(append([]tensor(nil), every...),
		tensor{1024 * 4748 * 4, 1},   // prompt_bin_mask: N x cdiv(V, 32) int32 = 19,447,808
		tensor{1024 * 151936 * 4, 1}, // output_bin_counts: N x V int32 = 622,329,856
		tensor{1024 * 1024 * 4, 1},   // allowed_token_ids: N x 1024 int32
		tensor{1024 * 1024 * 4, 2},   // logit_bias_token_ids (int32), logit_bias (float32): N x 1024
		tensor{1024 * 128 * 4, 1},    // stop_token_ids: N x 128 int32
		tensor{1024 * 1024 * 4, 1},   // bad_word_token_ids: N x 1024 int32
		tensor{1024 * 129 * 4, 1},    // bad_word_offsets: N x (128 + 1) int32
		tensor{1024 * 128 * 4, 1},    // logprob token_ids: N x 128 int32
		tensor{1024 * 4, 1},          // logits_indices: N x q int32
		tensor{1024 * 4748 * 4, 1},   // grammar_bitmask: N x q x cdiv(V, 32) int32
	)
	collect := func(r *Resolved, i int) []tensor {
		var got []tensor
		v2RequestState(a, r, stageOf(r, i), func(b, n uint64) { got = append(got, tensor{b, n}) })
		return got
	}
	if diff := cmp.Diff(last, collect(r, 0)); diff != "" {
		t.Errorf("TP 2, the one stage (-want +got):\n%s", diff)
	}
	// Every stage: 8192 + 8192 + 4096 + 32768 + 65536 + 8192 + 4100 + 8192
	// = 139,268 B; the last stage adds 19,447,808 x 2 + 622,329,856 +
	// 4,194,304 x 4 + 524,288 x 2 + 528,384 + 4096 = 679,583,744 B.
	if got := v2StateBytes(a, r, stageOf(r, 0)); got != 139268+679583744 {
		t.Errorf("TP 2: %d B, want 679,723,012", got)
	}
	pp, _ := row241(t, Serve{PipelineParallelSize: 2})
	if diff := cmp.Diff(every, collect(pp, 0)); diff != "" {
		t.Errorf("PP 2, the first stage: no sampler (-want +got):\n%s", diff)
	}
	// The last stage also holds the hidden states and residual it
	// receives: T x hidden (5120) x 2 B each, 167,772,160 B in all.
	if got := v2StateBytes(a, pp, stageOf(pp, 1)); got != 139268+679583744+8192*5120*2*2 {
		t.Errorf("PP 2, the last stage: %d B, want 847,495,172", got)
	}
	// Speculative decoding's k widens the draft tokens (N x k int64) and
	// the structured-output rows (q = 1 + k logits a request).
	r.Spec.Tokens = 3
	want := uint64(139268 + 679583744 + 1024*3*8 + 1024*3*4 + 1024*3*4748*4)
	if got := v2StateBytes(a, r, stageOf(r, 0)); got != want {
		t.Errorf("k = 3: %d B, want %d", got, want)
	}
}

// TestV2StateReleaseGate: the state comes off the KV cache where the
// release charges what is consumed after its startup snapshot (PR #49208:
// 0.26.1 on) and runs the model on the V2 runner: dense Qwen3-32B from
// 0.26.1 (V2 since 0.22.0), the Qwen3-30B-A3B mixture of experts from
// 0.29.0 alone (V1 before, PR #53183), nothing on the V0 engine.
func TestV2StateReleaseGate(t *testing.T) {
	archs := shipped(t)
	const dense = 139268 + 679583744 // TestV2StateTensorsByHand
	for _, tc := range []struct {
		spec, model string
		charged     bool
		want        uint64
	}{
		{"0.25.0", "Qwen__Qwen3-32B", false, 0},
		{"0.26.0", "Qwen__Qwen3-32B", false, 0},
		{"0.26.1", "Qwen__Qwen3-32B", true, dense},
		{"0.27.1", "Qwen__Qwen3-32B", true, dense},
		{"0.28.0", "Qwen__Qwen3-32B", true, dense},
		{"main", "Qwen__Qwen3-32B", true, dense},
		{"0.29.0", "Qwen__Qwen3-32B", true, dense},
		{"0.27.1", "Qwen__Qwen3-30B-A3B", true, 0},
		{"main", "Qwen__Qwen3-30B-A3B", true, 0},
		{"0.29.0", "Qwen__Qwen3-30B-A3B", true, dense}, // the same N, T and vocabulary
		{"0.8.5:v0", "Qwen__Qwen3-32B", false, 0},
	} {
		p := mustProfile(tc.spec)
		if p.ConsumedSinceSnapshot != tc.charged {
			t.Errorf("%s: ConsumedSinceSnapshot %v, want %v", tc.spec, p.ConsumedSinceSnapshot, tc.charged)
		}
		a := archs[tc.model]
		r, err := Resolve(Serve{MaxModelLen: 8192, MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192}, a, bigClass, p)
		if err != nil {
			t.Fatalf("%s on %s: %v", tc.model, tc.spec, err)
		}
		if got := v2StateBytes(a, &r, stageOf(&r, 0)); got != tc.want {
			t.Errorf("%s on %s: %d B, want %d", tc.model, tc.spec, got, tc.want)
		}
	}
}

// TestV2StateLedgerLine: on row 241's serve 0.26.1's footprint is
// 0.26.0's with the state added to the non-torch term, named on its own
// line; the lines still sum to the ledger and the available KV memory
// falls by the state exactly.
func TestV2StateLedgerLine(t *testing.T) {
	c := kernelClass(t, "rtx-pro-6000")
	a := shipped(t)["Qwen__Qwen3-32B"]
	s := Serve{TensorParallelSize: 2, GPUMemoryUtilization: 0.426, MaxModelLen: 32768}
	size := func(spec string) (*Sizing, budget.Footprint, map[string]uint64) {
		sz, err := Size(&hub.Loaded{Name: "Qwen/Qwen3-32B", Arch: a}, c, s, mustProfile(spec))
		if err != nil {
			t.Fatal(err)
		}
		fp := sz.Plan().Evaluate(1, 32768)
		lines := sz.Section().Lines(fp)
		m := map[string]uint64{}
		var sum uint64
		for _, l := range lines {
			m[l.Label] = l.Bytes
			if !l.Beside {
				sum += l.Bytes
			}
		}
		if sum != fp.Ledger {
			t.Errorf("%s: the lines sum to %d B, the ledger is %d", spec, sum, fp.Ledger)
		}
		return sz, fp, m
	}
	before, fb, lb := size("0.26.0")
	after, fa, la := size("0.26.1")
	const state = 139268 + 679583744
	if _, ok := lb[v2StateLabel]; ok {
		t.Errorf("0.26.0 names a %s line", v2StateLabel)
	}
	if la[v2StateLabel] != state || la["non-torch growth"] != lb["non-torch growth"] {
		t.Errorf("0.26.1: %s %d B and non-torch growth %d B; want %d and 0.26.0's %d", v2StateLabel, la[v2StateLabel], la["non-torch growth"], state, lb["non-torch growth"])
	}
	want := fb.Terms
	want[budget.TermNonTorch] += state
	if diff := cmp.Diff(want, fa.Terms); diff != "" {
		t.Errorf("0.26.1's terms are not 0.26.0's with the state (-want +got):\n%s", diff)
	}
	if got, was := after.Capacity().AvailableBytes, before.Capacity().AvailableBytes; was-got != state {
		t.Errorf("available KV %d B, 0.26.0's %d: want %d less", got, was, uint64(state))
	}
}

// TestV2StateComesOffTheKVCacheAlone: for dense models at any sequence
// and token limits, TP and PP, a release that charges the state (0.26.1)
// sizes every stage as the one before it (0.26.0) but for the non-torch
// term, larger by the state of that stage exactly, and the state never
// shrinks as max_num_seqs grows.
func TestV2StateComesOffTheKVCacheAlone(t *testing.T) {
	archs := shipped(t)
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B", "Qwen__Qwen2.5-7B-Instruct", "google__gemma-2-9b-it"}
	before, after := mustProfile("0.26.0"), mustProfile("0.26.1")
	rapid.Check(t, func(t *rapid.T) {
		a := archs[rapid.SampledFrom(names).Draw(t, "model")]
		s := Serve{
			TensorParallelSize:   rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			PipelineParallelSize: rapid.SampledFrom([]uint64{1, 2}).Draw(t, "pp"),
			MaxModelLen:          rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:           rapid.Uint64Range(1, 2048).Draw(t, "seqs"),
			MaxNumBatchedTokens:  8192,
		}
		pb, err := Compile(a, s, bigClass, before)
		if err != nil {
			t.Skip(err)
		}
		pa, err := Compile(a, s, bigClass, after)
		if err != nil {
			t.Fatalf("0.26.1 refuses what 0.26.0 sizes: %v", err)
		}
		r, err := Resolve(s, a, bigClass, after)
		if err != nil {
			t.Fatal(err)
		}
		for i := range pa.Stages {
			state := v2StateBytes(a, &r, stageOf(&r, i))
			if state == 0 {
				t.Fatalf("stage %d: no state on the V2 runner", i)
			}
			want := pb.Stages[i].Fixed
			want[budget.TermNonTorch] += state
			if pa.Stages[i].Fixed != want {
				t.Fatalf("stage %d: %v, want 0.26.0's %v with the state %d in the non-torch term", i, pa.Stages[i].Fixed, pb.Stages[i].Fixed, state)
			}
		}
		more := r
		more.MaxNumSeqs++
		if v2StateBytes(a, &more, stageOf(&more, len(r.Stages)-1)) <= v2StateBytes(a, &r, stageOf(&r, len(r.Stages)-1)) {
			t.Fatalf("one more sequence does not grow the last stage's state")
		}
	})
}

// TestV2StateBesideTheBudget: before 0.26.1 the V2 runner's request state
// takes nothing off the KV cache but must fit in what the util leaves of
// the device, beside the driver's share, the graphs captured after the KV
// cache and the allocator's slack. Row 241's serve (Qwen3-32B at TP 2 on
// the RTX PRO 6000, 1024 sequences, 8192 batched tokens) holds a state of
// 679,723,012 B (0.63 GiB, TestV2StateTensorsByHand) on its one stage.
func TestV2StateBesideTheBudget(t *testing.T) {
	c := kernelClass(t, "rtx-pro-6000")
	a := shipped(t)["Qwen__Qwen3-32B"]
	const state = 139268 + 679583744
	size := func(spec string, util float64) (*Sizing, budget.Footprint) {
		s := Serve{TensorParallelSize: 2, GPUMemoryUtilization: util, MaxModelLen: 32768}
		sz, err := Size(&hub.Loaded{Name: "Qwen/Qwen3-32B", Arch: a}, c, s, mustProfile(spec))
		if err != nil {
			t.Fatal(err)
		}
		return sz, sz.Plan().Evaluate(1, 32768)
	}
	for _, tc := range []struct {
		spec   string
		util   float64
		beside uint64 // beside the budget beyond the graphs
		failed budget.Condition
	}{
		// At 0.96 the budget is ceil(0.96 x 101,973,261,025) =
		// 97,894,330,584 B; the driver's share 1,136,656,384 (640 MiB of
		// the class and TP 2's NCCL setup over PCIe) and 2 per mille of
		// the budget, 195,788,660, leave 2,746,485,397 B: the graphs
		// (1,402,732,544), the slack (74,405,888) and the state fit, with
		// 589,623,953 B to spare.
		{"0.26.0", 0.96, state, budget.Fit},
		// At 0.97 the budget is ceil(98,914,063,194.25) = 98,914,063,195 B;
		// the driver's 1,136,656,384 + 197,828,126 leave 1,724,713,320 B,
		// of which the graphs (1,402,732,544) and the slack (128,931,840)
		// leave 193,048,936: the state is 486,674,076 B over. Without it
		// this serve was called fitting.
		{"0.26.0", 0.97, state, budget.OverDriverSlice},
		// 0.25.0 runs dense Qwen3 on V2 too (#44443) and charges no more.
		{"0.25.0", 0.97, state, budget.OverDriverSlice},
		// From 0.26.1 the state comes off the KV cache instead (#49208):
		// nothing beyond the graphs stands beside the budget, and the
		// 1,724,713,320 B less the graphs and the slack fit.
		{"0.26.1", 0.97, 0, budget.Fit},
		// 0.21.0 runs Qwen3 on the V1 runner, which has no such state, and
		// charges its graphs to the budget (#38284, 0.20.0): nothing beside.
		{"0.21.0", 0.97, 0, budget.Fit},
	} {
		sz, fp := size(tc.spec, tc.util)
		graphs := uint64(0)
		if sz.Plan().Beside.Has(budget.TermGraphPool) {
			graphs = fp.Terms[budget.TermGraphPool]
		}
		got := struct {
			Beside uint64
			Failed budget.Condition
		}{fp.Beside - graphs, fp.Failed}
		want := struct {
			Beside uint64
			Failed budget.Condition
		}{tc.beside, tc.failed}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s at util %v (-want +got):\n%s", tc.spec, tc.util, diff)
		}
		if fp.BesideFixed != tc.beside {
			t.Errorf("%s at util %v: %d B beside the budget in no term, want %d", tc.spec, tc.util, fp.BesideFixed, tc.beside)
		}
		if tc.spec == "0.26.0" && tc.util == 0.97 {
			// The hand figures above, as the footprint holds them.
			figures := []uint64{fp.Budget, fp.DriverFixed, fp.DriverPerMille, graphs, fp.Slack, fp.DriverShortfall()}
			if diff := cmp.Diff([]uint64{98914063195, 1136656384, 197828126, 1402732544, 128931840, 486674076}, figures); diff != "" {
				t.Errorf("0.26.0 at 0.97: budget, driver fixed, per mille, graphs, slack, shortfall (-want +got):\n%s", diff)
			}
			var line uint64
			for _, l := range sz.Section().Lines(fp) {
				if l.Label == besideAfterSnapshotLabel && l.Beside {
					line = l.Bytes
				}
			}
			if line != state {
				t.Errorf("0.26.0: the %q line is %d B, want %d", besideAfterSnapshotLabel, line, uint64(state))
			}
		}
	}
}
