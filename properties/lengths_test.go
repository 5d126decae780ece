package properties

import "membudget/model"

// lengthOf is the longest max_model_len a test draws for a: the config's
// max_position_embeddings, or the 2048 vLLM and SGLang take for a config
// without any length key (an attention-free Mamba's).
func lengthOf(a *model.Arch) uint64 {
	if a.MaxPosition == 0 {
		return 2048
	}
	return a.MaxPosition
}

// maxStages is the most pipeline stages a test draws for a: at most most,
// no more than its layers, one where vLLM's class has no SupportsPP
// (Mamba2's).
func maxStages(a *model.Arch, most uint64) uint64 {
	if a.NoPipeline {
		return 1
	}
	return min(most, uint64(len(a.Layers)))
}
