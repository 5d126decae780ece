package sglang

import (
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/model"
)

// propertyCase is one drawn server: the model, the class, the profile and
// its reference.
type propertyCase struct {
	Arch  *model.Arch
	Class budget.Class
	Ref   *Reference
}

var (
	propertyOnce    sync.Once
	propertyArchs   []*model.Arch
	propertyClasses []budget.Class
)

func propertyInputs(t *rapid.T) ([]*model.Arch, []budget.Class) {
	propertyOnce.Do(func() {
		archs := shipped(t)
		names := make([]string, 0, len(archs))
		for n := range archs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			propertyArchs = append(propertyArchs, archs[n])
		}
		for _, c := range []string{"h100-sxm-80g", "b200", "rtx-4090", "mi300x", "gb10", "a100-40g"} {
			propertyClasses = append(propertyClasses, class(t, c))
		}
	})
	return propertyArchs, propertyClasses
}

// genCase draws a server whose context length is at most maxLen and whose
// max_running_requests is at most maxSeqs, with a KV pool of at most
// maxPool tokens, so that the queries' boundaries fall inside the caps.
// Settings SGLang refuses for the drawn model are drawn again.
func genCase(maxLen, maxSeqs, maxPool uint64) *rapid.Generator[propertyCase] {
	return rapid.Custom(func(t *rapid.T) propertyCase {
		archs, classes := propertyInputs(t)
		a := rapid.SampledFrom(archs).Draw(t, "model")
		c := rapid.SampledFrom(classes).Draw(t, "class")
		p := rapid.SampledFrom(Profiles()).Draw(t, "profile")
		s := Serve{
			TPSize:             rapid.SampledFrom([]uint64{1, 2, 4, 8}).Draw(t, "tp"),
			PPSize:             rapid.SampledFrom([]uint64{1, 1, 2, 3}).Draw(t, "pp"),
			ContextLength:      rapid.Uint64Range(1, min(maxLen, DerivedContextLength(a))).Draw(t, "context_length"),
			MaxRunningRequests: rapid.Uint64Range(1, maxSeqs).Draw(t, "max_running_requests"),
			MaxTotalTokens:     rapid.Uint64Range(0, maxPool).Draw(t, "max_total_tokens"),
			PageSize:           rapid.SampledFrom([]uint64{0, 1, 16, 64}).Draw(t, "page_size"),
			KVCacheDtype:       rapid.SampledFrom([]string{"", "fp8_e4m3"}).Draw(t, "kv_cache_dtype"),
			DisableCudaGraph:   rapid.Bool().Draw(t, "disable_cuda_graph"),
			AttentionBackend:   rapid.SampledFrom([]string{"", "triton"}).Draw(t, "attention_backend"),
			ChunkedPrefillSize: rapid.SampledFrom([]int64{0, -1, 1024}).Draw(t, "chunked_prefill_size"),
		}
		if rapid.Bool().Draw(t, "given_msf") {
			s.MemFractionStatic = rapid.Float64Range(0.05, 0.97).Draw(t, "mem_fraction_static")
		}
		ref, err := NewReference(a, s, c, p)
		if err != nil {
			t.Skipf("refused: %v", err)
		}
		return propertyCase{Arch: a, Class: c, Ref: ref}
	})
}

func genPoint(t *rapid.T, c propertyCase) (uint64, uint64) {
	s := rapid.OneOf(rapid.Uint64Range(0, 8), rapid.Uint64Range(0, c.Ref.maxRunning+1), rapid.Uint64Range(0, 1<<20)).Draw(t, "seqs")
	tok := rapid.OneOf(rapid.Uint64Range(0, 70), rapid.Uint64Range(0, c.Ref.Serve.ContextLength+1), rapid.Uint64Range(0, 1<<24)).Draw(t, "tokens")
	return s, tok
}

// TestPlanEqualsReference: the compiled plan gives the reference's
// footprint, field by field, anywhere.
func TestPlanEqualsReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(1<<20, 4096, 1<<22).Draw(t, "server")
		plan := c.Ref.Plan()
		for range 4 {
			s, tok := genPoint(t, c)
			if diff := cmp.Diff(c.Ref.Evaluate(s, tok).Footprint, plan.Evaluate(s, tok)); diff != "" {
				t.Fatalf("Plan != Reference at (%d, %d) (-reference +plan):\n%s", s, tok, diff)
			}
		}
	})
}

// TestFootprintNeverShrinks: more sequences or more tokens never need less
// memory, term by term, on any stage, and never fit where fewer did not.
func TestFootprintNeverShrinks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(1<<20, 4096, 1<<22).Draw(t, "server")
		plan := c.Ref.Plan()
		s1, t1 := genPoint(t, c)
		s2 := s1 + rapid.Uint64Range(0, 64).Draw(t, "more_seqs")
		t2 := t1 + rapid.OneOf(rapid.Uint64Range(0, 3), rapid.Uint64Range(0, 1<<16)).Draw(t, "more_tokens")
		for i := range plan.Stages {
			a, b := plan.EvaluateStage(i, s1, t1), plan.EvaluateStage(i, s2, t2)
			for term := range budget.NumTerms {
				if a.Terms[term] > b.Terms[term] || a.Ledger > b.Ledger || a.Outside() > b.Outside() {
					t.Fatalf("stage %d: %v, ledger or outside shrinks from (%d, %d) to (%d, %d)", i, budget.Term(term), s1, t1, s2, t2)
				}
			}
		}
		if plan.Evaluate(s2, t2).Fits() && !plan.Evaluate(s1, t1).Fits() {
			t.Fatalf("(%d, %d) fits but (%d, %d) does not", s2, t2, s1, t1)
		}
	})
}

// TestQueriesMatchBruteForce: on small caps, budget.MaxSequences and
// budget.MaxLength over the plan give the brute-force scan's answer.
func TestQueriesMatchBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(600, 48, 30000).Draw(t, "server")
		plan := c.Ref.Plan()
		length := rapid.Uint64Range(1, plan.MaxLen).Draw(t, "length")
		seqs := rapid.Uint64Range(1, plan.MaxSeqs).Draw(t, "seqs")
		brute := func(hi uint64, fits func(uint64) bool) (uint64, bool) {
			var best uint64
			found := false
			for v := uint64(1); v <= hi; v++ {
				if fits(v) {
					best, found = v, true
				}
			}
			return best, found
		}
		ans, err := budget.MaxSequences(plan, length, 0)
		want, ok := brute(plan.MaxSeqs, func(s uint64) bool { return plan.Evaluate(s, length).Fits() })
		if err != nil || ans.Fits != ok || (ok && ans.Value != want) {
			t.Fatalf("MaxSequences(%d) = %d (fits %v, %v), brute force %d (fits %v)", length, ans.Value, ans.Fits, err, want, ok)
		}
		ans, err = budget.MaxLength(plan, seqs, 0)
		want, ok = brute(plan.MaxLen, func(l uint64) bool { return plan.Evaluate(seqs, l).Fits() })
		if err != nil || ans.Fits != ok || (ok && ans.Value != want) {
			t.Fatalf("MaxLength(%d) = %d (fits %v, %v), brute force %d (fits %v)", seqs, ans.Value, ans.Fits, err, want, ok)
		}
	})
}
