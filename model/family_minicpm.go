package model

func init() {
	// openbmb's MiniCPM checkpoints name their tensors as Llama's.
	register("minicpm", flat(readMiniCPM), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, everyStageTop))
	registerArchitectures("minicpm", "MiniCPMForCausalLM")
}

// readMiniCPM reads MiniCPM (vllm/model_executor/models/minicpm.py at
// d18bb7b). Its config class is the checkpoint's own (trust_remote_code:
// configuration_minicpm.MiniCPMConfig, whose defaults differ from release
// to release), so no class fills a key the file omits. The layers are
// Llama's: unbiased q/k/v and o_proj of hidden_size / heads whatever
// head_dim says (:263-284), rotary over the head (:286-290), an unbiased
// gated MLP of silu or fatrelu (:204-226; another hidden_act raises), two
// RMSNorms; scale_emb, scale_depth and dim_model_base scale activations
// only. The embedding, final norm and head are built on every pipeline
// stage (MiniCPMModel and MiniCPMForCausalLM have no PPMissingLayer,
// :400-420, 596-603); the head is tied unless tie_word_embeddings says
// false: a file transformers saved leaves the key out only when it is
// PretrainedConfig's true (to_diff_dict keeps any value that differs from
// it). num_experts above 0 builds MiniCPMMoE, whose expert tensors (ws,
// w2s) are divided by tensor parallelism alone, whatever expert
// parallelism says, and never quantized (:82-151): refused, not sized.
func readMiniCPM(o jsonObject, a *Arch) {
	if n := o.uintOr("num_experts", 0); n > 0 {
		o.fail("num_experts", "%d: MiniCPM's MoE (MiniCPMMoE, minicpm.py:82-151) keeps its own expert tensors, which membudget does not size yet", n)
	}
	if act := o.str("hidden_act"); act != "" && act != "silu" && act != "fatrelu" {
		o.fail("hidden_act", "%q: vLLM's MiniCPMMLP raises for any activation but silu and fatrelu (minicpm.py:218-226)", act)
	}
	delete(o.m, "head_dim")
	readCommon(o, a)
	a.derivedHeadDim(o)
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.Rotary[0].Dim = a.RotaryDim
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	a.tree.onEveryStage()
	a.layerTypes = nil // MiniCPMAttention takes no window
	a.uniformLayers(o, 0)
}
