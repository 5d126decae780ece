package model

func init() {
	register("falcon_mamba", flat(readFalconMamba), ckptFamily(nemotronRename, [][]moduleRule{mambaSSMLayer}, mambaSSMTop))
	registerArchitectures("falcon_mamba", "FalconMambaForCausalLM")
	declareClass("falcon_mamba", falconMambaClass)
}

// readFalconMamba reads TII's Falcon Mamba, which vLLM serves with Mamba's
// model (registry.py maps FalconMambaForCausalLM to mamba.py at d18bb7b):
// Mamba's layers (readMambaSSM) whose mixer normalizes dt, B and C with
// RMSNorms without weights (use_rms_norm, rms_norm_has_weight false,
// mamba.py:60-74), each keeping a ones tensor of its width on the device
// (vllm/model_executor/layers/layernorm.py:61-65).
func readFalconMamba(o jsonObject, a *Arch) {
	readMambaSSM(o, a)
	a.tree.mamba1Norms, a.tree.mamba1OnesNorms = true, true
	a.tree.mambaProjBias = o.boolOr("use_bias", false)
}

// falconMambaClass is transformers FalconMambaConfig, read at
// huggingface/transformers@00a11b6a07: Mamba's but for use_bias false and
// tie_word_embeddings true declared; intermediate_size is expand x
// hidden_size unless the config gives it, time_step_rank "auto"
// ceil(hidden_size / 16) (readMamba1).
var falconMambaClass = configClass{
	Name:   "FalconMambaConfig",
	Source: "src/transformers/models/falcon_mamba/configuration_falcon_mamba.py@00a11b6a07",
	Defaults: []classDefault{
		{"vocab_size", "50280"}, {"hidden_size", "768"}, {"state_size", "16"}, {"num_hidden_layers", "32"},
		{"expand", "2"}, {"conv_kernel", "4"}, {"use_bias", "false"}, {"use_conv_bias", "true"},
		{"tie_word_embeddings", "true"},
	},
}
