package properties

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"membudget/engine"
	"membudget/engine/vllm"
)

// propSuggestionsFitAndNothingFitsIsTrue: for a serve that does not fit
// its target, every suggestion fits when the serve is rebuilt with it (at
// the target, or at the bound it names) and vLLM starts it, and when there
// is none, brute force over the space the search names finds nothing that
// fits and starts either (on small caps, so that the space is small).
func propSuggestionsFitAndNothingFitsIsTrue(t *rapid.T) {
	c := genServeCase(24, 300).Draw(t, "serve")
	r := c.Ref.Serve
	target := engine.Target{
		Seqs:   rapid.Uint64Range(1, r.MaxNumSeqs).Draw(t, "target_seqs"),
		Tokens: rapid.Uint64Range(1, r.MaxModelLen).Draw(t, "target_tokens"),
	}
	if c.Ref.Plan().Evaluate(target.Seqs, target.Tokens).Fits() {
		adviseBranches["fits"]++
		return
	}
	e := vllm.Search{Arch: c.Arch, Class: c.Class, Profile: c.Profile}
	adv, err := e.Advise(r.Serve, target)
	if err != nil {
		t.Fatalf("advise: %v", err)
	}
	fitsWith := func(s vllm.Serve, seqs, tokens uint64) bool {
		ref, err := vllm.NewReference(c.Arch, s, c.Class, c.Profile)
		if err != nil || seqs > ref.Serve.MaxNumSeqs || tokens > ref.Serve.MaxModelLen {
			return false
		}
		return ref.Plan().Evaluate(seqs, tokens).Fits() && ref.Capacity().Refusal(ref.Serve.MaxModelLen, ref.Serve.MaxNumSeqs) == ""
	}
	for _, sug := range adv.Suggestions {
		// A suggestion names what it holds: the target, or a bound below
		// it (a shorter --max-model-len, fewer sequences: set as the flag,
		// or held at a time by the serve as given). Its serve must fit there.
		seqs, tokens := sug.At.Seqs, sug.At.Tokens
		if seqs == 0 || tokens == 0 || seqs > target.Seqs || tokens > target.Tokens {
			t.Fatalf("suggestion %q checked at %d x %d, outside the target %d x %d", sug.Flags, seqs, tokens, target.Seqs, target.Tokens)
		}
		if sug.Holds != (seqs == target.Seqs && tokens == target.Tokens) {
			t.Fatalf("suggestion %q holds %v at %d x %d of %d x %d", sug.Flags, sug.Holds, seqs, tokens, target.Seqs, target.Tokens)
		}
		if !fitsWith(sug.Serve, seqs, tokens) {
			t.Fatalf("suggestion %q does not fit (%d x %d)", sug.Flags, seqs, tokens)
		}
	}
	if len(adv.Suggestions) > 0 {
		adviseBranches["suggested"]++
		return
	}
	adviseBranches["nothing"]++
	// Nothing fits: check the searched space by brute force. A serve whose
	// util vLLM's startup check refuses (it requests more than the device
	// less what is held before the snapshot; with --kv-cache-memory-bytes
	// the footprint's budget is not that request) starts at no length and
	// no batch: its own footprints do not count.
	plan := c.Ref.Plan()
	startsAtAll := !c.Ref.Capacity().OverFree
	// A length or batch counts where vLLM also starts the serve at it: its
	// startup check plans one request of the length (and, for an
	// encoder-decoder model, the cross-attention pages of a batch's
	// encoder inputs, whatever the length).
	starts := func(seqs, tokens uint64) bool { return c.Ref.Capacity().Refusal(tokens, seqs) == "" }
	for l := uint64(1); l <= target.Tokens && startsAtAll; l++ {
		if plan.Evaluate(target.Seqs, l).Fits() && starts(target.Seqs, l) {
			t.Fatalf("nothing fits, yet %d sequence(s) of %d tokens do", target.Seqs, l)
		}
	}
	for n := uint64(1); n <= target.Seqs && startsAtAll; n++ {
		if plan.Evaluate(n, target.Tokens).Fits() && starts(n, target.Tokens) {
			t.Fatalf("nothing fits, yet %d sequences of %d tokens do", n, target.Tokens)
		}
	}
	kvs := []string{r.KVCacheDtype}
	if r.KVDtypeBytes > 1 {
		kvs = append(kvs, "fp8")
	}
	utils := []float64{r.GPUMemoryUtilization}
	if r.KVCacheMemoryBytes == 0 {
		for u := math.Ceil(r.GPUMemoryUtilization*100) / 100; u <= c.Class.Memory.UtilCeiling+1e-9; u = math.Round(u*100+1) / 100 {
			utils = append(utils, u)
		}
	}
	quants := []string{r.Quantization}
	if c.Arch.Quant.Method == "" && r.Quantization == "" {
		quants = append(quants, "fp8") // online fp8 weights
	}
	for _, kv := range kvs {
		for _, q := range quants {
			for _, tp := range []uint64{r.TensorParallelSize, 2, 4, 8} {
				for _, pp := range []uint64{r.PipelineParallelSize, 2, 4} {
					if tp < r.TensorParallelSize || pp < r.PipelineParallelSize || pp > uint64(len(c.Arch.Layers)) {
						continue
					}
					for _, u := range utils {
						s := r.Serve
						s.KVCacheDtype, s.Quantization, s.TensorParallelSize, s.PipelineParallelSize, s.GPUMemoryUtilization = kv, q, tp, pp, u
						if fitsWith(s, target.Seqs, target.Tokens) {
							t.Fatalf("nothing fits, yet kv %s quantization %q tp %d pp %d util %v does (searched %v)", kv, q, tp, pp, u, adv.Searched)
						}
					}
				}
			}
		}
	}
}

// adviseBranches counts the cases of each kind the property met, so that a
// generator that stops reaching one is noticed.
var adviseBranches = map[string]int{}

func TestSuggestionsFitAndNothingFitsIsTrue(t *testing.T) {
	rapid.Check(t, propSuggestionsFitAndNothingFitsIsTrue)
	t.Logf("cases: %v", adviseBranches)
	for _, b := range []string{"fits", "suggested", "nothing"} {
		if adviseBranches[b] == 0 {
			t.Errorf("no case of kind %q: the generator no longer reaches it (%v)", b, adviseBranches)
		}
	}
}
