package vllm

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"membudget/budget"
	"membudget/engine"
	"membudget/internal/pyfloat"
	"membudget/model/hub"
)

// Engine is vLLM behind membudget's seam: its serve flags under vLLM's
// names and in vLLM's forms, the `vllm serve` line, its rules by release
// (--vllm-version), its report section, its advice and plan, its budget and
// its startup logs.
type Engine struct{}

// Name returns "vllm".
func (Engine) Name() string { return "vllm" }

// Title returns "vLLM".
func (Engine) Title() string { return "vLLM" }

// NewServe returns a fresh serve at vLLM main's defaults.
func (Engine) NewServe() engine.Serve { return &flagServe{version: "main"} }

// LaunchLine reports whether args begin `vllm serve`, or `python -m
// vllm.entrypoints.openai.api_server` (python3, python3.N, by path or
// not), the API server's own entry point, which the vllm-openai image ran
// before `vllm serve` (its Dockerfile's ENTRYPOINT).
func (Engine) LaunchLine(args []string) bool {
	return len(args) >= 2 && args[0] == "vllm" && args[1] == "serve" || isAPIServer(args)
}

// apiServerModule is the module of vLLM's OpenAI-compatible server.
const apiServerModule = "vllm.entrypoints.openai.api_server"

// isAPIServer reports whether args begin `python -m
// vllm.entrypoints.openai.api_server`.
func isAPIServer(args []string) bool {
	module, _ := engine.PythonModule(args)
	return module == apiServerModule
}

// LineUsage returns "vllm serve MODEL [flags]".
func (Engine) LineUsage() string { return "vllm serve MODEL [flags]" }

// AllowLongEnv is the environment variable with which vLLM takes a
// --max-model-len above the model's derived maximum (vllm/envs.py:
// VLLM_ALLOW_LONG_MAX_MODEL_LEN, true for "1" or "true", trimmed, any
// case).
const AllowLongEnv = "VLLM_ALLOW_LONG_MAX_MODEL_LEN"

// flagServe is a vLLM serve as a command's flags set it.
type flagServe struct {
	version string
	s       Serve
	// Pasted holds VLLM_ALLOW_LONG_MAX_MODEL_LEN and
	// VLLM_USE_V2_MODEL_RUNNER as a pasted line or the environment set
	// them, and what the line held that membudget does not read.
	engine.Pasted
	// given is the flags given, by the names given, once parsed.
	given map[string]bool
}

// Register registers the flags vLLM's serves are sized by, and, hidden
// from -h, every other flag of `vllm serve` in the releases membudget has
// read (flagtable.go), which a serve lists as ignored or refuses by name.
func (f *flagServe) Register(fs *flag.FlagSet, model *string) {
	f.registerModelled(fs, nil)
	f.registerTable(fs, nil)
}

