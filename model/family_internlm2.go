package model

func init() {
	// internlm/internlm2_5-7b-chat's checkpoint (the model's own
	// modeling_internlm2.py): tok_embeddings, attention.wqkv (q, k and v
	// of each KV group together) and wo, feed_forward.w1 (gate), w3 (up)
	// and w2 (down), attention_norm and ffn_norm, output.
	register("internlm2", flat(readInternLM2), ckptFamily(internLM2Rename, [][]moduleRule{internLM2Layer}, everyStageTop))
	registerArchitectures("internlm2", "InternLM2ForCausalLM")
}

// readInternLM2 reads InternLM2 and 2.5 (vllm/model_executor/models/
// internlm2.py at d18bb7b), whose config is the checkpoint's own
// (trust_remote_code): unbiased wqkv and wo of hidden_size / heads
// (:119-139) and gated MLP (:63-75), two norms, every layer full
// attention; the embedding, final norm and head built on every pipeline
// stage (:274-285, 348-355), the head tied by tie_word_embeddings. vLLM
// builds no bias whatever the config's bias says: a biased checkpoint
// would not load, and is refused.
func readInternLM2(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.derivedHeadDim(o)
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.Rotary[0].Dim = a.RotaryDim
	if o.boolOr("bias", false) {
		o.fail("bias", "true: vLLM's InternLM2ForCausalLM builds wqkv, wo and the MLP without biases (internlm2.py:63-139), so the checkpoint's would not load")
	}
	t := &a.tree
	t.attn, t.attnOut, t.mlp, t.mlpNames = "attention", "wo", "feed_forward", [2]string{"gate_up_proj", "w2"}
	t.embed, t.norms = "model.tok_embeddings", []string{"attention_norm", "ffn_norm"}
	t.onEveryStage()
	t.packed = map[string][]string{"wqkv": {"wqkv"}, "gate_up_proj": {"w1", "w3"}}
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}

var (
	internLM2Rename = [][2]string{
		{"model.tok_embeddings", "model.embed_tokens"},
		{"output.", "lm_head."},
	}
	// internLM2Layer: wqkv fused in the checkpoint (QKVParallelLinear:
	// q heads divided, KV heads divided or replicated), wo, the gated MLP's
	// w1 and w3 into gate_up_proj and w2, the two norms (internlm2.py:
	// 250-256, 324-329).
	internLM2Layer = []moduleRule{
		{module: "attention.wqkv", split: column, heads: qkvRows},
		{module: "attention.wo", split: row},
		{module: "feed_forward.w1", vllm: "feed_forward.gate_up_proj", split: column},
		{module: "feed_forward.w3", vllm: "feed_forward.gate_up_proj", split: column, follower: true},
		{module: "feed_forward.w2", split: row},
		{module: "attention_norm"},
		{module: "ffn_norm"},
	}
)
