package vllm

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// stageTensors is the KV tensors stage st allocates: with groups of one
// page, one per slot of the largest group's share of the stage's layers
// (get_kv_cache_configs projects the whole model's groups onto each
// worker's layers, vllm/v1/core/kv_cache_utils.py:2040-2079); with one
// UniformType group, one per layer.
func (l kvLayout) stageTensors(st model.Sharding) uint64 {
	var most uint64
	for _, g := range l.groups {
		// A group's layers ascend (each spec's layers dealt by stride),
		// its padding slots (layer -1) last: the stage's are a run.
		real := len(g.layers)
		for real > 0 && g.layers[real-1].layer < 0 {
			real--
		}
		layers := g.layers[:real]
		from := sort.Search(len(layers), func(i int) bool { return layers[i].layer >= st.FirstLayer })
		to := sort.Search(len(layers), func(i int) bool { return layers[i].layer >= st.EndLayer })
		n := uint64(to - from)
		for _, l := range layers[to:] {
			if l.draft && st.Last {
				n++ // a draft's layers are the last stage's (onStage)
			}
		}
		most = max(most, n)
	}
	return most
}

// groupNames names the groups as vLLM's spec classes do, with their counts:
// "SlidingWindowx6 FullAttentionx1"; one UniformTypeKVCacheSpecs group is
// "UniformTypeKVCacheSpecsx1".
func groupNames(a *model.Arch, l kvLayout) string {
	// A packed layout (DeepSeek-V4) is named by its groups' classes, as
	// vLLM's get_kv_cache_spec_kind names them, like any other.
	if l.uniformType && !l.packed {
		return "UniformTypeKVCacheSpecsx1"
	}
	counts := map[string]int{}
	var order []string
	for _, g := range l.groups {
		name := g.spec.kind.name()
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
// tokens the plain way. With groups of one page, vLLM allocates one tensor
// per slot of the group size, shared by one layer of each group, and each
// sequence holds its blocks of every group in every tensor; with one
// UniformType group, one tensor per layer holds that layer's blocks.
func kvItems(l kvLayout, r *Resolved, st model.Sharding, s, t uint64) []budget.Item {
	if l.packed {
		return l.packedItems(r, s, t)
	}
	if l.uniformType {
		var items []budget.Item
		for _, spec := range l.groups[0].layers {
			if !onStage(spec, st) {
				continue
			}
			blocks := spec.pages(r).Pages(t)
			items = append(items, budget.Item{
				Name:  fmt.Sprintf("kv_cache.%d[layers %s]", len(items), specLabel(spec, r.Dtype)),
				Term:  budget.TermKVCache,
				Bytes: budget.SatMul(budget.SatMul(s, blocks), spec.page),
			})
		}
		return items
	}
	// Each group's layers on the stage, named, and its bytes: a block of a
	// group costs a page in every tensor.
	names := make([][]string, len(l.groups))
	var bytes uint64
	for i, g := range l.groups {
		for _, spec := range g.layers {
			if onStage(spec, st) {
				names[i] = append(names[i], specLabel(spec, r.Dtype))
			}
		}
		blocks := g.spec.pages(r).Pages(t)
		bytes = budget.SatAdd(bytes, budget.SatMul(budget.SatMul(s, blocks), g.spec.page))
	}
	slots := l.stageTensors(st)
	items := make([]budget.Item, 0, slots)
	shared := make([]string, len(l.groups))
	for slot := range int(slots) {
		for i := range l.groups {
			shared[i] = "pad"
			if slot < len(names[i]) {
				shared[i] = names[i][slot]
			}
		}
		items = append(items, budget.Item{
			Name:  fmt.Sprintf("kv_cache.%d[layers %s]", slot, strings.Join(shared, ",")),
			Term:  budget.TermKVCache,
			Bytes: bytes,
		})
	}
	return items
}

// specLabel names a layer's spec in an item name: the layer, and
// ".indexer" for DeepSeek V3.2's indexer cache, ":" and the model's dtype
// for a layer --kv-cache-dtype-skip-layers keeps in it.
func specLabel(s layerSpec, dtype string) string {
	if s.kind == indexerSpec {
		return fmt.Sprintf("%d.indexer", s.layer)
	}
	if s.modelDtype {
		// --kv-cache-dtype-skip-layers: the layer keeps the model's dtype.
		return strconv.Itoa(s.layer) + ":" + dtype
	}
	return strconv.Itoa(s.layer)
}

// layersNeed is what vLLM's startup check summed up to 0.13
// (check_enough_kv_cache_memory: max_memory_usage_bytes over every layer
// of the stage, each on its own, without the groups' padding).
func layersNeed(l kvLayout, r *Resolved, st model.Sharding, t uint64) uint64 {
	var need uint64
	seen := map[layerKey]bool{}
	for _, g := range l.groups {
		for _, s := range g.layers {
			if !onStage(s, st) || seen[layerKey{s.layer, s.kind}] {
				continue
			}
			seen[layerKey{s.layer, s.kind}] = true
			need = budget.SatAdd(need, budget.SatMul(s.pages(r).Pages(t), s.page))
		}
	}
	return need
}

// layerKey names one spec of one layer (a DeepSeek V3.2 layer has two).
type layerKey struct {
	layer int
	kind  specKind
}

// Groups names the serve's KV cache groups as vLLM's spec classes do, with
// their counts: "Mambax3 FullAttentionx1" for a gated-delta-net hybrid, whose
// state groups share the block pool with the attention group.
func (ref *Reference) Groups() string { return groupNames(ref.Arch, ref.groups) }

// layoutRefusal is vLLM's refusal of a's KV cache layout (groups it cannot
// form): a refusal of the model itself, as its setting error names it.
func layoutRefusal(a *model.Arch, err error) error {
	return &engine.SettingError{Flag: "model", Value: a.Source, Reason: err.Error()}
}
