package model

// phi3vRefusal is why Phi-3-vision and Phi-3.5-vision (model_type phi3_v,
// Phi3VForCausalLM) are not sized, settled from vLLM main d18bb7b's
// vllm/model_executor/models/phi3v.py. Phi3VForCausalLM builds a
// vocabulary-sized VocabParallelEmbedding of its own for the prompt's
// tokens (:583-589) beside the embed_tokens of the LlamaForCausalLM it
// wraps (:596-605), and load_weights keeps it only when the checkpoint
// holds model.vision_embed_tokens.wte.weight (mapped to it, :558-565);
// otherwise it is replaced by the language model's table and freed
// (:706-715). Which of the two a checkpoint is, config.json does not say:
// the weights would be one table or two. (A port of microsoft/
// Phi-3-vision-128k-instruct to MLX renames its model.embed_tokens.weight
// to the wte name, so that checkpoint seems to hold one table; no header
// listing of it or of Phi-3.5-vision-instruct was found.)
const phi3vRefusal = "Phi-3-vision (Phi3VForCausalLM, vllm/model_executor/models/phi3v.py at d18bb7b) builds a second vocabulary-sized embedding (:583-589) beside its language model's and keeps it only when the checkpoint holds model.vision_embed_tokens.wte.weight (:558-565, 706-715): config.json does not say which, so its weights would be one table or two, and membudget does not guess"

func init() {
	refusedModules["phi3v"] = phi3vRefusal
	refusedModelTypes["phi3_v"] = phi3vRefusal
}
