package vllm

import (
	"errors"
	"fmt"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// Need is what a deployment must serve: Concurrency sequences of Length
// tokens each, across all its engines.
type Need struct {
	Length, Concurrency uint64
}

// Space bounds the deployments a plan searches.
type Space struct {
	// Plan is the classes, the layouts' bounds and the ranking; its
	// MaxGPUs is 8 when 0, its MarginPercent is taken as given.
	Plan engine.PlanSpace
	// Profile is the vLLM whose rules size each serve.
	Profile Profile
	// Revision is the checkpoint revision sized, given to each command as
	// vLLM's --revision; empty for the default branch.
	Revision string
	// AllowLongMaxModelLen lets the length exceed the model's derived
	// maximum, as vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 does; each command
	// then sets it.
	AllowLongMaxModelLen bool
	// PinKVCache makes each command pin the KV cache with
	// --kv-cache-memory-bytes (see [Deployment.PinnedKVBytes]) instead of
	// leaving vLLM's profiling to size it from the util.
	PinKVCache bool
	// LoRA is the serve's LoRA (see [LoRA]), kept on every deployment: the
	// search varies the rest. Its zero value is a serve without LoRA.
	LoRA LoRA
	// Compilation is the serve's compilation (see [Compilation]), kept on
	// every deployment; its zero value is vLLM's default.
	Compilation Compilation
	// Offload is the serve's KV offload (see [KVOffload]), kept on every
	// deployment likewise.
	Offload KVOffload
	// MM is the serve's multimodal flags (see [MM]), kept on every
	// deployment like LoRA.
	MM MM
	// SpeculativeConfig is the serve's --speculative-config, kept on every
	// deployment like LoRA; "" for none.
	SpeculativeConfig string
	// KVTransferConfig is the serve's --kv-transfer-config, kept on every
	// deployment like LoRA; "" for none (see kvtransfer.go).
	KVTransferConfig string
	// ColdCompileCache is --compile-cache cold, kept on every deployment:
	// each is sized for a first start with an empty torch.compile cache
	// (coldcompile.go).
	ColdCompileCache bool
}

// kept is s with the settings the search keeps on every deployment:
// the long-length override, LoRA, compilation, KV offload, multimodal
// flags, speculative config, KV connector and compile cache.
func (sp *Space) kept(s Serve) Serve {
	s.AllowLongMaxModelLen, s.LoRA, s.Compilation, s.Offload, s.MM, s.SpeculativeConfig =
		sp.AllowLongMaxModelLen, sp.LoRA, sp.Compilation, sp.Offload, sp.MM, sp.SpeculativeConfig
	s.KVTransferConfig, s.ColdCompileCache = sp.KVTransferConfig, sp.ColdCompileCache
	return s
}

// Deployment is one serve of the plan that holds the need, with its
// verified bounds and the command that runs it.
type Deployment struct {
	Class budget.Class
	// Serve is the serve of each engine, every setting explicit.
	Serve Resolved
	GPUs  uint64
	// PerEngine is the sequences each data-parallel engine holds.
	PerEngine uint64
	// At is the footprint of PerEngine sequences of the length, on the
	// stage that binds; it fits. Beside is the terms vLLM allocates beside
	// its budget.
	At     budget.Footprint
	Beside budget.TermSet
	// MostSeqs is the verified most sequences of the length per engine;
	// LongestLen the verified longest length at PerEngine sequences.
	MostSeqs, LongestLen budget.Answer
	// KVCacheBytes is the KV cache per GPU the serve sizes: given to vLLM
	// as --kv-cache-memory-bytes, it reproduces this deployment's cache.
	KVCacheBytes uint64
	// PinnedKVBytes is the KV cache per GPU a pinned command gives vLLM:
	// KVCacheBytes less the safety margin (the space's share of the
	// budget, in whole blocks), never less than the need's own blocks.
	PinnedKVBytes uint64
	// Online says the weights are quantized by vLLM as it loads them
	// (--quantization fp8 on an unquantized checkpoint); KVQuantized that
	// the KV cache is fp8 by --kv-cache-dtype fp8, not by auto.
	Online, KVQuantized bool
	// Command is the `vllm serve` line: sized by the util, so that vLLM's
	// profiling sizes the KV cache, or, when the space pins it, with
	// --kv-cache-memory-bytes PinnedKVBytes.
	Command string
}

// Headroom is the deployment's smaller margin at the need: the budget's or
// the driver's.
func (d Deployment) Headroom() uint64 { return min(d.At.BudgetHeadroom(), d.At.DriverHeadroom()) }

// Deployments searches the space for every deployment of arch a (named model in
// the commands) that serves need and vLLM starts, and returns them ranked
// by [engine.PlanSpace.Rank]. progress, when not nil, is called after each
// class with the classes done. A length vLLM refuses for the model (beyond
// its derived maximum, unless the space allows it) is an error wrapping
// the [engine.SettingError] for max-model-len.
func Deployments(a *model.Arch, name string, need Need, sp Space, progress func(done, total int)) ([]*Deployment, error) {
	if need.Length == 0 || need.Concurrency == 0 {
		return nil, fmt.Errorf("a plan needs a length and a concurrency of at least 1, got %d and %d", need.Length, need.Concurrency)
	}
	if sp.Plan.MaxGPUs == 0 {
		sp.Plan.MaxGPUs = 8
	}
	layouts := sp.Plan.Layouts(len(a.Layers), need.Concurrency)
	quants := []string{""}
	if a.Quant.Method == "" {
		quants = append(quants, "fp8") // online fp8, the one vLLM applies to any checkpoint
	}
	// Pointers until the end: a Deployment is large to move.
	var found []*Deployment
	// One compiler for every class: the weights of a sharding do not
	// depend on the device.
	compiler := NewCompiler(a)
	// A length beyond the model is refused by vLLM on every device: an
	// error, not a search that finds nothing. The first class that takes
	// the model's default serve (a T4 refuses bfloat16) says which.
	for _, c := range sp.Plan.Classes {
		_, _, err := compiler.Compile(sp.kept(Serve{MaxModelLen: need.Length}), c, sp.Profile)
		var se *engine.SettingError
		if errors.As(err, &se) && se.Flag == "max-model-len" {
			return nil, fmt.Errorf("length %d: %w", need.Length, se)
		}
		if errors.As(err, &se) && (loraRefusal(se) || compilationRefusal(se) || offloadRefusal(se) || mmRefusal(se) || se.Flag == "speculative-config" || se.Flag == "kv-transfer-config") {
			return nil, err // the LoRA, compilation, offload, multimodal, speculative or KV connector settings kept fixed are refused on every layout
		}
		if err == nil {
			break
		}
	}
	kvs := []string{"auto", "fp8"}
	for ci, c := range sp.Plan.Classes {
		e := Search{Arch: a, Class: c, Profile: sp.Profile, Compiler: compiler, memo: &memo{}}
		// The data-parallel engines of a layout run the same serve (data
		// parallelism changes no engine's memory without expert
		// parallelism): each serve is compiled once for every dp, and the
		// deployments are listed in the order of the layouts.
		byLayout := make([][]*Deployment, len(layouts))
		for _, l := range layouts {
			if l.DP != 1 {
				continue
			}
			var same []int // the layouts of this tp x pp, by dp
			for j, m := range layouts {
				if m.TP == l.TP && m.PP == l.PP {
					same = append(same, j)
				}
			}
			for _, q := range quants {
				for _, kv := range kvs {
					for _, j := range same {
						m := layouts[j]
						perEngine := (need.Concurrency + m.DP - 1) / m.DP
						if d := e.deploy(name, &sp, need, m, perEngine, q, kv); d != nil {
							byLayout[j] = append(byLayout[j], d)
						}
					}
				}
			}
		}
		for _, ds := range byLayout {
			found = append(found, ds...)
		}
		if e.memo.err != nil {
			return nil, e.memo.err
		}
		if progress != nil {
			progress(ci+1, len(sp.Plan.Classes))
		}
	}
	// Ranked as the engine-neutral rows, then mapped back.
	rows := make([]engine.Deployment, len(found))
	for i, d := range found {
		rows[i] = d.row(i)
	}
	ranked := sp.Plan.Rank(rows)
	// By pointer: a deployment is some 2.5 KiB and a search finds
	// hundreds.
	sorted := make([]*Deployment, len(ranked))
	for i, r := range ranked {
		sorted[i] = found[r.JSON.(int)]
	}
	return sorted, nil
}

// row is d as the ranking reads it, its JSON the index i it was found at.
func (d *Deployment) row(i int) engine.Deployment {
	r := d.Serve
	return engine.Deployment{Class: d.Class, GPUs: d.GPUs, TP: r.TensorParallelSize, PP: r.PipelineParallelSize, DP: r.DataParallelSize,
		PerEngine: d.PerEngine, MostSeqs: d.MostSeqs, LongestLen: d.LongestLen, Headroom: d.Headroom(),
		BudgetBytes: d.At.Budget, KVHeadroom: d.At.BudgetHeadroom(), Online: d.Online, KVQuantized: d.KVQuantized, Command: d.Command, JSON: i}
}

// deploy tries one layout, weight quantization and KV dtype at vLLM's
// default util and, when that does not hold the need, at the class's
// ceiling; nil when none holds it. Only a deployment found is allocated:
// a plan tries thousands.
func (e *Search) deploy(name string, sp *Space, need Need, l engine.Layout, perEngine uint64, quant, kv string) *Deployment {
	utils := []float64{e.Profile.DefaultUtil}
	if ceiling := e.Class.Memory.UtilCeiling; ceiling != e.Profile.DefaultUtil {
		utils = append(utils, ceiling)
	}
	for _, u := range utils {
		if u > e.Class.Memory.UtilCeiling {
			continue
		}
		// Compiled with one engine: the dp engines each run this serve.
		s := sp.kept(Serve{GPUMemoryUtilization: u, MaxModelLen: need.Length, TensorParallelSize: l.TP,
			PipelineParallelSize: l.PP, DataParallelSize: 1, Quantization: quant, KVCacheDtype: kv,
			Revision: sp.Revision})
		// c is the memo's entry, read in place until the next compile.
		c := e.compiled(s)
		if c.err != nil {
			return nil // a layout or dtype vLLM refuses for this model or device
		}
		if r := &c.k.r; perEngine > r.MaxNumSeqs {
			// Raise the cap to the need: --max-num-seqs (and the batch, which
			// must be at least as large).
			s.MaxNumSeqs = perEngine
			s.MaxNumBatchedTokens = max(r.MaxNumBatchedTokens, perEngine)
			if c = e.compiled(s); c.err != nil {
				return nil
			}
		}
		plan := c.plan
		f := plan.Evaluate(perEngine, need.Length)
		if !f.Fits() {
			continue
		}
		if e.refusal(s) != "" {
			continue // it fits the footprint, and vLLM refuses to start it
		}
		most, err := budget.MaxSequences(plan, need.Length, 0)
		if err != nil {
			e.fault(err)
			return nil
		}
		longest, err := budget.MaxLength(plan, perEngine, 0)
		if err != nil {
			e.fault(err)
			return nil
		}
		d := &Deployment{Class: e.Class, Serve: c.k.r, GPUs: l.GPUs(), PerEngine: perEngine, At: f, Beside: plan.Beside,
			MostSeqs: most, LongestLen: longest, KVCacheBytes: kvCacheBytes(plan), Online: quant != "", KVQuantized: kv != "auto"}
		d.Serve.DataParallelSize = l.DP
		d.PinnedKVBytes = pinnedKVBytes(plan, f, sp.Plan.MarginPercent)
		if sp.PinKVCache {
			line := d.Serve
			line.KVCacheMemoryBytes = d.PinnedKVBytes
			d.Command = Command(name, &line)
		} else {
			d.Command = Command(name, &d.Serve)
		}
		return d
	}
	return nil
}

// kvCacheBytes is the KV cache per GPU a plan allocates: the blocks every
// stage allocates (the smallest stage's, as vLLM's get_kv_cache_configs
// gives them) in the largest stage block.
func kvCacheBytes(plan *budget.Plan) uint64 {
	var blocks, block uint64
	have := false
	for i, st := range plan.Stages {
		bb := st.Pool.BlockBytes()
		if bb == 0 {
			continue
		}
		block = max(block, bb)
		if b := plan.PoolBudget(i) / bb; !have || b < blocks {
			blocks, have = b, true
		}
	}
	return budget.SatMul(blocks, block)
}

// pinnedKVBytes is the KV cache per GPU a pinned command gives vLLM: the
// plan's cache (see [kvCacheBytes]) less marginPercent of the budget, both
// in whole blocks of the largest stage block, and never fewer blocks than
// the need at f holds. Pinned, vLLM no longer profiles the rest of the
// ledger against the util: the margin is what a ledger larger than
// membudget's can take before the pin runs the device out of memory.
func pinnedKVBytes(plan *budget.Plan, f budget.Footprint, marginPercent float64) uint64 {
	var block uint64
	for _, st := range plan.Stages {
		block = max(block, st.Pool.BlockBytes())
	}
	if block == 0 {
		return 0
	}
	blocks := kvCacheBytes(plan) / block
	margin := uint64(float64(f.Budget) * marginPercent / 100)
	marginBlocks := (margin + block - 1) / block
	needBlocks := (f.Terms[budget.TermKVCache] + block - 1) / block
	return budget.SatMul(max(budget.SatSub(blocks, marginBlocks), needBlocks), block)
}

// fault keeps the first query error that is membudget's own (an evaluator
// not monotone), for the plan to return rather than drop the deployment
// silently; any other query error only rules the deployment out.
func (e *Search) fault(err error) {
	var me *budget.MonotonicityError
	if errors.As(err, &me) && e.memo != nil && e.memo.err == nil {
		e.memo.err = err
	}
}
