package sglang

import (
	"errors"
	"strings"
	"testing"

	"membudget/engine"
)

// TestMXFP4OffBlackwellRefused: gpt-oss-20b's MXFP4 experts off Blackwell
// are refused naming --model under every release that would load them
// (v0.5.8 and later refuse gpt-oss off SM100 first, for its split pool):
// on Hopper and Ampere because triton_kernels' presence decides their
// layout (swizzled, upcast to bfloat16, or a failed import), below 8.0
// because SGLang refuses MXFP4, on ROCm because aiter's path is not read.
func TestMXFP4OffBlackwellRefused(t *testing.T) {
	a := shipped(t)["openai__gpt-oss-20b"]
	tests := []struct {
		name, on, p string
		s           Serve
		has         string
	}{
		// H100 (SM90), TP 1: 2880 intermediate is already a multiple of
		// 32, yet the swizzle and float32 biases still change the bytes.
		{"H100 TP 1, v0.5.6.post2", "h100-sxm-80g", "v0.5.6.post2", Serve{}, "as OpenAI's triton_kernels decides"},
		{"H100 TP 2, v0.5.6.post3", "h100-sxm-80g", "v0.5.6.post3", Serve{TPSize: 2}, "intermediate rounded to 32, float32 biases"},
		{"H100 TP 1, v0.5.7", "h100-sxm-80g", "v0.5.7", Serve{}, "without it the load fails importing triton_kernels"},
		// A100 (SM80) and L40S (SM89) take the same path as Hopper.
		{"A100 TP 1, v0.5.7", "a100-80g", "v0.5.7", Serve{AttentionBackend: "triton"}, "upcast to bfloat16"},
		{"L40S TP 1, v0.5.6.post2", "l40s", "v0.5.6.post2", Serve{AttentionBackend: "triton"}, "neither its wheel nor its image installs"},
		// V100 is SM70: Mxfp4Config.get_min_capability is 80.
		{"V100, v0.5.7", "v100-32g", "v0.5.7", Serve{AttentionBackend: "triton"}, "needs compute capability 8.0"},
		{"MI300X, v0.5.7", "mi300x", "v0.5.7", Serve{AttentionBackend: "triton"}, "aiter on ROCm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustProfile(tt.p)
			s := tt.s
			s.TPSize = max(s.TPSize, 1)
			// The step itself, so that no earlier refusal (attention
			// backend, dtype) can stand in for this one.
			r := Resolved{Serve: s, Profile: p, Quant: a.Quant, Stages: pipelineStages(len(a.Layers), 1, PPLastOneExtra)}
			var se *engine.SettingError
			if err := r.resolveMXFP4(a, class(t, tt.on)); !errors.As(err, &se) || se.Flag != "model" || !strings.Contains(se.Reason, tt.has) {
				t.Errorf("%v, want a refusal of --model naming %q", err, tt.has)
			}
		})
	}
	// And through Resolve, on the H100 of issue 21 at each release.
	for _, name := range []string{"v0.5.6.post2", "v0.5.6.post3", "v0.5.7"} {
		_, err := Resolve(Serve{}, a, class(t, "h100-sxm-80g"), mustProfile(name))
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "model" || !strings.Contains(se.Reason, "triton_kernels") {
			t.Errorf("%s gpt-oss-20b on h100: %v, want --model refused naming triton_kernels", name, err)
		}
	}
}
