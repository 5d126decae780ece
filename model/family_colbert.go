package model

import "membudget/budget"

// colbertDim is a ColBERT model's projection width as vLLM reads it from
// the config: colbert_dim, else dim, else projection_dim, the first that
// is set and not 0 (colbert.py ColBERTMixin.get_colbert_dim_from_config,
// :115-125). A config with none is refused: vLLM then takes the width from
// the checkpoint's linear.weight or the sentence-transformers 1_Dense
// folder (colbert.py:129-185, pooler_for_token_embed), neither of which
// membudget reads.
func colbertDim(o jsonObject, a *Arch) uint64 {
	for _, k := range []string{"colbert_dim", "dim", "projection_dim"} {
		if n := o.uintOr(k, 0); n > 0 {
			if n > 1<<20 {
				o.fail(k, "%d: want 1 to %d", n, 1<<20)
			}
			return n
		}
	}
	o.fail("colbert_dim", "missing: %s's projection width is the config's colbert_dim, dim or projection_dim (vllm/model_executor/models/colbert.py:115-125), else the checkpoint's linear.weight or its sentence-transformers 1_Dense folder, which membudget does not read: add colbert_dim to config.json", a.Architectures[0])
	return 0
}

// colbertLinear adds colbert.py's colbert_linear: an nn.Linear (hidden x
// colbert_dim, no bias), whole on every rank, in the head dtype (float32
// under the pooling runner: vllm/config/model.py _get_head_dtype).
func (w *weights) colbertLinear() {
	const headDtype = 4
	w.add("colbert_linear.weight", bytesOf(budget.SatMul(w.a.Hidden, w.a.Encoder.ColBERTDim), headDtype))
}
