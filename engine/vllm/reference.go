package vllm

import (
	"fmt"

	"membudget/budget"
	"membudget/engine/torchalloc"
	"membudget/model"
)

// Reference is the plain footprint model of one vLLM serve: for every
// pipeline stage it lists every allocation of s sequences of t tokens and
// adds them up. It is the oracle the compiled Plan is proven against; it is
// allowed to be slow.
type Reference struct {
	Arch   *model.Arch
	Serve  Resolved
	Class  budget.Class
	stages []refStage
	// groups is vLLM's KV cache groups of the whole model.
	groups kvLayout
	host   uint64
	// requested is the util budget vLLM profiles against, which
	// --num-gpu-blocks-override does not change.
	requested uint64
}

// refStage is what the reference keeps per pipeline stage.
type refStage struct {
	sharding model.Sharding
	// budget is what vLLM may allocate on each of the stage's GPUs: the
	// requested memory, or the stage's fixed ledger plus
	// --kv-cache-memory-bytes.
	budget  uint64
	weights []budget.Item
	peaks   []budget.Item
	// slack is computed once: the allocations it rounds do not depend on
	// the sequences.
	slack uint64
	// besideFixed is what the V2 runner makes after vLLM's snapshot and
	// does not charge ([besideAfterSnapshot]).
	besideFixed uint64
}

// Ledger is the itemised footprint of s sequences of t tokens on one stage.
type Ledger struct {
	Items     []budget.Item
	Footprint budget.Footprint
}

// NewReference resolves s for a on class c under profile p and lists what
// every stage holds.
func NewReference(a *model.Arch, s Serve, c budget.Class, p Profile) (*Reference, error) {
	return newReference(a, s, c, p, true)
}

// newReference is NewReference; shard false skips the checks vLLM makes
// only when it builds the model's layers, for tests of its KV planner alone.
func newReference(a *model.Arch, s Serve, c budget.Class, p Profile, shard bool) (*Reference, error) {
	r, err := Resolve(s, a, c, p)
	if err != nil {
		return nil, err
	}
	if shard {
		if err := checkShardable(a, &r); err != nil {
			return nil, err
		}
	}
	layout, err := kvLayoutOf(layerSpecs(a, &r), r.Profile.KVGroupRatio)
	if err != nil {
		return nil, layoutRefusal(a, err)
	}
	ref := &Reference{Arch: a, Serve: r, Class: c, groups: layout}
	for _, st := range r.Stages {
		st = r.rankSharding(st)
		ref.stages = append(ref.stages, refStage{sharding: st, weights: weightItems(a, st), peaks: peakItems(a, &r, st), besideFixed: besideAfterSnapshot(a, &r, st)})
	}
	if err := ref.offload(); err != nil {
		return nil, err
	}
	requested, err := c.UtilBudget(r.GPUMemoryUtilization, p.Rounding)
	if err != nil {
		return nil, settingErr("gpu-memory-utilization", r.GPUMemoryUtilization, "%v", err)
	}
	for i := range ref.stages {
		ref.stages[i].budget = requested
		if r.KVCacheMemoryBytes > 0 {
			// vLLM sizes the KV cache from the flag and ignores the util for
			// it (gpu_worker.py determine_available_memory): what it
			// allocates is the rest of the ledger plus that many bytes.
			ref.stages[i].budget = budget.SatAdd(ref.fixedLedger(i), r.KVCacheMemoryBytes)
		}
		if kv, ok := ref.overrideKV(i); ok {
			// The override's blocks are allocated whatever the budget
			// leaves (compilation.go blocksOverride).
			ref.stages[i].budget = budget.SatAdd(ref.fixedLedger(i), kv)
		}
	}
	ref.requested = requested
	if c.Memory.Unified {
		ref.host = budget.SatAdd(r.hostBytes(), ref.transferHost())
	}
	if r.AutoMaxModelLen {
		if err := ref.autoFitMaxModelLen(); err != nil {
			return nil, err
		}
	}
	for i := range ref.stages {
		ref.stages[i].slack = ref.slack(i)
	}
	return ref, nil
}

// autoFitMaxModelLen sets max_model_len to the longest whose one request
// fits every stage's available KV memory, at most the model's limit, as
// vLLM's _auto_fit_max_model_len does for --max-model-len auto
// (vllm/v1/core/kv_cache_utils.py:1976-2037). Nothing else of the ledger
// depends on max_model_len but the runner's host token-id tensors on a
// unified device, which vLLM made at the length it profiled with
// (unifiedhost.go; kept as runnerMaxLen), so the available memory does not
// move.
func (ref *Reference) autoFitMaxModelLen() error {
	r := &ref.Serve
	fit := r.MaxModelLen
	k := ref.check()
	for i, st := range ref.stages {
		pool := ref.groups.pool(r, st.sharding)
		if pool.BlockBytes() == 0 {
			continue // a stage without KV layers: vLLM skips workers without groups
		}
		fit = min(fit, k.estimateMaxModelLen(i, pool, ref.AvailableKV(i), r.MaxModelLen))
	}
	if fit == 0 {
		return settingErr("max-model-len", "auto", "vLLM cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token")
	}
	if fit < r.MaxModelLen {
		r.Sources.Set("max-model-len", fmt.Sprintf("auto: reduced from %d to %d, the longest whose one request fits the KV cache (vLLM's _auto_fit_max_model_len)", r.MaxModelLen, fit))
	} else {
		r.Sources.Set("max-model-len", fmt.Sprintf("auto: the model's full %d fits the KV cache", fit))
	}
	r.runnerMaxLen = r.MaxModelLen
	r.MaxModelLen = fit
	return nil
}

