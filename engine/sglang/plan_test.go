package sglang

import (
	"errors"
	"math"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
)

func TestPlanEqualsReferenceOnShippedConfigs(t *testing.T) {
	archs := shipped(t)
	classes := []string{"h100-sxm-80g", "b200", "mi300x", "gb10"}
	serves := []Serve{
		{},
		{MemFractionStatic: 0.9, TPSize: 4, KVCacheDtype: "fp8_e4m3", DisableCudaGraph: true, ContextLength: 4096},
		{TPSize: 2, PPSize: 3, MaxTotalTokens: 100000, PageSize: 16, ChunkedPrefillSize: 4096, MaxRunningRequests: 64},
		{TPSize: 8, ChunkedPrefillSize: -1, Quantization: "fp8", AttentionBackend: "triton", CudaGraphMaxBS: 48},
		{MemFractionStatic: 0.5, PPSize: 2, ContextLength: 300000, AllowLongContext: engine.On},
	}
	seqs := []uint64{0, 1, 2, 7, 64, 1000}
	tokens := []uint64{0, 1, 16, 17, 4096, 4097, 131072}
	names := make([]string, 0, len(archs))
	for n := range archs {
		names = append(names, n)
	}
	sort.Strings(names)
	compared := 0
	for _, name := range names {
		for _, cn := range classes {
			c := class(t, cn)
			for _, p := range Profiles() {
				for si, s := range serves {
					ref, err := NewReference(archs[name], s, c, p)
					if err != nil {
						continue // settings SGLang refuses for this model: covered by TestSettingErrors
					}
					plan := ref.Plan()
					for _, n := range seqs {
						for _, tok := range tokens {
							want := ref.Evaluate(n, tok).Footprint
							got := plan.Evaluate(n, tok)
							if diff := cmp.Diff(want, got); diff != "" {
								t.Fatalf("%s on %s, %s, serve %d, (%d, %d): Plan != Reference (-ref +plan):\n%s", name, cn, p.Name, si, n, tok, diff)
							}
							compared++
						}
					}
				}
			}
		}
	}
	if compared < 10000 {
		t.Errorf("only %d comparisons ran", compared)
	}
}

// TestPoolHoldsMaxTotalNumTokens: the budget holds exactly
// max_total_num_tokens tokens of sequences, in whole pages, and not one
// page more; what the pool's tokens cost is the budget less the load and
// the unallocated remainder.
func TestPoolHoldsMaxTotalNumTokens(t *testing.T) {
	archs := shipped(t)
	tests := []struct {
		model string
		s     Serve
		class string
		p     Profile
	}{
		{"meta-llama__Llama-3.1-8B-Instruct", Serve{}, "h100-sxm-80g", current},
		{"meta-llama__Llama-3.1-8B-Instruct", Serve{}, "b200", current}, // page 64
		{"Qwen__Qwen3-32B", Serve{TPSize: 2, MaxTotalTokens: 123457}, "h100-sxm-80g", r049},
		{"deepseek-ai__DeepSeek-V3", Serve{TPSize: 8}, "h200", current},
		{"meta-llama__Llama-3.1-70B-Instruct", Serve{TPSize: 2, PPSize: 3}, "h100-sxm-80g", current},
	}
	for _, tt := range tests {
		r := ref(t, archs[tt.model], tt.s, class(t, tt.class), tt.p)
		c := r.Capacity()
		plan := r.Plan()
		T := uint64(c.MaxTotalNumTokens)
		if T == 0 || T%c.PageSize != 0 {
			t.Errorf("%s: %d tokens, not a positive multiple of the page %d", tt.model, T, c.PageSize)
			continue
		}
		if tt.s.MaxTotalTokens > 0 && T != tt.s.MaxTotalTokens {
			t.Errorf("%s: --max-total-tokens %d, pool %d", tt.model, tt.s.MaxTotalTokens, T)
		}
		for i := range plan.Stages {
			if got := plan.PoolBudget(i); got != T*r.stages[i].cell {
				t.Errorf("%s stage %d: pool budget %d, want %d tokens x %d", tt.model, i, got, T, r.stages[i].cell)
			}
			if f := plan.EvaluateStage(i, 1, T); f.Failed == budget.OverBudget {
				t.Errorf("%s stage %d: one sequence of max_total_num_tokens %d is over the budget", tt.model, i, T)
			}
			if f := plan.EvaluateStage(i, 1, T+1); f.Failed != budget.OverBudget {
				t.Errorf("%s stage %d: one sequence of %d tokens fits the budget (%v)", tt.model, i, T+1, f.Failed)
			}
			if f := plan.EvaluateStage(i, 2, T/2); f.Failed == budget.OverBudget {
				t.Errorf("%s stage %d: two sequences of %d tokens are over the budget", tt.model, i, T/2)
			}
		}
	}
}

