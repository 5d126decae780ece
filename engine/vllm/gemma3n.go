package vllm

import "membudget/model"

// resolveGemma3n refuses an online quantization membudget does not size
// for the model ([model.Arch.QuantizationRefused]: Gemma 3n's) and gives
// every stage the served max_num_batched_tokens where the model allocates
// a buffer by it as vLLM builds it: Gemma 3n's per_layer_embeddings,
// max_num_batched_tokens x layers x hidden_size_per_layer_input in the
// model dtype, allocated in Gemma3nForConditionalGeneration.__init__
// (gemma3n_mm.py:580-588) and so charged with the weights.
func (r *Resolved) resolveGemma3n(a *model.Arch) error {
	if why := a.QuantizationRefused(); why != "" && r.Quantization != "" {
		// Its checkpoints' quantization_config is refused likewise.
		return settingErr("quantization", r.Quantization, "quantizing %s as vLLM loads it is not modelled: %s", configArch(a), why)
	}
	if !a.SizedByBatchedTokens() {
		return nil
	}
	for i := range r.Stages {
		r.Stages[i].BatchedTokens = r.MaxNumBatchedTokens
	}
	return nil
}

// gemma3nItems is Gemma 3n's largest image and audio clip: vLLM's
// processing info gives every image 256 embeddings and every clip 188,
// whatever the config says (TOKENS_PER_IMAGE, TOKENS_PER_AUDIO,
// gemma3n_mm.py:69-71, 174-177).
func gemma3nItems(*model.VisionTower, uint64, mmKwargs, func(string) uint64) ([]mmItem, error) {
	image, audio := model.Gemma3nItemTokens()
	return []mmItem{{"audio", audio}, {"image", image}}, nil
}
