package budget

// Capacity is what vLLM's startup logs report about the KV cache for a
// serve: the available KV memory, the blocks it holds, the tokens it calls
// "GPU KV cache size", and the "Maximum concurrency" at max_model_len.
type Capacity struct {
	AvailableBytes uint64 // budget - the ledger without KV (vLLM: available_kv_cache_memory)
	BlockBytes     uint64 // one block in every tensor of the pool
	Blocks         uint64 // AvailableBytes / BlockBytes
	Tokens         uint64 // Blocks / groups x block size, as vLLM logs it
	PagesPerSeq    uint64 // blocks one sequence of MaxLen tokens needs
	Concurrency    float64
}

// Capacity is the KV capacity of the plan's pool from availableBytes, as vLLM v1 computes it: get_num_blocks divides
// the available memory by the page size times the tensors, and
// _report_kv_cache_config reports blocks // groups x block_size tokens;
// get_max_concurrency_for_kv_cache_config divides the blocks by a
// max_model_len request's blocks. A plan without KV pages has zero capacity.
func (p *Plan) Capacity(availableBytes uint64) Capacity {
	c := Capacity{AvailableBytes: availableBytes}
	pool := p.Pool
	var groups uint64
	for _, g := range pool.Groups {
		groups = SatAdd(groups, g.Count)
	}
	c.BlockBytes = SatMul(pool.PageBytes, pool.Tensors)
	if c.BlockBytes == 0 || groups == 0 || len(pool.Groups) == 0 {
		return c
	}
	c.Blocks = availableBytes / c.BlockBytes
	c.Tokens = SatMul(c.Blocks/groups, pool.Groups[0].PageTokens)
	c.PagesPerSeq = pool.PagesPerSeq(p.MaxLen)
	if c.PagesPerSeq > 0 {
		c.Concurrency = float64(c.Blocks) / float64(c.PagesPerSeq)
	}
	return c
}

// AvailableKV is what the util budget leaves for the KV cache once every
// other term of the ledger is paid: vLLM's "Available KV cache memory"
// (0 when the rest is already over the budget).
func (p *Plan) AvailableKV() uint64 {
	return SatSub(p.Budget, p.fixedLedger())
}
