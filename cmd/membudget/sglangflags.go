package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/sglang"
	"membudget/internal/shell"
	"membudget/model"
)

// sglangFlags are SGLang's server flags as the sizing commands take them
// with --engine sglang: under SGLang's names
// (python/sglang/srt/server_args.py), in SGLang's forms (argparse's
// type=int and type=float).
type sglangFlags struct {
	version string
	s       sglang.Serve
	// allowLong is SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN as the
	// environment (or a pasted line) sets it, "" when unset.
	allowLong, allowLongFrom string
	// ignoredEnv are the other NAME=value assignments of a pasted launch
	// line: membudget does not read them.
	ignoredEnv []string
	// revision is the checkpoint revision sized, for the launch line's
	// --revision; empty for the default branch.
	revision string
}

// sglangAllowLongEnv is the environment variable that lets SGLang take a
// --context-length above the model's derived one
// (configs/model_config.py:292-313 at v0.5.6.post2).
const sglangAllowLongEnv = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"

// sglangUnmodelled are SGLang flags that change memory in ways engine/sglang
// does not model: refused, naming why, rather than ignored.
var sglangUnmodelled = map[string]string{
	"cpu-offload-gb":               "SGLang's offload of weights to host memory",
	"ep":                           "SGLang's expert parallelism (--ep-size)",
	"ep-size":                      "SGLang's expert parallelism",
	"expert-parallel-size":         "SGLang's expert parallelism",
	"enable-ep-moe":                "SGLang's expert parallelism",
	"enable-multimodal":            "a multimodal Gemma 3 (its vision tower and default fraction)",
	"speculative-algorithm":        "speculative decoding (its draft model and pools)",
	"speculative-draft-model-path": "speculative decoding (its draft model and pools)",
	"enable-lora":                  "LoRA adapters",
	"lora-paths":                   "LoRA adapters",
	"enable-hierarchical-cache":    "the hierarchical (host) KV cache",
	"swa-full-tokens-ratio":        "a sliding-window pool ratio other than SGLang's 0.8",
	"disable-hybrid-swa-memory":    "the sliding-window models' single pool",
	"hybrid-kvcache-ratio":         "the hybrid KV cache ratio",
	"quantization-param-path":      "KV scales from a file",
}

// sglangIgnored are SGLang flags that do not change a server's memory, with
// whether each takes a value (server_args.py add_cli_args, the same in
// both modelled releases): a pasted launch line may hold them.
var sglangIgnored = map[string]bool{
	"host": true, "port": true, "served-model-name": true, "trust-remote-code": false, "tokenizer-path": true,
	"tokenizer-mode": true, "log-level": true, "log-level-http": true, "log-requests": false, "api-key": true,
	"chat-template": true, "tool-call-parser": true, "reasoning-parser": true, "enable-metrics": false,
	"random-seed": true, "download-dir": true, "skip-server-warmup": false, "nccl-port": true, "dist-init-addr": true,
	"nnodes": true, "node-rank": true, "watchdog-timeout": true, "dist-timeout": true, "show-time-cost": false,
	"decode-log-interval": true, "enable-cache-report": false, "disable-radix-cache": false, "schedule-policy": true,
	"stream-interval": true, "base-gpu-id": true,
}

