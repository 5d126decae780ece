package main

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
	"membudget/engine/vllm"
	"membudget/model"
)

// serveFlags are the inputs every sizing command shares: the model, the
// class, the vLLM version and vLLM's serve flags, under vLLM's names and in
// vLLM's forms.
type serveFlags struct {
	model   string
	class   string
	version string
	kernels kernelsFlag
	s       vllm.Serve
	json    bool
	// engine is --engine: vllm, or sglang, whose flags are sg's; it is
	// read before the flags are parsed, engineParsed by parsing.
	engine, engineParsed string
	sg                   sglangFlags
	// given records the flags given, by name, for messages that must name
	// what the user typed.
	given map[string]bool
	// ignored lists vLLM flags of a pasted `vllm serve` line that do not
	// change memory, as given.
	ignored []string
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	f.given = map[string]bool{}
	fs.StringVar(&f.model, "model", "", "a config.json `path` (or a directory holding one), a shipped model (org/name or org__name, any case), or a Hugging Face model id org/name[@revision], from the local cache or the Hub (see 'membudget models')")
	fs.StringVar(&f.class, "class", "", "device `class` (see 'membudget classes'); case does not matter")
	fs.StringVar(&f.version, "vllm-version", "main", "the vLLM whose rules size the serve: main ("+vllmDescribes()+") or a release such as 0.19.0")
	f.kernels.register(fs)
	fs.Var(&utilFlag{&f.s.GPUMemoryUtilization}, "gpu-memory-utilization", "vLLM's --gpu-memory-utilization, in (0, 1] (default: the vLLM version's, 0.92 on main)")
	fs.Var(&sizeFlag{&f.s.KVCacheMemoryBytes, "kv-cache-memory-bytes"}, "kv-cache-memory-bytes", "vLLM's --kv-cache-memory-bytes: the KV cache per GPU, in bytes (10G = 10 GiB, 10g = 10^10); the util then does not size it")
	fs.Var(&maxLenFlag{&f.s}, "max-model-len", "vLLM's --max-model-len: tokens (32768, 32k, 32K) or auto (default: the model's derived maximum)")
	fs.BoolVar(&f.s.AllowLongMaxModelLen, "allow-long-max-model-len", false, "accept a --max-model-len above the model's maximum, as vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 does")
	fs.Var(&sizeFlag{&f.s.MaxNumSeqs, "max-num-seqs"}, "max-num-seqs", "vLLM's --max-num-seqs (default: vLLM's for the device, 256 or 1024)")
	fs.Var(&sizeFlag{&f.s.MaxNumBatchedTokens, "max-num-batched-tokens"}, "max-num-batched-tokens", "vLLM's --max-num-batched-tokens (default: vLLM's for the device, 2048, 8192 or 16384)")
	fs.Var(&sizeFlag{&f.s.BlockSize, "block-size"}, "block-size", "vLLM's --block-size (default: the attention backend's, 16 for most)")
	fs.StringVar(&f.s.KVCacheDtype, "kv-cache-dtype", "auto", "vLLM's --kv-cache-dtype: auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16, float16")
	for _, name := range []string{"tensor-parallel-size", "tp"} {
		fs.Var(&sizeFlag{&f.s.TensorParallelSize, "tensor-parallel-size"}, name, "vLLM's --tensor-parallel-size (-tp) (default 1)")
	}
	for _, name := range []string{"pipeline-parallel-size", "pp"} {
		fs.Var(&sizeFlag{&f.s.PipelineParallelSize, "pipeline-parallel-size"}, name, "vLLM's --pipeline-parallel-size (-pp) (default 1)")
	}
	for _, name := range []string{"data-parallel-size", "dp"} {
		fs.Var(&sizeFlag{&f.s.DataParallelSize, "data-parallel-size"}, name, "vLLM's --data-parallel-size (-dp): engines, each with its own KV cache (default 1)")
	}
	for _, name := range []string{"enable-expert-parallel", "ep"} {
		fs.BoolVar(&f.s.EnableExpertParallel, name, false, "vLLM's --enable-expert-parallel (-ep): experts divided whole among the TP x DP ranks")
	}
	fs.StringVar(&f.s.Dtype, "dtype", "auto", "vLLM's --dtype: auto, bfloat16, float16 (half), float32 (float)")
	for _, name := range []string{"quantization", "q"} {
		fs.StringVar(&f.s.Quantization, name, "", "vLLM's --quantization (-q): fp8, awq, gptq, ... (default: the checkpoint's)")
	}
	fs.BoolVar(&f.s.EnforceEager, "enforce-eager", false, "vLLM's --enforce-eager: no CUDA graphs")
	fs.Var(&switchFlag{&f.s.AsyncScheduling, engine.On}, "async-scheduling", "vLLM's --async-scheduling (on by default on main)")
	fs.Var(&switchFlag{&f.s.AsyncScheduling, engine.Off}, "no-async-scheduling", "vLLM's --no-async-scheduling: one batch in flight")
	fs.Var(&gibFlag{&f.s.CPUOffloadGiB, "cpu-offload-gb"}, "cpu-offload-gb", "vLLM's --cpu-offload-gb: GiB of each GPU's weights kept in host memory")
	fs.Var(&switchFlag{&f.s.EnablePrefixCaching, engine.On}, "enable-prefix-caching", "vLLM's --enable-prefix-caching: a hybrid model's state keeps 2 pages a sequence (mamba_cache_mode align; on by default for hybrids)")
	fs.Var(&switchFlag{&f.s.EnablePrefixCaching, engine.Off}, "no-enable-prefix-caching", "vLLM's --no-enable-prefix-caching: a hybrid model's state keeps 1 page a sequence")
	fs.StringVar(&f.s.MambaCacheDtype, "mamba-cache-dtype", "auto", "vLLM's --mamba-cache-dtype: auto, float32, float16, bfloat16 (a hybrid model's conv and SSM state)")
	fs.StringVar(&f.s.MambaSSMCacheDtype, "mamba-ssm-cache-dtype", "auto", "vLLM's --mamba-ssm-cache-dtype: auto, float32, float16, bfloat16 (the SSM state alone)")
	fs.Var(&optGiBFlag{&f.s.SwapSpaceGiB}, "swap-space", "vLLM's --swap-space in GiB, for the versions that have it (host memory; counts on unified devices; default 4 on the V0 engine)")
	fs.BoolVar(&f.json, "json", false, "print JSON for scripts (schema in the README)")
}

