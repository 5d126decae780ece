package model

// embeddingBaseModels are the entries of vLLM's _EMBEDDING_MODELS
// (vllm/model_executor/models/registry.py at d18bb7b) named as a
// transformers base model (AutoModel: no LM head) whose registry class is
// the family's causal LM, by architecture, with the model_type whose
// family reads it: Qwen2Model -> Qwen2ForCausalLM, LlamaModel and
// MistralModel -> LlamaForCausalLM, Gemma2Model -> Gemma2ForCausalLM. The
// pooling runner converts that class to an embedding model
// (as_embedding_model); MistralModel's checkpoints (e5-mistral) carry
// model_type mistral, which membudget's mistral family reads.
var embeddingBaseModels = map[string]string{
	"Qwen2Model":   "qwen2",
	"LlamaModel":   "llama",
	"MistralModel": "mistral",
	"Gemma2Model":  "gemma2",
}

func init() {
	for arch, mt := range embeddingBaseModels {
		registerArchitectures(mt, arch)
	}
}

// EmbeddingBaseModel reports whether arch is an embedding model of vLLM's
// registry named as a transformers base model whose class is a causal LM
// (Qwen2Model, LlamaModel, MistralModel, Gemma2Model): an export without
// an LM head, which vLLM serves with its pooling runner when the
// checkpoint's sentence-transformers config says so.
func EmbeddingBaseModel(arch string) bool {
	_, ok := embeddingBaseModels[arch]
	return ok
}