// registerModelled registers the flags vLLM's serves are sized by: every
// one when given is nil, else only those given (see RegisterFor), a string
// flag's default then set as registering it would have. A request names a
// handful of some 60 flags, and each registration costs an allocation and
// a map insert: registering all made batch 40 % slower than with the 40
// of 079568e.
func (f *flagServe) registerModelled(fs *flag.FlagSet, given map[string]bool) {
	// A request names a few flags and this asks after some sixty: seen
	// spares most of the lookups of names not given.
	var seen uint64
	for n := range given {
		seen |= nameBit(n)
	}
	on := func(names ...string) bool {
		if given == nil {
			return true
		}
		for _, n := range names {
			if seen&nameBit(n) != 0 && given[n] {
				return true
			}
		}
		return false
	}
	if on("vllm-version") {
		fs.StringVar(&f.version, "vllm-version", "main", "the vLLM whose rules size the serve: main ("+mainDescribes+") or a release such as 0.19.0")
	} else {
		f.version = "main"
	}
	if on("gpu-memory-utilization") {
		fs.Var(&utilFlag{&f.s.GPUMemoryUtilization}, "gpu-memory-utilization", "vLLM's --gpu-memory-utilization, in (0, 1] (default: the vLLM version's, 0.92 on main)")
	}
	if on("kv-cache-memory-bytes") {
		fs.Var(&sizeFlag{&f.s.KVCacheMemoryBytes, "kv-cache-memory-bytes"}, "kv-cache-memory-bytes", "vLLM's --kv-cache-memory-bytes: the KV cache per GPU, in bytes (10G = 10 GiB, 10g = 10^10); the util then does not size it")
	}
	// Registered always: a command sets the length a serve starts at after
	// sizing it (see [engine.LongestStarter]).
	fs.Var(&maxLenFlag{&f.s}, "max-model-len", "vLLM's --max-model-len: tokens (32768, 32k, 32K) or auto (default: the model's derived maximum)")
	if on("allow-long-max-model-len") {
		fs.BoolVar(&f.s.AllowLongMaxModelLen, "allow-long-max-model-len", false, "accept a --max-model-len above the model's maximum, as vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 does")
	}
	if on("max-num-seqs") {
		fs.Var(&sizeFlag{&f.s.MaxNumSeqs, "max-num-seqs"}, "max-num-seqs", "vLLM's --max-num-seqs (default: vLLM's for the device, 256 or 1024)")
	}
	if on("max-num-batched-tokens") {
		fs.Var(&sizeFlag{&f.s.MaxNumBatchedTokens, "max-num-batched-tokens"}, "max-num-batched-tokens", "vLLM's --max-num-batched-tokens (default: vLLM's for the device, 2048, 8192 or 16384)")
	}
	if on("block-size") {
		fs.Var(&sizeFlag{&f.s.BlockSize, "block-size"}, "block-size", "vLLM's --block-size (default: the attention backend's, 16 for most)")
	}
	if on("kv-cache-dtype") {
		fs.StringVar(&f.s.KVCacheDtype, "kv-cache-dtype", "auto", "vLLM's --kv-cache-dtype: auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16, float16")
	} else {
		f.s.KVCacheDtype = "auto"
	}
	if on("kv-cache-dtype-skip-layers") {
		fs.StringVar(&f.s.KVCacheDtypeSkipLayers, "kv-cache-dtype-skip-layers", "", "vLLM's --kv-cache-dtype-skip-layers L ...: layer indices or sliding_window whose KV cache keeps the model's dtype (from 0.19.0)")
	}
	for _, name := range []string{"tensor-parallel-size", "tp"} {
		if on(name) {
			fs.Var(&sizeFlag{&f.s.TensorParallelSize, "tensor-parallel-size"}, name, "vLLM's --tensor-parallel-size (-tp) (default 1)")
		}
	}
	for _, name := range []string{"pipeline-parallel-size", "pp"} {
		if on(name) {
			fs.Var(&sizeFlag{&f.s.PipelineParallelSize, "pipeline-parallel-size"}, name, "vLLM's --pipeline-parallel-size (-pp) (default 1)")
		}
	}
	for _, name := range []string{"data-parallel-size", "dp"} {
		if on(name) {
			fs.Var(&sizeFlag{&f.s.DataParallelSize, "data-parallel-size"}, name, "vLLM's --data-parallel-size (-dp): engines, each with its own KV cache (default 1)")
		}
	}
	for _, name := range []string{"enable-expert-parallel", "ep"} {
		if on(name) {
			fs.BoolVar(&f.s.EnableExpertParallel, name, false, "vLLM's --enable-expert-parallel (-ep): experts divided whole among the TP x DP ranks")
		}
	}
	if on("dtype") {
		fs.StringVar(&f.s.Dtype, "dtype", "auto", "vLLM's --dtype: auto, bfloat16, float16 (half), float32 (float)")
	} else {
		f.s.Dtype = "auto"
	}
	for _, name := range []string{"quantization", "q"} {
		if on(name) {
			fs.StringVar(&f.s.Quantization, name, "", "vLLM's --quantization (-q): fp8, awq, gptq, ... (default: the checkpoint's)")
		}
	}
	if on("enforce-eager") {
		fs.BoolVar(&f.s.EnforceEager, "enforce-eager", false, "vLLM's --enforce-eager: no CUDA graphs")
	}
	if on("compile-cache") {
		fs.Var(&compileCacheFlag{&f.s.ColdCompileCache}, "compile-cache", "membudget's own: warm sizes a start whose torch.compile cache an earlier start filled; cold a first start with an empty one, whose profile vLLM charges Inductor's benchmark copy of the embedding table as activation where it exceeds the forward's peak (default warm)")
	}
	if on("interconnect") {
		fs.Var(&interconnectFlag{&f.s.Interconnect}, "interconnect", "how the serve's GPUs reach each other, when not as the class says: nvlink, xgmi, pcie-p2p, pcie (no peer access) or none (one GPU a node); it decides the custom all-reduce and NCCL's buffers under tensor parallelism")
	}
	if on("trust-remote-code") {
		fs.BoolVar(&f.s.TrustRemoteCode, "trust-remote-code", false, "vLLM's --trust-remote-code: the checkpoint's own code reads a config transformers ships no class for (required for such a model)")
	}
	if on("disable-custom-all-reduce") {
		fs.BoolVar(&f.s.DisableCustomAllReduce, "disable-custom-all-reduce", false, "vLLM's --disable-custom-all-reduce: NCCL alone reduces under tensor parallelism (no custom all-reduce buffers)")
	}
	if on("async-scheduling") {
		fs.Var(&engine.SwitchFlag{V: &f.s.AsyncScheduling, To: engine.On}, "async-scheduling", "vLLM's --async-scheduling (on by default on main)")
	}
	if on("no-async-scheduling") {
		fs.Var(&engine.SwitchFlag{V: &f.s.AsyncScheduling, To: engine.Off}, "no-async-scheduling", "vLLM's --no-async-scheduling: one batch in flight")
	}
	if on("cpu-offload-gb") {
		fs.Var(&gibFlag{&f.s.CPUOffloadGiB}, "cpu-offload-gb", "vLLM's --cpu-offload-gb: GiB of each GPU's weights kept in host memory")
	}
	if on("enable-chunked-prefill") {
		fs.Var(&engine.SwitchFlag{V: &f.s.ChunkedPrefill, To: engine.On}, "enable-chunked-prefill", "vLLM's --enable-chunked-prefill (on by default for a generating model)")
	}
	if on("no-enable-chunked-prefill") {
		fs.Var(&engine.SwitchFlag{V: &f.s.ChunkedPrefill, To: engine.Off}, "no-enable-chunked-prefill", "vLLM's --no-enable-chunked-prefill: a prompt is prefilled whole, so the batched tokens default to at least --max-model-len and may not be fewer (from 0.14.0; V1 up to 0.11.0 chunks regardless, and 0.11.1 to 0.13.x are refused unless --max-num-batched-tokens holds the length; before 0.8.5 vLLM spells it --enable-chunked-prefill False)")
	}
	if on("long-prefill-token-threshold") {
		fs.Var(&countFlag{&f.s.LongPrefillTokenThreshold}, "long-prefill-token-threshold", "vLLM's --long-prefill-token-threshold: no memory, but vLLM refuses one above --max-model-len (from 0.28.0; before, under --max-num-partial-prefills above 1)")
	}
	if on("max-num-partial-prefills") {
		fs.Var(&sizeFlag{&f.s.MaxNumPartialPrefills, "max-num-partial-prefills"}, "max-num-partial-prefills", "vLLM's --max-num-partial-prefills (up to 0.27.x): no memory, but above 1 vLLM refuses it without chunked prefill")
	}
	if on("enable-prefix-caching") {
		fs.Var(&engine.SwitchFlag{V: &f.s.EnablePrefixCaching, To: engine.On}, "enable-prefix-caching", "vLLM's --enable-prefix-caching: a hybrid model's state keeps 2 pages a sequence (mamba_cache_mode align; on by default for hybrids from 0.28.0, refused before it for the classes vLLM gives mode all)")
	}
	if on("no-enable-prefix-caching") {
		fs.Var(&engine.SwitchFlag{V: &f.s.EnablePrefixCaching, To: engine.Off}, "no-enable-prefix-caching", "vLLM's --no-enable-prefix-caching: a hybrid model's state keeps 1 page a sequence")
	}
	if on("mamba-cache-dtype") {
		fs.StringVar(&f.s.MambaCacheDtype, "mamba-cache-dtype", "auto", "vLLM's --mamba-cache-dtype: auto, float32, float16, bfloat16 (a hybrid model's conv and SSM state)")
	} else {
		f.s.MambaCacheDtype = "auto"
	}
	if on("mamba-ssm-cache-dtype") {
		fs.StringVar(&f.s.MambaSSMCacheDtype, "mamba-ssm-cache-dtype", "auto", "vLLM's --mamba-ssm-cache-dtype: auto, float32, float16, bfloat16 (the SSM state alone)")
	} else {
		f.s.MambaSSMCacheDtype = "auto"
	}
	if on(loraFlags...) {
		registerLoRA(fs, &f.s.LoRA)
	}
	if on(compilationFlags...) {
		registerCompilation(fs, &f.s.Compilation, &f.Listed)
	}
	if on("num-gpu-blocks-override") {
		fs.Var(&sizeFlag{&f.s.NumGPUBlocksOverride, "num-gpu-blocks-override"}, "num-gpu-blocks-override", "vLLM's --num-gpu-blocks-override: the KV cache holds exactly this many blocks, whatever the budget leaves (vLLM 0.20.2 on)")
	}
	if on(offloadFlags...) {
		registerOffload(fs, &f.s.Offload)
	}
	if on(eplbFlags...) {
		registerEPLB(fs, &f.s.EPLB)
	}
	if on("kv-transfer-config") {
		registerKVTransfer(fs, &f.s.KVTransferConfig)
	}
	if on("all2all-backend") {
		registerAll2All(fs, &f.s.All2AllBackend)
	}
	if on(mmFlags...) {
		registerMM(fs, &f.s.MM)
	}
	if on("language-model-only") {
		fs.BoolVar(&f.s.MM.LanguageModelOnly, "language-model-only", false, "vLLM's --language-model-only (vLLM 0.16.0 on): every modality's limit 0, so a multimodal model's vision and audio towers are not built (nor charged) and the profile runs no encoder")
	}
	registerSpec(fs, &f.s.SpeculativeConfig, on)
	if on("runner") {
		fs.StringVar(&f.s.Runner, "runner", "auto", "vLLM's --runner: auto, generate or pooling (auto: pooling for an encoder-only model such as BERT, RoBERTa, XLM-RoBERTa)")
	} else {
		f.s.Runner = "auto"
	}
	if on("convert") {
		fs.StringVar(&f.s.Convert, "convert", "auto", "vLLM's --convert: auto, none, embed (a causal LM adapted to an embedding model under --runner pooling) or classify (a <X>ForSequenceClassification adapted from its causal LM)")
	} else {
		f.s.Convert = "auto"
	}
	if on("pooler-config") {
		fs.StringVar(&f.s.PoolerConfig, "pooler-config", "", "vLLM's --pooler-config, JSON: its seq_pooling_type (LAST, ALL, MEAN, CLS) says whether the pooling runner keeps chunked prefill for a converted model")
	}
	if on("swap-space") {
		fs.Var(&optGiBFlag{&f.s.SwapSpaceGiB}, "swap-space", "vLLM's --swap-space in GiB, for the versions that have it (host memory; counts on unified devices; default 4 on the V0 engine)")
	}
	registerNegations(fs, given)
}

