package properties

import "membudget/model"

// lengthOf is the longest max_model_len a test draws for a: the config's
// max_position_embeddings or a smaller length key it gives, or the 2048
// vLLM and SGLang take for a config without any length key (an
// attention-free Mamba's).
func lengthOf(a *model.Arch) uint64 {
	if a.MaxPosition == 0 {
		return 2048
	}
	// vLLM derives the limit from the smallest length key the config
	// gives (model_arch_config_convertor.py:388-421): TeleChat2's
	// seq_length, where max_position_embeddings is only its rotary
	// table's default.
	n := a.MaxPosition
	for _, v := range a.MaxLenKeys {
		n = min(n, max(v, 1))
	}
	return n
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
