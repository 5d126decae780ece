package vllm

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget"
	"membudget/budget"
	"membudget/engine"
	"membudget/internal/observed"
	"membudget/internal/shell"
	"membudget/model"
	"membudget/model/logs"
)

// observedNotCUDA are rows whose figures come from a platform plugin's own
// accounting, not vLLM's CUDA worker: nothing of them is predicted.
var observedNotCUDA = map[string]string{
	"107": "vllm-metal plugin: its own KV budget and block size (notes)",
}

// observedRow is a row of corpus/observed/vllm.csv.
type observedRow = observed.Row

// observedTables are corpus/observed's tables, read once for every test.
var observedTables = sync.OnceValues(func() (*observed.Tables, error) {
	return observed.Read("../../corpus/observed")
})

func readObservedTables(t *testing.T) *observed.Tables {
	t.Helper()
	tables, err := observedTables()
	if err != nil {
		t.Fatal(err)
	}
	return tables
}

// rowUint is the whole number a row's cell starts with, 0 when none.
func rowUint(r observedRow, key string) uint64 {
	v, _ := r.Num(key)
	return uint64(v)
}

var releaseInText = regexp.MustCompile(`(?:^|[^0-9.])v?(0\.[0-9]+(?:\.[0-9]+)?)`)

// approximateRelease marks a version cell that guesses or bounds a release
// ("~0.6.5", "v0.6.x", "v0.6.4-era format", "likely 0.8.5", "v0.6.6-0.7
// dev", "0.18/0.19 era") rather than stating one.
var approximateRelease = regexp.MustCompile(`~|\.x\b|era\b|likely|not stated|[0-9]-0\.`)

// observedProfile is the profile a row is sized under, the group its
// errors are gated in, and whether the group is a release the row states:
// the log's version (its engine line or server banner), else the release
// the version column names, with the V0 engine where the log or the column
// says so. A row that states no release is sized under main's rules and
// one older than 0.6 under V0's of 0.7.3, each in a group of its own that
// is reported and not gated.
func observedProfile(r observedRow, l *logs.Log) (p Profile, group string, stated bool) {
	text := r["vllm_version"]
	v1Said := l.Era == logs.EraV1 || strings.Contains(text, "V1")
	v0 := l.Era == logs.EraV0 || strings.Contains(text, "V0")
	spec, approximate := "", false
	if v, err := ParseVersion(l.EngineVersion); err == nil && v.AtLeast(v0_6_0) {
		spec = v.String()
	} else if m := releaseInText.FindStringSubmatch(text); m != nil {
		spec, approximate = m[1], approximateRelease.MatchString(text)
	}
	if v, err := ParseVersion(spec); err == nil && v.Less(Version{0, 6, 4}) && !v1Said {
		v0 = true // before the V1 engine existed
	}
	switch {
	case spec == "" || approximate:
		if v0 {
			return mustProfile("v0"), "V0, release not stated (0.7.3's rules)", false
		}
		return current, "V1, release not stated (main's rules)", false
	case v0:
		if p, err := ProfileFor(spec + ":v0"); err == nil {
			return p, p.Name, true
		}
	}
	if p, err := ProfileFor(spec); err == nil {
		return p, p.Name, true
	}
	if v1Said {
		// A development build numbered before any release (v0.1.devN).
		return current, "V1, release not stated (main's rules)", false
	}
	return mustProfile("v0"), "older than 0.6 (0.7.3's V0 rules)", false
}

// observedClass is the class of a row's GPU and a note, and false when no
// class stands for it.
func observedClass(tables *observed.Tables, r observedRow, catalog budget.Catalog) (budget.Class, string, bool, error) {
	g, ok := tables.GPUOf(r["gpu_model"])
	switch {
	case !ok:
		return budget.Class{}, "GPU not named or no class", false, nil
	case g.Class == "":
		return budget.Class{}, g.Note, false, nil
	}
	class, err := catalog.Load(g.Class)
	return class, g.Note, err == nil, err
}

// setting is the last statement of a setting in the row's log, "" when none.
func setting(l *logs.Log, key string) string {
	if s, ok := l.Setting(key); ok {
		return s.Value
	}
	return ""
}

// observedServe is the row's serve: the table's setting columns, and the
// dtype, KV cache dtype, quantization, eager mode and prefix caching its
// log states (the columns where it states none).
func observedServe(r observedRow, l *logs.Log, m observed.Model) Serve {
	s := Serve{
		GPUMemoryUtilization: rowFloat(r, "gpu_mem_util"),
		MaxModelLen:          rowUint(r, "max_model_len"),
		MaxNumSeqs:           rowUint(r, "max_num_seqs"),
		MaxNumBatchedTokens:  rowUint(r, "max_num_batched_tokens"),
		BlockSize:            rowUint(r, "block_size"),
		TensorParallelSize:   rowUint(r, "tp"),
		PipelineParallelSize: rowUint(r, "pp"),
		Quantization:         m.Quantization,
	}
	if strings.Contains(r["tp"], "EP") || strings.Contains(r["tp"], "expert parallel") || setting(l, "enable_expert_parallel") == "True" {
		s.EnableExpertParallel = true
	}
	dtype := strings.TrimPrefix(setting(l, "dtype"), "torch.")
	if dtype == "" {
		dq := strings.ToLower(r["dtype_quant"])
		switch {
		case strings.HasPrefix(dq, "bf16"), strings.HasPrefix(dq, "bfloat16"):
			dtype = "bfloat16"
		case strings.HasPrefix(dq, "fp16"), strings.HasPrefix(dq, "float16"):
			dtype = "float16"
		}
	}
	s.Dtype = dtype
	if q := setting(l, "quantization"); q == "fp8" && s.Quantization == "" {
		s.Quantization = "fp8"
	}
	if s.MaxNumSeqs == 0 && !nonDefault(l, "max_num_batched_tokens") {
		// vLLM's batch defaults come in pairs (engine/arg_utils.py
		// get_batch_defaults): a defaulted 2048 is the small tier's, whose
		// max_num_seqs is 256; 16384 the large tier's, 1024.
		switch s.MaxNumBatchedTokens {
		case 2048:
			s.MaxNumSeqs = 256
		case 16384:
			s.MaxNumSeqs = 1024
		}
	}
	kv := setting(l, "kv_cache_dtype")
	if kv == "" {
		kv = strings.Fields(r["kv_cache_dtype"] + " auto")[0]
	}
	s.KVCacheDtype = kv
	if setting(l, "enforce_eager") == "True" {
		s.EnforceEager = true
	}
	switch setting(l, "enable_prefix_caching") {
	case "True":
		s.EnablePrefixCaching = engine.On
	case "False":
		s.EnablePrefixCaching = engine.Off
	}
	// The version column names the variable where the serve set it (row
	// 112: "0.26.0 (V1; VLLM_USE_V2_MODEL_RUNNER=0)").
	if m := runnerEnvInText.FindStringSubmatch(r["vllm_version"]); m != nil {
		s.ModelRunnerV2 = engine.On
		if on, _ := pyIntBool(m[1]); !on {
			s.ModelRunnerV2 = engine.Off
		}
	}
	return s
}

var runnerEnvInText = regexp.MustCompile(v2RunnerEnv + `=([0-9]+)`)

