package vllm

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"membudget/budget"
	"membudget/engine"
	"membudget/internal/shell"
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

// Advise searches what would make t fit and vLLM start (see [Search]):
// first what lets vLLM start a serve it refuses, then, when the footprint
// itself does not fit, every lever, keeping only the changes vLLM starts.
// When no suggestion holds t in full, the advice names the plan that
// searches further.
func (sz *Sizing) Advise(t engine.Target) (engine.Advice, error) {
	r := sz.Serve
	found, err := Search{Arch: sz.Model.Arch, Class: sz.Class, Profile: r.Profile, Compiler: compilerOf(sz.Model)}.Advise(r.Serve, t)
	if err != nil {
		return engine.Advice{}, err
	}
	adv := engine.Advice{Suggestions: sz.startFixes(t), Searched: found.Searched}
	for _, sg := range found.Suggestions {
		if why := sz.refusalOf(sg.Serve); why != "" {
			continue // it fits the footprint, and vLLM still refuses it
		}
		if slices.ContainsFunc(adv.Suggestions, func(have engine.Suggestion) bool { return have.Flags == sg.Flags }) {
			continue
		}
		numerics := ""
		if sg.Online {
			numerics = OnlineFP8Numerics
		}
		adv.Suggestions = append(adv.Suggestions, engine.Suggestion{Flags: sg.Flags, Why: sg.Why, GPUs: sg.GPUs, At: sg.At, Holds: sg.Holds, Numerics: numerics})
	}
	if len(adv.Suggestions) == 0 {
		if one := sz.plan.Evaluate(1, 1); !one.Fits() {
			adv.Notes = append(adv.Notes, fmt.Sprintf("one sequence of one token: the fixed part (weights %s, activation and sampler %s) leaves %s",
				engine.GiB(one.Terms[budget.TermWeights]), engine.GiB(one.Terms[budget.TermActivation]+one.Terms[budget.TermSampler]), shortfall(one)))
		}
	}
	if !slices.ContainsFunc(adv.Suggestions, func(sg engine.Suggestion) bool { return sg.Holds }) {
		adv.Plan = sz.planCommand(t)
		adv.Notes = append(adv.Notes, fmt.Sprintf("membudget plan searches every class, tensor x pipeline x data ranks up to %d GPUs (tensor ranks within a node of %d), the checkpoint's weights (and online fp8 for an unquantized one), KV auto and fp8, at util %v or each class's ceiling, and ranks what holds %d sequence(s) of %d tokens:",
			planGPUs, engine.DefaultGPUsPerNode, r.Profile.DefaultUtil, t.Seqs, t.Tokens))
	}
	return adv, nil
}

// OnlineFP8Numerics is what an advice says of --quantization fp8 on an
// unquantized checkpoint.
const OnlineFP8Numerics = "--quantization fp8 has vLLM quantize the weights to fp8 as it loads them, which changes the model's numerics: check its quality before serving it"

// planGPUs is the GPUs the plan an advice prints searches up to: 4 nodes
// of 8, as the advice's own ranks reach (TP 8 x PP 4).
const planGPUs = 32

// planCommand is the `membudget plan` command that searches every class for
// t under the sizing's vLLM: the model at its revision, the release when
// not main, the long-length allowance when the serve has it.
func (sz *Sizing) planCommand(t engine.Target) string {
	m := sz.Model.Name
	if rev := sz.Model.Revision(); rev != "" {
		m += "@" + rev
	}
	parts := []string{"membudget plan --model", shell.Quote(m), fmt.Sprintf("--length %d --concurrency %d --max-gpus %d", t.Tokens, t.Seqs, planGPUs)}
	if p := sz.Serve.Profile; !p.Main {
		parts = append(parts, "--vllm-version", p.Name)
	}
	if sz.Serve.AllowLongMaxModelLen {
		parts = append(parts, "--allow-long-max-model-len")
	}
	return strings.Join(parts, " ")
}

// refusalOf is why vLLM refuses serve s of the sizing's model and class,
// "" when it starts it, or the setting error when it refuses a setting.
func (sz *Sizing) refusalOf(s Serve) string {
	return startRefusal(compilerOf(sz.Model), s, sz.Class, sz.Serve.Profile)
}

// startFixes are the changes that let vLLM start a serve it refuses, each
// checked on the serve recompiled with it (vLLM starts it, and the target
// fits): --max-model-len at vLLM's own estimate when the target's length
// is within it, and --max-num-seqs at the Mamba cache blocks (fewer
// sequences shrink the profile run, so the blocks do not fall).
func (sz *Sizing) startFixes(t engine.Target) []engine.Suggestion {
	r, c := sz.Serve, sz.capacity
	var fixes []engine.Suggestion
	try := func(s Serve, flags string, why func(Capacity) string) {
		k, plan, err := compilerOf(sz.Model).compile(s, sz.Class, r.Profile)
		if err != nil {
			return // a serve vLLM refuses: no suggestion
		}
		nc := k.capacity(plan)
		f := plan.Evaluate(t.Seqs, t.Tokens)
		if nc.Refusal(k.r.MaxModelLen, k.r.MaxNumSeqs) != "" || !f.Fits() {
			return
		}
		fixes = append(fixes, engine.Suggestion{Flags: flags, Why: why(nc), GPUs: sz.gpus(), At: f, Holds: true})
	}
	if !c.Starts && c.EstimatedMaxModelLen >= t.Tokens && c.EstimatedMaxModelLen > 0 {
		s := r.Serve
		s.MaxModelLen, s.AutoMaxModelLen = c.EstimatedMaxModelLen, false
		try(s, fmt.Sprintf("--max-model-len %d", c.EstimatedMaxModelLen), func(Capacity) string {
			return "vLLM's estimated maximum model length: the longest one request of which fits the KV cache"
		})
	}
	if c.SeqsOverStateBlocks && c.StateBlocks >= t.Seqs && c.StateBlocks > 0 {
		s := r.Serve
		s.MaxNumSeqs = c.StateBlocks
		try(s, fmt.Sprintf("--max-num-seqs %d", c.StateBlocks), func(nc Capacity) string {
			return fmt.Sprintf("the Mamba cache blocks: every running sequence holds one; vLLM then has %d", nc.StateBlocks)
		})
	}
	return fixes
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
