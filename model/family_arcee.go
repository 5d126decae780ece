package model

func init() {
	// arcee-ai's AFM checkpoints name their tensors as Llama's with an
	// ungated MLP of up_proj and down_proj (transformers models/arcee/
	// modeling_arcee.py ArceeMLP).
	register("arcee", flat(readArcee), ckptFamily(nil, [][]moduleRule{gqaAttention, upDownMLP, twoNorms}))
	registerArchitectures("arcee", "ArceeForCausalLM")
}

// readArcee reads Arcee AFM (vllm/model_executor/models/arcee.py at
// d18bb7b): Llama's attention (LlamaAttention, q/k/v and o_proj biased by
// attention_bias or bias, q/k/v by qkv_bias where given, sliding by
// layer_types: :110-135) and an ungated ReLU² MLP of up_proj and down_proj
// biased by mlp_bias (:48-93, 146); Llama's stages (:196-222) and a head
// biased by lm_head_bias (:307-320).
func readArcee(o jsonObject, a *Arch) {
	readLlama(o, a)
	readLlamaAttentionBias(o, a)
	t := &a.tree
	t.ungated, t.mlpNames = true, [2]string{"up_proj", "down_proj"}
	t.lmHeadBias = o.boolOr("lm_head_bias", false)
}

// readLlamaAttentionBias reads the biases of LlamaAttention as the
// families that build it with a config's bias keys do (arcee.py:110-135,
// apertus.py:248-254, nemotron_nas.py:140-146): attention_bias or bias
// biases q, k, v and o_proj, and qkv_bias, where the config has the
// attribute, q, k and v alone.
func readLlamaAttentionBias(o jsonObject, a *Arch) {
	a.AttnBias = o.boolOr("attention_bias", false) || o.boolOr("bias", false)
	a.OutBias = a.AttnBias
	if _, present := o.m["qkv_bias"]; present {
		// hasattr(config, "qkv_bias"): a null is None, no bias.
		a.AttnBias = o.boolOr("qkv_bias", false)
	}
}

// upDownMLP: an ungated MLP, up_proj column-parallel and down_proj
// row-parallel.
var upDownMLP = []moduleRule{
	{module: "mlp.up_proj", split: column},
	{module: "mlp.down_proj", split: row},
}