// registerSGLang registers the inputs every sizing command shares under
// --engine sglang: the model, the class, the SGLang release and SGLang's
// server flags.
func (f *serveFlags) registerSGLang(fs *flag.FlagSet) {
	f.given = map[string]bool{}
	g := &f.sg
	for _, name := range []string{"model", "model-path"} {
		fs.StringVar(&f.model, name, "", "SGLang's --model-path (--model): a config.json `path` (or a directory holding one), a shipped model (org/name or org__name, any case), or a Hugging Face model id org/name[@revision], from the local cache or the Hub (see 'membudget models')")
	}
	fs.StringVar(&f.class, "class", "", "device `class` (see 'membudget classes'); case does not matter")
	fs.StringVar(&g.version, "sglang-version", sglang.DefaultName, "the SGLang whose rules size the server: v0.5.6.post2 or v0.4.9.post2")
	f.kernels.register(fs)
	fs.Var(&fractionFlag{&g.s.MemFractionStatic}, "mem-fraction-static", "SGLang's --mem-fraction-static: the share of the memory free after distributed init that the weights and the KV pool take, in (0, 1) (default: SGLang's for the device)")
	fs.Var(&countFlag{v: &g.s.ContextLength, name: "context-length"}, "context-length", "SGLang's --context-length in tokens (default: derived from config.json; above it needs SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 in the environment from v0.5.6.post2)")
	fs.Var(&countFlag{v: &g.s.MaxRunningRequests, name: "max-running-requests"}, "max-running-requests", "SGLang's --max-running-requests; it also sizes the req_to_token table (default: derived from the pool)")
	fs.Var(&countFlag{v: &g.s.MaxTotalTokens, name: "max-total-tokens"}, "max-total-tokens", "SGLang's --max-total-tokens: a cap on the KV pool's tokens")
	fs.Var(&chunkFlag{&g.s.ChunkedPrefillSize}, "chunked-prefill-size", "SGLang's --chunked-prefill-size in tokens; 0 or -1 disables chunked prefill (default: SGLang's for the device)")
	fs.Var(&countFlag{v: &g.s.MaxPrefillTokens, name: "max-prefill-tokens"}, "max-prefill-tokens", "SGLang's --max-prefill-tokens (default 16384)")
	fs.Var(&countFlag{v: &g.s.PageSize, name: "page-size"}, "page-size", "SGLang's --page-size: tokens per KV page (default 1, or the attention backend's)")
	fs.StringVar(&g.s.KVCacheDtype, "kv-cache-dtype", "auto", "SGLang's --kv-cache-dtype: auto, fp8_e4m3, fp8_e5m2, and from v0.5.6.post2 bf16 or bfloat16")
	for _, name := range []string{"tp-size", "tensor-parallel-size", "tp"} {
		fs.Var(&countFlag{v: &g.s.TPSize, name: "tp-size"}, name, "SGLang's --tp-size (--tensor-parallel-size; --tp is argparse's abbreviation) (default 1)")
	}
	for _, name := range []string{"pp-size", "pipeline-parallel-size", "pp"} {
		fs.Var(&countFlag{v: &g.s.PPSize, name: "pp-size"}, name, "SGLang's --pp-size (--pipeline-parallel-size; --pp, argparse's abbreviation, only in v0.4.9.post2) (default 1)")
	}
	for _, name := range []string{"dp-size", "data-parallel-size", "dp"} {
		fs.Var(&countFlag{v: &g.s.DPSize, name: "dp-size"}, name, "SGLang's --dp-size (--data-parallel-size; --dp is argparse's abbreviation): servers, each with its own KV pool (default 1)")
	}
	fs.BoolVar(&g.s.EnableDPAttention, "enable-dp-attention", false, "SGLang's --enable-dp-attention (not modelled: refused)")
	fs.StringVar(&g.s.Dtype, "dtype", "auto", "SGLang's --dtype: auto, half, float16, bfloat16, float, float32")
	fs.StringVar(&g.s.Quantization, "quantization", "", "SGLang's --quantization: fp8, awq, gptq, ... (default: the checkpoint's)")
	fs.StringVar(&g.s.AttentionBackend, "attention-backend", "", "SGLang's --attention-backend: fa3, flashinfer, triton, flashmla, cutlass_mla, aiter, torch_native, and from v0.5.6.post2 trtllm_mha, trtllm_mla (default: SGLang's for the device)")
	fs.BoolVar(&g.s.DisableCudaGraph, "disable-cuda-graph", false, "SGLang's --disable-cuda-graph: no CUDA graphs")
	fs.Var(&countFlag{v: &g.s.CudaGraphMaxBS, name: "cuda-graph-max-bs"}, "cuda-graph-max-bs", "SGLang's --cuda-graph-max-bs: the largest decode batch captured in a CUDA graph (default: SGLang's for the device)")
	fs.BoolVar(&f.json, "json", false, "print JSON for scripts (schema in the README)")
}

// unmodelledSGLangFlag refuses an SGLang flag of args whose memory is not
// modelled.
func unmodelledSGLangFlag(args []string) error {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if what, ok := sglangUnmodelled[name]; ok {
			return fmt.Errorf("--%s: %s is not modelled for SGLang; membudget refuses it rather than size a server it would get wrong", name, what)
		}
	}
	return nil
}

