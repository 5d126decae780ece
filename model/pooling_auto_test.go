package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEmbeddingBaseModels: the four embedding entries of vLLM's registry
// named as base models are read by the family of the model_type their
// checkpoints carry (MistralModel by mistral, though vLLM's module is
// llama's), with no pooling head of their own (the embedding adapter's
// pooler has no weights); Qwen2.5-7B-Instruct named Qwen2Model (the corpus
// holds no gte-Qwen2 config) parses as its family's.
func TestEmbeddingBaseModels(t *testing.T) {
	want := map[string][]string{"Qwen2Model": {"qwen2"}, "LlamaModel": {"llama"}, "MistralModel": {"mistral"}, "Gemma2Model": {"gemma2"}}
	got := map[string][]string{}
	for arch := range want {
		if !EmbeddingBaseModel(arch) {
			t.Errorf("%s: not an embedding base model", arch)
		}
		got[arch] = Architectures()[arch]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("model_types (-want +got):\n%s", diff)
	}
	if EmbeddingBaseModel("Qwen2ForCausalLM") {
		t.Error("Qwen2ForCausalLM counted as an embedding base model")
	}
	a, err := ParseConfig("config.json", withArchitecture(t, "Qwen__Qwen2.5-7B-Instruct", "Qwen2Model"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Pooler != nil || a.ModelType != "qwen2" {
		t.Errorf("Qwen2Model: pooler %v, model_type %s: want none, qwen2", a.Pooler, a.ModelType)
	}
}