// TestSlidingWindowSplit: no release read splits Gemma 3's pool
// (v0.5.6.post2 server_args.py:1207-1219 disables it; v0.5.7's
// model_config.is_hybrid_swa is for MiMo-V2 and Llama 4, PR #15877), so
// under v0.5.6.post2, v0.5.7 and v0.4.9.post2 it is one pool of 100000. The
// split's arithmetic, for the release that brings it back (v0.5.8 for
// gpt-oss, PR #17261, unread), is checked on [splitSWA]. With
// --max-total-tokens 100000, T = 100000, and Gemma 3 27B has 62 layers, 10
// full (every sixth) and 52 sliding: full = int(100000 x 62 / (0.8 x 52 +
// 10)) = int(120155.04) = 120155, swa = int(120155 x 0.8) = 96124. Every
// token of a running sequence is in both pools, so the sequences hold at
// most 96124 tokens together. v0.4.9.post2 keeps one pool.
func TestSlidingWindowSplit(t *testing.T) {
	gemma := shipped(t)["google__gemma-3-27b-it"]
	s := Serve{MaxTotalTokens: 100000, ContextLength: 8192, TPSize: 2}
	for _, p := range []Profile{current, mustProfile("v0.5.7"), r049} {
		one := ref(t, gemma, s, class(t, "h100-sxm-80g"), p).Capacity()
		if one.HybridSWA || one.MaxTotalNumTokens != 100000 || one.SWATokens != 0 {
			t.Errorf("%s: split %v, tokens %d, swa %d; want one pool of 100000", p.Name, one.HybridSWA, one.MaxTotalNumTokens, one.SWATokens)
		}
	}
	r := ref(t, gemma, s, class(t, "h100-sxm-80g"), splitSWA)
	c := r.Capacity()
	if !c.HybridSWA || c.MaxTotalNumTokens != 120155 || c.SWATokens != 96124 || c.PageSize != 1 {
		t.Fatalf("split %v: full %d, swa %d, page %d; want 120155, 96124, 1", c.HybridSWA, c.MaxTotalNumTokens, c.SWATokens, c.PageSize)
	}
	// K tensors: 10 full layers of 120156 rows and 52 sliding of 96125, of
	// 16/2 heads x 128 x 2 B.
	if c.KBytes != 10*120156*8*128*2 || c.SWAKBytes != 52*96125*8*128*2 {
		t.Errorf("K %d + sliding K %d, want %d + %d", c.KBytes, c.SWAKBytes, 10*120156*8*128*2, 52*96125*8*128*2)
	}
	plan := r.Plan()
	if plan.Evaluate(1, 96124).Failed == budget.OverBudget || plan.Evaluate(4, 24031).Failed == budget.OverBudget {
		t.Error("sequences of 96124 tokens in all are over the budget")
	}
	if plan.Evaluate(1, 96125).Failed != budget.OverBudget {
		t.Error("one sequence of 96125 tokens fits the sliding pool of 96124")
	}
	want := []string{
		"Use Sliding window memory pool. full_layer_tokens=120155, swa_layer_tokens=96124",
		"KV Cache is allocated. #tokens: 96124, K size: 9.53 GB, V size: 9.53 GB",
		"KV Cache is allocated. #tokens: 120155, K size: 2.29 GB, V size: 2.29 GB",
	}
	if diff := cmp.Diff(want, c.LogLines()[:3]); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
}

// TestLedgerItems: what stands beside the budget, by name, for Llama 3.1
// 8B on an H100 at v0.5.6.post2's defaults.
func TestLedgerItems(t *testing.T) {
	r := ref(t, shipped(t)["meta-llama__Llama-3.1-8B-Instruct"], Serve{}, class(t, "h100-sxm-80g"), current)
	c := r.Capacity()
	items := map[string]uint64{}
	for _, it := range r.Evaluate(2, 100).Items {
		if _, dup := items[it.Name]; dup {
			t.Errorf("%s appears twice", it.Name)
		}
		items[it.Name] = it.Bytes
	}
	for name, want := range map[string]uint64{
		// 8192 chunked-prefill tokens x (2 x 4096 + 3 x 14336) x 2 B.
		"activations": 8192 * (2*4096 + 3*14336) * 2,
		// cuda_graph_max_bs 256 (the H100 tier at TP1) x 2 MiB.
		"cuda_graphs":       256 * 2 * mib,
		"dist_init_buffers": 0,
		// max_num_reqs 4096 x (131072 + 4) x 4 B.
		"req_to_token": c.MaxNumReqs * (131072 + 4) * 4,
		// One padding row of 8 heads x 128 x 2 (K, V) x 2 B x 32 layers.
		"kv_cache.padding_rows": 131072,
		// 2 sequences x 100 tokens x 8 x 128 x 2 B.
		"kv_cache.layers.7.k": 2 * 100 * 8 * 128 * 2,
		// The float32 table grown to align128(131072 + 256) = 131328 rows
		// of 128.
		"rotary_emb.0.cos_sin_cache": 131328 * 128 * 4,
	} {
		if got, ok := items[name]; !ok || got != want {
			t.Errorf("%s = %d (present %v), want %d", name, got, ok, want)
		}
	}
	if c.MaxNumReqs < 2048 || c.MaxNumReqs > 4096 {
		t.Errorf("max_num_reqs %d outside SGLang's 2048..4096", c.MaxNumReqs)
	}
	eager := ref(t, shipped(t)["meta-llama__Llama-3.1-8B-Instruct"], Serve{DisableCudaGraph: true}, class(t, "h100-sxm-80g"), current)
	if got := eager.Evaluate(1, 1).Footprint.Terms[budget.TermGraphPool]; got != 0 {
		t.Errorf("--disable-cuda-graph still charges %d bytes of graphs", got)
	}
}

