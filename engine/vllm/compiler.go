package vllm

import (
	"sync"

	"membudget/budget"
	"membudget/engine/torchalloc"
	"membudget/model"
)

// Compiler compiles the serves of one architecture into plans, keeping what
// depends only on the architecture and a pipeline stage's sharding (the
// stage's weight tensors: their total and their caching-allocator pools)
// from one serve to the next. A search over serve settings then pays for
// the weights once per sharding rather than once per serve. A Compiler is
// safe for concurrent use; its Arch must not change while it is in use.
type Compiler struct {
	arch *model.Arch
	// states and attention are the architecture's state and attention
	// layers (stateLayers), counted once for every serve resolved.
	states, attention uint64
	// whys holds the sources of vLLM's batch defaults by device.
	whys    batchWhys
	mu      sync.Mutex
	stages  map[stageKey]stageWeights
	layouts map[layoutKey]layoutOrErr
}

// layoutKey is what the layers' KV cache specs depend on beyond the
// architecture (layerSpecs reads these of the resolved serve, no more).
type layoutKey struct {
	tp, block, kvDtypeBytes, mambaBlock, statePage, statePages uint64
	fp8DSMLA, slidingOwnBlock                                  bool
	// unraised is the stages whose state layers keep an unraised spec
	// (see Resolved.noAttentionStage), with that spec's block and page.
	unraised                     string
	unraisedBlock, unpaddedState uint64
	// draft is the draft's layers (see draftKey), zero without one.
	draft draftShape
	// skip is the layers that keep the model's dtype (see skipKey).
	skip string
	// groupRatio is the release's KV-group padding ratio (see
	// [Profile.KVGroupRatio]): one compiler serves several releases.
	groupRatio float64
}

// layoutOrErr is a grouping of the specs, or why vLLM cannot group them.
type layoutOrErr struct {
	layout kvLayout
	err    error
}

// stageKey is what a stage's weights depend on beyond the architecture:
// its sharding, with the quantization named by the serve's --quantization
// (resolveQuant derives it from the architecture and that flag alone).
type stageKey struct {
	tp, expertRanks, dtypeBytes uint64
	redundantExperts            uint64
	firstLayer, endLayer        int
	first, last                 bool
	quantization                string
	mxfp4                       model.MXFP4Kernel
	nvfp4                       model.NVFP4Kernel
	routerGEMM                  bool
	noHead                      bool
	rotaryRows                  uint64
	batchedTokens               uint64
	towersOff                   model.Modalities
	towerWhole                  bool
}

// stageWeights is a stage's weights without their names: the total, and
// the allocator pools their tensors occupy.
type stageWeights struct {
	bytes uint64
	pools torchalloc.Pools
}

// NewCompiler returns a Compiler for the serves of a.
func NewCompiler(a *model.Arch) *Compiler {
	cp := &Compiler{arch: a, stages: map[stageKey]stageWeights{}, layouts: map[layoutKey]layoutOrErr{}}
	cp.states, cp.attention = stateLayers(a)
	return cp
}

// Compile returns the resolved serve s of the compiler's architecture on
// class c under profile p, and its plan: the plan [NewReference]'s
// [Reference.Plan] gives, computed without itemising what it has computed
// before. --cpu-offload-gb and --max-model-len auto, which depend on the
// tensors one by one, go through the Reference.
func (cp *Compiler) Compile(s Serve, c budget.Class, p Profile) (Resolved, *budget.Plan, error) {
	var k kvCheck
	plan, err := cp.compileInto(&k, s, c, p)
	return k.r, plan, err
}

// compile is Compile, with what vLLM's startup check reads beside the
// plan.
func (cp *Compiler) compile(s Serve, c budget.Class, p Profile) (kvCheck, *budget.Plan, error) {
	var k kvCheck
	plan, err := cp.compileInto(&k, s, c, p)
	return k, plan, err
}

