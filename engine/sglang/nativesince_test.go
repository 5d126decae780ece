package sglang

import (
	"strings"
	"testing"
)

// TestUnreadModelNamesItsRelease: a native architecture membudget has not
// read is refused with the release it came in. Qwen3.5's
// Qwen3_5ForConditionalGeneration and GLM-5's GlmMoeDsaForCausalLM are
// v0.5.9's (new059): "new in this release" under v0.5.9 and its post
// release, "new in v0.5.9" under v0.5.10 and every later one, where the
// refusal said "new in this release" too.
func TestUnreadModelNamesItsRelease(t *testing.T) {
	archs := shipped(t)
	h100 := class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		model, release, want string
	}{
		{"Qwen__Qwen3.5-27B", "v0.5.9", "implements Qwen3_5ForConditionalGeneration natively, new in this release,"},
		{"Qwen__Qwen3.5-27B", "v0.5.9.post1", "implements Qwen3_5ForConditionalGeneration natively, new in this release,"},
		{"Qwen__Qwen3.5-27B", "v0.5.10", "implements Qwen3_5ForConditionalGeneration natively, new in v0.5.9,"},
		{"Qwen__Qwen3.5-27B", "v0.5.14", "implements Qwen3_5ForConditionalGeneration natively, new in v0.5.9,"},
		{"zai-org__GLM-5", "v0.5.13.post1", "implements GlmMoeDsaForCausalLM natively, new in v0.5.9,"},
	} {
		_, err := Resolve(Serve{TPSize: 2}, archs[tt.model], h100, mustProfile(tt.release))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s under %s: %v; want it to say %q", tt.model, tt.release, err, tt.want)
		}
	}
}