// weightItems is the stage's weights: the checkpoint's tensors as the model
// shards them, and what vLLM's MLA backends add after loading. They depend
// on the architecture and the sharding alone (see [Compiler]).
func weightItems(a *model.Arch, st model.Sharding) []budget.Item {
	items := model.RankWeights(a, st)
	if a.MLA {
		// vLLM's MLA attention splits kv_b_proj into W_UK_T and W_UV in the
		// model dtype after loading (vllm/model_executor/layers/attention/
		// mla_attention.py:1022-1128, process_weights_after_loading). An
		// unquantized kv_b_proj gives views of its own weight
		// (get_and_maybe_dequant_weights returns weight.to(dtype), the same
		// tensor); a quantized one is dequantized into new tensors kept
		// beside it.
		heads := a.Heads / max(st.TP, 1)
		for i := st.FirstLayer; i < st.EndLayer; i++ {
			if st.Quant.LinearFormat(fmt.Sprintf("model.layers.%d.self_attn.kv_b_proj", i)) == model.Unquantized {
				continue
			}
			p := fmt.Sprintf("model.layers.%d.self_attn.mla_attn.", i)
			items = append(items,
				budget.Item{Name: p + "W_UK_T", Term: budget.TermWeights, Bytes: budget.SatMul(heads*a.QKNopeHeadDim*a.KVLoraRank, st.DtypeBytes)},
				budget.Item{Name: p + "W_UV", Term: budget.TermWeights, Bytes: budget.SatMul(heads*a.KVLoraRank*a.VHeadDim, st.DtypeBytes)})
		}
	}
	return items
}

// hostBytes is what the serve keeps in host memory per GPU: the CPU swap
// space (int(swap_space x GiB)), the offloaded weights, the LoRA adapter
// cache and the offloaded KV blocks.
func (r *Resolved) hostBytes() uint64 {
	return budget.SatAdd(budget.SatAdd(budget.SatAdd(uint64(r.SwapGiB*(1<<30)), uint64(r.CPUOffloadGiB*(1<<30))), budget.SatAdd(r.LoRAHostBytes, r.MMHostBytes)), budget.SatAdd(r.OffloadHostBytes, r.Spec.HostBytes))
}

// offload moves --cpu-offload-gb of each stage's decoder-layer weights to
// host memory, whole tensors in order until the running total reaches the
// budget, as vLLM's UVA offloader does (vllm/model_executor/offloader/uva.py:
// it checks before each parameter, so it can pass the budget by one).
func (ref *Reference) offload() error {
	limit := uint64(ref.Serve.CPUOffloadGiB * (1 << 30))
	if limit == 0 {
		return nil
	}
	for i := range ref.stages {
		var moved uint64
		var kept []budget.Item
		for _, it := range ref.stages[i].weights {
			if moved < limit && isLayerTensor(it.Name) {
				moved = budget.SatAdd(moved, it.Bytes)
				continue
			}
			kept = append(kept, it)
		}
		ref.stages[i].weights = kept
	}
	return nil
}

// isLayerTensor reports whether a weight belongs to a decoder layer (the
// modules vLLM's make_layers builds, the only ones it offloads).
func isLayerTensor(name string) bool {
	return len(name) > len("model.layers.") && name[:len("model.layers.")] == "model.layers."
}

// fixedLedger is stage i's ledger without the KV cache.
func (ref *Reference) fixedLedger(i int) uint64 {
	var rest uint64
	for _, it := range ref.stages[i].weights {
		rest = budget.SatAdd(rest, it.Bytes)
	}
	for _, it := range ref.stages[i].peaks {
		if !ref.beside().Has(it.Term) {
			rest = budget.SatAdd(rest, it.Bytes)
		}
	}
	return rest
}

// beside is the terms the profile's vLLM allocates beside the budget: the
// CUDA graphs when their estimate is not taken off the KV budget (before
// 0.20.0, and on the V2 model runner).
func (ref *Reference) beside() budget.TermSet { return besideTerms(&ref.Serve, ref.Arch) }

// besideTerms is the terms the resolved serve r's vLLM allocates beside
// the budget for a: [Profile.graphsOn] the runner r runs on, whose
// pooling runner stays on V1 ([Resolved.onV2Runner]).
func besideTerms(r *Resolved, a *model.Arch) budget.TermSet {
	if r.Profile.graphsOn(r.onV2Runner(a)) == GraphsCharged {
		return 0
	}
	return budget.TermSet(0).With(budget.TermGraphPool)
}