// vllmDescribes names the vLLM the default profile describes.
func vllmDescribes() string {
	p, _ := vllm.ProfileFor("main")
	return p.Describes
}

// sizing is a loaded serve: the model, the architecture, the class, the
// resolved serve and its plan, compiled by the model's compiler; the
// itemised reference is built when a command asks for it.
type sizing struct {
	modelName string
	model     *resolvedModel
	arch      *model.Arch
	class     budget.Class
	serve     vllm.Resolved
	plan      *budget.Plan
	ref       *vllm.Reference
}

// reference is the serve's itemised reference, built on first use: the
// report's ledger, capacity and groups come from it.
func (sz *sizing) reference() (*vllm.Reference, error) {
	if sz.ref == nil {
		ref, err := vllm.NewReference(sz.arch, sz.serve.Serve, sz.class, sz.serve.Profile)
		if err != nil {
			return nil, err
		}
		sz.ref = ref
	}
	return sz.ref, nil
}

// warnings are what did not stop the sizing: the model's, and a
// checkpoint whose weights differ from config.json's shapes.
func (sz *sizing) warnings() []string {
	if sz.model.checkpoint == nil {
		return slices.Clone(sz.model.warnings) // no checkpoint: nothing to compare
	}
	w := sz.model.weightsOf(sz.serve, 0)
	return append(slices.Clone(sz.model.warnings), w.Warnings...)
}

