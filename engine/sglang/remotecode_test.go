package sglang

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
)

// TestTrustRemoteCode: a config only the checkpoint's code reads (MiniCPM's
// minicpm: MiniCPMConfig by auto_map, no transformers class) stops SGLang
// at startup without --trust-remote-code, refused naming the flag; with it
// the serve is sized and the launch line carries it. EXAONE 3's exaone is
// one SGLang registers itself (ExaoneConfig), and Llama's transformers':
// neither needs it, in both releases.
func TestTrustRemoteCode(t *testing.T) {
	t.Parallel()
	models := shipped(t)
	tests := []struct {
		model   string
		trust   bool
		refused bool
	}{
		{"mlx-community__MiniCPM-2B-dpo-bf16", false, true},
		{"mlx-community__MiniCPM-2B-dpo-bf16", true, false},
		{"LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct", false, false},
		{"meta-llama__Llama-3.1-8B-Instruct", false, false},
		{"meta-llama__Llama-3.1-8B-Instruct", true, false},
	}
	type got struct{ Refused, InLine bool }
	for _, p := range []Profile{current, r049} {
		for _, tt := range tests {
			a := models[tt.model]
			if a == nil {
				t.Fatalf("no shipped model %s", tt.model)
			}
			r, err := Resolve(Serve{ContextLength: 4096, TrustRemoteCode: tt.trust}, a, class(t, "h100-sxm-80g"), p)
			var se *engine.SettingError
			if err != nil && (!errors.As(err, &se) || se.Flag != "trust-remote-code") {
				t.Errorf("%s %s (trust %v): %v, want a refusal of --trust-remote-code", p.Name, tt.model, tt.trust, err)
				continue
			}
			g := got{Refused: err != nil}
			if err == nil {
				g.InLine = strings.HasSuffix(Command(tt.model, "", r), " --trust-remote-code")
			}
			if diff := cmp.Diff(got{tt.refused, tt.trust && !tt.refused}, g); diff != "" {
				t.Errorf("%s %s (trust %v) (-want +got):\n%s", p.Name, tt.model, tt.trust, diff)
			}
		}
	}
}
