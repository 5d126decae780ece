package sglang

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/internal/pyfloat"
	"membudget/internal/shell"
	"membudget/model/hub"
)

// Engine is SGLang behind membudget's seam: its server flags under
// SGLang's names (python/sglang/srt/server_args.py) and in its argparse's
// forms, the `python -m sglang.launch_server` line, its rules by release
// (--sglang-version), its report section, its advice and plan, its budget
// and its startup logs.
type Engine struct{}

// Name returns "sglang".
func (Engine) Name() string { return "sglang" }

// Title returns "SGLang".
func (Engine) Title() string { return "SGLang" }

// NewServe returns a fresh server at the default release's defaults.
func (Engine) NewServe() engine.Serve { return &flagServe{version: DefaultName} }

// LaunchLine reports whether args begin `python -m sglang.launch_server`
// (python3, python3.N, by path or not).
func (Engine) LaunchLine(args []string) bool {
	return len(args) >= 3 && engine.IsPython(args[0]) && args[1] == "-m" && args[2] == "sglang.launch_server"
}

// LineUsage returns "python -m sglang.launch_server [flags]".
func (Engine) LineUsage() string { return "python -m sglang.launch_server [flags]" }

// AllowLongEnv is the environment variable that lets SGLang take a
// --context-length above the model's derived one
// (configs/model_config.py:292-313 at v0.5.6.post2).
const AllowLongEnv = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"

// flagServe is an SGLang server as a command's flags set it.
type flagServe struct {
	version string
	s       Serve
	// Pasted holds SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN as a pasted line or the
	// environment set it, and what the line held that membudget does not
	// read.
	engine.Pasted
	// given is the flags given, by the names given, once parsed.
	given map[string]bool
}

func (f *flagServe) Register(fs *flag.FlagSet, model *string) {
	f.register(fs, model)
	f.registerTable(fs, nil)
}

