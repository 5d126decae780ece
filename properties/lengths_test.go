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
