package membudget_test

import (
	"io/fs"
	"os"
	"strings"
	"testing"

	"membudget"
	"membudget/model"
)

// TestShippedQuantConfigs: every hf_quant_config.json shipped belongs to a
// shipped model, and the model parses with it into a ModelOpt quantization.
func TestShippedQuantConfigs(t *testing.T) {
	entries, err := fs.ReadDir(os.DirFS("corpus/models/hf_quant_config"), ".")
	if err != nil || len(entries) == 0 {
		t.Fatalf("no hf_quant_config files: %v", err)
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".json")
		data, path, ok := membudget.ModelConfig(name)
		if !ok {
			t.Errorf("%s: no shipped config.json for it", e.Name())
			continue
		}
		q, qpath, ok := membudget.ModelQuantConfig(name)
		if !ok {
			t.Errorf("%s: not embedded", e.Name())
			continue
		}
		a, err := model.ParseConfig(path, data, model.WithHFQuantConfig(qpath, q))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if a.Quant.Method != "modelopt" {
			t.Errorf("%s: quantization %q, want modelopt", name, a.Quant.Method)
		}
	}
	if _, _, ok := membudget.ModelQuantConfig("meta-llama__Llama-3.1-8B-Instruct"); ok {
		t.Error("a model without hf_quant_config.json has one")
	}
}