// register registers the flags SGLang's servers are sized by.
func (f *flagServe) register(fs *flag.FlagSet, model *string) {
	fs.StringVar(model, "model-path", "", "SGLang's --model-path: the same as --model")
	fs.StringVar(&f.version, "sglang-version", DefaultName, "the SGLang whose rules size the server: "+VersionHelp)
	fs.Var(fractionFlag(&f.s.MemFractionStatic), "mem-fraction-static", "SGLang's --mem-fraction-static: the share of the memory free after distributed init that the weights and the KV pool take, in (0, 1) (default: SGLang's for the device)")
	fs.Var(&countFlag{v: &f.s.ContextLength, name: "context-length"}, "context-length", "SGLang's --context-length in tokens (default: derived from config.json; above it needs SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 in the environment from v0.5.6.post2)")
	fs.Var(&countFlag{v: &f.s.MaxRunningRequests, name: "max-running-requests"}, "max-running-requests", "SGLang's --max-running-requests; it also sizes the req_to_token table (default: derived from the pool)")
	fs.Var(&countFlag{v: &f.s.MaxTotalTokens, name: "max-total-tokens"}, "max-total-tokens", "SGLang's --max-total-tokens: a cap on the KV pool's tokens")
	fs.Var(&chunkFlag{&f.s.ChunkedPrefillSize}, "chunked-prefill-size", "SGLang's --chunked-prefill-size in tokens; 0 or -1 disables chunked prefill (default: SGLang's for the device)")
	fs.Var(&countFlag{v: &f.s.MaxPrefillTokens, name: "max-prefill-tokens"}, "max-prefill-tokens", "SGLang's --max-prefill-tokens (default 16384)")
	fs.Var(&countFlag{v: &f.s.PageSize, name: "page-size"}, "page-size", "SGLang's --page-size: tokens per KV page (default 1, or the attention backend's)")
	fs.StringVar(&f.s.KVCacheDtype, "kv-cache-dtype", "auto", "SGLang's --kv-cache-dtype: auto, fp8_e4m3, fp8_e5m2, and from v0.5.6.post2 bf16 or bfloat16")
	for _, name := range []string{"tp-size", "tensor-parallel-size", "tp"} {
		fs.Var(&countFlag{v: &f.s.TPSize, name: "tp-size"}, name, "SGLang's --tp-size (--tensor-parallel-size; --tp is argparse's abbreviation) (default 1)")
	}
	for _, name := range []string{"pp-size", "pipeline-parallel-size", "pp"} {
		fs.Var(&countFlag{v: &f.s.PPSize, name: "pp-size"}, name, "SGLang's --pp-size (--pipeline-parallel-size; --pp, argparse's abbreviation, only in v0.4.9.post2) (default 1)")
	}
	for _, name := range []string{"dp-size", "data-parallel-size", "dp"} {
		fs.Var(&countFlag{v: &f.s.DPSize, name: "dp-size"}, name, "SGLang's --dp-size (--data-parallel-size; --dp is argparse's abbreviation): servers, each with its own KV pool (default 1)")
	}
	fs.BoolVar(&f.s.EnableDPAttention, "enable-dp-attention", false, "SGLang's --enable-dp-attention (not modelled: refused)")
	fs.Var(&countFlag{v: &f.s.Nodes.NNodes, name: "nnodes"}, "nnodes", "SGLang's --nnodes: the nodes the tp x pp ranks span (default 1); above 1 no release before v0.5.14 turns FlashInfer's all-reduce fusion on by itself (from v0.5.14 on SM10x, refused), v0.5.17 and v0.5.18 keep the custom all-reduce v2 across GB200 or GB300 nodes up to TP 8 (refused), and v0.5.18 may pick the CUDA VMM multimodal feature transport there for Qwen3-VL's classes (refused)")
	fs.BoolVar(&f.s.Nodes.EnableARFusion, "enable-flashinfer-allreduce-fusion", false, "SGLang's --enable-flashinfer-allreduce-fusion: FlashInfer's all-reduce fusion workspace on every GPU (sized for v0.5.6.post2 to v0.5.7 and v0.5.9, for the architectures those releases turn it on for, on SM90 or SM100)")
	fs.StringVar(&f.s.Dtype, "dtype", "auto", "SGLang's --dtype: auto, half, float16, bfloat16, float, float32")
	fs.StringVar(&f.s.Quantization, "quantization", "", "SGLang's --quantization: fp8, awq, gptq, ... (default: the checkpoint's)")
	fs.StringVar(&f.s.AttentionBackend, "attention-backend", "", "SGLang's --attention-backend: fa3, flashinfer, triton, flashmla, cutlass_mla, aiter, torch_native, and from v0.5.6.post2 trtllm_mha, trtllm_mla (default: SGLang's for the device)")
	fs.BoolVar(&f.s.DisableCudaGraph, "disable-cuda-graph", false, "SGLang's --disable-cuda-graph: no CUDA graphs")
	fs.BoolVar(&f.s.DisablePiecewiseCudaGraph, "disable-piecewise-cuda-graph", false, "SGLang's --disable-piecewise-cuda-graph (v0.5.10 on): no piecewise CUDA graphs for prefill, and no reserve for them in the default --mem-fraction-static")
	fs.BoolVar(&f.s.DisableRadixCache, "disable-radix-cache", false, "SGLang's --disable-radix-cache: for a Mamba hybrid (v0.5.14 to v0.5.18) one Mamba slot a request, and with --max-running-requests that many slots; no memory of its own otherwise")
	fs.BoolVar(&f.s.DisableOverlapSchedule, "disable-overlap-schedule", false, "SGLang's --disable-overlap-schedule: for a Mamba hybrid (v0.5.14 to v0.5.18) fewer Mamba slots a request (one ping-pong buffer, or none at page size 1); no memory of its own otherwise")
	f.registerMamba(fs)
	fs.BoolVar(&f.s.EnforceDisableARFusion, "enforce-disable-flashinfer-allreduce-fusion", false, "SGLang's --enforce-disable-flashinfer-allreduce-fusion: under v0.5.14 to v0.5.18 no FlashInfer all-reduce fusion, and no workspace, where SGLang would turn it on by itself; no effect membudget sizes under other releases")
	fs.BoolVar(&f.s.TrustRemoteCode, "trust-remote-code", false, "SGLang's --trust-remote-code: the checkpoint's own code reads a config transformers ships no class for (required for such a model)")
	fs.StringVar(&f.s.MMFeatureTransport, "mm-feature-transport", "", "SGLang's --mm-feature-transport (v0.5.16 to v0.5.18): cpu, the host transport, is sized; cuda_ipc and cuda_vmm, a pool of SGLANG_MM_FEATURE_CACHE_MB (1024 MiB) on the base GPU, are refused (default: SGLang's, cpu but under v0.5.17 for a multimodal model on one node of NVIDIA GPUs, cuda_ipc: refused; unset, "+MMIPCEnv+" in the environment decides it: true cuda_ipc, refused, false cpu)")
	f.registerSpec(fs)
	fs.Var(&countFlag{v: &f.s.CudaGraphMaxBS, name: "cuda-graph-max-bs"}, "cuda-graph-max-bs", "SGLang's --cuda-graph-max-bs: the largest decode batch captured in a CUDA graph (default: SGLang's for the device)")
}

