package model

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGemma4BidirectionalVision: Gemma 4's tower records text_config
// use_bidirectional_attention "vision" (vLLM's is_mm_prefix_lm,
// model_arch_config_convertor.py:695-701 at d18bb7b) and a non-null
// audio_config. The shipped 31B writes "vision" and "audio_config": null;
// any other value, a bool, or the key absent is not "vision" (vLLM
// compares with ==).
func TestGemma4BidirectionalVision(t *testing.T) {
	base := map[string]any{}
	if err := json.Unmarshal(corpusModel(t, "google__gemma-4-31B-it"), &base); err != nil {
		t.Fatal(err)
	}
	type got struct{ Bidirectional, Audio bool }
	tests := []struct {
		name  string
		mode  any // use_bidirectional_attention; nil deletes it
		audio any // audio_config
		want  got
	}{
		{"shipped: vision, no audio", "vision", nil, got{true, false}},
		{"all", "all", nil, got{false, false}},
		{"a bool", true, nil, got{false, false}},
		{"absent", nil, nil, got{false, false}},
		{"an audio_config", "vision", map[string]any{"hidden_size": 1024}, got{true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg map[string]any
			raw, _ := json.Marshal(base)
			if err := json.Unmarshal(raw, &cfg); err != nil {
				t.Fatal(err)
			}
			text := cfg["text_config"].(map[string]any)
			if tt.mode == nil {
				delete(text, "use_bidirectional_attention")
			} else {
				text["use_bidirectional_attention"] = tt.mode
			}
			cfg["audio_config"] = tt.audio
			data, err := json.Marshal(cfg)
			if err != nil {
				t.Fatal(err)
			}
			a, err := ParseConfig("config.json", data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got{a.Vision.BidirectionalVision, a.Vision.AudioConfig}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
