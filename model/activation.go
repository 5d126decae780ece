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
	var mlp uint64
	for _, l := range a.Layers {
		w := 3 * budget.CeilDiv(a.Intermediate, tp)
		if l.MoE {
			w = a.ExpertsPerToken*(3*budget.CeilDiv(a.MoEIntermediate, tp)+a.Hidden) + 3*budget.CeilDiv(a.SharedIntermediate, tp)
		}
		mlp = max(mlp, w)
	}
	return budget.SatMul(2*a.Hidden+max(attn, mlp), dtypeBytes)
}
