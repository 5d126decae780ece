package vllm

import (
	"fmt"
	"math"
	"sync"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/hub"
)

// Sizing is one vLLM serve sized for a model on a device class: the
// resolved serve, its compiled plan and what vLLM's startup reports of its
// KV cache. It is membudget's [engine.Sizing] for vLLM, and an
// [engine.Advisor]; it is safe for concurrent use.
type Sizing struct {
	Model *hub.Loaded
	Class budget.Class
	// Serve is the serve with every default of its profile applied.
	Serve *Resolved

	plan     *budget.Plan
	check    kvCheck
	capacity Capacity
	// longestGiven is, for a refused serve whose batched tokens follow
	// its length, the longest length the serve as given starts (see
	// [Sizing.LongestStart]); 0 otherwise.
	longestGiven uint64
	// pasted is what the command read beside the flags, for the report.
	pasted engine.Pasted

	refOnce sync.Once
	ref     *Reference
	refErr  error

	weightsOnce sync.Once
	weights     []stageFigures
}

// stageFigures are one stage's weights per GPU: from the checkpoint's
// tensors, and derived from config.json.
type stageFigures struct{ checkpoint, derived uint64 }

// compilerKey is the key of a model's vLLM compiler in its memo.
type compilerKey struct{}

// compilerOf is m's vLLM compiler, made once per loaded model: the serves
// of one model share what depends only on its sharding.
func compilerOf(m *hub.Loaded) *Compiler {
	return m.Memo(compilerKey{}, func() any { return NewCompiler(m.Arch) }).(*Compiler)
}

// Size sizes serve s of model m on class c under profile p: m's revision
// is the serve's --revision, and what depends on the model alone is
// compiled once per loaded model. A setting vLLM refuses is a
// *engine.SettingError naming vLLM's flag.
func Size(m *hub.Loaded, c budget.Class, s Serve, p Profile) (*Sizing, error) {
	return size(m, c, s, p)
}

func size(m *hub.Loaded, c budget.Class, s Serve, p Profile) (*Sizing, error) {
	s.Revision = m.Revision()
	cp := compilerOf(m)
	// One allocation holds the sizing and its resolved serve, which the
	// check and Serve share.
	sz := &Sizing{Model: m, Class: c}
	plan, err := cp.compileInto(&sz.check, s, c, p)
	if hubDraftUnread(err) {
		// Read only once every other check has passed.
		if err := preloadHubDraft(m, s); err != nil {
			return nil, err
		}
		plan, err = cp.compileInto(&sz.check, s, c, p)
	}
	if err != nil {
		return nil, err
	}
	sz.Serve, sz.plan = &sz.check.r, plan
	sz.capacity = sz.check.capacity(plan)
	if !sz.capacity.Starts && sz.capacity.LongestStarting > 0 {
		sz.capacity.LongestStarting = longestStarting(cp, sz.Serve.Serve, c, p, sz.capacity.LongestStarting)
	}
	if sz.lengthRefused() && sz.batchFollowsLength(s) {
		sz.longestGiven = longestFollowing(cp, s, c, p, sz.capacity.LongestStarting, sz.Serve.MaxModelLen)
	}
	return sz, nil
}

// batchFollowsLength says the V1 serve s, as given, prefills without
// chunking and leaves its batched tokens to vLLM, which raises them to
// max_model_len (chunked.go wholePromptBatch; pooling.go
// wholeSequenceBatch): a shorter length then also shrinks the profile's
// batch, and the longest length s starts is beyond the one its printed
// line (whose --max-num-batched-tokens pins the refused length's batch)
// starts.
func (sz *Sizing) batchFollowsLength(s Serve) bool {
	return sz.Serve.Profile.Era == V1 && sz.Serve.ChunkedOff && s.MaxNumBatchedTokens == 0
}

// lengthRefused says vLLM refuses the serve for its length's sake: one
// request of max_model_len does not fit the KV cache, or nothing is left
// for the KV cache, which a shorter length whose batch shrinks with it
// may leave; not for its Mamba state blocks or the device's free memory.
func (sz *Sizing) lengthRefused() bool {
	c := sz.capacity
	return !c.Starts && !c.OverFree && !c.SeqsOverStateBlocks && (c.LongestStarting > 0 || c.AvailableBytes == 0)
}