// parseSGLangLine parses the rest of the arguments after membudget's flags:
// nothing, or SGLang's launch line as it is typed, `[NAME=value ...] python
// -m sglang.launch_server [--model-path M] [flags]`. Flags that do not
// change memory, and environment assignments membudget does not read, are
// listed as ignored.
func (f *serveFlags) parseSGLangLine(fs *flag.FlagSet, rest []string) (int, bool) {
	if len(rest) > 0 && rest[0] == "vllm" {
		fmt.Fprintf(fs.Output(), "%s: a `vllm serve` line with --engine sglang: give SGLang's `python -m sglang.launch_server` line, or --engine vllm\n", fs.Name())
		return exitBadArgs, false
	}
	if !serverLineStart(rest) {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q; every input is a flag, or a trailing `python -m sglang.launch_server [flags]`\n", fs.Name(), rest[0])
		return exitBadArgs, false
	}
	for isEnvAssignment(rest[0]) {
		name, value, _ := strings.Cut(rest[0], "=")
		if name == sglangAllowLongEnv {
			f.sg.allowLong, f.sg.allowLongFrom = value, "the launch line"
		} else {
			f.sg.ignoredEnv = append(f.sg.ignoredEnv, rest[0])
		}
		rest = rest[1:]
	}
	modelBefore := f.model
	f.model = ""
	rest = rest[3:]
	var kept []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takesValue, skip := sglangIgnored[name]
		if !strings.HasPrefix(a, "-") || !skip {
			kept = append(kept, a)
			continue
		}
		if takesValue && !hasValue && i+1 < len(rest) {
			f.ignored = append(f.ignored, a+" "+rest[i+1])
			i++
			continue
		}
		f.ignored = append(f.ignored, a)
	}
	kept, revision, err := takeRevision(kept, "the launch line")
	if err != nil {
		fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
		return exitBadArgs, false
	}
	if err := fs.Parse(kept); err != nil {
		return exitBadArgs, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q in the launch line\n", fs.Name(), fs.Arg(0))
		return exitBadArgs, false
	}
	switch {
	case modelBefore != "" && f.model != "" && modelBefore != f.model:
		fmt.Fprintf(fs.Output(), "%s: the model is given twice: --model %s and --model-path %s in the launch line\n", fs.Name(), modelBefore, f.model)
		return exitBadArgs, false
	case f.model == "":
		f.model = modelBefore
	}
	if err := f.atRevision(revision, "the launch line"); err != nil {
		fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
		return exitBadArgs, false
	}
	return 0, true
}

// checkSGLangFlags refuses what SGLang itself would refuse of the flags as
// typed, once the release is known.
func (f *serveFlags) checkSGLangFlags(p sglang.Profile) error {
	if f.given["model"] && f.given["model-path"] {
		return errors.New("--model and --model-path are the same flag in SGLang: give one")
	}
	if f.given["pp"] && p.Name != "v0.4.9.post2" {
		// argparse's abbreviations: --pp is a prefix of --pp-size and
		// --pp-max-micro-batch-size (server_args.py at v0.5.6.post2).
		return fmt.Errorf("--pp: %s refuses it as ambiguous (argparse: --pp-size, --pp-max-micro-batch-size): give --pp-size", p.Describes)
	}
	return nil
}

// allowLongContext reads SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN as
// profile p's SGLang does: v0.5.6.post2's EnvBool takes true, 1, yes, y and
// false, 0, no, n, and anything else warns and keeps the default, False
// (environ.py:98-105, 23-38); v0.4.9.post2's get_bool_env_var is true only
// for true and 1 (utils.py:172-185). warn is set for a value SGLang does
// not understand.
func (g *sglangFlags) allowLongContext(p sglang.Profile) (s engine.Switch, warn string) {
	if g.allowLongFrom == "" {
		return engine.Default, ""
	}
	v := strings.ToLower(g.allowLong)
	truthy, falsy := []string{"true", "1"}, []string{"false", "0"}
	if p.Name != "v0.4.9.post2" {
		truthy, falsy = append(truthy, "yes", "y"), append(falsy, "no", "n")
	}
	for _, t := range truthy {
		if v == t {
			return engine.On, ""
		}
	}
	for _, t := range falsy {
		if v == t {
			return engine.Off, ""
		}
	}
	return engine.Off, fmt.Sprintf("%s=%q (%s): %s reads it as false", sglangAllowLongEnv, g.allowLong, g.allowLongFrom, p.Describes)
}

// sglangSizing is a loaded SGLang server: the model, the architecture, the
// class, its reference and its plan.
type sglangSizing struct {
	modelName string
	model     *resolvedModel
	arch      *model.Arch
	class     budget.Class
	ref       *sglang.Reference
	plan      *budget.Plan
}

