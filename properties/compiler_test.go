package properties

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/engine/vllm"
)

// compilerProfiles are the profiles the compiler property draws from: one
// of each era of rules (graphs beside or charged, the V0 engine, the
// startup check's formulas).
var compilerProfiles = func() []vllm.Profile {
	var out []vllm.Profile
	for _, spec := range []string{"main", "0.21.0", "0.19.0", "0.14.0", "0.10.2", "0.8.5:v0"} {
		p, err := vllm.ProfileFor(spec)
		if err != nil {
			panic(err)
		}
		out = append(out, p)
	}
	return out
}()

// propCompilerEqualsReference: a Compiler's plan is the Reference's plan,
// field for field, for serves of one architecture compiled one after the
// other under any profile, so that what it keeps from one serve to the
// next (the weights per sharding) never changes an answer; and it refuses
// exactly the serves the Reference refuses, with the same error.
func propCompilerEqualsReference(t *rapid.T) {
	c := genServeCase(1024, 1<<17).Draw(t, "serve")
	cp := vllm.NewCompiler(c.Arch)
	for i := range 4 {
		s := c.Serve
		if i > 0 {
			s.GPUMemoryUtilization = rapid.Float64Range(0.05, 1).Draw(t, "util")
			s.MaxModelLen = rapid.Uint64Range(1, c.Serve.MaxModelLen).Draw(t, "max_model_len")
			s.KVCacheDtype = rapid.SampledFrom([]string{"auto", c.Serve.KVCacheDtype}).Draw(t, "kv_cache_dtype")
			s.PipelineParallelSize = rapid.Uint64Range(1, c.Serve.PipelineParallelSize).Draw(t, "pp")
			s.EnforceEager = rapid.Bool().Draw(t, "enforce_eager")
		}
		p := rapid.SampledFrom(compilerProfiles).Draw(t, "profile")
		ref, refErr := vllm.NewReference(c.Arch, s, c.Class, p)
		r, plan, err := cp.Compile(s, c.Class, p)
		if refErr != nil || err != nil {
			if refErr == nil || err == nil || refErr.Error() != err.Error() {
				t.Fatalf("serve %d under %s: reference error %v, compiler error %v", i, p.Name, refErr, err)
			}
			continue
		}
		if diff := cmp.Diff(ref.Plan(), plan); diff != "" {
			t.Fatalf("serve %d under %s: Compiler != Reference (-reference +compiler):\n%s", i, p.Name, diff)
		}
		if diff := cmp.Diff(ref.Serve.Serve, r.Serve); diff != "" {
			t.Fatalf("serve %d under %s: resolved serves differ (-reference +compiler):\n%s", i, p.Name, diff)
		}
	}
}

func TestCompilerEqualsReference(t *testing.T) {
	rapid.Check(t, propCompilerEqualsReference)
}
