package model

func init() {
	// IQuestCoderForCausalLM: registry.py at d18bb7b serves it with
	// llama.py's LlamaForCausalLM. Its checkpoints' configs are of the
	// remote model_type iquestcoder (configuration_iquestcoder.
	// IQuestCoderConfig) and give every key Llama's reader reads
	// (IQuestLab/IQuest-Coder-V1-40B-Base: head_dim, attention_bias,
	// mlp_bias, tie_word_embeddings, no layer_types and a null
	// sliding_window, which llama.py:183-202 then leaves full), so the config is
	// read as llama's by its architecture, no class filling it (see
	// remoteArchitecture).
	registerArchitectures("llama", "IQuestCoderForCausalLM")
}