// loadSGLang reads the model and the class and compiles SGLang's plan;
// every error names the flag, file, key or environment variable. What does
// not stop it is a warning on stderr, the model's included.
func (f *serveFlags) loadSGLang(stderr io.Writer, cmd string) (*sglangSizing, error) {
	if f.model == "" {
		return nil, errors.New("--model is required (SGLang's --model-path): a config.json path, a shipped model or a Hugging Face model id (see 'membudget models')")
	}
	if f.class == "" {
		return nil, errors.New("--class is required (see 'membudget classes')")
	}
	profile, err := sglang.ProfileFor(f.sg.version)
	if err != nil {
		return nil, err
	}
	if err := f.checkSGLangFlags(profile); err != nil {
		return nil, err
	}
	if f.sg.allowLongFrom == "" {
		if v, ok := lookupEnv(sglangAllowLongEnv); ok {
			f.sg.allowLong, f.sg.allowLongFrom = v, "the environment"
		}
	}
	allow, warn := f.sg.allowLongContext(profile)
	if warn != "" {
		writeWarnings(stderr, cmd, []string{warn})
	}
	rm, err := resolveModel(f.model)
	if err != nil {
		return nil, err
	}
	writeWarnings(stderr, cmd, rm.warnings)
	f.sg.revision = rm.servedRevision()
	c, err := f.kernels.catalog().Load(f.class)
	if err != nil {
		return nil, fmt.Errorf("--class: %w", err)
	}
	s := f.sg.s
	s.AllowLongContext = allow
	ref, err := sglang.NewReference(rm.arch, s, c, profile)
	if err != nil {
		return nil, err
	}
	return &sglangSizing{modelName: rm.name, model: rm, arch: rm.arch, class: c, ref: ref, plan: ref.Plan()}, nil
}

// lookupEnv reads the environment through getenv, which tests replace: an
// empty value counts as unset, as the Hugging Face settings do.
func lookupEnv(name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

// sglangCommand renders a resolved server as the SGLang launch line that
// reproduces it, every sizing flag explicit, so that SGLang of that release
// and membudget read it alike: the fraction as SGLang applies it before its
// aiter adjustment (which it applies to a given value too), the page size,
// the chunked prefill (-1 when disabled), the environment variable a
// context length above the derived one needs, and --revision when the
// checkpoint sized is not the default branch's (SGLang's ServerArgs.revision).
func sglangCommand(name, revision string, r sglang.Resolved, given sglang.Serve) string {
	var b strings.Builder
	if r.ContextLength > r.DerivedContextLen {
		b.WriteString(sglangAllowLongEnv + "=1 ")
	}
	b.WriteString("python -m sglang.launch_server --model-path " + shell.Quote(name))
	if revision != "" {
		b.WriteString(" --revision " + shell.Quote(revision))
	}
	arg := func(flag string, v any) { fmt.Fprintf(&b, " --%s %v", flag, v) }
	arg("mem-fraction-static", strconv.FormatFloat(givenFraction(r, given), 'f', -1, 64))
	arg("context-length", r.ContextLength)
	if given.MaxRunningRequests > 0 {
		arg("max-running-requests", given.MaxRunningRequests)
	}
	if given.MaxTotalTokens > 0 {
		arg("max-total-tokens", given.MaxTotalTokens)
	}
	arg("chunked-prefill-size", r.ChunkedPrefillSize)
	arg("max-prefill-tokens", r.MaxPrefillTokens)
	arg("page-size", r.PageSize)
	arg("kv-cache-dtype", r.KVCacheDtype)
	arg("dtype", r.Dtype)
	if given.Quantization != "" {
		arg("quantization", given.Quantization)
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
	switch {
	case r.DisableCudaGraph:
		b.WriteString(" --disable-cuda-graph")
	case r.CudaGraphMaxBS > 0:
		arg("cuda-graph-max-bs", r.CudaGraphMaxBS)
	}
	return b.String()
}

// aiterFactor is what v0.5.6.post2 multiplies --mem-fraction-static by on
// the aiter backend above 8192 tokens of context, a given value too
// (server_args.py:1499-1501).
const aiterFactor = 0.85

// givenFraction is the --mem-fraction-static to give SGLang so that it
// applies r's: the given value, or r's before the aiter adjustment (found
// to the last bit, so that SGLang's own multiplication lands on r's).
func givenFraction(r sglang.Resolved, given sglang.Serve) float64 {
	if given.MemFractionStatic > 0 {
		return given.MemFractionStatic
	}
	if !(r.Profile.AiterMSF && r.AttentionBackend == "aiter" && r.ContextLength > 8192) {
		return r.MemFractionStatic
	}
	x := r.MemFractionStatic / aiterFactor
	for _, dir := range []float64{math.Inf(1), math.Inf(-1)} {
		y := x
		for range 4 {
			if y*aiterFactor == r.MemFractionStatic {
				return y
			}
			y = math.Nextafter(y, dir)
		}
	}
	return x
}

// fractionFlag is --mem-fraction-static: a number in (0, 1), as SGLang's
// argparse type=float reads it.
type fractionFlag struct{ v *float64 }

func (u *fractionFlag) String() string {
	if u.v == nil || *u.v == 0 {
		return ""
	}
	return strconv.FormatFloat(*u.v, 'f', -1, 64)
}

func (u *fractionFlag) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("want a number in (0, 1), got %q", s)
	}
	if v <= 0 || v >= 1 {
		return fmt.Errorf("%v: must be in (0, 1): it is the share of the memory free after distributed init that the weights and the KV pool take", v)
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
