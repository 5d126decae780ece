package model

import (
	"fmt"

	"membudget/budget"
)

// Reference is the plain footprint model of one serve: it lists every
// allocation of s sequences of t tokens and adds them up. It is the oracle
// the compiled Plan is proven against; it is allowed to be slow.
type Reference struct {
	Arch     *Arch
	Serve    Resolved
	Class    budget.Class
	Budget   uint64
	weights  []Item
	peaks    []Item
	hostByte uint64
	// slackBytes is computed once: the allocations it rounds do not depend
	// on the sequences.
	slackBytes uint64
}

// Ledger is the itemised footprint of s sequences of t tokens.
type Ledger struct {
	Items     []Item
	Footprint budget.Footprint
}

// NewReference resolves the serve settings for a on class c and checks the
// util against the class.
func NewReference(a *Arch, s Serve, c budget.Class) (*Reference, error) {
	r, err := Resolve(s, a, c)
	if err != nil {
		return nil, err
	}
	if err := checkDivisible(a, r); err != nil {
		return nil, err
	}
	b, err := c.UtilBudget(r.GPUMemoryUtilization)
	if err != nil {
		return nil, fmt.Errorf("--gpu-memory-utilization: class %s: %w", c.Name, err)
	}
	ref := &Reference{Arch: a, Serve: r, Class: c, Budget: b,
		weights: weightItems(a, r), peaks: peakItems(a, r), hostByte: r.HostBytes()}
	ref.slackBytes = ref.slack()
	return ref, nil
}

// KVAllocation is the KV cache tensors vLLM allocates: the available
// memory (the budget less every other term) in whole blocks, one tensor per
// slot of the group size (vllm/v1/core/kv_cache_utils.py get_num_blocks and
// get_kv_cache_config_from_groups). Their size does not depend on the
// sequences served: the scheduler fills them on demand.
func (ref *Reference) KVAllocation() []Item {
	var rest uint64
	for _, it := range append(append([]Item(nil), ref.weights...), ref.peaks...) {
		rest = budget.SatAdd(rest, it.Bytes)
	}
	available := budget.SatSub(ref.Budget, rest)
	groups := kvGroups(ref.Arch)
	slots := uint64(len(groups[0].layers))
	page := pageBytes(ref.Arch, ref.Serve)
	blockBytes := budget.SatMul(page, slots)
	if blockBytes == 0 {
		return nil
	}
	tensor := budget.SatMul(available/blockBytes, page)
	items := make([]Item, 0, slots)
	for slot := range slots {
		items = append(items, Item{Name: fmt.Sprintf("kv_cache.allocated.%d", slot), Term: budget.TermKVCache, Bytes: tensor})
	}
	return items
}

// slack is the caching allocator's chunk slack over the persistent
// allocations: the weights and the KV tensors vLLM allocates. The profile
// run's transients are released by torch.cuda.empty_cache before the KV
// cache is allocated (vllm/v1/worker/gpu_worker.py), and the non-torch
// growth is not the allocator's.
func (ref *Reference) slack() uint64 {
	var pools budget.Pools
	for _, it := range append(append([]Item(nil), ref.weights...), ref.KVAllocation()...) {
		pools = pools.Add(it.Bytes, 1)
	}
	return pools.Slack()
}

// checkDivisible refuses a tensor parallelism that does not divide the
// sharded dimensions, as vLLM's parallel linear layers do.
func checkDivisible(a *Arch, r Resolved) error {
	tp := r.TensorParallelSize
	for _, d := range []struct {
		key string
		v   uint64
	}{{"intermediate_size", a.Intermediate}, {"moe_intermediate_size", a.MoEIntermediate}} {
		if d.v%tp != 0 {
			return fmt.Errorf("--tensor-parallel-size %d: does not divide %s %d of %s", tp, d.key, d.v, a.Source)
		}
	}
	return nil
}

// Evaluate lists the allocations of s sequences of t tokens and returns them
// with the footprint: the ledger's terms, the caching allocator's slack, the
// class's driver share, the host memory of a unified device, and whether it
// fits.
func (ref *Reference) Evaluate(s, t uint64) Ledger {
	items := make([]Item, 0, len(ref.weights)+len(ref.peaks)+len(ref.Arch.Layers))
	items = append(items, ref.weights...)
	items = append(items, kvItems(ref.Arch, ref.Serve, s, t)...)
	items = append(items, ref.peaks...)

	f := budget.Footprint{Seqs: s, Tokens: t, Budget: ref.Budget, Device: ref.Class.Device.MemoryBytes}
	for _, it := range items {
		f.Terms[it.Term] = budget.SatAdd(f.Terms[it.Term], it.Bytes)
		f.Ledger = budget.SatAdd(f.Ledger, it.Bytes)
	}
	f.Slack = ref.slackBytes
	d := ref.Class.Memory
	f.DriverFixed = d.DriverFixedBytes
	f.DriverPerMille = d.PerMilleBytes(ref.Budget)
	if d.Unified {
		f.Host = ref.hostByte
	}
	f.Failed = budget.Classify(f.Ledger, f.Budget, f.Outside(), f.Device)
	return Ledger{Items: items, Footprint: f}
}
