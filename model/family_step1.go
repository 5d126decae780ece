package model

func init() {
	// stepfun-ai's Step 1 checkpoints name their tensors as Llama's.
	register("step1", flat(readStep1), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
	registerArchitectures("step1", "Step1ForCausalLM")
}

// readStep1 reads Step 1 (vllm/model_executor/models/step1.py at
// d18bb7b): Llama's layers and stages (:240-267, 342-350) with ALiBi
// attention (no rotary table, :132-145) of hidden_size / heads (:95), KV
// heads num_attention_groups, else num_key_value_heads, else 1 (a null or
// 0 is 1, :97-101), q/k/v and o_proj biased by attention_bias (:109-125),
// the MLP by mlp_bias (:212); the head tied unless tie_word_embeddings
// says false (PretrainedConfig's default True).
func readStep1(o jsonObject, a *Arch) {
	kvKey := "num_attention_groups"
	if _, present := o.m[kvKey]; !present {
		kvKey = "num_key_value_heads"
	}
	kv := uint64(1)
	if o.has(kvKey) {
		kv = max(o.uintValue(kvKey), 1)
	}
	delete(o.m, "num_key_value_heads")
	setDefault(o, "num_key_value_heads", kv)
	readCommon(o, a)
	a.derivedHeadDim(o)
	a.Rotary, a.RotaryDim = nil, 0
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	a.AttnBias = o.boolOr("attention_bias", false)
	a.OutBias = a.AttnBias
	a.MLPBias = o.boolOr("mlp_bias", false)
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}