// longestFollowing is the longest max_model_len the serve s, as given,
// starts, between lo (the length its printed line starts, found by
// longestStarting; 0 when none was found) and hi (the refused length),
// each length compiled with s's settings, so that its batched tokens
// follow the length as vLLM defaults them: it bisects the lengths from lo
// (from 1 when none was found) to hi-1 with [budget.LargestFitting],
// which checks lo first; 0 when no length starts.
func longestFollowing(cp *Compiler, s Serve, c budget.Class, p Profile, lo, hi uint64) uint64 {
	if lo >= hi {
		return 0
	}
	l, ok, _ := budget.LargestFitting(max(lo, 1), hi-1, func(l uint64) (bool, error) {
		_, starts := capacityAt(cp, s, c, p, l)
		return starts, nil
	})
	if !ok {
		return 0
	}
	return l
}

// longestStarting checks est, the longest max_model_len vLLM's check
// estimates it starts, on the serve of the printed launch line compiled at
// that length (every setting it pins kept: a user edits that line), and
// returns a length that starts, 0 when none does: the length also sizes
// what the estimate held fixed. The V0 engine batches a whole prompt when
// chunked prefill is off, as it is at 32768 tokens or fewer
// (resolveV0Batch), so the line's --max-num-batched-tokens, sized for the
// longest length, must hold a whole prompt of the shorter one
// (Llama-3.1-8B on an L4 under 0.8.5:v0: estimated 29,424 tokens at
// 131,072, where the line's 2,048 batched tokens allow 2,048). It steps
// down to each tried serve's own estimate until one starts, then bisects
// between it and the last that did not (or below the last tried when none
// did), each length checked on its own serve.
func longestStarting(cp *Compiler, line Serve, c budget.Class, p Profile, est uint64) uint64 {
	// As the printed line has it: its other flags kept.
	at := func(l uint64) (Capacity, bool) { return capacityAt(cp, line, c, p, l) }
	// lo starts (0: none found), hi does not; starting is monotone in the
	// length within a batch regime, which is where the estimates lead.
	lo, hi := uint64(0), est
	for i := range 4 {
		capy, ok := at(est)
		if ok {
			if i == 0 {
				return est // vLLM's own estimate starts
			}
			lo = est
			break
		}
		hi = est
		if capy.LongestStarting == 0 || capy.LongestStarting >= est {
			break
		}
		est = capy.LongestStarting
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if _, ok := at(mid); ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// capacityAt is serve s compiled at max_model_len l, its other settings
// kept: its capacity, and whether vLLM starts it (false where it does not
// compile). longestStarting and longestFollowing each try lengths so.
func capacityAt(cp *Compiler, s Serve, c budget.Class, p Profile, l uint64) (Capacity, bool) {
	s.MaxModelLen, s.AutoMaxModelLen = l, false
	k, plan, err := cp.compile(s, c, p)
	if err != nil {
		return Capacity{}, false
	}
	capy := k.capacity(plan)
	return capy, capy.Starts
}

// Plan returns the compiled footprint.
func (sz *Sizing) Plan() *budget.Plan { return sz.plan }

// Seqs returns --max-num-seqs.
func (sz *Sizing) Seqs() engine.Bound {
	return engine.Bound{Value: sz.Serve.MaxNumSeqs, Flag: "--max-num-seqs"}
}

// Len returns --max-model-len.
func (sz *Sizing) Len() engine.Bound {
	return engine.Bound{Value: sz.Serve.MaxModelLen, Flag: "--max-model-len"}
}

// Page returns --block-size.
func (sz *Sizing) Page() engine.Bound {
	return engine.Bound{Value: sz.Serve.BlockSize, Flag: "--block-size", Name: "block size"}
}

// Capacity returns what vLLM's startup reports of the serve's KV cache.
func (sz *Sizing) Capacity() Capacity { return sz.capacity }

// Starts reports whether vLLM starts the serve: one request of
// max_model_len fits the KV cache, and max_num_seqs is within a hybrid
// model's Mamba cache blocks (see [Capacity.Refusal]).
func (sz *Sizing) Starts() (bool, string) {
	why := sz.capacity.Refusal(sz.Serve.MaxModelLen, sz.Serve.MaxNumSeqs)
	return why == "", why
}

var _ engine.LongestStarter = (*Sizing)(nil)

// LongestStart returns the longest --max-model-len vLLM starts (its
// estimated maximum model length, or a later pipeline stage's when less:
// [Capacity.LongestStarting]) when the serve is refused because one
// request of --max-model-len does not fit the KV cache, ok false for
// any other refusal or none: the Mamba state blocks, or no memory left
// for the KV cache at all. Where the batched tokens follow the length
// (--no-enable-chunked-prefill with --max-num-batched-tokens left to
// vLLM, batchFollowsLength) it is the longest the serve as given starts,
// which the queries size again, also where nothing was left for the KV
// cache at the refused length: vLLM's estimate, made at the refused
// length's batch, is short of it (Llama-3.1-8B at -tp 2 on an L4: 49,296
// estimated at 131,072 tokens, 93,150 starting with its own batch).
func (sz *Sizing) LongestStart() (uint64, bool) {
	c := sz.capacity
	if sz.longestGiven > 0 {
		return sz.longestGiven, true
	}
	if c.Starts || c.OverFree || c.AvailableBytes == 0 || c.LongestStarting == 0 {
		return 0, false
	}
	return c.LongestStarting, true
}

// Reference returns the serve's itemised reference, built on first use.
func (sz *Sizing) Reference() (*Reference, error) {
	sz.refOnce.Do(func() {
		sz.ref, sz.refErr = NewReference(sz.Model.Arch, sz.Serve.Serve, sz.Class, sz.Serve.Profile)
	})
	return sz.ref, sz.refErr
}

// Ledger returns the reference's items of s sequences of t tokens on
// stage i; nil when the reference cannot be built (it can whenever the
// plan could).
func (sz *Sizing) Ledger(i int, s, t uint64) []budget.Item {
	ref, err := sz.Reference()
	if err != nil {
		return nil
	}
	return ref.EvaluateStage(i, s, t).Items
}

// Command returns the `vllm serve` line (see [Command]).
func (sz *Sizing) Command() string { return Command(sz.Model.Name, sz.Serve) }

// Section returns what a report says of the serve in vLLM's words.
func (sz *Sizing) Section() engine.Section { return section{sz} }

// gpus is the devices the serve takes: tensor x pipeline x data ranks.
func (sz *Sizing) gpus() uint64 {
	r := sz.Serve
	return r.TensorParallelSize * r.PipelineParallelSize * max(r.DataParallelSize, 1)
}

// shortfall says which condition f fails and by how much, with the flag
// that lifts it: the ledger over the util budget, the driver's share over
// what the budget leaves of the device, or a budget above the class's
// util_ceiling (which leaves the other two margins positive: naming them
// would read "0.00 GiB over").
func (sz *Sizing) shortfall(f budget.Footprint) string {
	switch f.Failed {
	case budget.OverBudget:
		return engine.GiB(f.BudgetShortfall()) + " over the util budget"
	case budget.OverUtilCeiling:
		lift := fmt.Sprintf("--gpu-memory-utilization %.2f or less", sz.Class.Memory.UtilCeiling)
		if sz.Serve.KVCacheMemoryBytes > 0 {
			// The budget is the other terms plus the pinned KV cache.
			lift = fmt.Sprintf("--kv-cache-memory-bytes %d or less", budget.SatSub(sz.Serve.KVCacheMemoryBytes, budget.SatSub(f.Budget, f.Ceiling)))
		}
		// Failing only the ceiling, the footprint passes the arithmetic
		// (the driver's share fits beside the budget): say so plainly.
		where := "no public log shows " + sz.Class.Name + " running there"
		if m := sz.Class.Memory; m.WithinReached(sz.Serve.GPUMemoryUtilization) {
			// util_reached: a lighter host than the class's started there.
			where = fmt.Sprintf("no public log shows %s's host running there, though a lighter host reached util_reached %.2f (holding at most %s at vLLM's snapshot)",
				sz.Class.Name, m.UtilReached, engine.GiB(m.ReachedHeldBytes(f.Device)))
		}
		return fmt.Sprintf("the util budget %s is %s above the class's util_ceiling %.2f (%s of device memory %s, the largest budget %s is known to run at); "+
			"it is above the evidence, not the arithmetic: the driver's share and what stands beside the budget still leave %s of the device, so vLLM may start it, but %s: %s",
			engine.GiB(f.Budget), engine.GiB(budget.SatSub(f.Budget, f.Ceiling)), sz.Class.Memory.UtilCeiling, engine.GiB(f.Ceiling), engine.GiB(f.Device), sz.Class.Name,
			engine.GiB(f.DriverHeadroom()), where, lift)
	}
	return engine.GiB(f.DriverShortfall()) + " over device memory beside the budget"
}

// stageOf is stage i's sharding under r ([Resolved.rankSharding]).
func stageOf(r *Resolved, i int) model.Sharding { return r.rankSharding(r.Stages[i]) }

// stageWeights are every stage's weights per GPU, from the checkpoint and
// from config.json, computed once.
func (sz *Sizing) stageWeights() []stageFigures {
	sz.weightsOnce.Do(func() {
		a := sz.Model.Arch
		for i := range sz.Serve.Stages {
			st := stageOf(sz.Serve, i)
			sz.weights = append(sz.weights, stageFigures{checkpoint: budget.ItemBytes(model.RankWeights(a, st)), derived: budget.ItemBytes(model.Weights(a, st))})
		}
	})
	return sz.weights
}

// weightsOf compares the weights per GPU from the checkpoint with those
// derived from config.json, stage by stage; binding is the stage the
// footprint reports.
func (sz *Sizing) weightsOf(binding int) engine.Weights {
	m, r := sz.Model, sz.Serve
	w := engine.Weights{From: "config", Description: "derived from config.json", PipelineStage: binding}
	stages := sz.stageWeights()
	if binding < len(stages) {
		w.DerivedBytes = stages[binding].derived
	}
	if m.Checkpoint == nil {
		w.Description += " (" + m.NoCheckpoint + ")"
		w.Text = []string{"weights " + w.Description}
		return w
	}
	if used, why := model.UsesCheckpoint(m.Arch, stageOf(r, 0)); !used {
		w.Description += " (checkpoint " + m.Checkpoint.String() + " not counted: " + why + ")"
		w.Text = []string{"weights " + w.Description}
		return w
	}
	w.From, w.Description = "checkpoint", "checkpoint: "+m.Checkpoint.String()
	for _, s := range m.Notes.Skipped {
		w.Skipped = append(w.Skipped, engine.Skipped{Reason: s.Reason, Count: s.Count})
	}
	w.Unknown = m.Notes.Unknown
	if binding < len(stages) {
		ck := stages[binding].checkpoint
		w.CheckpointBytes = &ck
		w.DifferencePercent = engine.PercentOver(ck, w.DerivedBytes)
	}
	for i, s := range stages {
		d := engine.PercentOver(s.checkpoint, s.derived)
		if math.Abs(d) <= engine.DifferenceWarnPercent {
			continue
		}
		on := ""
		if len(stages) > 1 {
			on = fmt.Sprintf(" on pipeline stage %d", i+1)
		}
		w.Warnings = append(w.Warnings, fmt.Sprintf("the checkpoint's weights%s, %s per GPU, differ by %+.2f %% from those derived from config.json, %s: model_type %s's rules miss something",
			on, engine.GiBAndBytes(s.checkpoint), d, engine.GiBAndBytes(s.derived), m.Arch.ModelType))
	}
	if w.CheckpointBytes == nil {
		w.Text = []string{"weights " + w.Description}
		return w
	}
	on := ""
	if len(stages) > 1 {
		on = fmt.Sprintf(" on pipeline stage %d", w.PipelineStage+1)
	}
	w.Text = []string{fmt.Sprintf("weights %s: %s per GPU%s; derived from config.json: %s (%+.2f %%)",
		w.Description, engine.GiBAndBytes(*w.CheckpointBytes), on, engine.GiBAndBytes(w.DerivedBytes), w.DifferencePercent)}
	for _, s := range w.Skipped {
		w.Text = append(w.Text, fmt.Sprintf("        not loaded by vLLM: %d tensor(s), %s", s.Count, s.Reason))
	}
	return w
}