// nameBit is one of 64 bits for a flag name, from its length and its first
// and last bytes: a set of names' bits says which names it cannot hold.
func nameBit(n string) uint64 {
	if n == "" {
		return 1
	}
	return 1 << ((uint(len(n))*7 + uint(n[0]) + 3*uint(n[len(n)-1])) % 64)
}

// registerNegations registers the --no- form of every modelled switch the
// table says argparse builds with BooleanOptionalAction (--no-enforce-eager,
// --no-disable-custom-all-reduce), where registerModelled has not: it sets
// the switch off; only the forms given, when given is not nil.
func registerNegations(fs *flag.FlagSet, given map[string]bool) {
	for _, sw := range modelledSwitches() {
		name, n := sw[0], sw[1]
		if given != nil && !given[n] || fs.Lookup(n) != nil {
			continue
		}
		if pos := fs.Lookup(name); pos != nil {
			if b, ok := pos.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				fs.Var(negation{pos.Value}, n, "vLLM's --"+n)
			}
		}
	}
}

// modelledSwitches is the modelled flags of the table with a --no- form,
// each beside that form, listed once: a request registers them, and the
// table has some 350 rows.
var modelledSwitches = sync.OnceValue(func() [][2]string {
	var names [][2]string
	for i := range flagTable {
		if fl := &flagTable[i]; fl.kind == modelled && fl.neg {
			names = append(names, [2]string{fl.name, "no-" + fl.name})
		}
	}
	return names
})

