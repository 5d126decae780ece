package vllm

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

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
	// Classes are the device classes to try.
	Classes []budget.Class
	// MaxGPUs bounds tensor x pipeline x data ranks (8 when 0).
	MaxGPUs uint64
	// Profile is the vLLM whose rules size each serve.
	Profile Profile
	// Revision is the checkpoint revision sized, given to each command as
	// vLLM's --revision; empty for the default branch.
	Revision string
	// AllowLongMaxModelLen lets the length exceed the model's derived
	// maximum, as vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 does; each command
	// then sets it.
	AllowLongMaxModelLen bool
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
	// Command is the `vllm serve` line, with --kv-cache-memory-bytes.
	Command string
}

// Headroom is the deployment's smaller margin at the need: the budget's or
// the driver's.
func (d Deployment) Headroom() uint64 { return min(d.At.BudgetHeadroom(), d.At.DriverHeadroom()) }

// layout is one way to spread a serve over GPUs.
type layout struct{ tp, pp, dp uint64 }

// Deployments searches the space for every deployment of arch a (named model in
// the commands) that serves need, and returns them ranked by GPU count,
// then device memory, then headroom (most first). progress, when not nil,
// is called after each class with the classes done. A length vLLM refuses
// for the model (beyond its derived maximum, unless the space allows it)
// is an error wrapping the [engine.SettingError] for max-model-len.
func Deployments(a *model.Arch, name string, need Need, sp Space, progress func(done, total int)) ([]Deployment, error) {
	if need.Length == 0 || need.Concurrency == 0 {
		return nil, fmt.Errorf("a plan needs a length and a concurrency of at least 1, got %d and %d", need.Length, need.Concurrency)
	}
	maxGPUs := sp.MaxGPUs
	if maxGPUs == 0 {
		maxGPUs = 8
	}
	var layouts []layout
	for _, tp := range []uint64{1, 2, 4, 8, 16} {
		for _, pp := range []uint64{1, 2, 4, 8} {
			for _, dp := range []uint64{1, 2, 4, 8, 16} {
				if tp*pp*dp <= maxGPUs && pp <= uint64(len(a.Layers)) && dp <= need.Concurrency {
					layouts = append(layouts, layout{tp, pp, dp})
				}
			}
		}
	}
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
	for _, c := range sp.Classes {
		_, _, err := compiler.Compile(Serve{MaxModelLen: need.Length, AllowLongMaxModelLen: sp.AllowLongMaxModelLen}, c, sp.Profile)
		var se *engine.SettingError
		if errors.As(err, &se) && se.Flag == "max-model-len" {
			return nil, fmt.Errorf("length %d: %w", need.Length, se)
		}
		if err == nil {
			break
		}
	}
	kvs := []string{"auto", "fp8"}
	for ci, c := range sp.Classes {
		e := Search{Arch: a, Class: c, Profile: sp.Profile, Compiler: compiler, memo: &memo{}}
		// The data-parallel engines of a layout run the same serve (data
		// parallelism changes no engine's memory without expert
		// parallelism): each serve is compiled once for every dp, and the
		// deployments are listed in the order of the layouts.
		byLayout := make([][]*Deployment, len(layouts))
		for _, l := range layouts {
			if l.dp != 1 {
				continue
			}
			var same []int // the layouts of this tp x pp, by dp
			for j, m := range layouts {
				if m.tp == l.tp && m.pp == l.pp {
					same = append(same, j)
				}
			}
			for _, q := range quants {
				for _, kv := range kvs {
					for _, j := range same {
						m := layouts[j]
						perEngine := (need.Concurrency + m.dp - 1) / m.dp
						if d, ok := e.deploy(name, &sp, need, m, perEngine, q, kv); ok {
							byLayout[j] = append(byLayout[j], &d)
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
			progress(ci+1, len(sp.Classes))
		}
	}
	slices.SortStableFunc(found, func(x, y *Deployment) int {
		return cmp.Or(cmp.Compare(x.GPUs, y.GPUs), cmp.Compare(x.Class.Device.MemoryBytes, y.Class.Device.MemoryBytes),
			cmp.Compare(y.Headroom(), x.Headroom()))
	})
	sorted := make([]Deployment, len(found))
	for i, d := range found {
		sorted[i] = *d
	}
	return sorted, nil
}

// deploy tries one layout, weight quantization and KV dtype at vLLM's
// default util and, when that does not hold the need, at the class's
// ceiling; ok when one holds it.
func (e *Search) deploy(name string, sp *Space, need Need, l layout, perEngine uint64, quant, kv string) (Deployment, bool) {
	utils := []float64{e.Profile.DefaultUtil}
	if ceiling := e.Class.Memory.UtilCeiling; ceiling != e.Profile.DefaultUtil {
		utils = append(utils, ceiling)
	}
	for _, u := range utils {
		if u > e.Class.Memory.UtilCeiling {
			continue
		}
		// Compiled with one engine: the dp engines each run this serve.
		s := Serve{GPUMemoryUtilization: u, MaxModelLen: need.Length, TensorParallelSize: l.tp,
			PipelineParallelSize: l.pp, DataParallelSize: 1, Quantization: quant, KVCacheDtype: kv,
			Revision: sp.Revision, AllowLongMaxModelLen: sp.AllowLongMaxModelLen}
		r, plan, err := e.compile(s)
		if err != nil {
			return Deployment{}, false // a layout or dtype vLLM refuses for this model or device
		}
		if perEngine > r.MaxNumSeqs {
			// Raise the cap to the need: --max-num-seqs (and the batch, which
			// must be at least as large).
			s.MaxNumSeqs = perEngine
			s.MaxNumBatchedTokens = max(r.MaxNumBatchedTokens, perEngine)
			if r, plan, err = e.compile(s); err != nil {
				return Deployment{}, false
			}
		}
		f := plan.Evaluate(perEngine, need.Length)
		if !f.Fits() {
			continue
		}
		most, err := budget.MaxSequences(plan, need.Length, 0)
		if err != nil {
			e.fault(err)
			return Deployment{}, false
		}
		longest, err := budget.MaxLength(plan, perEngine, 0)
		if err != nil {
			e.fault(err)
			return Deployment{}, false
		}
		r.DataParallelSize = l.dp
		d := Deployment{Class: e.Class, Serve: r, GPUs: l.tp * l.pp * l.dp, PerEngine: perEngine, At: f, Beside: plan.Beside,
			MostSeqs: most, LongestLen: longest, KVCacheBytes: kvCacheBytes(plan)}
		withKV := r
		withKV.KVCacheMemoryBytes = d.KVCacheBytes
		d.Command = Command(name, withKV)
		return d, true
	}
	return Deployment{}, false
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

// fault keeps the first query error that is membudget's own (an evaluator
// not monotone), for the plan to return rather than drop the deployment
// silently; any other query error only rules the deployment out.
func (e *Search) fault(err error) {
	var me *budget.MonotonicityError
	if errors.As(err, &me) && e.memo != nil && e.memo.err == nil {
		e.memo.err = err
	}
}
