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