// negation is a switch's --no- form: given, it sets the switch off.
type negation struct{ of flag.Value }

func (n negation) String() string   { return "" }
func (n negation) IsBoolFlag() bool { return true }
func (n negation) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	return n.of.Set(strconv.FormatBool(!on))
}

// concepts are what vLLM's flags stand for, for the messages that refuse
// another engine's flag.
var concepts = []engine.Concept{
	{Flag: "model", Idea: engine.IdeaModel},
	{Flag: "vllm-version", Idea: engine.IdeaRelease},
	{Flag: "gpu-memory-utilization", Idea: engine.IdeaBudget, Gloss: "a share of the device's total"},
	{Flag: "kv-cache-memory-bytes", Idea: engine.IdeaKVCap, Gloss: "the KV cache in bytes"},
	{Flag: "max-model-len", Idea: engine.IdeaLongest},
	{Flag: "allow-long-max-model-len", Idea: engine.IdeaAllowLonger},
	{Flag: "max-num-seqs", Idea: engine.IdeaSequences},
	{Flag: "max-num-batched-tokens", Idea: engine.IdeaBatchTokens},
	{Flag: "block-size", Idea: engine.IdeaPage},
	{Flag: "tensor-parallel-size", Idea: engine.IdeaTensorParallel},
	{Flag: "tp", Idea: engine.IdeaTensorParallel},
	{Flag: "pipeline-parallel-size", Idea: engine.IdeaPipeline},
	{Flag: "pp", Idea: engine.IdeaPipeline},
	{Flag: "data-parallel-size", Idea: engine.IdeaDataParallel},
	{Flag: "dp", Idea: engine.IdeaDataParallel},
	{Flag: "quantization", Idea: engine.IdeaQuantization},
	{Flag: "q", Idea: engine.IdeaQuantization},
	{Flag: "enforce-eager", Idea: engine.IdeaNoGraphs},
	{Flag: "kv-cache-dtype", Idea: engine.IdeaKVDtype},
	{Flag: "dtype", Idea: engine.IdeaDtype},
}

