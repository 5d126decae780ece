package model

import (
	"fmt"
	"strings"

	"membudget/budget"
)

// pageBytes is the bytes of one KV page (block) of one layer on one rank,
// vLLM v1's kv_cache_interface.py: full and sliding attention hold K and V,
// block_size x kv_heads_per_rank x (head_size + head_size_v) x dtype;
// MLAAttentionSpec holds one latent of kv_lora_rank + qk_rope_head_dim.
func pageBytes(a *Arch, r Resolved) uint64 {
	per := kvHeadsPerRank(a, r.TensorParallelSize) * 2 * a.HeadDim
	if a.MLA {
		per = a.KVLoraRank + a.QKRopeHeadDim
	}
	return budget.SatMul(budget.SatMul(r.BlockSize, per), r.KVDtypeBytes)
}

// slidingTokens is what a sliding-window layer keeps of a sequence at most:
// vLLM v1 SlidingWindowSpec.max_memory_usage_bytes takes
// min(sliding_window - 1 + max_num_batched_tokens, max_model_len) tokens and
// one block more, "because the sliding window may not start from the
// beginning of the block".
func slidingTokens(a *Arch, r Resolved) uint64 {
	return a.SlidingWindow - 1 + r.MaxNumBatchedTokens
}

// kvGroup is one KV cache group of vLLM's hybrid allocator: layers of one
// attention type, with padding slots where a type has fewer layers than the
// group size.
type kvGroup struct {
	sliding bool
	layers  []int // layer index per tensor slot; -1 for a padding slot
}

// kvGroups splits the layers into vLLM v1's KV cache groups
// (vllm/v1/core/kv_cache_utils.py _get_kv_cache_groups_uniform_page_size):
// a model of one attention type is one group; otherwise the group size is
// the smallest number of layers of a type (or the largest, when it is below
// 1.5 x the smallest), and each type's layers are cut into groups of that
// size, the last padded.
func kvGroups(a *Arch) []kvGroup {
	var full, sliding []int
	for i, l := range a.Layers {
		if l.Sliding {
			sliding = append(sliding, i)
		} else {
			full = append(full, i)
		}
	}
	if len(full) == 0 || len(sliding) == 0 {
		all := append(full, sliding...)
		return []kvGroup{{sliding: len(sliding) > 0, layers: all}}
	}
	lo, hi := min(len(full), len(sliding)), max(len(full), len(sliding))
	size := lo
	if 2*hi < 3*lo {
		size = hi
	}
	var groups []kvGroup
	for _, typ := range []struct {
		sliding bool
		layers  []int
	}{{false, full}, {true, sliding}} {
		for start := 0; start < len(typ.layers); start += size {
			g := kvGroup{sliding: typ.sliding}
			for j := range size {
				if start+j < len(typ.layers) {
					g.layers = append(g.layers, typ.layers[start+j])
				} else {
					g.layers = append(g.layers, -1)
				}
			}
			groups = append(groups, g)
		}
	}
	return groups
}

// kvItems lists the KV cache tensors for s sequences of t tokens the plain
// way: vLLM allocates one tensor per slot of the group size, shared by one
// layer of each group; each sequence holds its blocks of every group in it.
func kvItems(a *Arch, r Resolved, s, t uint64) []Item {
	groups := kvGroups(a)
	page := pageBytes(a, r)
	slots := len(groups[0].layers)
	kind := "full_attention"
	if len(groups) > 1 {
		kind = "hybrid"
	} else if groups[0].sliding {
		kind = "sliding_attention"
	}
	items := make([]Item, 0, slots)
	for slot := range slots {
		var bytes uint64
		var shared []string
		for _, g := range groups {
			var blocks uint64
			if g.sliding {
				blocks = budget.CeilDiv(min(t, slidingTokens(a, r)), r.BlockSize) + 1
			} else {
				blocks = budget.CeilDiv(t, r.BlockSize)
			}
			bytes = budget.SatAdd(bytes, budget.SatMul(budget.SatMul(s, blocks), page))
			if l := g.layers[slot]; l >= 0 {
				shared = append(shared, fmt.Sprint(l))
			} else {
				shared = append(shared, "pad")
			}
		}
		items = append(items, Item{
			Name:  fmt.Sprintf("kv_cache.%s.%d[layers %s]", kind, slot, strings.Join(shared, ",")),
			Term:  budget.TermKVCache,
			Bytes: bytes,
		})
	}
	return items
}
