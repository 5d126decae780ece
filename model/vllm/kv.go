package vllm

import (
	"fmt"
	"strings"

	"membudget/budget"
	"membudget/model"
)

// pageBytes is the bytes of one KV page (block) of one layer on one rank,
// vLLM v1's kv_cache_interface.py: full and sliding attention hold K and V,
// block_size x kv_heads_per_rank x (head_size + head_size_v) x dtype;
// MLAAttentionSpec holds one latent of kv_lora_rank + qk_rope_head_dim.
func pageBytes(a *model.Arch, r Resolved) uint64 {
	per := model.KVHeadsPerRank(a, r.TensorParallelSize) * 2 * a.HeadDim
	if a.MLA {
		per = a.KVLoraRank + a.QKRopeHeadDim
	}
	return budget.SatMul(budget.SatMul(r.BlockSize, per), r.KVDtypeBytes)
}

// slidingTokens is what a sliding-window layer keeps of a sequence at most:
// SlidingWindowSpec.max_memory_usage_bytes takes min(sliding_window - 1 +
// the tokens in flight, max_model_len) tokens and one block more, "because
// the sliding window may not start from the beginning of the block"
// (vllm/v1/kv_cache_interface.py:618-654 at main). The tokens in flight are
// max_concurrent_batches x max_num_batched_tokens from 0.25.0 (two batches
// under async scheduling, vllm/config/vllm.py:547-568), one batch before
// (see [Resolved].InFlightTokens). The V0 engine kept the window alone.
func slidingTokens(a *model.Arch, r Resolved) uint64 {
	if r.Profile.Era == V0 {
		return a.SlidingWindow
	}
	return a.SlidingWindow - 1 + r.InFlightTokens
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
// 1.5 x the smallest), and each type's layers are dealt into groups of
// that size, padded where a group has fewer. The types come in the order of their first layer,
// as vLLM's dict of layer types fills. vLLM merges the layers of every
// pipeline stage before grouping them (get_kv_cache_configs), so the groups
// are the whole model's.
func kvGroups(a *model.Arch) []kvGroup {
	var full, sliding []int
	for i, l := range a.Layers {
		if l.Sliding() {
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
	type kind struct {
		sliding bool
		layers  []int
	}
	kinds := []kind{{false, full}, {true, sliding}}
	if a.Layers[0].Sliding() {
		kinds[0], kinds[1] = kinds[1], kinds[0]
	}
	var groups []kvGroup
	for _, typ := range kinds {
		// Group i takes every n-th layer of the type from the i-th on
		// (layers[i::num_groups]), so that each pipeline stage's share of
		// the groups is as even as it can be.
		n := (len(typ.layers) + size - 1) / size
		for i := range n {
			g := kvGroup{sliding: typ.sliding}
			for j := i; j < len(typ.layers); j += n {
				g.layers = append(g.layers, typ.layers[j])
			}
			for len(g.layers) < size {
				g.layers = append(g.layers, -1)
			}
			groups = append(groups, g)
		}
	}
	return groups
}

// stageTensors is the KV tensors a pipeline stage allocates: one per slot of
// the largest group's share of the stage's layers (get_kv_cache_configs
// projects the groups onto each worker's layers).
func stageTensors(groups []kvGroup, st model.Sharding) uint64 {
	var most uint64
	for _, g := range groups {
		var n uint64
		for _, l := range g.layers {
			if l >= st.FirstLayer && l < st.EndLayer {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// pageGroups is the pool's groups in closed form: a sequence holds
// cdiv(t, block) pages in each full-attention group and at most the window's
// pages plus one in each sliding group.
func pageGroups(a *model.Arch, r Resolved, groups []kvGroup) []budget.PageGroup {
	var nFull, nSliding uint64
	for _, g := range groups {
		if g.sliding {
			nSliding++
		} else {
			nFull++
		}
	}
	var out []budget.PageGroup
	if nFull > 0 {
		out = append(out, budget.PageGroup{Count: nFull, PageTokens: r.BlockSize, CapTokens: budget.NoCap})
	}
	if nSliding > 0 {
		out = append(out, budget.PageGroup{Count: nSliding, PageTokens: r.BlockSize, CapTokens: slidingTokens(a, r), ExtraPages: 1})
	}
	return out
}

// pageGroupsOfLayers is a stage's layers each counted on its own, without
// the groups' padding: what vLLM's startup check summed up to 0.13
// (check_enough_kv_cache_memory: max_memory_usage_bytes over every layer).
func pageGroupsOfLayers(a *model.Arch, r Resolved, st model.Sharding) []budget.PageGroup {
	var full, sliding uint64
	for i := st.FirstLayer; i < st.EndLayer; i++ {
		if a.Layers[i].Sliding() {
			sliding++
		} else {
			full++
		}
	}
	var out []budget.PageGroup
	if full > 0 {
		out = append(out, budget.PageGroup{Count: full, PageTokens: r.BlockSize, CapTokens: budget.NoCap})
	}
	if sliding > 0 {
		out = append(out, budget.PageGroup{Count: sliding, PageTokens: r.BlockSize, CapTokens: slidingTokens(a, r), ExtraPages: 1})
	}
	return out
}

// groupNames names the groups as vLLM's spec classes do, with their counts:
// "SlidingWindowx6 FullAttentionx1".
func groupNames(a *model.Arch, groups []kvGroup) string {
	counts := map[string]int{}
	var order []string
	for _, g := range groups {
		name := "FullAttention"
		switch {
		case a.MLA:
			name = "MLAAttention"
		case g.sliding:
			name = "SlidingWindow"
		}
		if counts[name] == 0 {
			order = append(order, name)
		}
		counts[name]++
	}
	var parts []string
	for _, n := range order {
		parts = append(parts, fmt.Sprintf("%sx%d", n, counts[n]))
	}
	return strings.Join(parts, " ")
}

// kvItems lists the KV cache tensors one stage needs for s sequences of t
// tokens the plain way: vLLM allocates one tensor per slot of the group
// size, shared by one layer of each group; each sequence holds its blocks of
// every group in it.
func kvItems(a *model.Arch, r Resolved, groups []kvGroup, st model.Sharding, s, t uint64) []Item {
	page := pageBytes(a, r)
	slots := stageTensors(groups, st)
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
			shared = append(shared, slotLayer(g, st, int(slot)))
		}
		items = append(items, Item{
			Name:  fmt.Sprintf("kv_cache.%d[layers %s]", slot, strings.Join(shared, ",")),
			Term:  budget.TermKVCache,
			Bytes: bytes,
		})
	}
	return items
}

// slotLayer names the layer of group g that a stage's tensor slot holds, or
// "pad" when the group has fewer layers on the stage.
func slotLayer(g kvGroup, st model.Sharding, slot int) string {
	i := 0
	for _, l := range g.layers {
		if l >= st.FirstLayer && l < st.EndLayer {
			if i == slot {
				return fmt.Sprint(l)
			}
			i++
		}
	}
	return "pad"
}
