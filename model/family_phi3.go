package model

func init() {
	register("phi3", flat(readPhi3), ckptFamily(nil, [][]moduleRule{fusedAttention, fusedMLP, twoNorms}))
}

// readPhi3 reads Phi-3, whose checkpoint fuses q/k/v and gate/up; every
// layer slides when sliding_window is set.
func readPhi3(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.FusedQKV, a.FusedGateUp = true, true
	a.uniformLayers(o, o.uintOr("sliding_window", 0))
}

var (
	// fusedAttention: Phi-3's checkpoint stores q, k and v as one qkv_proj.
	fusedAttention = []moduleRule{
		{module: "self_attn.qkv_proj", split: column, heads: qkvRows},
		{module: "self_attn.o_proj", split: row},
	}
	// fusedMLP: Phi-3's checkpoint stores gate_up_proj fused.
	fusedMLP = []moduleRule{
		{module: "mlp.gate_up_proj", split: column},
		{module: "mlp.down_proj", split: row},
	}
)

// phi3Class is transformers Phi3Config, read at huggingface/transformers@008e574391.
var phi3Class = configClass{
	Name:   "Phi3Config",
	Source: "src/transformers/models/phi3/configuration_phi3.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "32064"}, {"hidden_size", "3072"}, {"intermediate_size", "8192"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"max_position_embeddings", "4096"},
		{"original_max_position_embeddings", "4096"}, {"tie_word_embeddings", "false"},
	},
}

func init() { declareClass("phi3", phi3Class) }
