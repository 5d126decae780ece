package vllm

import (
	"errors"
	"strings"
	"testing"

	"membudget"
	"membudget/engine"
	"membudget/model"
)

// TestHeadDtypeRefusedFrom026: PR #48390 (2026-07-13) has vLLM run a
// generative model's LM head in the config's head_dtype from 0.26.0, whose
// branch was cut after it (0.25.0's before); membudget sizes the logits in
// the model dtype, so a config asking for another is refused naming the
// model, and one asking for the model's own is sized as before.
func TestHeadDtypeRefusedFrom026(t *testing.T) {
	data, path, ok := membudget.ModelConfig("Qwen__Qwen3-8B")
	if !ok {
		t.Fatal("Qwen3-8B is not shipped")
	}
	withHead := func(d string) *model.Arch {
		t.Helper()
		edited := strings.Replace(string(data), `"model_type": "qwen3",`, `"model_type": "qwen3", "head_dtype": "`+d+`",`, 1)
		a, err := model.ParseConfig(path, []byte(edited))
		if err != nil {
			t.Fatal(err)
		}
		if a.HeadDtype != d {
			t.Fatalf("HeadDtype %q, want %q", a.HeadDtype, d)
		}
		return a
	}
	tests := []struct {
		head, spec string
		refused    bool
	}{
		{"float32", "0.25.0", false}, // before #48390: vLLM warns and keeps bfloat16
		{"float32", "0.26.0", true},
		{"float32", "0.28.0", true},
		{"float32", "main", true},
		{"model", "main", false},    // the model dtype by name
		{"bfloat16", "main", false}, // Qwen3-8B's own torch_dtype
	}
	for _, tt := range tests {
		_, err := Resolve(Serve{}, withHead(tt.head), testClass(false), mustProfile(tt.spec))
		var se *engine.SettingError
		switch {
		case !tt.refused && err != nil:
			t.Errorf("head_dtype %s on %s: %v, want sized", tt.head, tt.spec, err)
		case tt.refused && (!errors.As(err, &se) || se.Flag != "model" || !strings.Contains(se.Reason, "head_dtype \""+tt.head+"\"") || !strings.Contains(se.Reason, "#48390")):
			t.Errorf("head_dtype %s on %s: %v, want refused naming --model, head_dtype and #48390", tt.head, tt.spec, err)
		}
	}
}
