package properties

import (
	"errors"
	"testing"

	"pgregory.net/rapid"

	"membudget/engine"
	"membudget/engine/vllm"
	"membudget/model"
)

// nonDividing says why vLLM cannot build a's layers at tensor parallelism
// tp (with expert parallelism when ep), or "" when the heads, KV heads and
// intermediate sizes take it: the attention heads must divide
// (vllm/config/model.py verify_with_parallel_config), the KV heads divide
// or be a multiple of the ranks unless MLA (QKVParallelLinear), the
// intermediate sizes divide (the experts' unless held whole under expert
// parallelism).
func nonDividing(a *model.Arch, tp uint64, ep bool) string {
	switch {
	case a.Heads%tp != 0:
		return "heads"
	case !a.MLA && a.KVHeads%tp != 0 && tp%a.KVHeads != 0:
		return "kv heads"
	case a.Intermediate%tp != 0 || !ep && a.MoEIntermediate%tp != 0:
		return "intermediate"
	case a.Mamba != nil && a.Mamba.Version == 1 && a.Mamba.Intermediate%tp != 0:
		// Mamba1's channels (mamba_mixer.py:91-159): an attention-free
		// Mamba has no heads to refuse first.
		return "mamba channels"
	}
	return ""
}

// propNonDividingTPIsRefused: a valid serve whose tensor parallelism is
// changed to one the heads, the KV heads or the intermediate sizes do not
// take is refused, under every profile, by the Reference and the Compiler
// alike, with a *engine.SettingError naming tensor-parallel-size.
func propNonDividingTPIsRefused(t *rapid.T) {
	c := genServeCase(1024, 1<<17).Draw(t, "serve")
	// The degrees by the first shape they do not divide; the kind is
	// drawn first, so that the rarer KV-head refusals are met as often.
	bad := map[string][]uint64{}
	var kinds []string
	for _, tp := range []uint64{2, 3, 4, 5, 6, 8, 12, 16} {
		if why := nonDividing(c.Arch, tp, c.Serve.EnableExpertParallel); why != "" {
			if bad[why] == nil {
				kinds = append(kinds, why)
			}
			bad[why] = append(bad[why], tp)
		}
	}
	if len(kinds) == 0 {
		t.SkipNow() // every degree divides every shape (an attention-free Mamba's channels may)
	}
	why := rapid.SampledFrom(kinds).Draw(t, "refusal_kind")
	s := c.Serve
	s.TensorParallelSize = rapid.SampledFrom(bad[why]).Draw(t, "non_dividing_tp")
	tpBranches[why]++
	_, refErr := vllm.NewReference(c.Arch, s, c.Class, c.Profile)
	var se *engine.SettingError
	if !errors.As(refErr, &se) || se.Flag != "tensor-parallel-size" {
		t.Fatalf("tp %d does not take the %s of %s, yet the reference gives %v, not a --tensor-parallel-size refusal", s.TensorParallelSize, why, c.Arch, refErr)
	}
	if _, _, err := vllm.NewCompiler(c.Arch).Compile(s, c.Class, c.Profile); err == nil || err.Error() != refErr.Error() {
		t.Fatalf("tp %d: the reference refuses with %v, the compiler with %v", s.TensorParallelSize, refErr, err)
	}
}

// tpBranches counts the refusals of each kind the property met, so that a
// generator that stops reaching one is noticed. The KV-head refusals need
// a grouped count with a factor of 3 (12 heads of 6 KV heads at TP 4):
// some in a hundred cases, too few to require of every run; modelgen's
// TestHeadsAreDivisorRich requires the generator to draw such counts.
var tpBranches = map[string]int{}

func TestNonDividingTPIsRefused(t *testing.T) {
	rapid.Check(t, propNonDividingTPIsRefused)
	t.Logf("refusals: %v", tpBranches)
	for _, b := range []string{"heads", "intermediate"} {
		if tpBranches[b] == 0 {
			t.Errorf("no refusal of kind %q: the generator no longer reaches it (%v)", b, tpBranches)
		}
	}
}
