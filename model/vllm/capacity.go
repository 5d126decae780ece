package vllm

import (
	"math"

	"membudget/budget"
)

// Capacity is what vLLM's startup reports about the KV cache of a serve:
// the available memory, the blocks it holds, the tokens, the maximum
// concurrency at max_model_len, and whether one request of max_model_len
// fits (vllm/v1/core/kv_cache_utils.py: get_num_blocks,
// _report_kv_cache_config, get_max_concurrency_for_kv_cache_config,
// _check_enough_kv_cache_memory). With pipeline parallelism every figure is
// the binding stage's: vLLM gives every stage the smallest block count.
type Capacity struct {
	// AvailableBytes is the available KV cache memory of the stage with the
	// fewest blocks (vLLM: available_kv_cache_memory).
	AvailableBytes uint64
	// BlockBytes is one block in every tensor of that stage.
	BlockBytes uint64
	// Blocks is the blocks every stage allocates (vLLM: num_gpu_blocks).
	Blocks uint64
	// Tokens is the tokens the blocks hold when every KV cache group keeps
	// every token: blocks / groups x block size.
	Tokens uint64
	// LoggedTokens is "GPU KV cache size" as the profile's vLLM logs it:
	// int(max_concurrency x max_model_len) on main, Tokens before.
	LoggedTokens uint64
	// PagesPerSeq is the blocks one request of max_model_len needs.
	PagesPerSeq uint64
	// Concurrency is "Maximum concurrency for max_model_len tokens per
	// request": Blocks / PagesPerSeq.
	Concurrency float64
	// NeededBytes is the KV memory one request of max_model_len needs on
	// the stage of AvailableBytes.
	NeededBytes uint64
	// Starts says vLLM starts: one request of max_model_len fits every
	// stage's available memory.
	Starts bool
	// EstimatedMaxModelLen is the longest length whose one request fits
	// (vLLM's estimate in the error when it does not start; 0 when not even
	// one token fits).
	EstimatedMaxModelLen uint64
}

// CapacityOf is the capacity of plan p under profile prof, as vLLM reports
// it for the plan's max_model_len.
func CapacityOf(p *budget.Plan, prof Profile) Capacity {
	c := Capacity{Starts: true, EstimatedMaxModelLen: p.MaxLen}
	for i := range p.Stages {
		pool := p.Stages[i].Pool
		avail := p.PoolBudget(i)
		block := pool.BlockBytes()
		if block == 0 {
			continue
		}
		blocks := avail / block
		need := pool.Bytes(1, p.MaxLen)
		if i == 0 || blocks < c.Blocks {
			c.Blocks, c.AvailableBytes, c.BlockBytes, c.NeededBytes = blocks, avail, block, need
		}
		// vllm/v1/core/kv_cache_utils.py _check_enough_kv_cache_memory, on
		// every worker: no memory at all, or less than one request of
		// max_model_len needs, stops the engine.
		if avail == 0 || need > avail {
			c.Starts = false
		}
		c.EstimatedMaxModelLen = min(c.EstimatedMaxModelLen, estimateMaxModelLen(pool, avail, p.MaxLen))
	}
	if len(p.Stages) == 0 || len(p.Stages[0].Pool.Groups) == 0 {
		return c
	}
	groups, blockSize := groupCount(p.Stages[0].Pool)
	c.PagesPerSeq = p.Stages[0].Pool.PagesPerSeq(p.MaxLen)
	if c.PagesPerSeq > 0 {
		c.Concurrency = float64(c.Blocks) / float64(c.PagesPerSeq)
	}
	if groups > 0 {
		c.Tokens = budget.SatMul(c.Blocks/groups, blockSize)
	}
	c.LoggedTokens = c.Tokens
	if prof.LoggedTokensFromConcurrency {
		c.LoggedTokens = uint64(math.Floor(c.Concurrency * float64(p.MaxLen)))
	}
	return c
}

// groupCount is the number of KV cache groups of a pool and the block size
// of its token-holding groups.
func groupCount(pool budget.PagedPool) (groups, blockSize uint64) {
	for _, g := range pool.Groups {
		groups = budget.SatAdd(groups, g.Count)
		if g.CapTokens != 0 && blockSize == 0 {
			blockSize = g.PageTokens
		}
	}
	return groups, blockSize
}

// estimateMaxModelLen is vLLM's _estimate_max_model_len_from_groups: the
// largest length in 1..=maxLen whose one request fits avail bytes, by
// bisection over the same memory formula; 0 when not even one token fits.
func estimateMaxModelLen(pool budget.PagedPool, avail, maxLen uint64) uint64 {
	if maxLen == 0 {
		return 0
	}
	l, ok, _ := budget.LargestFitting(1, maxLen, func(t uint64) (bool, error) {
		return pool.Bytes(1, t) <= avail, nil
	})
	if !ok {
		return 0
	}
	return l
}
