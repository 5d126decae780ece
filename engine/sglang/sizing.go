package sglang

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/hub"
)

// Sizing is one SGLang server sized for a model on a device class: its
// reference (the pool SGLang sizes, what it logs), and its compiled plan.
// It is membudget's [engine.Sizing] for SGLang, and an [engine.Advisor];
// it is safe for concurrent use.
type Sizing struct {
	Model *hub.Loaded
	Class budget.Class
	// Ref is the server's itemised reference; its Serve is the resolved
	// server.
	Ref *Reference

	plan     *budget.Plan
	capacity Capacity
	// given is the server as given, before SGLang's defaults: what the
	// advice changes one flag of.
	given Serve
	// pasted is what the command read beside the flags, for the report.
	pasted engine.Pasted
}

// sized is one server's reference and plan, kept in the model's memo.
type sized struct {
	ref  *Reference
	plan *budget.Plan
	err  error
}

// sizedKey names a server of a model: SGLang's reference depends on no
// more (a profile is one release, named uniquely).
type sizedKey struct {
	s       Serve
	c       budget.Class
	profile string
}

// memo is a model's servers sized so far, at most memoServers of them: a
// batch asks for few servers of each model, and a stream of distinct ones
// must not grow without bound.
type memo struct {
	mu      sync.Mutex
	servers map[sizedKey]*sized
}

// memoServers bounds a model's memo of servers; beyond it the memo starts
// afresh.
const memoServers = 256

type memoKey struct{}

// size sizes server s of model m on class c under profile p; a batch's
// requests for the same server share its reference (see [hub.Loaded.Memo]).
// A setting SGLang refuses is a *engine.SettingError naming SGLang's flag.
func size(m *hub.Loaded, c budget.Class, s Serve, p Profile) (*Sizing, error) {
	mm := m.Memo(memoKey{}, func() any { return &memo{servers: map[sizedKey]*sized{}} }).(*memo)
	key := sizedKey{s, c, p.Name}
	mm.mu.Lock()
	z, ok := mm.servers[key]
	mm.mu.Unlock()
	if !ok {
		z = &sized{}
		z.ref, z.err = NewReference(m.Arch, s, c, p)
		if z.err == nil {
			z.plan = z.ref.Plan()
		}
		mm.mu.Lock()
		if len(mm.servers) >= memoServers {
			mm.servers = map[sizedKey]*sized{}
		}
		mm.servers[key] = z
		mm.mu.Unlock()
	}
	if z.err != nil {
		return nil, z.err
	}
	return &Sizing{Model: m, Class: c, Ref: z.ref, plan: z.plan, capacity: z.ref.Capacity(), given: s}, nil
}

// Plan returns the compiled footprint.
func (sz *Sizing) Plan() *budget.Plan { return sz.plan }

// Seqs returns max_running_requests, which SGLang derives from the pool
// unless --max-running-requests caps it.
func (sz *Sizing) Seqs() engine.Bound {
	return engine.Bound{Value: sz.plan.MaxSeqs, Flag: "--max-running-requests", Name: "max_running_requests"}
}

// Len returns --context-length.
func (sz *Sizing) Len() engine.Bound {
	return engine.Bound{Value: sz.Ref.Serve.ContextLength, Flag: "--context-length"}
}

// Page returns --page-size.
func (sz *Sizing) Page() engine.Bound {
	return engine.Bound{Value: sz.capacity.PageSize, Flag: "--page-size", Name: "page size"}
}

// Capacity returns SGLang's pool as it sizes and logs it.
func (sz *Sizing) Capacity() Capacity { return sz.capacity }

// Starts reports whether SGLang starts the server: the weights load in
// what is free after distributed init, and the pool holds a request.
func (sz *Sizing) Starts() (bool, string) { return sz.capacity.Starts, sz.capacity.Failure }

// Ledger returns the reference's items of s sequences of t tokens on
// stage i.
func (sz *Sizing) Ledger(i int, s, t uint64) []budget.Item {
	return sz.Ref.EvaluateStage(i, s, t).Items
}

// Command returns the launch line (see [Command]).
func (sz *Sizing) Command() string {
	return Command(sz.Model.Name, sz.Model.Revision(), sz.Ref.Serve)
}

// Section returns what a report says of the server in SGLang's words.
func (sz *Sizing) Section() engine.Section { return section{sz} }

// gpus is the devices the server takes.
func (sz *Sizing) gpus() uint64 {
	r := sz.Ref.Serve
	return r.TPSize * r.PPSize * r.DPSize
}