// concepts are what SGLang's flags stand for, for the messages that refuse
// another engine's flag.
var concepts = []engine.Concept{
	{Flag: "model-path", Idea: engine.IdeaModel},
	{Flag: "sglang-version", Idea: engine.IdeaRelease},
	{Flag: "mem-fraction-static", Idea: engine.IdeaBudget, Gloss: "a share of the memory free after distributed init that the weights and the KV pool take"},
	{Flag: "max-total-tokens", Idea: engine.IdeaKVCap, Gloss: "a cap on the KV pool in tokens"},
	{Flag: "context-length", Idea: engine.IdeaLongest},
	{Flag: AllowLongEnv + "=1", Idea: engine.IdeaAllowLonger},
	{Flag: "max-running-requests", Idea: engine.IdeaSequences},
	{Flag: "chunked-prefill-size", Idea: engine.IdeaBatchTokens},
	{Flag: "page-size", Idea: engine.IdeaPage},
	{Flag: "tp-size", Idea: engine.IdeaTensorParallel},
	{Flag: "tensor-parallel-size", Idea: engine.IdeaTensorParallel},
	{Flag: "tp", Idea: engine.IdeaTensorParallel},
	{Flag: "pp-size", Idea: engine.IdeaPipeline},
	{Flag: "pipeline-parallel-size", Idea: engine.IdeaPipeline},
	{Flag: "dp-size", Idea: engine.IdeaDataParallel},
	{Flag: "data-parallel-size", Idea: engine.IdeaDataParallel},
	{Flag: "quantization", Idea: engine.IdeaQuantization},
	{Flag: "disable-cuda-graph", Idea: engine.IdeaNoGraphs},
	{Flag: "kv-cache-dtype", Idea: engine.IdeaKVDtype},
	{Flag: "dtype", Idea: engine.IdeaDtype},
}

func (f *flagServe) Concepts() []engine.Concept { return concepts }

// ReadLine reads `python -m sglang.launch_server [flags]` as SGLang's
// argparse does: dashes only, --flag value or --flag=value. The model is
// its --model-path (or --model); the flags that do not change memory are
// taken out.
func (f *flagServe) ReadLine(args []string) (engine.Line, error) {
	l := engine.Line{Name: "the launch line"}
	kept, ignored := engine.SplitIgnored(args[3:], ignoredNames(), func(s string) string { return s })
	l.Ignored = ignored
	for i := 0; i < len(kept); i++ {
		name, value, hasValue := strings.Cut(kept[i], "=")
		if name != "--model-path" && name != "--model" {
			l.Args = append(l.Args, kept[i])
			continue
		}
		if !hasValue {
			if i+1 == len(kept) {
				return l, fmt.Errorf("%s in the launch line needs a value: the model", name)
			}
			i++
			value = kept[i]
		}
		if l.Model != "" && l.Model != value {
			return l, fmt.Errorf("the launch line gives the model twice: %s and %s", l.Model, value)
		}
		l.Model, l.From = value, name+" "+value+" in the launch line"
	}
	return l, nil
}

func (f *flagServe) Env() []string { return []string{AllowLongEnv, JITDeepGEMMEnv, MMIPCEnv} }

