package model

import (
	"errors"
	"strings"
	"testing"
)

// TestLanguageModelOnlyKey: the config's own top-level language_model_only
// (a multimodal family's checkpoint declaring itself text-only, as
// sgl-project/sglang PR #22867 reads it) is read as given: absent false,
// true and false as written, JSON null as absent; anything else is an
// error naming the key.
func TestLanguageModelOnlyKey(t *testing.T) {
	base := string(corpusModel(t, "Qwen__Qwen3-VL-32B-Instruct"))
	with := func(v string) []byte {
		return []byte(strings.Replace(base, `"model_type": "qwen3_vl",`, `"model_type": "qwen3_vl", "language_model_only": `+v+`,`, 1))
	}
	for _, tt := range []struct {
		name string
		data []byte
		want bool
	}{
		{"absent", []byte(base), false},
		{"true", with("true"), true},
		{"false", with("false"), false},
		{"null", with("null"), false},
	} {
		a, err := ParseConfig("config.json", tt.data)
		if err != nil || a.LanguageModelOnly != tt.want {
			t.Errorf("%s: LanguageModelOnly %v, %v; want %v", tt.name, a != nil && a.LanguageModelOnly, err, tt.want)
		}
	}
	_, err := ParseConfig("config.json", with(`"yes"`))
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "language_model_only" {
		t.Errorf(`language_model_only "yes": %v; want a ConfigError naming the key`, err)
	}
}
