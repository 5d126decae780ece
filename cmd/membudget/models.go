package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"

	"membudget"
	"membudget/budget"
	"membudget/engine/vllm"
	"membudget/model"
	"membudget/model/hub"
)

// getenv reads the environment for the Hugging Face settings (HF_HUB_CACHE,
// HF_TOKEN, HF_HUB_OFFLINE, ...). Tests replace it, so that no test reads
// the user's cache or token or reaches the Hub.
var getenv = os.Getenv

// resolver is the --model resolver: the environment's Hugging Face
// settings, and the configs shipped in the binary.
func resolver() (hub.Resolver, error) {
	r, err := hub.FromEnv(getenv)
	if err != nil {
		return r, err
	}
	r.Shipped = membudget.ModelConfig
	r.ShippedIDs = membudget.ModelNames()
	r.ShippedQuantConfig = membudget.ModelQuantConfig
	return r, nil
}

// resolvedModel is --model resolved and parsed, with its checkpoint's
// tensors attached to the architecture when it has a checkpoint whose
// names its family's rules read.
type resolvedModel struct {
	// name is what the vllm serve line names: the model id, or the path
	// given.
	name string
	hub  *hub.Model
	arch *model.Arch
	// checkpoint is the checkpoint attached to arch; nil when the weights
	// are derived from config.json, noCheckpoint then says why.
	checkpoint   *hub.Checkpoint
	noCheckpoint string
	notes        model.CheckpointNotes
	// quantConfig is the hf_quant_config.json the quantization was read
	// from; "" when there is none, or config.json declares its own.
	quantConfig string
	// warnings are things that did not stop the resolution, for stderr.
	warnings []string
	// comp compiles the model's vLLM serves (see compiler).
	comp         *vllm.Compiler
	compilerOnce sync.Once
}

// resolveModel resolves spec as hub does (a path, a shipped model, the
// Hugging Face cache, the Hub), parses its config.json with the
// hf_quant_config.json beside it when config.json declares no quantization
// (as vLLM reads them), and reads its checkpoint's headers. Every error
// names --model; a missing checkpoint is not one: the weights are then
// derived from config.json.
func resolveModel(spec string) (*resolvedModel, error) {
	r, err := resolver()
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	ctx := context.Background()
	m, err := r.Resolve(ctx, spec)
	if err != nil {
		var re *hub.ResolveError
		if errors.As(err, &re) && re.Err == nil || errors.Is(err, hub.ErrOffline) {
			return nil, fmt.Errorf("%w ('membudget models' lists the shipped and cached models)", err)
		}
		return nil, err
	}
	opts, quantPath, err := hfQuantOptions(ctx, m)
	if err != nil {
		return nil, fmt.Errorf("--model %q: %w", spec, err)
	}
	a, err := model.ParseConfig(m.Path, m.Config, opts...)
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	rm := &resolvedModel{name: m.RepoID, hub: m, arch: a, warnings: m.Warnings, quantConfig: quantPath}
	if rm.name == "" {
		rm.name = spec
	}
	ck, err := m.Tensors(ctx)
	switch {
	case errors.Is(err, hub.ErrNoCheckpoint):
		rm.noCheckpoint = "no safetensors checkpoint beside config.json"
		if m.Source.Kind == hub.SourceShipped {
			rm.noCheckpoint = "a shipped config.json has no checkpoint beside it"
		}
	case errors.Is(err, hub.ErrOffline):
		rm.noCheckpoint = "the checkpoint's headers are not in the Hugging Face cache and HF_HUB_OFFLINE=1"
	case err != nil:
		return nil, fmt.Errorf("--model %q: reading the checkpoint: %w", spec, err)
	default:
		rm.warnings = append(rm.warnings, ck.Warnings...)
		notes, err := model.AttachCheckpoint(a, &model.Checkpoint{Name: ck.String(), Tensors: ck.Tensors})
		if err != nil {
			rm.noCheckpoint = "the checkpoint (" + ck.String() + ") was not read: " + err.Error()
			rm.warnings = append(rm.warnings, "weights derived from config.json: "+rm.noCheckpoint)
			break
		}
		rm.checkpoint, rm.notes = ck, notes
		if n := len(notes.Unknown); n > 0 {
			rm.warnings = append(rm.warnings, fmt.Sprintf("%d checkpoint tensor(s) that model_type %s's rules do not name, counted whole on every rank: %s",
				n, a.ModelType, listSome(notes.Unknown, 5)))
		}
	}
	return rm, nil
}