// compileInto is compile writing the check into k, so that Compile, on the
// hot path of every search, copies the resolved serve once.
func (cp *Compiler) compileInto(k *kvCheck, s Serve, c budget.Class, p Profile) (*budget.Plan, error) {
	a := cp.arch
	if s.CPUOffloadGiB > 0 || s.AutoMaxModelLen {
		ref, err := NewReference(a, s, c, p)
		if err != nil {
			return nil, err
		}
		*k = ref.check()
		return ref.Plan(), nil
	}
	var err error
	k.r, err = resolveCounted(s, a, c, p, cp.states, cp.attention, &cp.whys)
	if err != nil {
		return nil, err
	}
	r := &k.r
	if err := checkShardable(a, r); err != nil {
		return nil, err
	}
	layout, err := cp.layout(r)
	if err != nil {
		return nil, layoutRefusal(a, err)
	}
	requested, err := c.UtilBudget(r.GPUMemoryUtilization, p.Rounding)
	if err != nil {
		return nil, settingErr("gpu-memory-utilization", r.GPUMemoryUtilization, "%v", err)
	}
	plan := &budget.Plan{
		Device:  c.Device.MemoryBytes,
		Driver:  r.driverTerms(c),
		Ceiling: c.CeilingBytes(),
		Beside:  besideTerms(r, a),
		MaxSeqs: r.MaxNumSeqs,
		MaxLen:  r.MaxModelLen,
		Stages:  make([]budget.Stage, len(r.Stages)),
	}
	if c.Memory.Unified {
		plan.Host = r.hostBytes()
	}
	shardings := make([]model.Sharding, len(r.Stages))
	pools := make([]torchalloc.Pools, len(r.Stages))
	// The blocks every stage allocates: the smallest stage's
	// (Reference.Blocks).
	var blocks uint64
	haveBlocks := false
	perToken := forwardBytesPerToken(a, r.TensorParallelSize, r.DtypeBytes)
	for i, st := range r.Stages {
		st = r.rankSharding(st)
		shardings[i] = st
		w := cp.weights(st, r.Quantization)
		weigh := func(sh model.Sharding) uint64 { return cp.weights(sh, r.Quantization).bytes }
		pools[i] = featurePools(w.pools, a, r, st, weigh)
		stage := &plan.Stages[i]
		stage.Fixed[budget.TermWeights] = w.bytes
		for _, it := range peakItemsAt(a, r, st, perToken, weigh) {
			stage.Fixed[it.Term] = budget.SatAdd(stage.Fixed[it.Term], it.Bytes)
		}
		stage.Pool = layout.pool(r, st)
		stage.BesideFixed = besideAfterSnapshot(a, r, st)
		avail := r.KVCacheMemoryBytes
		stage.Budget = requested
		if r.KVCacheMemoryBytes > 0 {
			stage.Budget = budget.SatAdd(stage.FixedLedger(plan.Beside), r.KVCacheMemoryBytes)
		} else {
			avail = budget.SatSub(stage.Budget, stage.FixedLedger(plan.Beside))
		}
		if kv, ok := r.blocksOverride(stage.Pool.BlockBytes()); ok {
			avail, stage.Budget = kv, budget.SatAdd(stage.FixedLedger(plan.Beside), kv)
		}
		if block := stage.Pool.BlockBytes(); block > 0 {
			if b := avail / block; !haveBlocks || b < blocks {
				blocks, haveBlocks = b, true
			}
		}
	}
	for i := range plan.Stages {
		if layout.uniformType {
			for _, page := range layout.tensorPages(shardings[i]) {
				pools[i] = pools[i].Add(budget.SatMul(blocks, page), 1)
			}
		} else if len(layout.groups) > 0 {
			// Every tensor of the stage has the one page: the pool's.
			pools[i] = pools[i].Add(budget.SatMul(blocks, plan.Stages[i].Pool.PageBytes), plan.Stages[i].Pool.Tensors)
		}
		plan.Stages[i].Slack = pools[i].Slack()
	}
	if c.Memory.Unified {
		plan.Host = budget.SatAdd(plan.Host, r.transferHost(layout, shardings, blocks))
	}
	k.groups, k.shardings = layout, shardings
	return plan, nil
}

// weights is the stage's weights, computed once per sharding.
func (cp *Compiler) weights(st model.Sharding, quantization string) stageWeights {
	key := stageKey{tp: st.TP, expertRanks: st.ExpertRanks, redundantExperts: st.RedundantExperts, dtypeBytes: st.DtypeBytes, firstLayer: st.FirstLayer, endLayer: st.EndLayer,
		first: st.First, last: st.Last, quantization: quantization, mxfp4: st.MXFP4, nvfp4: st.NVFP4, routerGEMM: st.RouterGEMM, noHead: st.NoHead, rotaryRows: st.RotaryRows, batchedTokens: st.BatchedTokens, towersOff: st.TowersOff, towerWhole: st.TowerWhole}
	cp.mu.Lock()
	w, ok := cp.stages[key]
	cp.mu.Unlock()
	if ok {
		return w
	}
	for _, it := range weightItems(cp.arch, st) {
		w.bytes = budget.SatAdd(w.bytes, it.Bytes)
		w.pools = w.pools.Add(it.Bytes, 1)
	}
	cp.mu.Lock()
	cp.stages[key] = w
	cp.mu.Unlock()
	return w
}

// layout is the KV cache groups of the serve's layer specs, grouped once
// per key. The groups are shared: nothing that reads them writes them.
func (cp *Compiler) layout(r *Resolved) (kvLayout, error) {
	key := layoutKey{tp: r.TensorParallelSize, block: r.BlockSize, kvDtypeBytes: r.KVDtypeBytes, mambaBlock: r.MambaBlockSize,
		statePage: r.statePoolPage(), statePages: r.StatePages, fp8DSMLA: r.FP8DSMLA, slidingOwnBlock: r.Profile.Release.AtLeast(slidingOwnBlock), draft: draftKey(r), skip: r.skipKey(), groupRatio: r.Profile.KVGroupRatio}
	if u := r.unraisedStages(cp.arch); u != "" {
		key.unraised, key.unraisedBlock, key.unpaddedState = u, r.UnraisedMambaBlock, r.StatePageBytes
	}
	cp.mu.Lock()
	l, ok := cp.layouts[key]
	cp.mu.Unlock()
	if !ok {
		l.layout, l.err = kvLayoutOf(layerSpecs(cp.arch, r), r.Profile.KVGroupRatio)
		cp.mu.Lock()
		cp.layouts[key] = l
		cp.mu.Unlock()
	}
	return l.layout, l.err
}

// featurePools adds to a stage's caching-allocator pools the tensors of
// the serve's features that hold their own (LoRA slots, EPLB's redundant
// experts, a draft and its proposer): the one list the compiler and the
// reference both charge. weigh weighs the stage's weights at another
// sharding (EPLB's, with more or fewer experts).
func featurePools(p torchalloc.Pools, a *model.Arch, r *Resolved, st model.Sharding, weigh weigher) torchalloc.Pools {
	return addDraftPools(addEPLBPools(addLoRAPools(p, a, r, st), a, r, st, weigh), a, r, st)
}
