package vllm

import (
	"fmt"
	"maps"
	"math"
	"slices"
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
	Serve Resolved

	plan     *budget.Plan
	check    kvCheck
	capacity Capacity
	// ignored and ignoredEnv are the flags and the environment
	// assignments of a pasted line that membudget does not read;
	// allowLong is VLLM_ALLOW_LONG_MAX_MODEL_LEN as read, from where.
	ignored, ignoredEnv      []string
	allowLong, allowLongFrom string

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
	k, plan, err := compilerOf(m).compile(s, c, p)
	if err != nil {
		return nil, err
	}
	return &Sizing{Model: m, Class: c, Serve: k.r, plan: plan, check: k, capacity: k.capacity(plan)}, nil
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

// shortfall says by how much f misses, on the condition that failed.
func shortfall(f budget.Footprint) string {
	if sh := f.BudgetShortfall(); sh > 0 {
		return engine.GiB(sh) + " over the util budget"
	}
	return engine.GiB(f.DriverShortfall()) + " over device memory beside the budget"
}

// stageOf is stage i's sharding under r, as NewReference completes it.
func stageOf(r Resolved, i int) model.Sharding {
	st := r.Stages[i]
	st.TP, st.ExpertRanks, st.DtypeBytes, st.Quant = r.TensorParallelSize, r.ExpertRanks, r.DtypeBytes, r.Quant
	return st
}

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

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