// hfQuantOptions reads m's hf_quant_config.json (see
// [hub.Model.HFQuantConfig]) for model.ParseConfig, and says in m's source
// that the quantization came from it. Offline, one that is not in the
// cache is none, as vLLM reads it offline
// (vllm/transformers_utils/repo_utils.py, list_repo_files), and the source
// says so. path is the file read, "" when none was.
func hfQuantOptions(ctx context.Context, m *hub.Model) (opts []model.Option, path string, err error) {
	data, path, found, err := m.HFQuantConfig(ctx)
	switch {
	case errors.Is(err, hub.ErrOffline):
		m.Source.Description += "; no " + hub.QuantConfigFile + " in the cache (offline: read as none, as vLLM does)"
		return nil, "", nil
	case err != nil:
		return nil, "", fmt.Errorf("reading %s: %w", hub.QuantConfigFile, err)
	case !found:
		return nil, "", nil
	}
	m.Source.Description += "; quantization from " + hub.QuantConfigFile
	return []model.Option{model.WithHFQuantConfig(path, data)}, path, nil
}

// listSome joins up to n names and says how many more there are.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

// sourceJSON is where --model's config.json came from.
type sourceJSON struct {
	// Kind is path, shipped, cache or hub.
	Kind        string `json:"kind"`
	Description string `json:"description"`
	Config      string `json:"config"`
	Revision    string `json:"revision,omitempty"`
	Commit      string `json:"commit,omitempty"`
	// QuantConfig is the hf_quant_config.json the quantization was read
	// from (ModelOpt's, when config.json declares none).
	QuantConfig string `json:"quant_config,omitempty"`
}

func (rm *resolvedModel) source() sourceJSON {
	m := rm.hub
	return sourceJSON{Kind: string(m.Source.Kind), Description: m.Source.Description, Config: m.Path, Revision: m.Revision, Commit: m.Commit,
		QuantConfig: rm.quantConfig}
}

// servedRevision is the --revision the vllm serve line gives: the revision
// the model was resolved at, "" for a path, a shipped model or the default
// (main), which vLLM loads without one.
func (rm *resolvedModel) servedRevision() string {
	if rm.hub.Revision == hub.DefaultRevision {
		return ""
	}
	return rm.hub.Revision
}

// takeRevision takes --revision out of the arguments of a pasted server
// line (named line in messages; vLLM's as vllmArgs spells them, or
// SGLang's), for atRevision once the model is known.
func takeRevision(args []string, line string) (rest []string, revision string, err error) {
	for i := 0; i < len(args); i++ {
		value, ok := strings.CutPrefix(args[i], "--revision=")
		switch {
		case ok:
		case args[i] != "--revision":
			rest = append(rest, args[i])
			continue
		case i+1 == len(args) || strings.HasPrefix(args[i+1], "-"):
			return nil, "", fmt.Errorf("--revision in %s needs a value: a branch, tag or commit", line)
		default:
			i++
			value = args[i]
		}
		if revision != "" && value != revision {
			return nil, "", fmt.Errorf("%s gives --revision twice: %s and %s", line, revision, value)
		}
		revision = value
	}
	return rest, revision, nil
}

// atRevision points f.model at a pasted line's --revision: org/name
// becomes org/name@revision, resolved at it and printed with it. vLLM's
// default, main, changes nothing (a shipped model still answers); a path
// has no revisions (transformers ignores one for a local directory), so
// the flag is listed as ignored; a --model at another revision is an
// error.
func (f *serveFlags) atRevision(revision, line string) error {
	if revision == "" || f.model == "" {
		return nil
	}
	if err := hub.CheckRevision(revision); err != nil {
		return fmt.Errorf("--revision in %s: %w", line, err)
	}
	if hub.IsPath(f.model) {
		f.ignored = append(f.ignored, "--revision "+revision)
		return nil
	}
	if _, at, ok := strings.Cut(f.model, "@"); ok {
		if at != revision {
			return fmt.Errorf("--model %s and %s's --revision %s name two revisions", f.model, line, revision)
		}
		return nil
	}
	if revision != hub.DefaultRevision {
		f.model += "@" + revision
	}
	return nil
}

