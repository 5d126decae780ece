package model

import "membudget/budget"

// ActivationBytesPerToken is a forward pass's live activations per token
// on one of tp ranks, in a dtype of dtypeBytes: the residual and hidden
// states (2 x hidden) plus the wider of the attention projections and the
// MLP's intermediate (gate, up and their product). MoE layers hold the
// fused-MoE intermediate caches of every selected expert. Engines scale it
// by the tokens of their largest batch.
func ActivationBytesPerToken(a *Arch, tp, dtypeBytes uint64) uint64 {
	tp = max(tp, 1)
	var attn uint64
	if a.MLA {
		heads := a.Heads / tp
		attn = heads*(a.QKNopeHeadDim+a.QKRopeHeadDim) + heads*(a.QKNopeHeadDim+a.VHeadDim) + heads*a.VHeadDim + a.KVLoraRank + a.QKRopeHeadDim
	} else {
		attn = 2*(a.Heads/tp)*a.HeadDim + 2*KVHeadsPerRank(a, tp)*a.HeadDim
	}
	// The widest layer's MLP: a layer of its own width (DeciLM's ffn_mult)
	// counts at that width. The shared widths are divided once, not a
	// layer at a time: a plan asks this of every serve it tries.
	dense := 3 * budget.CeilDiv(a.Intermediate, tp)
	// The fused MoE's caches are as wide as its experts: a latent MoE's
	// run at the latent width (Arch.MoEHidden).
	moe := a.ExpertsPerToken*(3*budget.CeilDiv(a.MoEIntermediate, tp)+a.MoEHidden()) + 3*budget.CeilDiv(a.SharedIntermediate, tp)
	var mlp uint64
	for _, l := range a.Layers {
		switch {
		case l.MoE:
			mlp = max(mlp, moe)
		case l.NoMLP:
		case l.Intermediate != 0:
			mlp = max(mlp, 3*budget.CeilDiv(l.Intermediate, tp))
		default:
			mlp = max(mlp, dense)
		}
	}
	live := 2*a.Hidden + max(attn, mlp)
	if g := a.gemma3n; g != nil {
		// Gemma 3n carries its other AltUp streams ([altup_num_inputs,
		// tokens, hidden]) and the per-layer inputs ([tokens, layers,
		// hidden_size_per_layer_input]) through every layer
		// (gemma3n.py:714-735).
		live = budget.SatAdd(live, budget.SatAdd(budget.SatMul(g.altup-1, a.Hidden), budget.SatMul(a.NumLayers, g.pleHidden)))
	}
	return budget.SatMul(live, dtypeBytes)
}