func (f *flagServe) Concepts() []engine.Concept { return concepts }

// ReadLine reads `vllm serve [MODEL] [flags]`, or `python -m
// vllm.entrypoints.openai.api_server --model MODEL [flags]`, as vLLM's
// argument parser does: the model positional (or --model), underscores or
// dashes in a flag's name, --flag=value or --flag value (see
// [Engine.Respell]). The flags that do not change memory are parsed by
// the flag set, which lists them as ignored.
func (f *flagServe) ReadLine(args []string) (engine.Line, error) {
	l := engine.Line{Name: "the vllm serve line"}
	var rest []string
	if _, n := engine.PythonModule(args); n > 0 && isAPIServer(args) {
		l.Name, rest = "the "+apiServerModule+" line", args[n:]
	} else {
		rest = args[2:]
		if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
			l.Model, l.From, rest = rest[0], "vllm serve "+rest[0], rest[1:]
		}
	}
	rest = Engine{}.Respell(rest)
	for i := 0; i < len(rest); i++ {
		name, value, hasValue := strings.Cut(rest[i], "=")
		if name != "--model" {
			l.Args = append(l.Args, rest[i])
			continue
		}
		if !hasValue {
			if i+1 == len(rest) {
				return l, fmt.Errorf("--model in %s needs a value: the model", l.Name)
			}
			i++
			value = rest[i]
		}
		if l.Model != "" && l.Model != value {
			return l, fmt.Errorf("%s gives the model twice: %s and --model %s", l.Name, l.From, value)
		}
		l.Model, l.From = value, "--model "+value+" in "+l.Name
	}
	return l, nil
}

