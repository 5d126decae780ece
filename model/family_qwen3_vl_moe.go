package model

import "slices"

func init() {
	registerMultimodal("qwen3_vl_moe", wrapper("qwen3_vl_moe_text", readQwen3VLVision),
		ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, qwen3VLMoE, twoNorms}, qwen3Vision))
	register("qwen3_vl_moe_text", flat(readQwen3MoE),
		ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, qwen3VLMoE, twoNorms}).skipping(qwenTextOnly))
	registerArchitectures("qwen3_vl_moe", "Qwen3VLMoeForConditionalGeneration")
	registerArchitectures("qwen3_vl_moe_text", "Qwen3VLMoeForConditionalGeneration")
}

// Qwen3-VL-MoE (vllm/model_executor/models/qwen3_vl_moe.py at d18bb7b) is
// Qwen3-VL's vision tower (Qwen3_VisionTransformer, :249-254, read by
// readQwen3VLVision) beside Qwen3-MoE's language model
// (Qwen3MoeLLMForCausalLM over Qwen3MoeDecoderLayer, :68-176): its
// text_config is read as qwen3_moe's (readQwen3MoE), every layer full
// attention with q and k norms, MoE on the layers decoder_sparse_step and
// mlp_only_layers select, the router quantized with the model. The head
// is tied as the top-level tie_word_embeddings says (vLLM copies it into
// the text config: vllm/config/vllm.py:828-858).

// qwen3VLMoE: the router and the experts, stacked in the published
// checkpoints as [experts, hidden, 2 x intermediate] and [experts,
// intermediate, hidden] (qwen3_vl_moe.py:68-74 is_fused_checkpoint_
// transposed), or one tensor per expert and projection (the quantized
// exports), as Qwen3-MoE names them.
var qwen3VLMoE = slices.Concat(routedExperts, []moduleRule{
	stackedAt("mlp.experts.gate_up_proj", "mlp.experts.w13_weight", gateUpInOut),
	stackedAt("mlp.experts.down_proj", "mlp.experts.w2_weight", downInOut),
})
