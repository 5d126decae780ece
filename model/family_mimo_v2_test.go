package model

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestMiMoV2Refused: MiMo-V2-Flash's config.json (testdata/unsupported,
// from ai-dynamo/aiconfigurator) is refused by name, naming its different
// key and value head sizes, and not as an unknown model_type, which the
// commands would size as a generic decoder; so is a config of model_type
// mimo_v2 (MiMoV2ForCausalLM).
func TestMiMoV2Refused(t *testing.T) {
	flash, err := os.ReadFile("testdata/unsupported/XiaomiMiMo__MiMo-V2-Flash.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"MiMo-V2-Flash": flash,
		"mimo_v2":       []byte(`{"model_type": "mimo_v2", "architectures": ["MiMoV2ForCausalLM"]}`),
	} {
		_, err := ParseConfig("config.json", data)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Key != "model_type" || errors.Is(err, ErrUnknownModelType) || !strings.Contains(ce.Detail, "head_size_v") {
			t.Errorf("%s: %v, want a refusal of model_type naming the value head size, not an unknown model_type", name, err)
		}
	}
	if !strings.Contains(ArchitectureRefusal("mimo_v2"), "DiffKV") {
		t.Errorf("the coverage table's reason for mimo_v2: %q", ArchitectureRefusal("mimo_v2"))
	}
}
