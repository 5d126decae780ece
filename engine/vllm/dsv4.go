package vllm

import (
	"membudget/budget"
	"membudget/model"
)

// appendDeepSeekV4Items adds the device buffers DeepSeek-V4's model builds
// beside its parameters at load (vllm/models/deepseek_v4/nvidia/model.py
// DeepseekV4Model.__init__, :1014-1047), held for the engine's life and
// charged as weights: the indexer's top-k buffer, max_num_batched_tokens
// x index_topk int32; the eager scratch pool (eager_scratch.py:13-61): a
// bfloat16 query of max_num_batched_tokens x FlashMLA's padded heads x
// 512, and one shared storage for the largest of its three scratch sets,
// each view 256-byte aligned; and on the first stage the first layer's
// summed hyper-connection mix (finalize_mhc_broadcast_weights,
// :1366-1377), (2 + hc_mult) x hc_mult x hidden float32.
func appendDeepSeekV4Items(items []budget.Item, a *model.Arch, r *Resolved, st model.Sharding) []budget.Item {
	v := a.DeepSeekV4
	if v == nil {
		return items
	}
	tokens := r.MaxNumBatchedTokens
	padded := uint64(64)
	if a.Heads/r.TensorParallelSize > 64 {
		padded = 128 // flashmla.py:78-85
	}
	packed := func(sizes ...uint64) uint64 {
		var off uint64
		for _, n := range sizes {
			off = budget.SatAdd(budget.RoundUp(off, 256), n)
		}
		return budget.RoundUp(off, 256)
	}
	rows := func(n, width uint64) uint64 { return budget.SatMul(n, width) }
	// The MXFP4 indexer query (C4 only), the global top-k mapping and the
	// C128 compressor's scratch share one storage: their largest.
	fp4 := packed(rows(tokens, v.IndexHeads*v.IndexHeadDim/2), rows(tokens, v.IndexHeads*v.IndexHeadDim/32), rows(tokens, v.IndexHeads*4))
	global := packed(rows(tokens, v.IndexTopK*4), rows(tokens, 4))
	compressor := packed(rows(tokens, a.HeadDim*4))
	items = append(items,
		budget.Item{Name: "model.topk_indices_buffer", Term: budget.TermWeights, Bytes: rows(tokens, v.IndexTopK*4)},
		budget.Item{Name: "model.eager_scratch_pool._q", Term: budget.TermWeights, Bytes: budget.SatMul(rows(tokens, padded*a.HeadDim), 2)},
		budget.Item{Name: "model.eager_scratch_pool._storage", Term: budget.TermWeights, Bytes: max(fp4, global, compressor)},
	)
	if st.First && st.EndLayer > st.FirstLayer {
		items = append(items, budget.Item{Name: "model.layers.0.hc_attn_fn_broadcast", Term: budget.TermWeights,
			Bytes: (2 + v.HCMult) * v.HCMult * a.Hidden * 4})
	}
	return items
}