// load reads the model and the class and compiles the plan; every error
// names the flag, file or key.
func (f *serveFlags) load() (*sizing, error) {
	if f.model == "" {
		return nil, errors.New("--model is required: a config.json path, a shipped model or a Hugging Face model id (see 'membudget models')")
	}
	if f.class == "" {
		return nil, errors.New("--class is required (see 'membudget classes')")
	}
	profile, err := vllm.ProfileFor(f.version)
	if err != nil {
		return nil, err
	}
	rm, err := loads.model(f.model)
	if err != nil {
		return nil, err
	}
	a := rm.arch
	c, err := loads.class(f.kernels, f.class)
	if err != nil {
		return nil, fmt.Errorf("--class: %w", err)
	}
	f.s.Revision = rm.servedRevision()
	r, plan, err := rm.compiler().Compile(f.s, c, profile)
	if err != nil {
		return nil, err
	}
	return &sizing{modelName: rm.name, model: rm, arch: a, class: c, serve: r, plan: plan}, nil
}

// parseServe parses args as the sizing commands take them: membudget's
// flags, then optionally a `vllm serve MODEL [flags]` line as vLLM takes
// it, so that a command line can be pasted as it is.
func (f *serveFlags) parseServe(fs *flag.FlagSet, args []string) (status int, ok bool) {
	if status, ok := parseFlags(fs, args, true); !ok {
		return status, false
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return f.visit(fs)
	}
	if f.engine == engineSGLang {
		if status, ok := f.parseSGLangLine(fs, rest); !ok {
			return status, false
		}
		return f.visit(fs)
	}
	if len(rest) < 2 || rest[0] != "vllm" || rest[1] != "serve" {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q; every input is a flag, or a trailing `vllm serve MODEL [flags]`\n", fs.Name(), rest[0])
		return exitBadArgs, false
	}
	rest = rest[2:]
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		if f.model != "" {
			fmt.Fprintf(fs.Output(), "%s: the model is given twice: --model %s and vllm serve %s\n", fs.Name(), f.model, rest[0])
			return exitBadArgs, false
		}
		f.model, rest = rest[0], rest[1:]
	}
	rest, f.ignored = vllmArgs(rest)
	rest, revision, err := takeRevision(rest, "the vllm serve line")
	if err != nil {
		fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
		return exitBadArgs, false
	}
	if err := fs.Parse(rest); err != nil {
		return exitBadArgs, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q in the vllm serve line\n", fs.Name(), fs.Arg(0))
		return exitBadArgs, false
	}
	if err := f.atRevision(revision, "the vllm serve line"); err != nil {
		fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
		return exitBadArgs, false
	}
	return f.visit(fs)
}

// visit records which flags were given.
func (f *serveFlags) visit(fs *flag.FlagSet) (int, bool) {
	fs.Visit(func(fl *flag.Flag) { f.given[fl.Name] = true })
	if f.given["engine"] && f.engineParsed != f.engine {
		fmt.Fprintf(fs.Output(), "%s: --engine %s in the server line: give --engine before it\n", fs.Name(), f.engineParsed)
		return exitBadArgs, false
	}
	return 0, true
}

// vllmIgnored are vLLM flags that do not change a serve's memory, with
// whether each takes a value: a pasted `vllm serve` line may hold them.
var vllmIgnored = map[string]bool{
	"host": true, "port": true, "served-model-name": true, "api-key": true, "trust-remote-code": false,
	"tokenizer": true, "download-dir": true, "seed": true, "disable-log-requests": false, "disable-log-stats": false,
	"uvicorn-log-level": true, "chat-template": true, "tool-call-parser": true, "enable-auto-tool-choice": false,
	"reasoning-parser": true, "tokenizer-revision": true, "code-revision": true,
	"enable-chunked-prefill": false, "generation-config": true, "tokenizer-mode": true, "load-format": true,
	"distributed-executor-backend": true, "root-path": true, "allowed-origins": true, "ssl-keyfile": true, "ssl-certfile": true,
}

// vllmArgs turns a pasted vLLM argument list into membudget's: vLLM's
// underscore spellings become dashes, and flags that do not change memory
// are taken out and returned, so that they are reported rather than
// refused.
func vllmArgs(args []string) (kept, ignored []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name == "" {
			kept = append(kept, a)
			continue
		}
		name = strings.ReplaceAll(name, "_", "-")
		takesValue, skip := vllmIgnored[name]
		if !skip {
			if hasValue {
				kept = append(kept, "--"+name+"="+value)
			} else {
				kept = append(kept, "--"+name)
			}
			continue
		}
		if takesValue && !hasValue && i+1 < len(args) {
			ignored = append(ignored, a+" "+args[i+1])
			i++
			continue
		}
		ignored = append(ignored, a)
	}
	return kept, ignored
}

