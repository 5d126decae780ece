package sglang

import (
	"errors"
	"strings"
	"testing"

	"membudget"
	"membudget/engine"
	"membudget/model"
)

// TestINCRefused: an AutoRound checkpoint (quant_method auto-round) is
// modelled as vLLM's INC method loads it (model/quant_inc.go); SGLang's
// own loading of it is not read, so every release refuses it by name.
func TestINCRefused(t *testing.T) {
	data, path, ok := membudget.ModelConfig("meta-llama__Llama-3.2-1B-Instruct")
	if !ok {
		t.Fatal("no shipped Llama-3.2-1B config")
	}
	doc := strings.Replace(string(data), "{", `{"quantization_config": {"quant_method": "auto-round", "packing_format": "auto_round:auto_gptq",
 "bits": 4, "group_size": 128, "sym": true, "data_type": "int"}, `, 1)
	a, err := model.ParseConfig(path, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Profile{current, r049} {
		_, err := NewReference(a, Serve{ContextLength: 4096}, class(t, "h100-sxm-80g"), p)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "model" || !strings.Contains(se.Reason, "AutoRound") {
			t.Errorf("%s: error %v, want a refusal of --model naming AutoRound", p.Name, err)
		}
	}
}
