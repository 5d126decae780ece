package vllm

import "membudget/model"

// embeddingBaseModel says the config names an embedding model of vLLM's
// registry exported as a transformers base model (no LM head) whose class
// is a causal LM ([model.EmbeddingBaseModel]).
func embeddingBaseModel(a *model.Arch) bool {
	return len(a.Architectures) > 0 && model.EmbeddingBaseModel(a.Architectures[0])
}

// embeddingBaseWhy is why --runner auto picks the pooling runner for
// one. vLLM's _get_default_runner_type (vllm/config/model.py at d18bb7b)
// first asks the checkpoint's sentence-transformers config
// (get_pooling_config: modules.json), which the embedding checkpoints of
// these names carry (gte-Qwen2, e5-mistral, bge-multilingual-gemma2), and
// picks pooling; without one the registry class, a causal LM, would make
// it generate, but a base-model export has no lm_head.weight for that
// class to load (see embeddingBaseGenerateErr).
func embeddingBaseWhy(a *model.Arch) string {
	return "auto: " + configArch(a) + " is an embedding model of vLLM's registry exported without an LM head; vLLM picks the pooling runner from its sentence-transformers config (modules.json; vllm/config/model.py _get_default_runner_type), which membudget did not find beside config.json (a shipped config.json has none): pass --runner generate for a checkpoint without one"
}

// embeddingBaseGenerateErr refuses --runner generate for one whose LM
// head is not tied: vLLM's registry class builds an untied ParallelLMHead
// (qwen2.py Qwen2ForCausalLM at d18bb7b, the same in llama.py and
// gemma2.py), and a base-model export has no lm_head.weight, so the loader
// raises "Following weights were not initialized from checkpoint"
// (model_loader/default_loader.py:465-470). nil when the head is tied
// (the embedding's rows serve as the head) or the model is another.
func embeddingBaseGenerateErr(r *Resolved, a *model.Arch) error {
	if !embeddingBaseModel(a) || a.TiedEmbeddings {
		return nil
	}
	return settingErr("runner", r.Runner, "%s is a base-model export without lm_head.weight, and the causal LM vLLM builds for it has an untied LM head: vLLM's loader raises \"Following weights were not initialized from checkpoint\" (vllm/model_executor/model_loader/default_loader.py:465-470); use --runner pooling or auto", configArch(a))
}