// AvailableKV is stage i's available KV cache memory: the budget less the
// rest of its ledger (vLLM's "Available KV cache memory"), 0 when the rest
// is over.
func (ref *Reference) AvailableKV(i int) uint64 {
	if kv, ok := ref.overrideKV(i); ok {
		return kv
	}
	if ref.Serve.KVCacheMemoryBytes > 0 {
		return ref.Serve.KVCacheMemoryBytes
	}
	return budget.SatSub(ref.stages[i].budget, ref.fixedLedger(i))
}

// overrideKV is stage i's KV cache under --num-gpu-blocks-override.
func (ref *Reference) overrideKV(i int) (uint64, bool) {
	return ref.Serve.blocksOverride(ref.groups.pool(&ref.Serve, ref.stages[i].sharding).BlockBytes())
}

// Budget is what vLLM may allocate on each GPU of stage i.
func (ref *Reference) Budget(i int) uint64 { return ref.stages[i].budget }

// Blocks is the KV blocks every stage allocates: each stage's available
// memory in whole blocks of its tensors (get_num_blocks), the smallest over
// the stages (get_kv_cache_configs).
func (ref *Reference) Blocks() uint64 {
	var blocks uint64
	have := false
	for i, st := range ref.stages {
		block := ref.groups.pool(&ref.Serve, st.sharding).BlockBytes()
		if block == 0 {
			continue
		}
		if b := ref.AvailableKV(i) / block; !have || b < blocks {
			blocks, have = b, true
		}
	}
	return blocks
}

// KVAllocation is the KV cache tensors stage i allocates: Blocks pages,
// one tensor per slot of the stage's group size. Their size does not depend
// on the sequences served: the scheduler fills them on demand.
func (ref *Reference) KVAllocation(i int) []budget.Item {
	blocks := ref.Blocks()
	pages := ref.groups.tensorPages(ref.stages[i].sharding)
	items := make([]budget.Item, 0, len(pages))
	for slot, page := range pages {
		items = append(items, budget.Item{Name: fmt.Sprintf("kv_cache.allocated.%d", slot), Term: budget.TermKVCache, Bytes: budget.SatMul(blocks, page)})
	}
	return items
}

// slack is the caching allocator's chunk slack over stage i's persistent
// allocations: the weights and the KV tensors vLLM allocates. The profile
// run's transients are released by torch.cuda.empty_cache before the KV
// cache is allocated (vllm/v1/worker/gpu_worker.py), and the non-torch
// growth is not the allocator's.
func (ref *Reference) slack(i int) uint64 {
	var pools torchalloc.Pools
	for _, it := range ref.stages[i].weights {
		pools = pools.Add(it.Bytes, 1)
	}
	for _, it := range ref.KVAllocation(i) {
		pools = pools.Add(it.Bytes, 1)
	}
	pools = featurePools(pools, ref.Arch, &ref.Serve, ref.stages[i].sharding, weighWeights(ref.Arch))
	return pools.Slack()
}

// Stages is the number of pipeline stages.
func (ref *Reference) Stages() int { return len(ref.stages) }

// EvaluateStage lists stage i's allocations of s sequences of t tokens and
// returns them with the footprint: the ledger's terms, the caching
// allocator's slack, the class's driver share, the host memory of a unified
// device, and whether it fits.
func (ref *Reference) EvaluateStage(i int, s, t uint64) Ledger {
	st := ref.stages[i]
	items := make([]budget.Item, 0, len(st.weights)+len(st.peaks)+len(ref.Arch.Layers))
	items = append(items, st.weights...)
	items = append(items, kvItems(ref.groups, &ref.Serve, st.sharding, s, t)...)
	items = append(items, st.peaks...)

	f := budget.Footprint{Seqs: s, Tokens: t, Budget: st.budget, Device: ref.Class.Device.MemoryBytes,
		Ceiling: ref.Class.CeilingBytes(), Stage: i}
	beside := ref.beside()
	for _, it := range items {
		f.Terms[it.Term] = budget.SatAdd(f.Terms[it.Term], it.Bytes)
		if beside.Has(it.Term) {
			f.Beside = budget.SatAdd(f.Beside, it.Bytes)
		} else {
			f.Ledger = budget.SatAdd(f.Ledger, it.Bytes)
		}
	}
	f.BesideFixed = st.besideFixed
	f.Beside = budget.SatAdd(f.Beside, st.besideFixed)
	f.Slack = st.slack
	d := ref.Serve.driverTerms(ref.Class)
	f.DriverFixed = d.DriverFixedBytes
	f.DriverPerMille = d.PerMilleBytes(st.budget)
	f.Host = ref.host
	f.Failed = budget.Classify(f)
	return Ledger{Items: items, Footprint: f}
}

// Evaluate is the ledger of s sequences of t tokens on the stage that
// binds (see [budget.Tighter]).
func (ref *Reference) Evaluate(s, t uint64) Ledger {
	var worst Ledger
	for i := range ref.stages {
		l := ref.EvaluateStage(i, s, t)
		if i == 0 || budget.Tighter(l.Footprint, worst.Footprint) {
			worst = l
		}
	}
	return worst
}
