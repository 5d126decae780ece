package vllm

import (
	"fmt"

	"membudget/engine"
)

// tokensLine is the report's line of the KV cache: its memory and blocks,
// and "GPU KV cache size" as the serve's release computes it, with the
// formula that release applies (vllm/v1/core/kv_cache_utils.py):
//   - V1 from 0.20.2 (PR #41069, get_kv_cache_capacity): int(max_concurrency
//     x max_model_len), max_concurrency the blocks over the blocks one
//     request of max_model_len takes in every group together
//     (get_max_concurrency_for_kv_cache_config): true of any layout,
//     DeepSeek-V4's packed groups and their shared slab among them;
//   - V1 before it (_report_kv_cache_config): num_blocks //
//     len(kv_cache_groups) x the smallest block size, which counts the
//     tokens of one group's share of a pool every group draws from;
//   - V0 (executor_base.py initialize_cache): blocks x block size.
func (sz *Sizing) tokensLine() string {
	c, r := sz.capacity, sz.Serve
	head := fmt.Sprintf("KV cache: %s available: %d blocks of %d B, ", engine.GiB(c.AvailableBytes), c.Blocks, c.BlockBytes)
	var groups, block uint64
	if len(sz.plan.Stages) > 0 {
		groups, block = groupCount(sz.plan.Stages[0].Pool)
	}
	switch {
	case r.Profile.Era == V0:
		return head + fmt.Sprintf("%d tokens (blocks x block size: %d x %d, as vLLM's V0 engine logs them)", c.Tokens, c.Blocks, block)
	case r.Profile.LoggedTokensFromConcurrency:
		return head + fmt.Sprintf("%d tokens (max concurrency x max_model_len: %d blocks / the %d a request of %d tokens takes across the groups x %d, as vLLM logs them from 0.20.2)",
			c.LoggedTokens, c.Blocks, c.PagesPerSeq, r.MaxModelLen, r.MaxModelLen)
	}
	return head + fmt.Sprintf("%d tokens (blocks / groups x block size: %d / %d x %d, as vLLM before 0.20.2 logs them)", c.Tokens, c.Blocks, groups, block)
}