// Parsed refuses an --sglang-version membudget has no rules for, --model
// and --model-path given together (one flag in SGLang), and --pp where
// the release's argparse finds it ambiguous.
func (f *flagServe) Parsed(given map[string]bool) ([]string, error) {
	f.given = given
	p, err := ProfileFor(f.version)
	if err != nil {
		return nil, err
	}
	if given["model"] && given["model-path"] {
		return nil, errors.New("--model and --model-path are the same flag in SGLang: give one")
	}
	if given["pp"] && !p.PPAbbreviation {
		// argparse's abbreviations: --pp is a prefix of --pp-size and
		// --pp-max-micro-batch-size (server_args.py at v0.5.6.post2).
		return nil, fmt.Errorf("--pp: %s refuses it as ambiguous (argparse: --pp-size, --pp-max-micro-batch-size): give --pp-size", p.Describes)
	}
	var warnings []string
	if _, warn := f.allowLongContext(p); warn != "" {
		warnings = append(warnings, warn)
	}
	if _, warn := f.jitDeepGEMM(p); warn != "" {
		warnings = append(warnings, warn)
	}
	if _, warn := f.mmIPCEnv(p); warn != "" {
		warnings = append(warnings, warn)
	}
	return warnings, nil
}

// Size sizes the server for m on c under the --sglang-version's profile.
func (f *flagServe) Size(m *hub.Loaded, c budget.Class) (engine.Sizing, error) {
	p, err := ProfileFor(f.version)
	if err != nil {
		return nil, err
	}
	s := f.s
	s.AllowLongContext, _ = f.allowLongContext(p)
	s.JITDeepGEMM, _ = f.jitDeepGEMM(p)
	s.MMIPCEnv, _ = f.mmIPCEnv(p)
	sz, err := size(m, c, s, p)
	if err != nil {
		return nil, err
	}
	sz.pasted = f.ForReport()
	return sz, nil
}

// allowLongContext reads SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN as
// profile p's SGLang does (see [Profile.EnvBoolWords]). warn is set for a
// value SGLang does not understand.
func (f *flagServe) allowLongContext(p Profile) (s engine.Switch, warn string) {
	s, e, known := f.envSwitch(AllowLongEnv, p.EnvBoolWords)
	if !known {
		return engine.Off, fmt.Sprintf("%s=%q (%s): %s reads it as false", AllowLongEnv, e.Value, e.From, p.Describes)
	}
	return s, ""
}

// envSwitch reads environment variable name as a boolean, in any case:
// true and 1, false and 0, and with words also yes, y, no and n (see
// [Profile.EnvBoolWords]). Unset, it is [engine.Default]; known is false
// for any other value, whose reading the caller's release decides.
func (f *flagServe) envSwitch(name string, words bool) (s engine.Switch, e engine.EnvSetting, known bool) {
	e, ok := f.Lookup(name)
	if !ok {
		return engine.Default, e, true
	}
	v := strings.ToLower(e.Value)
	truthy, falsy := []string{"true", "1"}, []string{"false", "0"}
	if words {
		truthy, falsy = append(truthy, "yes", "y"), append(falsy, "no", "n")
	}
	switch {
	case slices.Contains(truthy, v):
		return engine.On, e, true
	case slices.Contains(falsy, v):
		return engine.Off, e, true
	}
	return engine.Default, e, false
}