// weightsJSON says where the weights per rank came from and, when a
// checkpoint was read, how they compare with those derived from
// config.json, on the pipeline stage that binds.
type weightsJSON struct {
	// From is "checkpoint" or "config".
	From        string `json:"from"`
	Description string `json:"description"`
	// CheckpointBytes is absent when no checkpoint was read.
	CheckpointBytes   *uint64       `json:"checkpoint_bytes,omitempty"`
	DerivedBytes      uint64        `json:"derived_bytes"`
	DifferencePercent float64       `json:"difference_percent"`
	PipelineStage     int           `json:"pipeline_stage"`
	Skipped           []skippedJSON `json:"skipped,omitempty"`
	Unknown           []string      `json:"unknown,omitempty"`
	Warnings          []string      `json:"warnings,omitempty"`
}

type skippedJSON struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// differenceWarnPercent is the difference between the checkpoint's weights
// and those derived from config.json above which the family's rules are
// taken to miss something (issue #11): the two count the same tensors, so
// they agree to the byte for a checkpoint shaped as its config says.
const differenceWarnPercent = 1.0

// weightsOf compares the weights per rank from the checkpoint with those
// derived from config.json, stage by stage, under ref's serve; binding is
// the stage the footprint reports.
func (rm *resolvedModel) weightsOf(r vllm.Resolved, binding int) weightsJSON {
	w := weightsJSON{From: "config", Description: "derived from config.json", PipelineStage: binding}
	type figures struct{ checkpoint, derived uint64 }
	var stages []figures
	for i := range r.Stages {
		st := stageOf(r, i)
		stages = append(stages, figures{checkpoint: itemBytes(model.RankWeights(rm.arch, st)), derived: itemBytes(model.Weights(rm.arch, st))})
	}
	if binding < len(stages) {
		w.DerivedBytes = stages[binding].derived
	}
	if rm.checkpoint == nil {
		w.Description += " (" + rm.noCheckpoint + ")"
		return w
	}
	used, why := model.UsesCheckpoint(rm.arch, stageOf(r, 0))
	if !used {
		w.Description += " (checkpoint " + rm.checkpoint.String() + " not counted: " + why + ")"
		return w
	}
	w.From, w.Description = "checkpoint", "checkpoint: "+rm.checkpoint.String()
	for _, s := range rm.notes.Skipped {
		w.Skipped = append(w.Skipped, skippedJSON{Reason: s.Reason, Count: s.Count})
	}
	w.Unknown = rm.notes.Unknown
	if binding < len(stages) {
		ck := stages[binding].checkpoint
		w.CheckpointBytes = &ck
		w.DifferencePercent = percentOver(ck, w.DerivedBytes)
	}
	for i, s := range stages {
		d := percentOver(s.checkpoint, s.derived)
		if math.Abs(d) <= differenceWarnPercent {
			continue
		}
		on := ""
		if len(stages) > 1 {
			on = fmt.Sprintf(" on pipeline stage %d", i+1)
		}
		w.Warnings = append(w.Warnings, fmt.Sprintf("the checkpoint's weights%s, %s per GPU, differ by %+.2f %% from those derived from config.json, %s: model_type %s's rules miss something",
			on, bytesString(s.checkpoint), d, bytesString(s.derived), rm.arch.ModelType))
	}
	return w
}

// stageOf is stage i's sharding under r, as NewReference completes it.
func stageOf(r vllm.Resolved, i int) model.Sharding {
	st := r.Stages[i]
	st.TP, st.ExpertRanks, st.DtypeBytes, st.Quant = r.TensorParallelSize, r.ExpertRanks, r.DtypeBytes, r.Quant
	return st
}

// percentOver is how far a is from b, in per cent of b.
func percentOver(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return math.Round((float64(a)-float64(b))/float64(b)*1e6) / 1e4
}

func itemBytes(items []budget.Item) uint64 {
	var n uint64
	for _, it := range items {
		n = budget.SatAdd(n, it.Bytes)
	}
	return n
}

// writeWarnings prints what did not stop a command on stderr.
func writeWarnings(w io.Writer, cmd string, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "membudget %s: warning: %s\n", cmd, s)
	}
}