// TestNotEnoughMemory: a fraction too small for the weights leaves no pool,
// and SGLang's error.
func TestNotEnoughMemory(t *testing.T) {
	r := ref(t, shipped(t)["meta-llama__Llama-3.1-70B-Instruct"], Serve{MemFractionStatic: 0.5, TPSize: 2}, class(t, "h100-sxm-80g"), current)
	c := r.Capacity()
	if c.Starts || c.MaxTotalNumTokens > 0 || c.Failure == "" || len(c.LogLines()) != 0 {
		t.Errorf("70B at TP2 and msf 0.5 (~38 GiB for ~66 GiB of weights): starts %v, %d tokens, %q", c.Starts, c.MaxTotalNumTokens, c.Failure)
	}
	if f := r.Plan().Evaluate(0, 0); f.Failed != budget.OverBudget {
		t.Errorf("the weights alone: %v, want over the budget", f.Failed)
	}
	if ans, err := budget.MaxSequences(r.Plan(), 1, 0); err != nil || ans.Fits {
		t.Errorf("MaxSequences: %+v, %v; want nothing fits", ans, err)
	}
}

// TestBudgetWhenWeightsExceedFreeMemory: 70B on one H100 loads ~131 GiB into
// ~79 GiB of free memory; F1 cannot go below 0, and the static budget stays
// msf x F0 rather than the load less F0's unused share (which would put a
// 118 GiB budget on a 79 GiB card).
func TestBudgetWhenWeightsExceedFreeMemory(t *testing.T) {
	r := ref(t, shipped(t)["meta-llama__Llama-3.1-70B-Instruct"], Serve{MemFractionStatic: 0.8}, class(t, "h100-sxm-80g"), current)
	want := uint64(math.Floor(float64(r.Serve.F0Bytes) * 0.8))
	if got := r.Budget(); got != want {
		t.Errorf("budget %d B, want msf x F0 = 0.8 x %d = %d B", got, r.Serve.F0Bytes, want)
	}
	if r.Budget() >= r.Serve.F0Bytes {
		t.Errorf("budget %d B is not below the free memory %d B", r.Budget(), r.Serve.F0Bytes)
	}
	if f := r.Plan().Evaluate(0, 0); f.Failed != budget.OverBudget {
		t.Errorf("the weights alone: %v, want over the budget", f.Failed)
	}
}

// TestRefusalTally: the plan says why only when SGLang refused every server
// searched, all for one flag (or, without a flag, one text).
func TestRefusalTally(t *testing.T) {
	tp := &engine.SettingError{Flag: "tp-size", Value: "2", Reason: "32 heads"}
	tp4 := &engine.SettingError{Flag: "tp-size", Value: "4", Reason: "other ranks, the same flag"}
	kv := &engine.SettingError{Flag: "kv-cache-dtype", Value: "fp8_e4m3", Reason: "no fp8 here"}
	prefill := prefillCaptureRefusal{&engine.SettingError{Flag: "disable-piecewise-cuda-graph", Value: "false", Reason: "not sized"}}
	plain := errors.New("not modelled")
	for _, tc := range []struct {
		name string
		errs []error
		want error
	}{
		{"nothing searched", nil, nil},
		{"one refusal", []error{tp}, tp},
		// Two values of one flag are one reason: the first is said.
		{"one flag, two values", []error{tp, tp4}, tp},
		{"two flags", []error{tp, kv}, nil},
		// A server that starts, fits or not, is no refusal.
		{"one started", []error{tp, nil, tp4}, nil},
		// The wrapped prefill refusal is read by its setting error's flag.
		{"the prefill capture", []error{prefill, prefill}, prefill},
		{"no setting error, one text", []error{plain, errors.New("not modelled")}, plain},
		{"no setting error, two texts", []error{plain, errors.New("other")}, nil},
	} {
		var r refusalTally
		for _, err := range tc.errs {
			r.add(err)
		}
		if got := r.one(); got != tc.want {
			t.Errorf("%s: one() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPrefillCaptureRefusalWraps: the marked refusal keeps the refusal's
// text and its setting error, which the report and the JSON read.
func TestPrefillCaptureRefusalWraps(t *testing.T) {
	inner := &engine.SettingError{Flag: "disable-piecewise-cuda-graph", Value: "false", Reason: "not sized"}
	var err error = prefillCaptureRefusal{inner}
	var se *engine.SettingError
	if !errors.As(err, &se) || se != inner || err.Error() != inner.Error() {
		t.Errorf("prefillCaptureRefusal{%v}: As %v, text %q", inner, se, err.Error())
	}
}
