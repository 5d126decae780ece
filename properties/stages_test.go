package properties

import (
	"slices"

	"membudget/model"
)

// cachedStages is the largest pipeline size up to pp at which every stage
// holds a layer that keeps a KV cache or a state, in a model that has
// some: vLLM asserts at startup otherwise (membudget refuses it, engine/
// vllm/stages.go; TestCachelessStageRefused checks the refusal), so that
// the generators of valid serves draw no such split. Stages split the
// layers as vLLM's get_pp_indices does (vllm/distributed/utils.py): n/pp
// each, the remainder one each to the stages before the last, from the
// second-to-last backwards.
func cachedStages(a *model.Arch, pp uint64) uint64 {
	keeps := func(l model.Layer) bool {
		return !l.SharesKV && l.Kind != model.NoMixer && l.Kind != model.EncoderOnly
	}
	if !slices.ContainsFunc(a.Layers, keeps) {
		return pp
	}
	for ; pp > 1; pp-- {
		n, k := len(a.Layers), int(pp)
		parts := make([]int, k)
		for i := range parts {
			parts[i] = n / k
		}
		for i := 2; i < n%k+2; i++ {
			parts[k-i]++
		}
		every := true
		for _, st := range model.Stages(parts) {
			if !slices.ContainsFunc(a.Layers[st.FirstLayer:st.EndLayer], keeps) {
				every = false
				break
			}
		}
		if every {
			return pp
		}
	}
	return 1
}