// utilFlag is --gpu-memory-utilization: a number in (0, 1].
type utilFlag struct{ v *float64 }

func (u *utilFlag) String() string {
	if u.v == nil || *u.v == 0 {
		return ""
	}
	return strconv.FormatFloat(*u.v, 'f', -1, 64)
}

func (u *utilFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("want a number in (0, 1], got %q", s)
	}
	if v <= 0 || v > 1 {
		return fmt.Errorf("%v: must be in (0, 1] (vLLM: greater than 0 and at most 1)", v)
	}
	*u.v = v
	return nil
}

// sizeFlag is a count vLLM takes in its human-readable form (32k, 32K) and
// refuses at zero or below.
type sizeFlag struct {
	v    *uint64
	name string
}

func (f *sizeFlag) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return strconv.FormatUint(*f.v, 10)
}

func (f *sizeFlag) Set(s string) error {
	n, err := vllm.ParseHumanInt(s)
	if err != nil {
		return err
	}
	if n <= 0 {
		return fmt.Errorf("%d: vLLM refuses it: --%s must be at least 1", n, f.name)
	}
	*f.v = uint64(n)
	return nil
}

// maxLenFlag is --max-model-len: tokens in vLLM's human-readable form, or
// auto (or -1, vLLM's spelling of it).
type maxLenFlag struct{ s *vllm.Serve }

func (f *maxLenFlag) String() string {
	switch {
	case f.s == nil:
		return ""
	case f.s.AutoMaxModelLen:
		return "auto"
	case f.s.MaxModelLen > 0:
		return strconv.FormatUint(f.s.MaxModelLen, 10)
	}
	return ""
}

func (f *maxLenFlag) Set(s string) error {
	if strings.EqualFold(strings.TrimSpace(s), "auto") || strings.TrimSpace(s) == "-1" {
		f.s.AutoMaxModelLen, f.s.MaxModelLen = true, 0
		return nil
	}
	n, err := vllm.ParseHumanInt(s)
	if err != nil {
		return err
	}
	if n <= 0 {
		// vllm/config/model.py:933-938.
		return fmt.Errorf("%d: vLLM refuses it: max_model_len must be a positive integer (or auto)", n)
	}
	f.s.MaxModelLen, f.s.AutoMaxModelLen = uint64(n), false
	return nil
}

// gibFlag is a size in GiB that may be 0.
type gibFlag struct {
	v    *float64
	name string
}

func (f *gibFlag) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return strconv.FormatFloat(*f.v, 'f', -1, 64)
}

func (f *gibFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("want a size in GiB, 0 or more, got %q", s)
	}
	*f.v = v
	return nil
}

// optGiBFlag is a size in GiB that may be 0 and whose absence means the
// default.
type optGiBFlag struct{ v **float64 }

func (f *optGiBFlag) String() string {
	if f.v == nil || *f.v == nil {
		return ""
	}
	return strconv.FormatFloat(**f.v, 'f', -1, 64)
}

func (f *optGiBFlag) Set(s string) error {
	var v float64
	if err := (&gibFlag{v: &v}).Set(s); err != nil {
		return err
	}
	*f.v = &v
	return nil
}

// switchFlag is one side of a --x / --no-x pair.
type switchFlag struct {
	v  *engine.Switch
	to engine.Switch
}

func (f *switchFlag) String() string   { return "" }
func (f *switchFlag) IsBoolFlag() bool { return true }

func (f *switchFlag) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("takes no value, got %q", s)
	}
	if !b {
		return fmt.Errorf("takes no value, got %q", s)
	}
	*f.v = f.to
	return nil
}

// settingsLine renders the resolved serve as the vLLM command it stands for.
func settingsLine(name string, r vllm.Resolved) string {
	return vllm.Command(name, r)
}