// Command is the SGLang launch line that runs the resolved server of
// model, every sizing flag explicit, so that SGLang of that release and
// membudget read it alike: the fraction as SGLang takes it before its aiter
// adjustment (which it applies again), the page size, the chunked prefill
// (-1 when disabled), the environment variable a context length above the
// derived one needs, SGLANG_ENABLE_JIT_DEEPGEMM=0 where the serve set it
// off, and --revision when the checkpoint sized is not the
// default branch's (ServerArgs.revision), and --mm-feature-transport where
// the serve gave it (see [Resolved.resolveMMTransport]). The caps SGLang derives from the
// pool (--max-running-requests, --max-total-tokens) are given only when
// the serve gave them.
func Command(model, revision string, r Resolved) string {
	var b strings.Builder
	if r.ContextLength > r.DerivedContextLen {
		b.WriteString(AllowLongEnv + "=1 ")
	}
	if r.JITDeepGEMM == engine.Off {
		b.WriteString(JITDeepGEMMEnv + "=0 ")
	}
	b.WriteString("python -m sglang.launch_server --model-path " + shell.Quote(model))
	if revision != "" {
		b.WriteString(" --revision " + shell.Quote(revision))
	}
	arg := func(flag string, v any) { fmt.Fprintf(&b, " --%s %v", flag, v) }
	arg("mem-fraction-static", strconv.FormatFloat(r.FractionAsGiven, 'f', -1, 64))
	arg("context-length", r.ContextLength)
	if r.MaxRunningRequests > 0 {
		arg("max-running-requests", r.MaxRunningRequests)
	}
	if r.MaxTotalTokens > 0 {
		arg("max-total-tokens", r.MaxTotalTokens)
	}
	arg("chunked-prefill-size", r.ChunkedPrefillSize)
	arg("max-prefill-tokens", r.MaxPrefillTokens)
	arg("page-size", r.PageSize)
	arg("kv-cache-dtype", r.KVCacheDtype)
	arg("dtype", r.Dtype)
	if r.Quantization != "" {
		arg("quantization", r.Quantization)
	}
	if r.AttentionBackend != "" {
		arg("attention-backend", r.AttentionBackend)
	}
	arg("tp-size", r.TPSize)
	if r.PPSize > 1 {
		arg("pp-size", r.PPSize)
	}
	if r.DPSize > 1 {
		arg("dp-size", r.DPSize)
	}
	b.WriteString(r.Nodes.line())
	switch {
	case r.DisableCudaGraph:
		b.WriteString(" --disable-cuda-graph")
	case r.CudaGraphMaxBS > 0:
		arg("cuda-graph-max-bs", r.CudaGraphMaxBS)
	}
	if r.Serve.DisablePiecewiseCudaGraph {
		b.WriteString(" --disable-piecewise-cuda-graph")
	}
	if r.TrustRemoteCode {
		b.WriteString(" --trust-remote-code")
	}
	if r.MMFeatureTransport != "" {
		// cpu, the only value sized: without it v0.5.17 would put a
		// multimodal model's features through a CUDA IPC pool.
		arg("mm-feature-transport", r.MMFeatureTransport)
	}
	b.WriteString(r.mambaLine())
	b.WriteString(r.specLine())
	return b.String()
}

// floatFlag is an SGLang number flag (argparse's type=float: Python's
// float()) that must be above 0, and below 1 where below1 says so;
// why says, in its refusal, what the number is.
type floatFlag struct {
	v      *float64
	below1 bool
	why    string
}

// fractionFlag is --mem-fraction-static: a number in (0, 1).
func fractionFlag(v *float64) *floatFlag {
	return &floatFlag{v: v, below1: true, why: "it is the share of the memory free after distributed init that the weights and the KV pool take"}
}

func (u *floatFlag) String() string {
	if u.v == nil || *u.v == 0 {
		return ""
	}
	return strconv.FormatFloat(*u.v, 'f', -1, 64)
}

func (u *floatFlag) Set(s string) error {
	span := "above 0"
	if u.below1 {
		span = "in (0, 1)"
	}
	v, err := pyfloat.Parse(s)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("want a number %s, got %q", span, s)
	}
	if v <= 0 || u.below1 && v >= 1 {
		return fmt.Errorf("%v: must be %s: %s", v, span, u.why)
	}
	*u.v = v
	return nil
}

// countFlag is an SGLang integer flag (argparse's type=int) that must be at
// least 1: SGLang takes 0 as given, not as its default, and fails on it.
type countFlag struct {
	v    *uint64
	name string
}

func (f *countFlag) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return strconv.FormatUint(*f.v, 10)
}

func (f *countFlag) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("want an integer (SGLang's argparse type=int), got %q", s)
	}
	if n <= 0 {
		return fmt.Errorf("%d: --%s must be at least 1", n, f.name)
	}
	*f.v = uint64(n)
	return nil
}

// chunkFlag is --chunked-prefill-size: tokens, or 0 or less to disable
// chunked prefill (the scheduler takes <= 0 as disabled,
// managers/scheduler.py:468 at v0.5.6.post2, :437 at v0.4.9.post2).
type chunkFlag struct{ v *int64 }

func (f *chunkFlag) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return strconv.FormatInt(*f.v, 10)
}

func (f *chunkFlag) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("want an integer (SGLang's argparse type=int), got %q", s)
	}
	if n <= 0 {
		n = -1
	}
	*f.v = n
	return nil
}

var (
	_ engine.Engine  = Engine{}
	_ engine.Serve   = (*flagServe)(nil)
	_ engine.Sizing  = (*Sizing)(nil)
	_ engine.Advisor = (*Sizing)(nil)
)