// withServeArgs is s with the flags of a row's serve_args cell (those the
// source's command line states, verbatim, where the quoted lines do not)
// applied through the CLI's own parser: each judged by the row's release
// as a command judges it, then parsed by the flag set a command registers
// for them, over s, so that a flag given overrides the column or log
// setting it names and every other setting stays. A flag membudget
// refuses is the refusal. An empty cell leaves s as it is.
func withServeArgs(s Serve, cell string, p Profile) (Serve, error) {
	args, err := shell.Split(cell)
	if err != nil || len(args) == 0 {
		return s, err
	}
	args = Engine{}.Respell(args)
	f := &flagServe{}
	judged := append(slices.Clip(args), "--vllm-version", p.Name)
	for i, a := range args {
		if strings.HasPrefix(a, "-") && !engine.IsNumber(a) {
			if err := f.Judge(judged, i); err != nil {
				return s, err
			}
		}
	}
	fs := flag.NewFlagSet("vllm", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var model, revision string
	f.RegisterFor(fs, &model, args)
	// --model and --revision are the command's own (a pasted line's
	// --revision pins the checkpoint its model is read at): the row's
	// config in models.csv stands for the checkpoint.
	fs.StringVar(&model, "model", "", "")
	fs.StringVar(&revision, "revision", "", "")
	// Registering sets each flag's default: the row's settings go in after
	// it, so that only the flags given move them.
	f.s = s
	if err := fs.Parse(args); err != nil {
		return s, err
	}
	if fs.NArg() > 0 {
		return s, fmt.Errorf("%q: not a flag (give the flags alone, without the model)", fs.Arg(0))
	}
	return f.s, nil
}

// coldCompileCell reads a row's compile_cache cell: "cold" where its source
// shows the start compiled with an empty torch.compile cache (sized as
// membudget's --compile-cache cold, coldcompile.go), "warm" where it shows
// the compiled graph loaded from the cache, each followed by its evidence in
// parentheses; empty where the source does not say, sized warm as
// membudget's default.
func coldCompileCell(cell string) (bool, error) {
	word, _, _ := strings.Cut(strings.TrimSpace(cell), " ")
	if word == "" {
		return false, nil
	}
	var cold bool
	err := (&compileCacheFlag{&cold}).Set(word)
	return cold, err
}

// observedSpec is the --speculative-config a row's log states, as JSON:
// the non-default arguments' dict (every key given) first, else the
// engine config's SpeculativeConfig repr, which states the method, the
// draft and k (vllm/config/speculative.py:1505-1519 at main d18bb7b), read
// whole for the methods [specReprJSON] reads (mtp among them). why says the log states a config that
// cannot be read whole (an excerpt cut inside it, a draft the repr names
// without its keys); "", "" for a serve without speculative decoding.
func observedSpec(l *logs.Log) (spec, why string) {
	said := false
	for _, st := range l.Settings {
		if st.Key != "speculative_config" || st.Literal == logs.LiteralNone || st.Value == "None" {
			continue
		}
		said = true
		if j, ok := pyDictJSON(st.Value); ok {
			return withoutKernelKeys(j), ""
		}
	}
	for _, st := range l.Settings {
		if st.Key != "speculative_config" {
			continue
		}
		if j, ok := specReprJSON(st.Value); ok {
			return j, ""
		}
	}
	if said {
		return "", "the log's speculative_config is cut in the excerpt or names a draft without its keys"
	}
	return "", ""
}

// observedDraft is a speculative draft a row's serve names by Hub id, as
// its source documents it: the config that stands for its config.json and
// the tensors of its checkpoint (corpus/models/drafts/SOURCES.md says
// where each is read).
type observedDraft struct {
	config  string
	tensors []draftTensor
}

// observedDrafts are the drafts rows name by Hub id, by that id. The test
// reads no Hub: it writes each as a directory (config.json and a
// header-only model.safetensors, as specdraft_helpers_test.go writes a test
// draft) and sizes the row's serve with that directory as the draft, as
// vLLM read the Hub's copy.
var observedDrafts = map[string]observedDraft{
	// Row 362. The published checkpoint holds d2t, t2d, fc and lm_head and
	// every drafter weight but embed_tokens, which the drafter takes from
	// the target (SOURCES.md); membudget reads the names of the embedding
	// and the head alone, and sizes the layer from the config, so the
	// layer's tensors are not listed. The head has draft_vocab_size rows
	// (32000) of hidden_size (2560).
	"AngelSlim/Qwen3-4B_eagle3": {
		config: "../../corpus/models/drafts/Tencent__AngelSlim__qwen3-4b-eagle3.json",
		tensors: []draftTensor{
			{"d2t", "I64", []uint64{32000}},
			{"t2d", "BOOL", []uint64{151936}},
			{"fc.weight", "BF16", []uint64{2560, 3 * 2560}},
			{"lm_head.weight", "BF16", []uint64{32000, 2560}},
		},
	},
}

// withObservedDraft is the --speculative-config JSON object spec with its
// "model" replaced by a directory holding the draft, where observedDrafts
// has the Hub id it names; spec as it is otherwise (no speculative
// decoding, a method without a draft, a draft not listed: the last is
// refused by the sizing, which names it).
func withObservedDraft(t *testing.T, spec string) string {
	var m map[string]any
	if spec == "" || json.Unmarshal([]byte(spec), &m) != nil {
		return spec
	}
	id, _ := m["model"].(string)
	d, ok := observedDrafts[id]
	if !ok {
		return spec
	}
	m["model"] = writeDraftDir(t, d.config, d.tensors)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return string(b)
}

// withoutKernelKeys is a --speculative-config JSON object without
// moe_backend, the draft's MoE kernel (vllm/config/speculative.py:117-121):
// the test leaves it out as observedServe leaves out the target's
// --moe-backend, a kernel choice it does not pass for either model.
func withoutKernelKeys(j string) string {
	var m map[string]any
	if json.Unmarshal([]byte(j), &m) != nil {
		return j
	}
	if _, ok := m["moe_backend"]; !ok {
		return j
	}
	delete(m, "moe_backend")
	b, err := json.Marshal(m)
	if err != nil {
		return j
	}
	return string(b)
}

// argsQuoted says the row's quote holds vLLM's "non-default args" line,
// which names every setting the serve was given.
func argsQuoted(l *logs.Log) bool {
	return slices.ContainsFunc(l.Settings, func(st logs.Setting) bool { return st.Source == logs.SourceNonDefaultArgs })
}

// nonDefault says the row's log passes a setting as a non-default argument.
func nonDefault(l *logs.Log, key string) bool {
	for _, st := range l.Settings {
		if st.Key == key && st.Source == logs.SourceNonDefaultArgs {
			return true
		}
	}
	return false
}

// rowFloat is the number a row's cell starts with, 0 when none.
func rowFloat(r observedRow, key string) float64 {
	v, _ := r.Num(key)
	return v
}

const gib = 1 << 30

// loggedValue is a figure a row states, in GiB or a count, with the half
// unit of its rounding and where it was read: "log" (through model/logs),
// "log: torch peak - weights" (V0 0.6.4's total peak), "log: consumed -
// weights + peak activation" (the figure vLLM takes off the budget beside
// the weights, from PR #49208's line), or "column" (the
// table's cell, for a quote that lacks the line: the exceptions that
// model/logs/observed_test.go lists).
type loggedValue struct {
	v, tol float64
	from   string
}

// The memory kinds the test compares, by the names it prints.
var observedKinds = []struct {
	name, column string
	kind         logs.Kind
}{
	{"weights", "weights_gib", logs.KindWeights},
	{"activation", "activation_peak_gib", logs.KindActivationPeak},
	{"non_torch", "non_torch_gib", logs.KindNonTorch},
	{"graph_estimate", "", logs.KindCUDAGraphEstimate},
	{"avail", "kv_cache_gib", logs.KindKVCacheMemory},
}

// loggedFigures reads a row's memory figures through model/logs (the first
// of each kind: rank 0's line, the first stage's under pipeline
// parallelism), and the table's cell where the quote has no such line.
func loggedFigures(r observedRow, l *logs.Log) map[string]loggedValue {
	out := map[string]loggedValue{}
	for _, k := range observedKinds {
		if f, ok := l.First(k.kind); ok {
			b, _ := f.Bytes()
			out[k.name] = loggedValue{float64(b) / gib, float64(f.Tolerance()) / gib, "log"}
			continue
		}
		if k.column == "" {
			continue
		}
		if v, ok := r.Num(k.column); ok {
			out[k.name] = loggedValue{v, 0.005, "column"}
		}
	}
	total, okT := l.First(logs.KindDeviceTotal)
	free, okF := l.First(logs.KindDeviceFree)
	if okT && okF && total.Format == logs.FormatFreeOnDevice && free.Format == logs.FormatFreeOnDevice {
		// What the device holds when vLLM takes its startup snapshot: the
		// driver's context and what tensor parallelism set up before it
		// ("Free memory on device (free/total GiB) on startup").
		tb, _ := total.Bytes()
		fb, _ := free.Bytes()
		out["held_at_startup"] = loggedValue{float64(tb)/gib - float64(fb)/gib, float64(total.Tolerance()+free.Tolerance()) / gib, "log: total - free at startup"}
	}
	if c, ok := l.First(logs.KindConsumed); ok {
		// From vLLM PR #49208 (merged 2026-07-20; the form of the line
		// says which accounting a log ran under, see
		// TestObservedActualUsageForm) the worker takes off the budget the
		// free memory consumed since its startup snapshot (weights,
		// non-torch memory, every persistent torch allocation and what the
		// caching allocator keeps reserved after empty_cache) plus the
		// profile's transient headroom (torch peak - torch allocated after
		// the profile), and logs that headroom plus the CUDA-graph estimate
		// it charges as "peak activation" (vllm/utils/mem_utils.py
		// memory_profiling; vllm/v1/worker/gpu_worker.py
		// determine_available_memory, peak_activation_memory =
		// transient_peak_headroom + cudagraph_memory_estimate_applied, main
		// d18bb7b). Neither is the profile's activation peak (the torch
		// peak increase the earlier accounting charged: a persistent
		// workspace created in the profile run moved from it to the
		// consumed memory), so the line is compared as the one sum both
		// accountings take off the budget beside the weights.
		cb, _ := c.Bytes()
		a, okA := out["activation"]
		if f, ok := l.First(logs.KindActivationWithGraphs); ok {
			// The line's own "peak activation" (its own kind in model/logs).
			b, _ := f.Bytes()
			a, okA = loggedValue{float64(b) / gib, float64(f.Tolerance()) / gib, "log"}, true
		}
		w, okW := out["weights"]
		delete(out, "activation")
		if okA && okW && a.from == "log" && w.from == "log" {
			out["beyond_weights"] = loggedValue{float64(cb)/gib - w.v + a.v, float64(c.Tolerance())/gib + w.tol + a.tol, "log: consumed - weights + peak activation"}
		}
		return out
	}
	// V0 0.6.4 logs the torch peak of weights and activations together.
	if _, ok := out["activation"]; !ok {
		peak, okP := l.First(logs.KindTorchPeak)
		w, okW := out["weights"]
		if okP && okW {
			b, _ := peak.Bytes()
			out["activation"] = loggedValue{float64(b)/gib - w.v, float64(peak.Tolerance())/gib + w.tol, "log: torch peak - weights"}
		}
	}
	return out
}

// loggedCounts is the row's logged KV block count and token count, through
// model/logs, else the table's cells.
func loggedCounts(r observedRow, l *logs.Log) (blocks, tokens uint64) {
	if f, ok := l.First(logs.KindGPUBlocks); ok {
		blocks = uint64(f.Value.Units)
	} else {
		blocks = rowUint(r, "gpu_blocks")
	}
	if f, ok := l.First(logs.KindKVCacheTokens); ok {
		tokens = uint64(f.Value.Units)
	} else {
		tokens = rowUint(r, "kv_cache_tokens")
	}
	return blocks, tokens
}

// observation is one row as the test sees it.
type observation struct {
	id, model, class, group string
	// kind is the device kind the issue's gates are per (see deviceKind).
	kind       string
	stated, v1 bool
	notes      []string
	// why says the row's available KV memory is not predicted from its
	// settings, and why.
	why string
	// Relative errors, NaN when not checked.
	weights, avail, tokens float64
	// termErr is predicted - logged, GiB, by term name.
	termErr map[string]float64
	// blockCheck is "" when not checked, else "ok" or the mismatch.
	blockCheck string
}

// observe predicts what a row logged, as far as the project can.
func observe(t *testing.T, tables *observed.Tables, r observedRow, archs map[string]*model.Arch, catalog budget.Catalog) observation {
	o := observation{id: r["id"], model: r["model_hf_id"], weights: math.NaN(), avail: math.NaN(), tokens: math.NaN(), termErr: map[string]float64{}}
	l, err := logs.ParseQuote(r["quote"])
	if err != nil {
		t.Fatalf("row %s: %v", o.id, err)
	}
	prof, group, stated := observedProfile(r, l)
	o.group, o.stated, o.v1 = group, stated, prof.Era == V1
	if why, ok := observedNotCUDA[o.id]; ok {
		o.why = "not vLLM's CUDA worker: " + why
		return o
	}
	m, ok := tables.Models[r["model_hf_id"]]
	if !ok || archs[m.Config] == nil {
		o.why = noConfigReason(r)
		return o
	}
	o.model = m.Config
	if m.Note != "" {
		o.notes = append(o.notes, m.Note)
	}
	a := archs[m.Config]
	class, classNote, known, err := observedClass(tables, r, catalog)
	if err != nil {
		t.Fatal(err)
	}
	o.class = class.Name
	o.kind = deviceKind(class, known)
	if classNote != "" {
		o.notes = append(o.notes, classNote)
	}
	spec, specWhy := observedSpec(l)
	if specWhy != "" {
		o.why = "speculative decoding: " + specWhy
	}
	if strings.Contains(r["model_hf_id"], "LoRA") {
		o.why = "LoRA adapters"
	}
	logged := loggedFigures(r, l)
	for k, v := range logged {
		if v.from != "log" && k != "held_at_startup" && k != "beyond_weights" {
			o.notes = append(o.notes, k+" from "+v.from)
		}
	}
	slices.Sort(o.notes)
	s := observedServe(r, l, m)
	s.SpeculativeConfig = spec
	s, err = withServeArgs(s, r["serve_args"], prof)
	if err != nil {
		o.why = "settings refused: serve_args: " + err.Error()
		return o
	}
	// The draft as the serve named it (the log's config, or the
	// serve_args' that override it), read from the directory that stands
	// for a Hub id (observedDrafts).
	s.SpeculativeConfig = withObservedDraft(t, s.SpeculativeConfig)
	spec = s.SpeculativeConfig
	if s.ColdCompileCache, err = coldCompileCell(r["compile_cache"]); err != nil {
		o.why = "settings refused: compile_cache: " + err.Error()
		return o
	}

	// The page arithmetic: KV blocks and tokens from the logged available
	// memory. It does not depend on the class's memory, so an unknown GPU
	// is checked on a test class of Hopper silicon with the row's util
	// (clamped to the class's ceiling, which is a policy for new serves).
	pageClass := class
	if !known {
		pageClass = testClass(false)
	}
	pageServe := s
	pageServe.GPUMemoryUtilization = min(s.GPUMemoryUtilization, pageClass.Memory.UtilCeiling)
	if pageServe.GPUMemoryUtilization == 0 {
		pageServe.GPUMemoryUtilization = pageClass.Memory.UtilCeiling
	}
	pageRef, err := NewReference(a, pageServe, pageClass, prof)
	if err != nil && spec != "" {
		// A drafter membudget refuses: the row is not predicted, and its
		// blocks are checked without the drafter, which their unmetGates
		// entry then names.
		o.why = firstNonEmpty(o.why, "speculative decoding: "+err.Error())
		s.SpeculativeConfig, pageServe.SpeculativeConfig = "", ""
		pageRef, err = NewReference(a, pageServe, pageClass, prof)
	}
	var se *engine.SettingError
	loraDropped := false
	if err != nil && errors.As(err, &se) && se.Flag == "enable-lora" {
		// LoRA membudget refuses (its release, its architecture): the
		// row is not predicted, and its blocks are checked without the
		// adapter slots, which change the budget but no page.
		o.why = firstNonEmpty(o.why, "LoRA: "+err.Error())
		s.LoRA, pageServe.LoRA = LoRA{}, LoRA{}
		pageRef, err = NewReference(a, pageServe, pageClass, prof)
		loraDropped = true
	}
	if err != nil {
		o.why = firstNonEmpty(o.why, "settings refused: "+err.Error())
		return o
	}
	blocks, tokens := loggedCounts(r, l)
	if kv, ok := logged["avail"]; ok && (blocks > 0 || tokens > 0) && pageRef.Serve.PipelineParallelSize == 1 && kv.v > 0 {
		o.blockCheck = blocksFromAvailable(pageRef, kv, blocks, tokens)
	}

	// Weights per rank (the first stage's, as rank 0 logs them); not where
	// the LoRA slots were dropped: vLLM builds them while it loads the
	// model, so its "Model loading took" holds what the check leaves out.
	if w, ok := logged["weights"]; ok && m.WeightsModelled && !loraDropped {
		got := float64(pageRef.Predict().WeightsBytes) / gib
		o.weights = (got - w.v) / w.v
	}
	switch {
	case o.why != "":
		return o
	case !m.WeightsModelled:
		o.why = "weights not modelled: " + m.Note
		return o
	case !known:
		o.why = "unknown GPU: " + classNote
		return o
	case s.GPUMemoryUtilization == 0 && (!stated || !argsQuoted(l)):
		// A stated release's default stands for a util only where the
		// quote shows the arguments vLLM was given: else the serve may
		// have set one the excerpt leaves out.
		o.why = "util not stated"
		return o
	}
	full, err := NewReference(a, withUtil(s, class), class, prof)
	if err != nil {
		o.why = "settings refused: " + err.Error()
		return o
	}
	pred := full.Predict()
	beyond := budget.SatAdd(pred.ActivationPeakBytes, pred.NonTorchBytes)
	if pred.GraphsCharged {
		beyond = budget.SatAdd(beyond, pred.GraphBytes)
	}
	for k, v := range map[string]uint64{"activation": pred.ActivationPeakBytes, "non_torch": pred.NonTorchBytes, "graph_estimate": pred.GraphBytes, "beyond_weights": beyond} {
		if lv, ok := logged[k]; ok {
			o.termErr[k] = float64(v)/gib - lv.v
		}
	}
	if lv, ok := logged["held_at_startup"]; ok && !class.Memory.Unified && pred.Capacity.DeviceBytes > 0 {
		// On unified memory vLLM reads the host's free memory, which the
		// class's driver terms do not hold.
		o.termErr["held_at_startup"] = float64(budget.SatSub(pred.Capacity.DeviceBytes, pred.Capacity.FreeAtStartup))/gib - lv.v
	}
	if kv, ok := logged["avail"]; ok && kv.v > 0 {
		o.avail = (float64(pred.AvailableKVBytes)/gib - kv.v) / kv.v
	}
	c := pred.Capacity
	switch {
	case blocks > 0:
		o.tokens = (float64(c.Blocks) - float64(blocks)) / float64(blocks)
	case tokens > 0:
		o.tokens = (float64(c.LoggedTokens) - float64(tokens)) / float64(tokens)
	}
	return o
}

// blocksFromAvailable checks that the blocks (or the logged tokens) vLLM
// reports are what the logged available memory holds: every amount within
// the log's rounding of it gives a count, and the logged count must be one
// of them. It returns "ok" or the mismatch.
func blocksFromAvailable(ref *Reference, kv loggedValue, blocks, tokens uint64) string {
	p := ref.Plan()
	fixed := p.Stages[0].FixedLedger(p.Beside)
	at := func(avail float64) Capacity {
		q := *p
		q.Stages = slices.Clone(p.Stages)
		q.Stages[0].Budget = fixed + uint64(avail*gib)
		return ref.check().capacity(&q)
	}
	lo, hi := at(max(kv.v-kv.tol, 0)), at(kv.v+kv.tol)
	if blocks > 0 {
		if blocks < lo.Blocks || blocks > hi.Blocks {
			return fmt.Sprintf("%.2f GiB holds %d..%d blocks of %d B, logged %d", kv.v, lo.Blocks, hi.Blocks, lo.BlockBytes, blocks)
		}
		return "ok"
	}
	if tokens < lo.LoggedTokens || tokens > hi.LoggedTokens {
		return fmt.Sprintf("%.2f GiB gives %d..%d logged tokens, logged %d", kv.v, lo.LoggedTokens, hi.LoggedTokens, tokens)
	}
	return "ok"
}

// unsupportedFamilies are the logged models whose model_type membudget does
// not read (model/config.go families), by id.
var unsupportedFamilies = map[string]string{
	"ibm-granite/granite-vision-3.3-2b":         "llava_next",
	"ibm-granite/granite-3.0-3b-a800m-instruct": "granitemoe",
	"llava-hf/llava-v1.6-mistral-7b-hf":         "llava_next",
	"meta-llama/Llama-3.2-11B-Vision":           "mllama",
	"moonshotai/Kimi-VL-A3B-Instruct":           "kimi_vl",
}

// noConfigReason says why a row's model has no config: LoRA adapters
// (their weights and activations are not modelled), a model the row does
// not name, or one that corpus/models does not ship.
func noConfigReason(r observedRow) string {
	id := r["model_hf_id"]
	switch {
	case strings.Contains(id, "LoRA"):
		return "LoRA adapters"
	case id == "" || strings.HasPrefix(id, "unnamed"):
		return "model not named"
	}
	if f, ok := unsupportedFamilies[id]; ok {
		return "unsupported family: " + f
	}
	return "no config in corpus/models: " + id
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// withUtil keeps a row's util unless the class refuses it (a class's
// ceiling is a policy for new serves; the row ran anyway). A class's
// util_reached is a util a device of it started at on a lighter host than
// its own (GB10: row 331 at 0.95, where stock images stop at 0.83): a row
// at or below it is sized at its own util, as vLLM sized it, since its host
// passed the startup check (rows 208 and 331).
func withUtil(s Serve, c budget.Class) Serve {
	if limit := max(c.Memory.UtilCeiling, c.Memory.UtilReached); s.GPUMemoryUtilization > limit {
		s.GPUMemoryUtilization = limit
	}
	return s
}

// groupStats is a profile's errors over its rows.
type groupStats struct {
	rows, predicted                 int
	weights, avail, tokens          []float64 // absolute relative errors
	terms                           map[string][]float64
	blocksChecked, blocksMismatched int
}

func (g *groupStats) add(o observation) {
	g.rows++
	if o.why == "" {
		g.predicted++
	}
	for _, e := range []struct {
		v   float64
		dst *[]float64
	}{{o.weights, &g.weights}, {o.avail, &g.avail}, {o.tokens, &g.tokens}} {
		if !math.IsNaN(e.v) {
			*e.dst = append(*e.dst, math.Abs(e.v))
		}
	}
	for k, v := range o.termErr {
		if g.terms == nil {
			g.terms = map[string][]float64{}
		}
		g.terms[k] = append(g.terms[k], v)
	}
	if o.blockCheck != "" {
		g.blocksChecked++
		if o.blockCheck != "ok" {
			g.blocksMismatched++
		}
	}
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// quantile is the q-quantile of xs by the nearest rank (the smallest value
// at least q of the values are at or below).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(i, 0)]
}

// maxAbs is the largest |x|.
func maxAbs(xs []float64) float64 {
	m := math.NaN()
	for _, x := range xs {
		if math.IsNaN(m) || math.Abs(x) > m {
			m = math.Abs(x)
		}
	}
	return m
}

// calibrationRows are the rows the constants of peaks.go were calibrated
// on; TestObserved reports the errors of the other rows apart (held out).
var calibrationRows = map[string]string{
	"25": "V0 residual, V0 non-torch", "32": "V0 non-torch", "40": "V0 residual, V0 non-torch", "47": "V0 non-torch",
	"64": "sort scratch, non-torch to 0.17", "65": "sort scratch",
	"67":  "TP non-torch to 0.18",
	"145": "V1 residual, graph estimate", "147": "graph estimate", "184": "V1 residual",
	"185": "non-torch from 0.18", "146": "non-torch of a stage that does not sample",
	"148": "TP non-torch from 0.19", "126": "TP non-torch from 0.19",
	"58":  "TP non-torch over PCIe",
	"205": "unified host growth",
}

// The bounds issue 14 sets on every profile: weights per rank, mean
// absolute error; available KV memory from the settings alone, mean
// absolute error (V1); KV tokens, median and 90th percentile of the
// absolute error (V1); each logged term, GiB; and no mismatch between the
// blocks vLLM logs and those its logged available memory holds.
const (
	issueWeights      = 0.005
	issueAvail        = 0.01
	issueTokensMedian = 0.02
	issueTokensP90    = 0.06
	issueTerm         = 0.1
)

// The test's gates: what the profiles that meet the issue's bounds achieve,
// with little slack (the worst of them: weights 0.40% on 0.6.6:v0 and
// 0.8.5:v0; KV memory 0.69% on 0.15.1; KV tokens 1.38% median on 0.11.0,
// where row 68's activation (unmetGates) takes it past 0.10.2's 0.87%, and
// 2.91% 90th percentile on 0.10.2; a term 0.07 GiB, the non-torch growth on
// 0.7.2:v0 and 0.19.0).
const (
	weightsGate      = 0.0045
	availGate        = 0.0075
	tokensMedianGate = 0.015
	tokensP90Gate    = 0.03
	termGate         = 0.08
)

// unmetGate is a gate of the issue that a profile does not meet: the bound
// it is held to instead (what it achieves, with little slack) and why.
type unmetGate struct {
	bound float64
	why   string
}

// unmetGates are the issue's gates the model misses, by profile and gate.
// TestObserved fails when a profile passes its bound, and when it meets the
// issue's gate again (the entry is then stale).
var unmetGates = map[string]map[string]unmetGate{
	"0.19.0": {
		"activation":     {0.4, "row 142 (float32, -0.35 GiB) and the first pipeline stage of row 146 (-0.14): Llama-3.1-8B's forward pass at 8192 tokens is 0.1-0.15 GiB (float32: 0.35) larger than modelled, for a reason not found in vLLM's code (float32 runs FlexAttention, not FlashAttention)"},
		"graph_estimate": {0.9, "vLLM's estimate is the larger first capture of its two modes plus 50 times each mode's second capture, each a difference of free device memory in whole 2 MiB pages, so one page in one sample moves it 0.1 GiB (TestGraphEstimateSamples, from the rows' DEBUG lines). Rows 148, 135 and 179 (-0.87, -0.67, -0.63 GiB) carry a PIECEWISE sample 16-20 MiB above their siblings' (20 MiB: one segment of PyTorch's caching allocator; times 50, 0.98 GiB), which no per-layer rule predicts (granite-vision-3.3-2b, whose language model captures as row 135's does, 100 and 134 MiB first, samples 6 MiB where row 135 samples 26), and the pools vLLM then captures (0.76, 0.84, 1.03 GiB) are within 0.09 GiB of the model. Row 124 (DeepSeek-V2-Lite, -0.63): FLASH_ATTN_MLA's split-KV accumulators (32 splits x 512 x 16 heads x kv_lora_rank 512 x 4 B = 512 MiB) fill its FULL first capture where the fixed share holds Llama-3.1-8B's 256 MiB, and its MoE layers sample 10 + 8 MiB. Rows 125, 126 and 176 (80 layers, -0.16 to -0.36) sample 32-34 MiB a pair of graphs where 153 KiB a layer gives 24. Rows 129, 149 and 153 (+0.21, +0.24, +0.27) hold 64-160 MiB of accumulators (heads a rank x head size under Llama's 4096), and rows 136-137 and 155 (+0.21, +0.17) first captures of 262 MiB where the model adds the largest batch's activations to the fixed share: vLLM takes the larger first capture, not their sum. Modelling the accumulators needs vLLM's attention backend (FlashAttention 3 on Hopper, TRITON_ATTN for float32 and Gemma 3), which membudget does not choose; 21 of 35 are within 0.1 GiB"},
		"non_torch":      {0.25, "rows 135-137 (Granite 3 2B and 8B): 0.21 GiB more non-torch memory than modelled on every Granite row and on no other model of the benchmark (32 of 35 rows within 0.07 GiB); granite.py builds nothing outside PyTorch that llama.py does not, and the cause is not found"},
	},
	"0.19.2": {
		// Row 331 alone: a GB10 (DGX Spark) serve of Qwen3.6-35B-A3B at util 0.95 on a
		// 0.19.2 nightly, which passed vLLM's startup check, so at least ceil(0.95 x
		// 121.69) = 115.61 GiB was free at its snapshot (the host held at most 6.08 GiB),
		// where the gb10 class holds 19.5 GiB for the host (stock images:
		// MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#47) and sets its ceiling at 0.83.
		// The class's util_reached (0.95, this row) keeps the row at its own util
		// (withUtil), as vLLM sized it: its KV cache, sized cold as the row's
		// compile_cache says, meets the gates (+0.32%, logged 47.55 GiB): the compile's
		// scratch (coldcompile.go: 248,320 x 2048 x 2 B of embedding table and the
		// lookup's output, 0.96 GiB) stays under the forward's 0.20 and the V1 sampler's
		// 0.86 above it, so the cold start takes nothing more; under the flat 1 GiB it
		// was -1.78%. Clamped to the 0.83 ceiling, as before util_reached, it was -32.5%.
		"graph_estimate": {0.09, "row 331 (Qwen3.6-35B-A3B, 51 piecewise and 35 full sizes to 512): 0.84 GiB estimated where vLLM 0.19.2 estimates 0.93 (captures 0.10); the only graph estimate of a GB10 and of this hybrid MoE"},
	},
	"0.8.3:v0": {
		"weights":    {0.035, "row 43 (DeepSeek-V2.5, V0's MLA at TP 8): 3.1% low, as row 35 on 0.7.1:v0; V0's MLA kept absorbed weight matrices this package does not model (model/weights.go)"},
		"activation": {0.55, "row 43 logs 1.35 GiB where 0.85 is modelled: V0's MLA at TP 8, as row 35"},
		"non_torch":  {1.7, "row 43 (A100 40 GB, TP 8 under Ray): 2.15 GiB, where V0's TP growth is calibrated at 0.41 (row 67); NVLink custom all-reduce and NCCL buffers grow with the node, as row 35's"},
	},
	"0.9.2": {
		"weights": {0.016, "row 52 (DeepSeek-R1-Distill-Qwen-14B on ROCm, TP 2), sized with Qwen2.5-14B's config: 1.45% (0.20 GiB) low a rank, as row 11 (the same model, V0, TP 2) is 1.15% low, where Qwen2.5-72B at TP 2-4 (rows 157, 158, 166) is within 0.35%; the distill's own config was not found"},
	},
	"0.26.0": {
		"activation":     {0.2, "row 112 (Gemma 4 31B on B300, on the V1 runner: VLLM_USE_V2_MODEL_RUNNER=0 in its version cell, which the oracle would otherwise put on V2): 3.76 GiB modelled (the forward pass 1.36 and V1's dummy sampler run over 1024 rows, 2.40; the V2 runner samples none) where 3.9 is logged, 0.14 GiB low; vLLM also profiles Gemma 4's encoder with 3 video items (budget 8192) even with image=0, audio=0 (notes), and the gemma4 tower is a transformers module (AutoModel.from_config, gemma4_mm.py:1067) whose blocks' activations membudget has not sized, so neither its encoder cache nor its pass is charged"},
		"graph_estimate": {0.55, "row 112 (B300): 1.27 GiB estimated where vLLM estimates 0.76 (captures 0.70); the only graph estimate of a Blackwell part and of Gemma 4's mixed 256/512 head dims. The row runs TRITON_ATTN (its notes), which allocates no split-KV accumulators, where the fixed first-capture share holds Llama-3.1-8B's 256 MiB of FlashAttention 3's (TestGraphEstimateSamples): 0.25 GiB of the 0.51"},
	},
	"0.7.1:v0": {
		"weights":    {0.065, "row 35 (DeepSeek-Coder-V2-Lite, V0's MLA at TP 8): 5.6-5.9% low; V0's MLA kept absorbed weight matrices this package does not model (model/weights.go)"},
		"activation": {0.65, "row 35 logs 0.36 GiB where the sort sampler of V0's default 256 sequences alone takes 0.93 (the row states no max_num_seqs of its own)"},
		"non_torch":  {1.65, "row 35 (A100 NVLink, TP 8): 2.10 GiB, where V0's TP growth is calibrated at 0.41 (row 67); NVLink custom all-reduce and NCCL buffers grow with the node"},
	},
	"0.23.0": {
		"weights": {0.0075, "row 115 (Qwen2.5-VL-7B): the vision tower's weights come out 0.65% low (model/weights.go)"},
	},
	"0.11.0": {
		"avail":      {0.15, "row 62 (gpt-oss-120b): llm-d's table says util 0.9, but its own figures (weights 64.38 + activation 7.38 + non-torch 0.13 + KV 3.33 GiB) add up to 75.22 GiB = 0.95 x 79.18, not the 71.26 GiB budget of 0.9; sized at 0.9 with its weights within 0.3% of the log (0.11.0 keeps the checkpoint's scales beside Triton's copy, mxfp4.go), no memory is left for the KV cache (-100%); row 68, its activation (below): 9.7% low"},
		"activation": {2.8, "row 68 (Mistral-Small-3.2, llm-d's table): 2.12 GiB logged, where the sampler's sort scratch at vLLM 0.11's default 1024 sequences over 131072 logits is 3.0 GiB alone; rows 64, 65 and 67 of the same benchmark log it (4.76-5.64 GiB in all) and the row states no max_num_seqs of its own"},
		"tokens-p90": {0.1, "row 68, as above"},
	},
	"0.20.1": {
		"blocks": {1, "row 189 (2x RTX 4090, Qwen3.6-27B int4, DFlash drafting, which membudget refuses by name): 9.74 GiB holds 79,184 tokens over 16 attention layers, vLLM logs 67,728 (14% fewer), the DFlash drafter's own attention layers sharing the pages. Row 201 (GB10, Qwen3.6-35B-A3B FP8, MTP, k = 2) matches since Qwen3.5's MTP layer is sized (specmtp.go): its attention joins the 10 of the target (11 a group, 3 padding layers, as vLLM warns), each state layer keeps k more pages a sequence and k more conv columns (block 2128 tokens), 52.66 GiB hold 2,359 blocks of 11 x 2128 tokens and vLLM's 0.20.1 logs 2359 // 4 groups x 2128 = 1,253,392 tokens, exactly"},
	},
	"0.20.2": {
		"avail":         {0.04, "row 215 (4x MI355X, Qwen3-0.6B, one TP 1 engine a GPU at util 0.35, OpenRLHF's rollout engines): its quote states none of the engine's batch settings; the OpenRLHF command passes --vllm.enforce_eager and no max_num_seqs, max_model_len or batched tokens; sized with CUDA graphs at vLLM's 1024 sequences and 16384 batched tokens for a device of 160 GiB or more, the model gives 96.50 GiB where vLLM logs 99.0 (-2.5%); eager at 256 sequences and 8192 tokens it gives 98.77 (-0.2%): which batch defaults OpenRLHF's async engine gets is not settled by the row; rows 380 and 381 (GB10: +3.3% and -5.5%, see tokens-median) take the MAE to 3.8%"},
		"tokens-median": {0.04, "row 215, as above (-2.5%); and the two GB10 rows of a DGX Spark owner's notes, off in opposite directions: row 380 (Nemotron-3-Nano-30B-A3B, util 0.80, 256K, 8 sequences, sized cold as its notes' first run was) +3.3% (membudget 35.47 GiB of KV where vLLM logs 34.32, +4.3% sized warm: its logged util equivalence, 0.8000 = 0.7924 without graphs, gives a 0.92 GiB CUDA-graph estimate where the model charges 0.37 (on unified memory vLLM samples the estimate from the host's free pages, so what the host took during the captures is in it, unifiedgraphs.go), and the remaining 0.6 GiB of activation, non-torch and host growth beside the weights is not accounted for: the row logs no weights or profile line to split it), row 381 (Gemma-4-26B-A4B-it, util 0.75, 32K, the notes' prose, not log lines) -5.5% (38.32 GiB where the notes give 40.56: the logged weights are met, 48.47 GiB for 48.5, and the notes' 0.741 equivalent util puts the graph estimate near 1.1 GiB, above the model's 0.73, so what the model charges beside weights and graphs, 3.74 GiB of activation, sampler, non-torch and unified host growth, is about 2.6 GiB more than vLLM took); both starts shared the GB10 with other vLLM containers (vllm-embed, and for row 381 a gemma-2-9b-it server), which the rows cannot size"},
		"tokens-p90":    {0.06, "rows 380 and 381, as above"},
	},
	"0.22.0": {
		"blocks": {1, "row 210 (2x RTX 3090, Qwen3.6-27B int4, TP 2, MTP): the excerpt cuts the speculative config after its method, so it is sized without the drafter (10.85 GiB: 682,478 tokens); with num_speculative_tokens 3, as the same compose's rows 193 and 211 state, the MTP layer sized and prefix caching on (its arguments), 10.85 GiB hold 418 blocks of 17 x 1600 tokens at 179 a request (164 + 3 x (2 + 3)): 418 / 179 x 262,144 = 612,157, the logged count exactly"},
	},
	"0.22.1": {
		// Row 208 (GB10, util 0.85) was clamped to the gb10 class's 0.83 ceiling
		// (withUtil) until the class's util_reached (0.95) let the test size it at
		// its own util, as vLLM did: 2.43 GiB more budget, and its KV memory went
		// from +0.02% to +3.28%. The clamp had hidden the gap.
		"avail":          {0.035, "row 208 (GB10 at util 0.85, Qwen3.6-35B-A3B-NVFP4 with its MTP drafter): 77.21 GiB predicted where 74.76 are logged (+3.28%, 2.45 GiB): about 1.16 GiB of it is the host growth beyond the unified floor (unifiedhost.go: this row holds 2.91 GiB beside the other terms, the floor 1.75), the rest not established (the MTP drafter's load and compile on a nightly, --attention-backend flashinfer left out)"},
		"tokens-median":  {0.035, "row 208, as avail (+3.25%)"},
		"tokens-p90":     {0.035, "row 208, as avail (+3.25%)"},
		"graph_estimate": {0.2, "row 208 (GB10): 0.36 GiB estimated where vLLM estimates 0.19 (its pool took 0.30). The row passes --attention-backend flashinfer, which membudget refuses and the test leaves out, and with FlashInfer vLLM captures PIECEWISE graphs alone under speculative decoding (row 201 logs the fallback: 'CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for attention backend FlashInferBackend ... setting cudagraph_mode=PIECEWISE'), where the default backend's FULL decode graphs at multiples of k+1 are sized; and vLLM reads its estimate as a difference of free memory, which on unified memory is the host's free pages and moves with the host, unclamped (rows 201 and 209 log -4.74 and -0.90 GiB on GB10; unifiedgraphs.go)"},
	},
	"0.24.0": {
		"blocks": {1, "row 193 (2x RTX 3090, Qwen3.6-27B int4, TP 2, MTP, k = 3): the excerpt cuts the arguments after quantization, so it is sized with 0.24's default, prefix caching off (mode none: 176 blocks a request, 634,507 tokens at most); the same compose passes --enable-prefix-caching (row 210's arguments), and in align mode 11.05 GiB hold 426 blocks of 17 x 1600 tokens at 179 a request (164 + 3 x (2 + 3)): 426 / 179 x 262,144 = 623,873, the logged count exactly"},
	},
	"0.27.1": {
		"avail":          {0.046, "row 205 (GB10, unified memory, Qwen3-0.6B at util 0.6, GB10's default 256 sequences and 2048 batched tokens) is the calibration row of the unified host memory (unifiedhost.go: its consumed memory, 3.35 GiB, less the weights, the non-torch growth, the V2 request state and the token-id tensors) and comes out 0.21% high (69.54 GiB where vLLM logs 69.4; 2.8% high before the host memory was charged): its consumed memory is met within the log's rounding, and the peak activation, 0.13 GiB at 2048 batched tokens, is under the 0.26 GiB the log leaves for it (73.01 - 3.35 - 69.4); row 212 (RTX 4090, Qwen3-8B at 0.27.1's default util 0.92, weights within 0.02%), a first start on a cold torch.compile (its compile_cache cell), sized with --compile-cache cold (coldcompile.go: the compile's benchmark copy of the embedding table and the lookup's output, 1.175 GiB where the log's cold peak is 1.18, over the 0.25 of forward charged): 2.1% low (3.7% under the flat 1 GiB before); its warm twin, row 324 (the next start on the same worker, the compile cache loaded), logs 0.19 GiB of peak activation and comes out 2.9% low: the model charges 0.20 GiB more than row 324's 0.46 beside the weights (activation 0.25 where 0.19 is logged; non-torch growth 0.25 and V2 request state 0.16 where the log's consumed memory less the weights leaves 15.54 - 15.27 = 0.27); " + pcieRows027},
		"tokens-median":  {0.026, "row 212 (RTX 4090, Qwen3-8B, a cold torch.compile start sized cold, 2.0% low, as avail above), between row 240 (1.5% high) and row 241 (2.35% low, as sized warm: coldcompile.go charges it nothing more, pcieRows027); rows 214 (2.5% high, tokens-p90 below) and 324 (2.9% low) above it"},
		"tokens-p90":     {0.07, "row 242 (PP 2 over PCIe, 6.4% high, as sized warm: the cold compile's scratch on its first stage, 1.53 GiB, stays under that stage's forward peak, 1.54, and its last stage, which binds the tokens, holds no embedding, so coldcompile.go charges neither more; pcieRows027); it was 8.0% low under the flat 1 GiB, and row 241 (TP 2) 14.5% low, now 2.35% low. Row 214 (H100, Qwen3.8-27B-FP8, a Qwen3.5 GDN hybrid, 256 sequences), -15.6% when 0.27.1 was sized in Mamba align mode (17 blocks a request, 50.00x), is +2.5% since prefix caching is off by default for hybrids before 0.28.0 (state.go statePrefixCachingDefault, vLLM PR #50991): mode none, 14 a request, 850 blocks of 784 tokens (60.71x) where vLLM's 59.21x is 829; its weights, 1.97% low, size the vision tower in fp8 where the checkpoint keeps it in bf16 (models.csv, corpus/models/SOURCES.md), 0.38 GiB or 8 of the 21 blocks"},
		"beyond_weights": {0.40, "row 240 (4x RTX PRO 6000 Server Edition over PCIe, TP 4, Qwen3-235B-A22B FP8 on the V1 runner, custom all-reduce refused), a cold start as its compile_cache cell says: vLLM takes 2.46 GiB off the budget beside the weights (consumed 56.89 - weights 55.19 + peak activation 0.76, the CUDA-graph estimate in it), the model 2.07 (activation 0.94, sampler 0.25, non-torch 0.33 with NCCL's PCIe growth, graph estimate 0.54): 0.39 GiB short. The cold compile adds nothing here (coldcompile.go: its scratch, a quarter of the 151,936 x 4096 x 2 B embedding table and the lookup's output, 0.35 GiB, stays under the forward's 0.94), so the row is sized as warm; under the flat 1 GiB it was 0.61 over (pcieRows027). Sized warm it was 0.34 short while the Triton top-k/top-p buffer was charged at a flat 132 rows: vLLM allocates min(next_pow2(32 sequences), 188 SMs) = 32, so 100 rows of 151,936 float32 logits, 0.057 GiB, were an overcharge that masked that much of the gap (tritonBufferRows)"},

		// A row of issue 21 item 7 (ids from 300).
		"held_at_startup": {1.2, "row 300 (RTX 4090 under WSL2 on a Windows desktop, Qwen2.5-0.5B): vLLM starts with 1.54 GiB of the 23.99 held (free 22.45), the class's context 0.35: the rest is the Windows desktop's, which shares the GPU with WSL2 (the record's nvidia-smi showed 2,864 MiB in use before vLLM was installed), outside vLLM and outside its budget; the row's KV memory is 0.49% low and its tokens 0.48%; rows 212 and 324 (a RunPod RTX 4090 in a container) hold 0.88 GiB at the snapshot (23.52 - 22.64), 0.53 over the class's context (kernels/rtx-4090: the RTX 3090's measured 0.35 GiB), outside vLLM's budget as well"},
	},
	"0.28.0": {
		"beyond_weights":  {0.34, "rows 322 and 323 (gpt-oss-20b on one L40, util 0.9, 16 sequences, sized cold: the compile_cache column): vLLM takes 2.02 GiB off the budget beside the weights (consumed 14.48 - weights 13.70 + peak activation 1.24), the model 1.70: 0.88 warm and the cold compile's 0.82 (coldcompile.go: its scratch, the embedding table 201,088 x 2880 x 2 B and the lookup's output 2048 x 2880 x 2 B, 1.09 GiB, over the forward's 0.27): 0.33 GiB short, the KV memory 1.2% high. Of it 0.15 is the peak activation (1.24 logged, 1.09 modelled: what the L40's compile allocates beyond the table is not found) and 0.18 consumed memory, the gap the same L40 run's other serves split (0.38 GiB over on gpt-oss's M2 log beyond the Marlin workspace, the 16-row Triton buffer and the non-torch growth charged, as a partly used allocator segment a MoE layer would leave after Marlin's per-expert repack). Under the flat 1 GiB of the cold compile before, calibrated on rows 212 and 307, it was 0.14 short; with the Triton top-k/top-p buffer at a flat 132 rows, 0.06 (vLLM allocates min(next_pow2(16 sequences), 142 SMs) = 16 rows, topk_topp_triton.py:906-915, tritonBufferRows)"},
		"held_at_startup": {0.09, "rows 322 and 323: the L40 holds 0.42 GiB at vLLM's startup snapshot (44.42 total, 44.0 free), the class's context 512 MiB an estimate (kernels/l40 HARDWARE.toml), 0.08 GiB over"},
		"avail":           {0.08, qwen3AWQRows028},
		"tokens-p90":      {0.18, "rows 206 and 207, as avail above"},
	},
	"0.13.0": {
		"avail":         {0.018, "row 110 (GB10, unified memory, Qwen3-30B-A3B-FP8 at util 0.3, 256 sequences): 0.07 GiB more left for the KV cache than vLLM's 4.04 (+1.6%; +46%, 1.86 GiB, before the unified host memory was charged): vLLM reads free memory from the host there, and the host memory its worker takes after the startup snapshot comes off the KV cache (unifiedhost.go); the row is held out of that floor's calibration (row 205), and its log splits no term to say what it takes beyond the floor"},
		"tokens-median": {0.018, "row 110, as above"},
	},
}

// qwen3AWQRows028 is what rows 206 and 207 of corpus/observed/vllm.csv
// (Qwen/Qwen3-14B-AWQ on one RTX 5090, vLLM 0.28.0, util 0.70) leave
// between their log and the model, and what their source says of it.
const qwen3AWQRows028 = "rows 206 and 207 (Qwen3-14B-AWQ on one RTX 5090 at util 0.70, one KV pool logged at the 32768 and 16384 windows), sized cold as their compile_cache cells say (the compose file mounts the Hugging Face cache alone, and each logged start followed a change that recreated the container): 10.77 GiB modelled for the KV cache where vLLM logs 9.27 (+16.2%; 70,608 tokens where it logs 60,768; +28.5% and 78,080 sized warm; TestColdCompileRows206). vLLM 0.28.0 splits the 21.95 GiB budget as consumed 11.22 GiB (weights + non-torch), peak activation 1.46 and KV 9.27; the model charges weights 9.30 (the source's 9.29 on disk and the rotary table, 0.01), non-torch growth 0.25 and V2 request state 0.16 (consumed 1.51 short), and activation 1.47 at 2048 batched tokens: the forward's 0.33 and the cold compile's 1.14 beyond it (coldcompile.go: the compile's scratch, the embedding table 151,936 x 5120 x 2 B and the lookup's output, 1.468 GiB, read beside the forward's peak), 0.01 over the log. The same notes time both terms on this box and image with Qwen3-32B-AWQ: its 0.70 start was the restart (restart: unless-stopped) of a container whose first start had failed after compiling ('Available KV cache memory: 0.45 GiB'), and logged consumed 18.62 GiB (0.62 beyond its 18.00 on disk) and activation 0.33; the first start of the container recreated for util 0.85 logged 20.04 and 1.46. The cold start moved activation by 1.13 GiB (these rows' 1.46) and consumed by 1.42: charged that too, the KV cache would be 9.35 GiB (+0.9%), but coldcompile.go charges activation alone, as rows 212 and 324 (0.27.1, RTX 4090, Qwen3-8B bf16) log the same consumed memory cold and warm (15.54 GiB), and what a cold start adds to consumed memory here is not charged (the report states it, an estimate: the warm report's first-start line and, sized cold as these rows are, a line of its own under 'vLLM starts', 61,104 tokens with it: coldKeptSegment, TestColdKeptRows206, TestColdKeptColdReport): coldcompile.go reads it as the table copy's allocator segment kept reserved (742 x 2 MiB, less the segment the pinning block holds warm: 1.42-1.43 GiB, which fits this pair within 0.03 and these rows within 0.09), but no block was found that would pin it here and not on rows 212, 241 and 322-323 (public reports see such growth without giving its size for these rows: vLLM PR #49892, closed, reads kernel code JIT-compiled inside the profile window on an RTX 5090 as non-torch memory empty_cache does not free; 1Cat-vLLM PR #518 logs non-torch +0.86 GiB cold against +0.22 warm on a Quadro RTX 8000). Ruled out in the source: a larger batch (the compose passes no --max-num-batched-tokens, so 2048 below 70 GiB, vllm/engine/arg_utils.py:2607-2611 at d18bb7b; 8192 gives 1.16 GiB warm, and the 32B's warm 0.33 is under the 0.42 GiB its forward pass takes at 2048 tokens by peaks.go's rule, (4 x 5120 + 3 x 25,600) x 2 B a token and 52 MiB, where 8192 would take 1.54); --enforce-eager, --kv-cache-dtype and --quantization (none passed: the KV cache is 160 KiB a token, 9.27 GiB / 60,768, and the checkpoint's awq runs MarlinLinearKernel, Machete and CUTLASS W4A8 needing compute capability 9.0 and AllSpark no zero points, vllm/model_executor/kernels/linear/mixed_precision); Marlin's repack and padding (Qwen3-14B's shapes need none, n a multiple of 64 and k of 128, marlin_utils.py marlin_padded_nk; the AWQ conversion and gptq_marlin_repack replace each tensor with one of its size, quantization/auto_awq.py:93-168 and mixed_precision/marlin.py:89-222), its workspace (170 int32 a layer) and GEMM scratch (c_tmp, 170 SMs x 64 x 256 float32 = 11 MB, csrc/libtorch_stable/quantization/marlin/marlin.cu:710-722); what the repack's freed tensors leave in the allocator's segments (the load runs with max_split_size_mb 20 against that, vllm/v1/worker/gpu_worker.py:436-443, and the profile's empty_cache returns whole free segments) is bounded on this box by the 32B's warm start, 0.62 GiB beside its weights, where the model charges the 14B 0.41. vLLM reads consumed as the drop in free device memory from before the engine is created to after the profile run and an empty_cache (vllm/utils/mem_utils.py:290-319 at d18bb7b), so it holds whatever else stayed allocated or loaded on the device in that window"

// pcieRows027 is what rows 241-243 of corpus/observed/vllm.csv show on
// vLLM 0.27.1, what of vLLM's source (main d18bb7b) was ruled out, what
// the V2 runner's request state (v2state.go) closed of the gap, and why the
// cold torch.compile they all started on (coldcompile.go) does not close
// the rest: its scratch stays under their forward's peak.
const pcieRows027 = "rows 241-243 (RTX PRO 6000 Server Edition, Qwen3-32B bf16 at util 0.426 on the V2 runner, TP 2 and PP 2 over PCIe without NVLink and the TP 1 control): of the 40.47 GiB budget vLLM leaves beside the weights 1.66 GiB at TP 2 (row 241; 1.73 with the 30.52 GiB the weights hold at rest), 3.03 on the first stage at PP 2 (row 242) and 3.86 at TP 1 (row 243: 40.47 - 61.03 + 24.42). Sized warm (membudget's default), the V2 runner's request state, made after vLLM's startup snapshot and charged since PR #49208 (v2state.go: 0.63 GiB at 1024 sequences over Qwen3's 151,936-token vocabulary, nearly all the sampler's output_bin_counts, on the last stage alone), takes the model's charge to 1.91 GiB at TP 2 and 2.42 at TP 1 (1.28 and 1.79 before it) and leaves the first stage's at PP 2 at 1.61: 0.18-0.25 GiB over at TP 2 (KV memory 2.4% low, 5.3% high before), 1.42 short on the first stage at PP 2 (KV memory 20.4% high; the tokens, which the last stage binds, 6.4% high, 17.9% before: the last stage also holds the 0.16 GiB of hidden states and residual it receives) and 1.44 short at TP 1 (2.07 before). What remains is about 1.43 GiB at TP 1 whether the GPU holds 64 layers and the sampler (row 243) or 32 layers without it (row 242's first stage), and none at TP 2: it follows the per-rank width of the forward pass (the model's activation peak: 1.54 GiB at TP 1, 0.95 at TP 2), not the layers, the sampler or a collective. It is no interconnect term: the one PCIe term the rows measure, NCCL's setup (row 240's startup free memory, collectives.go ncclSetupPCIeP2P), is held before vLLM's snapshot, beside the budget, and takes nothing off the KV cache. Ruled out in vLLM's source: the V2 runner's CUDA-graph estimate (its profile_cudagraph_memory returns 0, vllm/v1/worker/gpu/model_runner.py:835-837); its block tables and graph pools (made in initialize_kv_cache, after the KV cache is sized); torch symmetric memory (vllm/distributed/device_communicators/symm_mem.py:66: no 12.0 entry in all_reduce_utils.py SYMM_MEM_ALL_REDUCE_MAX_SIZES); NCCL symmetric memory (VLLM_USE_NCCL_SYMM_MEM off by default, vllm/envs.py); FlashInfer's all-reduce fusion workspace (vllm/config/vllm.py:144-164: capability 9.0 and 10.x only); the custom all-reduce (TP groups only, cuda_communicator.py:50-60; its buffers are held before the snapshot, beside the budget); the pipeline's intermediate-tensor buffer (non-first stages only, gpu/model_runner.py:433-438) and its send/recv (the worker's execute_model sends, gpu_worker.py:1108; the profile run does not); NCCL's ring buffers (NCCL_BUFFSIZE 4 MiB a channel and peer: tens of MiB). Suspected, not charged (the report states it, an estimate: warm on its first-start line, sized cold on a line of its own: coldKeptSegment): what PR #49208 charges beyond the persistent tensors, a segment the caching allocator keeps reserved after empty_cache because a live block pins it; coldcompile.go reads the cold compile's table copy so (742 x 2 MiB less the pinning block's own segment, 1.42-1.43 GiB, these rows within 0.03), but no pinning block was traced; the rows log no split of it. Rows 240-243 were all first starts on an empty torch.compile cache: each is a new docker run of vllm/vllm-openai:latest that mounts /root/.cache/huggingface alone (the posts' launch lines: row 243's elides its mounts, the post's two others show that one alone), where vLLM's compile cache is ~/.cache/vllm (vllm/envs.py; the image runs as root and sets neither VLLM_CACHE_ROOT nor XDG_CACHE_HOME, docker/Dockerfile), and row 240's log takes 3 min 50 s from the weights loaded to the KV cache sized. The cold compile does not explain the gaps: its scratch (coldcompile.go: Inductor's benchmark copy of the first stage's embedding table over TP and the lookup's output, which fits the cold peaks logged, 1.18 GiB for Qwen3-8B on row 212 and 1.46 for Qwen3-14B-AWQ and -32B-AWQ on rows 206-207's box, within 0.01 GiB) is read beside the forward's peak, not on top of it, and stays under it on all four rows (1.53 GiB at the TP 1 width against 1.54, 0.80 at TP 2 against 0.95, 0.35 at TP 4 against 0.94), so they are sized as warm. Beside the warm charge the cold rows of other serves take 0.99 and 0.95 GiB more for Qwen3-8B at 2048 batched tokens on an RTX 4090 and 5090 (rows 212/324 and 307), about 1.14 for gpt-oss-20b at 2048 on an L40 (rows 322-323), against 1.44 and 1.42 here for Qwen3-32B at 8192 at TP 1 and on PP 2's first stage (the TP 1 width), -0.2 at TP 2 and 0.39 for Qwen3-235B at TP 4 (row 240): the most at TP 1's width, none at half of it, and 1 GiB at an eighth of it (Qwen3-8B's gate_up output, 2048 x 24,576 x 2 B = 0.09 GiB, against Qwen3-32B's 8192 x 51,200 x 2 B = 0.78 at TP 1 and 0.39 at TP 2). Ruled out, each more than 0.1 GiB off: the flat 1 GiB these rows were sized with before (0.44 short at TP 1, 0.42 on PP 2's first stage, 1.2 over at TP 2 and 0.61 over at TP 4); the embedding table's copy added to the forward's peak (fits TP 1 and PP 2's first stage within 0.03, TP 4 within 0.1, but 0.72 over at TP 2, 0.23 over on row 212 and 0.32 on row 206, whose logged cold peaks are the table alone); a multiple of the per-rank gate_up output (x1.84 from TP 1 gives 0.17 for row 212 and 0.72 at TP 2) or of the model's activation peak (1.54 GiB at TP 1: x0.93 gives 0.23 for row 212, 0.88 at TP 2); the float32 logits (2048 x 151,936 x 4 B = 1.16 GiB for row 212, but 4.6 at 8192 and none on a first stage). vllm/compilation at d18bb7b copies no weight on the device (its one clone is of the inputs under cudagraph_copy_inputs, off by default: backends.py:59-93, config/compilation.py:652). The compile runs inside the profile's window before its forward (vllm/compilation/decorators.py:652-678: the AOT compile, then the run), and Inductor max-autotunes single sizes only (compiler_interface.py:753-760, not the default range); the issues measure other serves (#54383: 0.47 GiB at TP 2 on two RTX 4090s; #54122: tens of GiB at TP 4 on RTX PRO 6000 with a MoE image; 1Cat-vLLM PR #518: some of it as non-torch growth). What these rows take at the TP 1 width beyond the forward is left unexplained"

// deviceKind is the kind of device a row ran on, as the issue's gates are
// split: unified memory, NVLink (or Infinity Fabric) data-centre boards
// ("NVLink DC"), data-centre PCIe cards with peer access ("PCIe DC"), and
// consumer cards without it; "unknown GPU" where the row's GPU is no class.
func deviceKind(c budget.Class, known bool) string {
	switch {
	case !known:
		return "unknown GPU"
	case c.Memory.Unified:
		return "unified"
	case c.Device.Interconnect == budget.NVLink || c.Device.Interconnect == budget.XGMI:
		return "NVLink DC"
	case c.Device.Interconnect == budget.PCIeP2P:
		return "PCIe DC"
	default:
		return "consumer"
	}
}

// kindOf is o's device kind, "not predicted" for a row set aside before its
// class was read.
func kindOf(o observation) string {
	if o.kind == "" {
		return "not predicted"
	}
	return o.kind
}

// logKindCounts prints how many rows of vLLM 0.20 and later each device
// kind has, against the issue's 30 rows in all and 5 of each kind.
func logKindCounts(t *testing.T, obs []observation) {
	counts := map[string]int{}
	total := 0
	for _, o := range obs {
		v, err := ParseVersion(strings.TrimSuffix(o.group, ":v0"))
		if err != nil || !o.stated || !v.AtLeast(Version{0, 20, 0}) {
			continue
		}
		counts[kindOf(o)]++
		total++
	}
	var parts []string
	for _, k := range []string{"NVLink DC", "PCIe DC", "consumer", "unified", "unknown GPU", "not predicted"} {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	t.Logf("rows of vLLM 0.20 and later: %d (the issue asks for 30, and 5 of each kind): %s", total, strings.Join(parts, ", "))
}

// profileSummary is the errors of a set of observations, by group.
func profileSummary(obs []observation, keep func(observation) bool) (map[string]*groupStats, []string) {
	return profileSummaryBy(obs, func(o observation) string {
		if keep(o) {
			return o.group
		}
		return ""
	})
}

// profileSummaryBy is the errors of a set of observations, by the group
// key gives them ("" leaves a row out).
func profileSummaryBy(obs []observation, key func(observation) string) (map[string]*groupStats, []string) {
	groups := map[string]*groupStats{}
	var order []string
	for _, o := range obs {
		name := key(o)
		if name == "" {
			continue
		}
		g, ok := groups[name]
		if !ok {
			g = &groupStats{}
			groups[name] = g
			order = append(order, name)
		}
		g.add(o)
	}
	slices.SortStableFunc(order, func(x, y string) int { return groupRank(x) - groupRank(y) })
	return groups, order
}

// groupRank orders the summary: the V0 profiles, then V1's, by release,
// then the groups of rows that state no release.
func groupRank(name string) int {
	name, _, _ = strings.Cut(name, " on ")
	rel, v0 := strings.CutSuffix(name, ":v0")
	v, err := ParseVersion(rel)
	if err != nil {
		return 1 << 20
	}
	rank := v.Minor*1000 + v.Patch
	if !v0 {
		rank += 100000
	}
	return rank
}

// achieved is a group's figure for each gate it has data for.
func (g *groupStats) achieved(v1 bool) map[string]float64 {
	out := map[string]float64{}
	if len(g.weights) > 0 {
		out["weights"] = mean(g.weights)
	}
	if v1 && len(g.avail) > 0 {
		out["avail"] = mean(g.avail)
	}
	if v1 && len(g.tokens) > 0 {
		out["tokens-median"] = quantile(g.tokens, 0.5)
		out["tokens-p90"] = quantile(g.tokens, 0.9)
	}
	for k, xs := range g.terms {
		out[k] = maxAbs(xs)
	}
	if g.blocksChecked > 0 {
		out["blocks"] = float64(g.blocksMismatched)
	}
	return out
}

// gateOf is the test's gate on a gate name and the issue's bound on it.
func gateOf(gate string) (test, issue float64) {
	switch gate {
	case "weights":
		return weightsGate, issueWeights
	case "avail":
		return availGate, issueAvail
	case "tokens-median":
		return tokensMedianGate, issueTokensMedian
	case "tokens-p90":
		return tokensP90Gate, issueTokensP90
	case "blocks":
		return 0, 0
	}
	return termGate, issueTerm
}

// TestObserved predicts every vLLM row of corpus/observed/vllm.csv whose
// model has a config and compares with what vLLM logged, every logged
// figure read through the log reader (model/logs; the table's cell where
// the quote lacks the line, said per row): weights per rank, the profile's
// terms (activation peak, non-torch growth, CUDA-graph estimate), the
// available KV memory and the KV blocks (or tokens) from the settings
// alone, and the blocks the logged available memory holds. Rows are grouped
// by the profile their stated release resolves to, and each group is held
// to the test's gates, which are issue 14's tightened to what the model
// achieves (see the constants above), or to its entry in unmetGates.
//
// Achieved, as TestObserved prints it (vLLM 0.19 on H100 is llm-d's
// benchmark, whose own planner has a KV-memory MAE of 7.8%): on 0.19 (42
// rows, 36 predicted) weights MAE 0.19%, available KV MAE 0.20%, KV blocks
// median 0.04% and 90th percentile 0.52%, non-torch within 0.1 GiB on 32 of
// 35 rows, the activation peak on 32 of 35, the graph estimate on 21 of 35,
// the blocks of the logged KV memory exact on 34 of 34; 0.15.0 and
// 0.16-0.18 (one Qwen3-14B row each, 182-185) within 0.02% on KV and 0.005
// GiB on each term, 0.15.1's row 119 (Llama-3.1-8B, A100 40G) 0.69%; 0.11
// within 0.22% on KV but for gpt-oss and Mistral-Small-3.2. The issue's
// gates that are NOT met are unmetGates, each with the bound the profile is
// held to and why: 0.19's activation peak (Llama-3.1-8B in float32 and on a
// first pipeline stage), graph estimate and Granite's non-torch growth;
// gpt-oss-120b's KV (its row's util does not match its figures) and
// Mistral-Small-3.2's activation on 0.11; V0
// MLA at TP 8 on 0.7.1 and 0.8.3; DeepSeek-R1-Distill-Qwen-14B's weights on
// 0.9.2; Qwen2.5-VL's weights on 0.23; Gemma 4's tower and encoder profile
// on 0.26.0; GB10's unified memory (0.13; and 0.20.2's rows 380 and 381,
// +3.3% and -5.5% on available KV, off in opposite directions), a GB10 serve above the gb10
// class's util ceiling, sized at its own util within its util_reached
// (row 208, 0.22.1; row 331, the other, meets them but for its graph
// estimate, 0.19.2); from rows 300-307, a Windows
// desktop's memory under WSL2 (0.27.1). Rows whose source shows a first
// start on an empty torch.compile cache (the compile_cache column: 206,
// 207, 212, 240-243, 307, 322, 323) are sized with --compile-cache cold
// (coldcompile.go: the compile's benchmark copy of the embedding table,
// charged where it exceeds the forward's peak); rows 206-207
// (qwen3AWQRows028) and 240-243 (pcieRows027) do not meet them, the others
// do: row 307 (0.24.0) -0.6% tokens where it was +7.0% sized warm (-1.2%
// under the flat 1 GiB before), rows 322-323 (0.28.0, gpt-oss-20b on an
// L40) +1.2% where they were +4.6%, row 212 (0.27.1) -2.0% where it was
// +16.7% (-3.6% under the flat 1 GiB), and row 331 (0.19.2, GB10) +0.3%
// (-1.8% under the flat 1 GiB, which its sampler's peak covers); rows
// 322-323 stay 0.33 GiB short beside the weights (unmetGates).
// Rows 302 and 303 (0.28.0, a Qwen3.5 hybrid on an RTX 5000 Ada) meet
// them since the flags of their record's command line (serve_args:
// --enforce-eager, --no-enable-prefix-caching, --language-model-only) are
// applied through the CLI's parser (withServeArgs): available KV within
// 0.34% and the logged tokens exact, where the quoted lines alone sized
// CUDA graphs, prefix caching and the vision tower (-31.7% KV, -39.6% and
// -44.7% tokens). Row 58's command line adds --enable-expert-parallel
// (KV +0.21%, +0.19% without it); row 74's --no-enable-chunked-prefill
// is sized (chunked.go: its --max-num-batched-tokens 4096 holds its
// max_model_len 4096, so the batch is the same chunked or not), but its
// GPU is not stated, so only its weights are compared (-0.63%); rows 214 and 240-243 restate their columns. The PCIe L40S rows meet them
// since tensor parallelism over PCIe is charged NCCL's PCIe growth
// (collectives.go): row 58 (0.10.2, TP 8, its calibration row) was 3.0% low
// on KV and 0.35 GiB off on non-torch memory under the NVLink growth, and is
// exact; row 59 (0.24, TP 4, held out) was 7.6% low on KV and is 0.15% off.
// From vLLM PR #49208 (0.26.1 on) the Free-memory line's peak activation
// and consumed memory are not the profile's terms: they are compared as
// their sum beside the weights (beyond_weights; see loggedFigures and
// TestObservedActualUsageForm); from it the V2 runner's request state
// comes off the KV cache (v2state.go). Rows 240-243 (0.27.1, RTX PRO 6000
// over PCIe at TP 4 on the V1 runner, TP 2, PP 2 and the TP 1 control on
// the V2 runner) were off what vLLM takes beside the weights by -0.39,
// +0.18-0.25, -1.42 and -1.44 GiB sized warm (-0.38-0.45 and -2.07 at TP 2
// and 1 before the state was charged): no interconnect term, since the
// control is short the most; sized cold, as their launches were, the
// same, since the compile's scratch stays under their forward's peak
// (coldcompile.go; +0.61, +1.2, -0.42 and -0.44 under the flat 1 GiB
// before; unmetGates, pcieRows027). What the device holds at the startup snapshot ("Free memory
// on device (free/total GiB) on startup": the context and what the
// collectives set up before it) is held to the term gate as
// held_at_startup: row 240 is 0.08 GiB over (the class rounds its context
// up), 0.19's rows 0.03-0.08 over (rows 146 and 147 were 0.87 and 0.92
// under before the pipeline group's setup was charged, collectives.go). V0 rows are held to the weights,
// term and block gates only (the issue's KV gates are for V1). Rows that
// state no release are sized under main's (V1) or 0.7.3's (V0) rules and
// reported, not gated.
//
// A row sizes the --speculative-config its log states (observedSpec): of
// the 50 rows of 0.20 and later, 32 are predicted (13 before the Qwen3.5
// MTP draft, the RTX 5080 class and the NVFP4 checkpoint club-3090's
// folder holds), and the blocks of every MTP row (201, 208, 209; 193 and
// 210 with the setting their excerpt cuts, unmetGates) are vLLM's exactly.
func TestObserved(t *testing.T) {
	archs := observedArchs(t)
	catalog := membudget.Kernels()
	var obs []observation
	notPredicted := map[string][]string{}
	tables := readObservedTables(t)
	for _, r := range tables.Rows {
		if r["engine"] != "vllm" {
			continue
		}
		o := observe(t, tables, r, archs, catalog)
		obs = append(obs, o)
		if o.why != "" {
			why, _, _ := strings.Cut(o.why, ":")
			notPredicted[why] = append(notPredicted[why], o.id)
		}
	}
	logRows(t, obs)
	all, order := profileSummary(obs, func(observation) bool { return true })
	held, heldOrder := profileSummary(obs, func(o observation) bool { _, cal := calibrationRows[o.id]; return !cal })
	t.Logf("")
	t.Logf("every row:")
	logSummary(t, all, order)
	t.Logf("")
	t.Logf("held out (rows not in calibrationRows):")
	logSummary(t, held, heldOrder)

	byKind, kindOrder := profileSummaryBy(obs, func(o observation) string { return o.group + " on " + kindOf(o) })
	t.Logf("")
	t.Logf("by profile and device kind (reported, not gated: the issue's gates per kind need more rows):")
	logSummary(t, byKind, kindOrder)
	logKindCounts(t, obs)
	// The issue's gates are per device kind over the rows of vLLM 0.20 and
	// later: the same figures, every such release together.
	recent, recentOrder := profileSummaryBy(obs, func(o observation) string {
		v, err := ParseVersion(strings.TrimSuffix(o.group, ":v0"))
		if err != nil || !o.stated || !v.AtLeast(Version{0, 20, 0}) {
			return ""
		}
		return "0.20 and later on " + kindOf(o)
	})
	t.Logf("")
	t.Logf("vLLM 0.20 and later, by device kind:")
	logSummary(t, recent, recentOrder)

	if g := all["0.19.0"]; g != nil {
		t.Logf("")
		t.Logf("vLLM 0.19 on H100: available KV memory MAE %.2f%% over %d rows (held out: %.2f%% over %d); llm-d's planner: 7.8%% over 49 runs",
			100*mean(g.avail), len(g.avail), 100*mean(held["0.19.0"].avail), len(held["0.19.0"].avail))
	}
	var reasons []string
	total := 0
	for why, ids := range notPredicted {
		reasons = append(reasons, fmt.Sprintf("%3d  %s (rows %s)", len(ids), why, strings.Join(ids, ", ")))
		total += len(ids)
	}
	slices.Sort(reasons)
	t.Logf("")
	t.Logf("%d of %d vLLM rows not predicted from their settings, by reason:", total, len(obs))
	for _, s := range reasons {
		t.Logf("  %s", s)
	}

	v1 := map[string]bool{}
	stated := map[string]bool{}
	for _, o := range obs {
		v1[o.group] = o.v1
		stated[o.group] = o.stated
	}
	for _, name := range order {
		if !stated[name] {
			continue
		}
		for gate, got := range all[name].achieved(v1[name]) {
			want, issue := gateOf(gate)
			u, listed := unmetGates[name][gate]
			switch {
			case listed && got <= want:
				// Stale only when the gate an unlisted profile is held to
				// is met: between it and the issue's, the entry is needed.
				t.Errorf("%s %s: %.4f meets the gate %.4f (the issue's: %.4f): drop it from unmetGates", name, gate, got, want, issue)
			case listed && got > u.bound:
				t.Errorf("%s %s: %.4f, over the bound %.4f it is held to (%s)", name, gate, got, u.bound, u.why)
			case !listed && got > want:
				t.Errorf("%s %s: %.4f, over the gate %.4f (the issue's: %.4f)", name, gate, got, want, issue)
			}
		}
	}
	for name, gates := range unmetGates {
		got := all[name]
		if got == nil {
			t.Errorf("unmetGates names %s, which no row resolves to", name)
			continue
		}
		a := got.achieved(v1[name])
		for gate := range gates {
			if _, ok := a[gate]; !ok {
				t.Errorf("unmetGates names %s %s, which no row of it checks", name, gate)
			}
		}
	}
	if all["0.19.0"] == nil || all["0.19.0"].predicted < 25 {
		t.Errorf("vLLM 0.19 (llm-d's benchmark): too few rows predicted")
	}
}

// logRows prints every row's errors: relative for weights, available KV
// memory and tokens, GiB for the terms.
func logRows(t *testing.T, obs []observation) {
	t.Logf("%-4s %-16s %-34s %-13s %8s %8s %8s | %6s %6s %6s %6s %6s | %s", "row", "profile", "model", "class", "weights", "avail", "tokens", "act", "nontorch", "graph", "beyond", "held", "notes")
	for _, o := range obs {
		act, okA := o.termErr["activation"]
		nt, okN := o.termErr["non_torch"]
		gr, okG := o.termErr["graph_estimate"]
		bw, okB := o.termErr["beyond_weights"]
		hd, okH := o.termErr["held_at_startup"]
		notes := o.notes
		if o.why != "" {
			notes = append([]string{"NOT PREDICTED: " + o.why}, notes...)
		}
		if why, ok := calibrationRows[o.id]; ok {
			notes = append(notes, "calibrates "+why)
		}
		if o.blockCheck != "" && o.blockCheck != "ok" {
			notes = append(notes, "BLOCKS: "+o.blockCheck)
		}
		t.Logf("%-4s %-16.16s %-34.34s %-13s %8s %8s %8s | %6s %6s %6s %6s %6s | %s", o.id, o.group, o.model, o.class,
			pct(o.weights), pct(o.avail), pct(o.tokens), gibOf(act, okA), gibOf(nt, okN), gibOf(gr, okG), gibOf(bw, okB), gibOf(hd, okH), strings.Join(notes, "; "))
	}
}

// logSummary prints the per-profile table: rows, rows predicted from their
// settings, weights and available-KV MAE, tokens median and p90, and for
// each term the largest error and the rows within 0.1 GiB.
func logSummary(t *testing.T, groups map[string]*groupStats, order []string) {
	t.Logf("%-54s %4s %4s | %7s %7s | %7s %7s | %-14s %-14s %-14s %-14s %-14s | %s", "profile", "rows", "pred", "W MAE", "KV MAE", "tok med", "tok p90", "act", "non-torch", "graph est", "beyond weights", "held at start", "blocks")
	for _, name := range order {
		g := groups[name]
		term := func(k string) string {
			xs := g.terms[k]
			if len(xs) == 0 {
				return ""
			}
			within := 0
			for _, x := range xs {
				if math.Abs(x) <= issueTerm {
					within++
				}
			}
			return fmt.Sprintf("%.2f %d/%d", maxAbs(xs), within, len(xs))
		}
		blocks := ""
		if g.blocksChecked > 0 {
			blocks = fmt.Sprintf("%d/%d", g.blocksChecked-g.blocksMismatched, g.blocksChecked)
		}
		t.Logf("%-54.54s %4d %4d | %7s %7s | %7s %7s | %-14s %-14s %-14s %-14s %-14s | %s", name, g.rows, g.predicted,
			absPct(mean(g.weights)), absPct(mean(g.avail)), absPct(quantile(g.tokens, 0.5)), absPct(quantile(g.tokens, 0.9)),
			term("activation"), term("non_torch"), term("graph_estimate"), term("beyond_weights"), term("held_at_startup"), blocks)
	}
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("%+.2f%%", 100*v)
}

func absPct(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("%.2f%%", 100*v)
}

func gibOf(v float64, ok bool) string {
	if !ok {
		return ""
	}
	return fmt.Sprintf("%+.2f", v)
}

// TestObservedModelsHaveConfigs: every config corpus/observed/models.csv
// names is shipped or a stand-in, so that a misspelt one fails here rather
// than leaving its rows unpredicted.
func TestObservedModelsHaveConfigs(t *testing.T) {
	archs := observedArchs(t)
	for id, m := range readObservedTables(t).Models {
		if archs[m.Config] == nil {
			t.Errorf("models.csv: %s stands for %s and is neither shipped nor a stand-in", m.Config, id)
		}
	}
}

// consumedFormFrom is the first release whose "Actual usage" line the
// table shows in vLLM PR #49208's form ("GiB for consumed memory (weights
// + non-torch), ... GiB for peak activation", merged 2026-07-20): row 114
// logs it on 0.26.1rc0, row 112 logs the earlier form ("GiB for weight,
// ... GiB for non-torch memory") on 0.26.0.
var consumedFormFrom = Version{0, 26, 1}

// TestObservedActualUsageForm: every row that logs its activation peak
// beside its non-torch or consumed memory (V0's profiling line, V1's
// "Actual usage" line) and states its release logs the form of that
// release's accounting, so that loggedFigures, which tells the accountings
// apart by the line's form, compares each figure with what that release
// charged.
func TestObservedActualUsageForm(t *testing.T) {
	checked := 0
	for _, r := range readObservedTables(t).Rows {
		if r["engine"] != "vllm" {
			continue
		}
		l, err := logs.ParseQuote(r["quote"])
		if err != nil {
			t.Fatalf("row %s: %v", r["id"], err)
		}
		_, consumed := l.First(logs.KindConsumed)
		_, nonTorch := l.First(logs.KindNonTorch)
		_, act := l.First(logs.KindActivationPeak)
		_, actGraphs := l.First(logs.KindActivationWithGraphs)
		act = act || actGraphs
		if !act || (!consumed && !nonTorch) {
			continue // no "Actual usage" line
		}
		p, _, stated := observedProfile(r, l)
		if !stated {
			continue
		}
		v, err := ParseVersion(releaseInText.FindStringSubmatch(r["vllm_version"] + " ")[1])
		if err != nil {
			t.Fatalf("row %s: %v", r["id"], err)
		}
		checked++
		if want := v.AtLeast(consumedFormFrom); consumed != want {
			t.Errorf("row %s (%s, profile %s): consumed-memory form %v, want %v (PR #49208 from %s)", r["id"], v, p.Name, consumed, want, consumedFormFrom)
		}
	}
	// V0 rows 25-47, 0.10.2 rows 58 and 109, 0.19 rows 123-181, 112 and
	// 114 on 0.26, 206 and 240: 54 when written.
	if checked < 50 {
		t.Errorf("only %d rows checked", checked)
	}
}

// TestWithServeArgs: a row's serve_args go through the CLI's parser over
// the row's settings: a flag given overrides the one setting it names,
// every other setting stays (the base's fp8 KV cache and quantization
// below), a refused flag or one the release lacks is the refusal, and the
// model is not a flag.
func TestWithServeArgs(t *testing.T) {
	t.Parallel()
	base := Serve{GPUMemoryUtilization: 0.97, MaxModelLen: 16384, MaxNumSeqs: 1, TensorParallelSize: 1, KVCacheDtype: "fp8", Quantization: "fp8", Dtype: "bfloat16"}
	with := func(edit func(*Serve)) Serve {
		s := base
		edit(&s)
		return s
	}
	tests := []struct {
		name, cell, release string
		want                Serve
		err                 string
	}{
		{"empty", "", "0.28.0", base, ""},
		// Rows 302's command line: eager, prefix caching off, no tower;
		// --revision is the command's (the checkpoint's pin), the rest
		// restate the columns.
		{"row 302", "--revision 017b9c7a --tensor-parallel-size 1 --max-model-len 16384 --max-num-seqs 1 --gpu-memory-utilization 0.97 --language-model-only --enforce-eager --no-enable-prefix-caching", "0.28.0",
			with(func(s *Serve) { s.EnforceEager, s.EnablePrefixCaching, s.MM.LanguageModelOnly = true, engine.Off, true }), ""},
		{"underscores and =", "--max_model_len=7168 --kv-cache-dtype=auto", "0.28.0", with(func(s *Serve) { s.MaxModelLen, s.KVCacheDtype = 7168, "auto" }), ""},
		{"chunked prefill given", "--enable-chunked-prefill", "0.28.0", with(func(s *Serve) { s.ChunkedPrefill = engine.On }), ""},
		// Row 74's command line turns it off (V1, "recent": main's profile).
		{"row 74", "--max-model-len 4096 --max-num-seqs 4 --max-num-batched-tokens 4096 --no-enable-prefix-caching --enforce-eager --no-enable-chunked-prefill", "main",
			with(func(s *Serve) {
				s.MaxModelLen, s.MaxNumSeqs, s.MaxNumBatchedTokens = 4096, 4, 4096
				s.EnablePrefixCaching, s.EnforceEager, s.ChunkedPrefill = engine.Off, true, engine.Off
			}), ""},
		{"refused", "--attention-backend FLASHINFER", "0.28.0", base, "--attention-backend: an attention backend other than the release's default"},
		{"not in the release", "--language-model-only", "0.14.1", base, "--language-model-only is not a flag of vLLM 0.14.1"},
		{"the model", "Qwen/Qwen3.8-27B-FP8 --enforce-eager", "0.28.0", base, `"Qwen/Qwen3.8-27B-FP8": not a flag`},
	}
	for _, tt := range tests {
		got, err := withServeArgs(base, tt.cell, mustProfile(tt.release))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: serve (-want +got):\n%s", tt.name, diff)
		}
	}
}

// observedArgsRefused are the rows whose serve_args hold a flag membudget
// refuses, by the flag: TestObserved leaves them unpredicted, naming it.
var observedArgsRefused = map[string]string{}

// TestObservedServeArgs: every row's serve_args parse under the row's
// release but those observedArgsRefused names, refused by that flag; each
// names where the source states them (serve_args_from); and where they
// restate a setting column (util, length, sequences, TP size) they agree
// with it, so that a miscopied flag fails here.
func TestObservedServeArgs(t *testing.T) {
	t.Parallel()
	tables := readObservedTables(t)
	filled := 0
	seenRefused := map[string]bool{}
	for _, r := range tables.Rows {
		cell, from := r["serve_args"], r["serve_args_from"]
		if (cell == "") != (from == "") {
			t.Errorf("row %s: serve_args %q beside serve_args_from %q: want both or neither", r["id"], cell, from)
		}
		if cell == "" {
			continue
		}
		filled++
		l, err := logs.ParseQuote(r["quote"])
		if err != nil {
			t.Fatalf("row %s: %v", r["id"], err)
		}
		prof, _, _ := observedProfile(r, l)
		s, err := withServeArgs(Serve{}, cell, prof)
		refused, listed := observedArgsRefused[r["id"]]
		switch {
		case listed && (err == nil || !strings.HasPrefix(err.Error(), refused+":")):
			t.Errorf("row %s: serve_args: %v, want the refusal of %s (observedArgsRefused)", r["id"], err, refused)
			continue
		case listed:
			seenRefused[r["id"]] = true
			continue
		case err != nil:
			t.Errorf("row %s: serve_args: %v", r["id"], err)
			continue
		}
		for _, c := range []struct {
			column string
			got    float64
		}{
			{"gpu_mem_util", s.GPUMemoryUtilization},
			{"max_model_len", float64(s.MaxModelLen)},
			{"max_num_seqs", float64(s.MaxNumSeqs)},
			{"tp", float64(s.TensorParallelSize)},
		} {
			if want, ok := r.Num(c.column); ok && c.got != 0 && c.got != want {
				t.Errorf("row %s: serve_args give %s %v, the column %v", r["id"], c.column, c.got, want)
			}
		}
	}
	if filled == 0 {
		t.Error("no row has serve_args")
	}
	for id := range observedArgsRefused {
		if !seenRefused[id] {
			t.Errorf("row %s: listed in observedArgsRefused, but its serve_args are gone: drop the entry", id)
		}
	}
}

// TestWithObservedDraft: a row's draft named by a Hub id observedDrafts
// lists is read from the directory the test writes, every other key of the
// config kept; any other --speculative-config stays as it is.
func TestWithObservedDraft(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{
		"",      // no speculative decoding
		"ngram", // not a JSON object: the sizing refuses it by name
		`{"method": "ngram", "num_speculative_tokens": 3}`,                                                  // no draft
		`{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}`, // not listed
	} {
		if got := withObservedDraft(t, spec); got != spec {
			t.Errorf("withObservedDraft(%q) = %q, want it unchanged", spec, got)
		}
	}
	const id = "AngelSlim/Qwen3-4B_eagle3"
	got := withObservedDraft(t, `{"method": "eagle3", "model": "`+id+`", "num_speculative_tokens": 3}`)
	var m map[string]any
	if err := json.Unmarshal([]byte(got), &m); err != nil {
		t.Fatal(err)
	}
	dir, _ := m["model"].(string)
	delete(m, "model")
	if diff := cmp.Diff(map[string]any{"method": "eagle3", "num_speculative_tokens": 3.0}, m); diff != "" {
		t.Errorf("the other keys moved (-want +got):\n%s", diff)
	}
	if !localDraft(dir) {
		t.Fatalf("model %q: want the written directory", dir)
	}
	// The draft on Qwen3-4B (hidden 2560), by hand at 2 B an element:
	// qkv_proj of 2 x 2560 inputs and (32 + 2 x 8) x 128 = 6144 outputs,
	// 31,457,280; o_proj 4096 x 2560, 10,485,760; gate_up_proj
	// 2 x 9728 x 2560, 49,807,360; down_proj 9728 x 2560, 24,903,680; the
	// layer's three norms and the final one, 4 x 2560 = 10,240; fc
	// 3 x 2560 x 2560, 19,660,800; its own head of draft_vocab_size rows
	// (32000, a multiple of 64) x 2560, 81,920,000; no embedding (the
	// checkpoint has none: the target's is shared). 218,245,120 elements
	// are 436,490,240 B, and d2t adds 32000 x 8 B = 256,000: 436,746,240 B,
	// 0.4068 GiB, the 7.97 - 7.56 = 0.41 GiB rows 362 and 361 log.
	d := observedDrafts[id]
	if got, want := draftBytesTP1(t, observedArchs(t)["Qwen__Qwen3-4B"], "eagle3", dir+"/config.json", d.tensors), uint64(436_746_240); got != want {
		t.Errorf("draft bytes %d, want %d", got, want)
	}
}

// TestObservedHarnessRows: the rows each of the harness's special paths
// exists for still take it, since TestObserved only logs a row that drops
// to "not predicted" and gates nothing of a release that is not stated
// (rows 361-362) or of a gate no other row checks: row 362's draft, named
// by Hub id, is read from observedDrafts and the row predicted, its
// weights checked with the draft's; row 363's LoRA on 0.14.0 is sized and
// the row predicted, its weights checked with the slots (vLLM builds them
// in load_model, within "Model loading took"); the same row as if logged by
// 0.13.0, whose LoRA membudget refuses by --enable-lora (no logged row
// takes that path since 0.14.0's LoRA is sized), leaves its blocks checked
// without the adapter slots and its weights unchecked; rows
// 331 and 208, above the gb10 class's ceiling and within its util_reached,
// are predicted, each at its own util (withUtil, TestWithUtil).
func TestObservedHarnessRows(t *testing.T) {
	tables := readObservedTables(t)
	archs, catalog := observedArchs(t), membudget.Kernels()
	rows := map[string]observedRow{}
	for _, r := range tables.Rows {
		rows[r["id"]] = r
	}
	obs := func(id string) observation {
		r, ok := rows[id]
		if !ok {
			t.Fatalf("no row %s in corpus/observed/vllm.csv", id)
		}
		return observe(t, tables, r, archs, catalog)
	}
	for _, id := range []string{"362", "331", "208"} {
		if o := obs(id); o.why != "" || math.IsNaN(o.weights) || math.IsNaN(o.avail) && math.IsNaN(o.tokens) {
			t.Errorf("row %s: not predicted (%q) or its weights (%v) or KV (%v, %v) unchecked: want it predicted", id, o.why, o.weights, o.avail, o.tokens)
		}
	}
	if o := obs("363"); o.why != "" || o.blockCheck != "ok" || math.IsNaN(o.weights) || math.IsNaN(o.avail) {
		t.Errorf("row 363: why %q, blocks %q, weights %v, KV %v: want it predicted, the blocks checked ok, the weights and KV checked", o.why, o.blockCheck, o.weights, o.avail)
	}
	older := maps.Clone(rows["363"])
	older["vllm_version"] = "0.13.0"
	if o := observe(t, tables, older, archs, catalog); !strings.HasPrefix(o.why, "LoRA: --enable-lora") || o.blockCheck != "ok" || !math.IsNaN(o.weights) {
		t.Errorf("row 363 as of 0.13.0: why %q, blocks %q, weights %v: want the LoRA refusal named, the blocks checked ok without the slots, the weights unchecked", o.why, o.blockCheck, o.weights)
	}
}

// TestWithUtil: a row's util is kept up to the class's util_ceiling, or
// its util_reached where it gives one, and clamped there above it.
func TestWithUtil(t *testing.T) {
	gb10 := kernelClass(t, "gb10")         // util_ceiling 0.83, util_reached 0.95
	h100 := kernelClass(t, "h100-sxm-80g") // util_ceiling 0.95, no util_reached
	for _, tc := range []struct {
		class    budget.Class
		in, want float64
	}{
		{gb10, 0.6, 0.6},   // row 205
		{gb10, 0.85, 0.85}, // row 208: above the ceiling, within util_reached
		{gb10, 0.95, 0.95}, // row 331: util_reached itself
		{gb10, 0.97, 0.95}, // above util_reached: clamped to it
		{h100, 0.9, 0.9},
		{h100, 0.97, 0.95}, // no util_reached: the ceiling
	} {
		if got := withUtil(Serve{GPUMemoryUtilization: tc.in}, tc.class).GPUMemoryUtilization; got != tc.want {
			t.Errorf("%s at %v: %v, want %v", tc.class.Name, tc.in, got, tc.want)
		}
	}
}