func (f *flagServe) Env() []string { return []string{AllowLongEnv, v2RunnerEnv, compileCacheEnv} }

// Parsed refuses a --vllm-version membudget has no rules for, and a
// pasted line's environment that changes memory in ways membudget does
// not model for that release (see checkEnv), before anything is loaded.
func (f *flagServe) Parsed(given map[string]bool) ([]string, error) {
	f.given = given
	p, err := ProfileFor(f.version)
	if err != nil {
		return nil, err
	}
	return nil, f.checkEnv(p)
}

// Size sizes the serve for m on c under the --vllm-version's profile.
func (f *flagServe) Size(m *hub.Loaded, c budget.Class) (engine.Sizing, error) {
	p, err := ProfileFor(f.version)
	if err != nil {
		return nil, err
	}
	s := f.s
	if e, ok := f.Lookup(AllowLongEnv); ok && allowLongValue(e.Value) {
		s.AllowLongMaxModelLen = true
	}
	if s.ModelRunnerV2, err = f.runnerEnv(p); err != nil {
		return nil, err
	}
	cold, err := f.coldCacheEnv(p)
	if err != nil {
		return nil, err
	}
	s.CompileCacheOff, s.ColdCompileCache = cold, s.ColdCompileCache || cold
	sz, err := size(m, c, s, p)
	if err != nil {
		return nil, err
	}
	sz.pasted = f.ForReport()
	return sz, nil
}

// allowLongValue reads VLLM_ALLOW_LONG_MAX_MODEL_LEN as vllm/envs.py does.
func allowLongValue(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v == "1" || v == "true"
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
	v, err := pyfloat.Parse(s) // argparse's type=float: Python's float()
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
	n, err := ParseHumanInt(s)
	if err != nil {
		return err
	}
	if n <= 0 {
		return fmt.Errorf("%d: vLLM refuses it: --%s must be at least 1", n, f.name)
	}
	*f.v = uint64(n)
	return nil
}

// countFlag is a count vLLM takes in its human-readable form that may be
// zero.
type countFlag struct{ v *uint64 }

func (f *countFlag) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return strconv.FormatUint(*f.v, 10)
}

func (f *countFlag) Set(s string) error {
	n, err := ParseHumanInt(s)
	if err != nil {
		return err
	}
	if n < 0 {
		return fmt.Errorf("%d: vLLM refuses it: at least 0", n)
	}
	*f.v = uint64(n)
	return nil
}

// maxLenFlag is --max-model-len: tokens in vLLM's human-readable form, or
// auto (or -1, vLLM's spelling of it).
type maxLenFlag struct{ s *Serve }

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
	n, err := ParseHumanInt(s)
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
type gibFlag struct{ v *float64 }

func (f *gibFlag) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return strconv.FormatFloat(*f.v, 'f', -1, 64)
}

func (f *gibFlag) Set(s string) error {
	v, err := pyfloat.Parse(s) // argparse's type=float: Python's float()
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

var (
	_ engine.Engine  = Engine{}
	_ engine.Serve   = (*flagServe)(nil)
	_ engine.Sizing  = (*Sizing)(nil)
	_ engine.Advisor = (*Sizing)(nil)
)

// interconnectFlag is --interconnect: one of [budget.Interconnects].
type interconnectFlag struct{ v *budget.Interconnect }

func (f *interconnectFlag) String() string {
	if f.v == nil {
		return ""
	}
	return string(*f.v)
}

func (f *interconnectFlag) Set(s string) error {
	i, err := budget.ParseInterconnect(s)
	if err != nil {
		return err
	}
	*f.v = i
	return nil
}

// compileCacheFlag is --compile-cache: warm or cold (coldcompile.go).
type compileCacheFlag struct{ cold *bool }

func (f *compileCacheFlag) String() string {
	if f.cold == nil || !*f.cold {
		return "warm"
	}
	return "cold"
}

func (f *compileCacheFlag) Set(s string) error {
	switch s {
	case "warm":
		*f.cold = false
	case "cold":
		*f.cold = true
	default:
		return fmt.Errorf("%q is not warm or cold", s)
	}
	return nil
}
