package model

func init() {
	// OrionStarAI/Orion-14B's checkpoint names its tensors as Llama's, its
	// norms LayerNorms with biases (the model's own modeling_orion.py).
	register("orion", flat(readOrion), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, everyStageTop))
	registerArchitectures("orion", "OrionForCausalLM")
}

// readOrion reads Orion (vllm/model_executor/models/orion.py at d18bb7b),
// whose config is the checkpoint's own (trust_remote_code): unbiased q/k/v,
// o_proj and gated MLP of hidden_size / heads (:57-130), LayerNorms with
// biases (:192-195, 242); the embedding, final norm and head built on every
// pipeline stage (:231-242, 301-308), the head tied by tie_word_embeddings.
func readOrion(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.derivedHeadDim(o)
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.Rotary[0].Dim = a.RotaryDim
	t := &a.tree
	t.layerNorm = true
	t.onEveryStage()
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}
