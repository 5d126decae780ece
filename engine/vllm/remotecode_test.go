package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
)

// TestTrustRemoteCode: a config only the checkpoint's code reads
// (nemotron-nas: DeciLMConfig by auto_map; transformers ships no
// nemotron-nas class) stops vLLM at startup without --trust-remote-code,
// refused naming the flag and quoting vLLM's message; with it the serve is
// sized and the printed line carries it. Kimi-K2's config class vLLM
// registers itself (_CONFIG_REGISTRY kimi_k2), and a Llama config is
// transformers': neither needs it, and a line that gives it keeps it.
func TestTrustRemoteCode(t *testing.T) {
	t.Parallel()
	models := shipped(t)
	tests := []struct {
		model   string
		trust   bool
		refused bool
	}{
		{"nvidia__Llama-3_3-Nemotron-Super-49B-v1", false, true},
		{"nvidia__Llama-3_3-Nemotron-Super-49B-v1", true, false},
		{"OpenGVLab__InternVL3-1B-Pretrained", false, true},
		{"moonshotai__Kimi-K2-Instruct", false, false},
		{"meta-llama__Llama-3.1-8B-Instruct", false, false},
		{"meta-llama__Llama-3.1-8B-Instruct", true, false},
	}
	type got struct {
		Refused, InLine bool
	}
	for _, tt := range tests {
		a := models[tt.model]
		if a == nil {
			t.Fatalf("no shipped model %s", tt.model)
		}
		r, err := Resolve(Serve{MaxModelLen: 4096, TrustRemoteCode: tt.trust}, a, bigClass, current)
		var se *engine.SettingError
		if err != nil && (!errors.As(err, &se) || se.Flag != "trust-remote-code" || !strings.Contains(se.Reason, remoteCodeRefusal)) {
			t.Errorf("%s (trust %v): %v, want a refusal of --trust-remote-code quoting vLLM", tt.model, tt.trust, err)
			continue
		}
		g := got{Refused: err != nil}
		if err == nil {
			g.InLine = strings.Contains(Command(tt.model, &r)+" ", " --trust-remote-code ")
		}
		if diff := cmp.Diff(got{tt.refused, tt.trust && !tt.refused}, g); diff != "" {
			t.Errorf("%s (trust %v) (-want +got):\n%s", tt.model, tt.trust, diff)
		}
	}
}