// Advise searches single changes of the server's flags that make t fit,
// each checked on a fresh sizing of the changed server (it fits, SGLang
// starts it and schedules t.Seqs at once): the fraction (the nearest that
// fits), a shorter context (when t is at the context length), an fp8 KV
// cache, more tensor ranks.
func (sz *Sizing) Advise(t engine.Target) (engine.Advice, error) {
	r := sz.Ref.Serve
	adv := engine.Advice{}
	check := func(s Serve, tokens uint64) (budget.Footprint, uint64, bool) {
		z, err := size(sz.Model, sz.Class, s, r.Profile)
		if err != nil || tokens > z.Ref.Serve.ContextLength {
			return budget.Footprint{}, 0, false
		}
		fp := z.plan.Evaluate(t.Seqs, tokens)
		return fp, z.gpus(), fp.Fits() && z.capacity.Starts && t.Seqs <= max(z.Ref.MaxRunningRequests(), 1)
	}
	add := func(flags, why string, fp budget.Footprint, gpus uint64) {
		adv.Suggestions = append(adv.Suggestions, engine.Suggestion{Flags: flags, Why: why, GPUs: gpus, At: fp})
	}
	base := sz.given
	base.AllowLongContext = r.AllowLongContext
	base.JITDeepGEMM = r.JITDeepGEMM

	// The fraction, in SGLang's steps of 0.01: the nearest that fits.
	adv.Searched = append(adv.Searched, "--mem-fraction-static 0.01 to 0.99 by 0.01")
	best, bestFP, bestGPUs := 0.0, budget.Footprint{}, uint64(0)
	for i := 1; i <= 99; i++ {
		m := float64(i) / 100
		s := base
		s.MemFractionStatic = m
		if fp, gpus, ok := check(s, t.Tokens); ok && (best == 0 || math.Abs(m-r.MemFractionStatic) < math.Abs(best-r.MemFractionStatic)) {
			best, bestFP, bestGPUs = m, fp, gpus
		}
	}
	if best > 0 {
		add("--mem-fraction-static "+strconv.FormatFloat(best, 'f', -1, 64), "the nearest fraction that fits", bestFP, bestGPUs)
	}

	// A shorter context, at this fraction.
	if t.Tokens == r.ContextLength {
		adv.Searched = append(adv.Searched, fmt.Sprintf("--context-length below %d at this fraction", r.ContextLength))
		if ans, err := budget.MaxLength(sz.plan, t.Seqs, r.ContextLength); err == nil && ans.Fits {
			s := base
			s.MemFractionStatic = r.FractionAsGiven
			s.ContextLength = ans.Value
			if fp, gpus, ok := check(s, ans.Value); ok {
				add(fmt.Sprintf("--context-length %d", ans.Value), fmt.Sprintf("%d sequence(s) of %d tokens fit the pool", t.Seqs, ans.Value), fp, gpus)
			}
		}
	}

	// An fp8 KV cache halves a 16-bit cell.
	if r.KVDtypeBytes > 1 {
		adv.Searched = append(adv.Searched, "--kv-cache-dtype fp8_e4m3")
		s := base
		s.KVCacheDtype = "fp8_e4m3"
		if fp, gpus, ok := check(s, t.Tokens); ok {
			add("--kv-cache-dtype fp8_e4m3", "half the KV cell", fp, gpus)
		}
	}

	// More tensor ranks divide the weights and the KV heads.
	var tps []string
	for tp := r.TPSize * 2; tp <= 8; tp *= 2 {
		tps = append(tps, strconv.FormatUint(tp, 10))
		s := base
		s.TPSize = tp
		if fp, gpus, ok := check(s, t.Tokens); ok {
			add(fmt.Sprintf("--tp-size %d", tp), fmt.Sprintf("the weights over %d ranks", tp), fp, gpus)
			break
		}
	}
	if len(tps) > 0 {
		adv.Searched = append(adv.Searched, "--tp-size "+strings.Join(tps, ", "))
	}
	return adv, nil
}

// stageOf is stage i's sharding under r, as NewReference completes it.
func stageOf(r Resolved, i int) model.Sharding {
	st := r.Stages[i]
	st.TP, st.DtypeBytes, st.Quant = r.TPSize, r.DtypeBytes, r.Quant
	return st
}

// weightsOf says where SGLang's weights per rank come from on stage
// binding: loaded is SGLang's load there (from config.json: the tensors,
// the rotary tables, the allocator's segments). A checkpoint's tensors are
// not charged; its figure is the same load with the checkpoint's tensors
// in place of config.json's.
func (sz *Sizing) weightsOf(binding int, loaded uint64) engine.Weights {
	m := sz.Model
	st := stageOf(sz.Ref.Serve, binding)
	w := engine.Weights{From: "config", Description: "derived from config.json", PipelineStage: binding, DerivedBytes: loaded}
	text := func() {
		if w.CheckpointBytes == nil {
			w.Text = []string{fmt.Sprintf("weights %s: %s per GPU", w.Description, engine.GiBAndBytes(w.DerivedBytes))}
			return
		}
		w.Text = []string{fmt.Sprintf("weights %s: %s per GPU; with the checkpoint's tensors: %s (%+.2f %%)",
			w.Description, engine.GiBAndBytes(w.DerivedBytes), engine.GiBAndBytes(*w.CheckpointBytes), w.DifferencePercent)}
	}
	if m.Checkpoint == nil {
		w.Description += " (" + m.NoCheckpoint + ")"
		text()
		return w
	}
	if used, why := model.UsesCheckpoint(m.Arch, st); !used {
		w.Description += " (checkpoint " + m.Checkpoint.String() + " not counted: " + why + ")"
		text()
		return w
	}
	w.Description += " (SGLang's load is sized from config.json; checkpoint " + m.Checkpoint.String() + " shown beside it)"
	ck := budget.SatAdd(budget.SatSub(loaded, budget.ItemBytes(model.Weights(m.Arch, st))), budget.ItemBytes(model.RankWeights(m.Arch, st)))
	w.CheckpointBytes = &ck
	w.DifferencePercent = engine.PercentOver(ck, w.DerivedBytes)
	for _, s := range m.Notes.Skipped {
		w.Skipped = append(w.Skipped, engine.Skipped{Reason: s.Reason, Count: s.Count})
	}
	w.Unknown = m.Notes.Unknown
	if math.Abs(w.DifferencePercent) > engine.DifferenceWarnPercent {
		w.Warnings = append(w.Warnings, fmt.Sprintf("the checkpoint's weights, %s per GPU, differ by %+.2f %% from those derived from config.json, %s, which size SGLang's load: model_type %s's rules miss something",
			engine.GiBAndBytes(ck), w.DifferencePercent, engine.GiBAndBytes(w.DerivedBytes), m.Arch.ModelType))
	}
	text()
	return w
}
