package vllm

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/explain"
	"membudget/model/logs"
)

// loggedServe is the serve a log's settings describe, with the flags that
// override them.
type loggedServe struct {
	Serve Serve
	// From says, by vLLM flag name ("max-model-len"), where each setting
	// that a flag or the log gave came from; the others take vLLM's
	// defaults.
	From map[string]explain.SettingFrom
	// Warnings are logged settings that change memory in ways membudget
	// does not model (speculative decoding, LoRA, a KV connector).
	Warnings []string
}

// serveSettings maps the settings a log states (vLLM's argument and config
// names) to vLLM's flags, in the order the explanation lists them.
var serveSettings = []struct{ key, flag string }{
	{"gpu_memory_utilization", "gpu-memory-utilization"},
	{"kv_cache_memory_bytes", "kv-cache-memory-bytes"},
	{"max_model_len", "max-model-len"},
	{"max_num_seqs", "max-num-seqs"},
	{"max_num_batched_tokens", "max-num-batched-tokens"},
	{"block_size", "block-size"},
	{"kv_cache_dtype", "kv-cache-dtype"},
	{"kv_cache_dtype_skip_layers", "kv-cache-dtype-skip-layers"},
	{"dtype", "dtype"},
	{"quantization", "quantization"},
	{"tensor_parallel_size", "tensor-parallel-size"},
	{"pipeline_parallel_size", "pipeline-parallel-size"},
	{"data_parallel_size", "data-parallel-size"},
	{"enable_expert_parallel", "enable-expert-parallel"},
	{"enforce_eager", "enforce-eager"},
	{"disable_custom_all_reduce", "disable-custom-all-reduce"},
	{"trust_remote_code", "trust-remote-code"},
	{"async_scheduling", "async-scheduling"},
	{"enable_prefix_caching", "enable-prefix-caching"},
	{"enable_chunked_prefill", "enable-chunked-prefill"},
	{"cpu_offload_gb", "cpu-offload-gb"},
	{"swap_space", "swap-space"},
	// LoRA (lora.go): the API server's args and the engine's non-default
	// args name them as EngineArgs does.
	{"enable_lora", "enable-lora"},
	{"max_loras", "max-loras"},
	{"max_lora_rank", "max-lora-rank"},
	{"max_cpu_loras", "max-cpu-loras"},
	{"fully_sharded_loras", "fully-sharded-loras"},
	{"lora_dtype", "lora-dtype"},
	{"mamba_cache_dtype", "mamba-cache-dtype"},
	{"mamba_ssm_cache_dtype", "mamba-ssm-cache-dtype"},
	// The engine config's compilation_config (compilation.go): its
	// resolved cudagraph_mode and capture sizes.
	{"compilation_config", "compilation-config"},
	{"cudagraph_capture_sizes", "cudagraph-capture-sizes"},
	{"max_cudagraph_capture_size", "max-cudagraph-capture-size"},
	{"optimization_level", "optimization-level"},
	{"num_gpu_blocks_override", "num-gpu-blocks-override"},
	// KV offloading (offload.go), as EngineArgs names it.
	{"kv_offloading_size", "kv-offloading-size"},
	{"kv_offloading_backend", "kv-offloading-backend"},
	// Expert-parallel load balancing (eplb.go).
	{"enable_eplb", "enable-eplb"},
	{"eplb_config", "eplb-config"},
	// The all-to-all backend (all2all.go).
	{"all2all_backend", "all2all-backend"},
	// The multimodal flags (multimodal.go).
	{"limit_mm_per_prompt", "limit-mm-per-prompt"},
	{"language_model_only", "language-model-only"},
	{"skip_mm_profiling", "skip-mm-profiling"},
	{"mm_encoder_tp_mode", "mm-encoder-tp-mode"},
	{"mm_processor_cache_gb", "mm-processor-cache-gb"},
	{"mm_processor_kwargs", "mm-processor-kwargs"},
}

// flagAliases are the other names the CLI registers a flag under.
var flagAliases = engine.Aliases{
	"tensor-parallel-size":   {"tp"},
	"pipeline-parallel-size": {"pp"},
	"data-parallel-size":     {"dp"},
	"enable-expert-parallel": {"ep"},
	"quantization":           {"q"},
	"async-scheduling":       {"no-async-scheduling"},
	"enable-prefix-caching":  {"no-enable-prefix-caching"},
	"enable-chunked-prefill": {"no-enable-chunked-prefill"},
	"compilation-config":     {"cc"},
}

// unmodelled are logged settings whose memory membudget does not model:
// their presence makes a prediction an underestimate.
var unmodelled = []struct{ key, what string }{
	{"speculative_config", "speculative decoding (a draft model's weights, KV cache and graphs)"},
	{"kv_transfer_config", "a KV connector (its buffers)"},
	// --enable-dbo is refused (dbo.go); a log of a serve with it is
	// explained short of what micro-batching adds.
	{"enable_dbo", "dual-batch overlap (a second micro-batch's activations, workspaces and CUDA graphs)"},
	// ubatch_size above 1 micro-batches too (use_ubatching,
	// vllm/config/parallel.py:554-555); 0 and 1 do not (buildServe).
	{"ubatch_size", "micro-batching (--ubatch-size: every micro-batch's activations, cuBLAS workspaces and CUDA graphs)"},
}

// buildServe returns the serve the log's settings describe: each setting
// the log states (the last statement: the engine config's resolved value)
// unless its flag was given (given holds the flags given, by name, aliases
// included), then, for the util and max_model_len, the figures the memory
// lines restate. flags holds the flags' values. A logged value vLLM's flag
// would refuse is an error naming the log line and the flag to pass.
func buildServe(l *logs.Log, flags Serve, given map[string]bool) (loggedServe, error) {
	ls := loggedServe{Serve: flags, From: map[string]explain.SettingFrom{}}
	for flag := range given {
		canon := flag
		for c, as := range flagAliases {
			for _, a := range as {
				if a == flag {
					canon = c
				}
			}
		}
		for _, s := range serveSettings {
			if s.flag == canon {
				ls.From[canon] = explain.SettingFrom{Source: explain.FromFlag}
			}
		}
	}
	for _, sk := range serveSettings {
		if flagAliases.Given(given, sk.flag) {
			continue
		}
		st, ok := l.Setting(sk.key)
		if !ok || st.Literal == logs.LiteralNone {
			continue
		}
		applied, err := applySetting(&ls.Serve, sk.flag, st)
		if err != nil {
			return ls, fmt.Errorf("the log's %s=%s (line %d, %s) %v: pass --%s to size another value", st.LoggedKey, st.Value, st.Line, st.Source, err, sk.flag)
		}
		if applied != "" {
			ls.From[sk.flag] = explain.SettingFrom{Source: explain.FromLogged, Value: st.Value, Key: st.LoggedKey, Detail: string(st.Source), Line: st.Line}
		} else if sk.flag == "quantization" {
			ls.Warnings = append(ls.Warnings, fmt.Sprintf("the log's quantization=%s (line %d) is not a --quantization membudget sizes (%s): the checkpoint's config.json decides the weights' format", st.Value, st.Line, quantizationNames()))
		}
	}
	// The memory lines restate the util and the length when no setting
	// line does.
	if _, ok := ls.From["gpu-memory-utilization"]; !ok {
		if f, ok := l.First(logs.KindUtilization); ok {
			if u := f.Float64(); u > 0 && u <= 1 {
				ls.Serve.GPUMemoryUtilization = u
				ls.From["gpu-memory-utilization"] = explain.SettingFrom{Source: explain.FromLogged, Value: f.Value.String(), Key: string(f.Kind), Detail: string(f.Format), Line: f.Line}
			}
		}
	}
	if _, ok := ls.From["max-model-len"]; !ok {
		if f, ok := l.First(logs.KindMaxModelLen); ok && f.Value.Places == 0 && f.Value.Units > 0 {
			ls.Serve.MaxModelLen, ls.Serve.AutoMaxModelLen = uint64(f.Value.Units), false
			ls.From["max-model-len"] = explain.SettingFrom{Source: explain.FromLogged, Value: f.Value.String(), Key: string(f.Kind), Detail: string(f.Format), Line: f.Line}
		}
	}
	for _, u := range unmodelled {
		if u.key == "speculative_config" && ls.readLoggedSpec(l, given) {
			continue
		}
		if st, ok := l.Setting(u.key); ok && st.Literal != logs.LiteralNone && !(st.Literal == logs.LiteralBool && st.Value == "False") {
			if u.key == "kv_transfer_config" && offloadConnector(ls.Serve.Offload, st.Value) {
				continue // the connector --kv-offloading-size sets, which offload.go sizes
			}
			if u.key == "ubatch_size" && (st.Value == "0" || st.Value == "1") {
				continue // no micro-batching
			}
			ls.Warnings = append(ls.Warnings, fmt.Sprintf("the log's %s (line %d) uses %s, which membudget does not model: its predictions leave that memory out", st.LoggedKey, st.Line, u.what))
		}
	}
	return ls, nil
}

// applySetting sets one logged setting on s and returns the value applied
// as vLLM's flag takes it, "" when the value is one membudget leaves to the
// checkpoint (an unknown quantization method).
func applySetting(s *Serve, flag string, st logs.Setting) (string, error) {
	count := func(dst *uint64) (string, error) {
		n, err := settingInt(st)
		if err != nil {
			return "", err
		}
		if n <= 0 {
			return "", fmt.Errorf("is not a positive count")
		}
		*dst = uint64(n)
		return strconv.FormatInt(n, 10), nil
	}
	boolean := func(dst *bool) (string, error) {
		b, ok := st.Bool()
		if !ok {
			return "", fmt.Errorf("is not True or False")
		}
		*dst = b
		return strconv.FormatBool(b), nil
	}
	switch2 := func(dst *engine.Switch) (string, error) {
		var b bool
		v, err := boolean(&b)
		if err != nil {
			return "", err
		}
		*dst = engine.Off
		if b {
			*dst = engine.On
		}
		return v, nil
	}
	gibs := func() (float64, error) {
		f, ok := st.Float()
		if !ok || f < 0 {
			return 0, fmt.Errorf("is not a size in GiB")
		}
		return f, nil
	}
	switch flag {
	case "gpu-memory-utilization":
		u, ok := st.Float()
		if !ok || u <= 0 || u > 1 {
			return "", fmt.Errorf("is not a fraction in (0, 1]")
		}
		s.GPUMemoryUtilization = u
		return strconv.FormatFloat(u, 'f', -1, 64), nil
	case "kv-cache-memory-bytes":
		return count(&s.KVCacheMemoryBytes)
	case "max-model-len":
		if strings.EqualFold(st.Value, "auto") || st.Value == "-1" {
			s.AutoMaxModelLen, s.MaxModelLen = true, 0
			return "auto", nil
		}
		s.AutoMaxModelLen = false
		return count(&s.MaxModelLen)
	case "max-num-seqs":
		return count(&s.MaxNumSeqs)
	case "max-num-batched-tokens":
		return count(&s.MaxNumBatchedTokens)
	case "block-size":
		return count(&s.BlockSize)
	case "tensor-parallel-size":
		return count(&s.TensorParallelSize)
	case "pipeline-parallel-size":
		return count(&s.PipelineParallelSize)
	case "data-parallel-size":
		return count(&s.DataParallelSize)
	case "kv-cache-dtype":
		s.KVCacheDtype = strings.TrimPrefix(st.Value, "torch.")
		return s.KVCacheDtype, nil
	case "dtype":
		s.Dtype = strings.TrimPrefix(st.Value, "torch.")
		return s.Dtype, nil
	case "quantization":
		if _, ok := QuantizationMethods[st.Value]; !ok {
			return "", nil
		}
		s.Quantization = st.Value
		return st.Value, nil
	case "mamba-cache-dtype":
		s.MambaCacheDtype = strings.TrimPrefix(st.Value, "torch.")
		return s.MambaCacheDtype, nil
	case "mamba-ssm-cache-dtype":
		s.MambaSSMCacheDtype = strings.TrimPrefix(st.Value, "torch.")
		return s.MambaSSMCacheDtype, nil
	case "enable-expert-parallel":
		return boolean(&s.EnableExpertParallel)
	case "enforce-eager":
		return boolean(&s.EnforceEager)
	case "disable-custom-all-reduce":
		return boolean(&s.DisableCustomAllReduce)
	case "trust-remote-code":
		return boolean(&s.TrustRemoteCode)
	case "async-scheduling":
		return switch2(&s.AsyncScheduling)
	case "enable-prefix-caching":
		return switch2(&s.EnablePrefixCaching)
	case "enable-chunked-prefill":
		return switch2(&s.ChunkedPrefill)
	case "cpu-offload-gb":
		f, err := gibs()
		if err != nil {
			return "", err
		}
		s.CPUOffloadGiB = f
		return st.Value, nil
	case "enable-lora":
		return boolean(&s.LoRA.Enable)
	case "max-loras":
		return count(&s.LoRA.MaxLoras)
	case "max-lora-rank":
		return count(&s.LoRA.MaxRank)
	case "max-cpu-loras":
		return count(&s.LoRA.MaxCPULoras)
	case "fully-sharded-loras":
		return boolean(&s.LoRA.FullySharded)
	case "lora-dtype":
		s.LoRA.Dtype = strings.TrimPrefix(st.Value, "torch.")
		return s.LoRA.Dtype, nil
	case "compilation-config":
		return applyLoggedCompilation(&s.Compilation, st.Value)
	case "cudagraph-capture-sizes":
		return applyLoggedCompilation(&s.Compilation, "cudagraph_capture_sizes="+st.Value)
	case "max-cudagraph-capture-size":
		return count(&s.Compilation.MaxKey)
	case "optimization-level":
		// 3, or <OptimizationLevel.O3: 3>: the level is the last digit.
		v := strings.TrimRight(st.Value, ">) ")
		if v == "" || v[len(v)-1] < '0' || v[len(v)-1] > '3' {
			return "", fmt.Errorf("is not an optimization level 0 to 3")
		}
		s.Compilation.Level = v[len(v)-1:]
		return s.Compilation.Level, nil
	case "num-gpu-blocks-override":
		return count(&s.NumGPUBlocksOverride)
	case "kv-offloading-size":
		f, err := gibs()
		if err != nil {
			return "", err
		}
		s.Offload.SizeGiB = &f
		return st.Value, nil
	case "enable-eplb":
		return boolean(&s.EPLB.Enable)
	case "eplb-config":
		cfg, ok := loggedEPLBConfig(st.Value)
		if !ok {
			return "", fmt.Errorf("is not an EPLB config membudget reads")
		}
		s.EPLB.Config = cfg
		return cfg, nil
	case "kv-offloading-backend":
		s.Offload.Backend = st.Value
		return st.Value, nil
	case "all2all-backend":
		s.All2AllBackend = st.Value
		return st.Value, nil
	case "limit-mm-per-prompt", "mm-processor-kwargs":
		// A Python dict as the log prints it; one that does not read as
		// JSON (a dataclass's repr) is left to vLLM's default.
		js, ok := pyDictJSON(st.Value)
		if !ok {
			return "", nil
		}
		if flag == "limit-mm-per-prompt" {
			s.MM.LimitPerPrompt = js
		} else {
			s.MM.ProcessorKwargs = js
		}
		return js, nil
	case "language-model-only":
		return boolean(&s.MM.LanguageModelOnly)
	case "skip-mm-profiling":
		return boolean(&s.MM.SkipProfiling)
	case "kv-cache-dtype-skip-layers":
		// A Python list of strings, ['0', '31']; [] is the default.
		v, ok := pyStringList(st.Value)
		if !ok {
			return "", fmt.Errorf("is not a list of layer indices or sliding_window")
		}
		s.KVCacheDtypeSkipLayers = v
		return v, nil
	case "mm-encoder-tp-mode":
		s.MM.EncoderTPMode = st.Value
		return st.Value, nil
	case "mm-processor-cache-gb":
		f, err := gibs()
		if err != nil {
			return "", err
		}
		s.MM.ProcessorCacheGB, s.MM.ProcessorCacheSet = f, true
		return st.Value, nil
	case "swap-space":
		f, err := gibs()
		if err != nil {
			return "", err
		}
		s.SwapSpaceGiB = &f
		return st.Value, nil
	}
	return "", fmt.Errorf("is not a setting membudget reads")
}

// settingInt reads a count as vLLM's flags take it: a number, or a string
// in vLLM's human-readable form ("32k").
func settingInt(st logs.Setting) (int64, error) {
	if n, ok := st.Int(); ok {
		return n, nil
	}
	if st.Literal == logs.LiteralString || st.Literal == logs.LiteralOther {
		return ParseHumanInt(st.Value)
	}
	return 0, fmt.Errorf("is not an integer")
}

// settingsOf lists every sizing setting of r with its source.
func settingsOf(ls loggedServe, r Resolved) []explain.Setting {
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	b := strconv.FormatBool
	quant := r.Quant.Method
	if quant == "" {
		quant = "none"
	}
	values := map[string]string{
		"gpu-memory-utilization":     strconv.FormatFloat(r.GPUMemoryUtilization, 'f', -1, 64),
		"kv-cache-memory-bytes":      u(r.KVCacheMemoryBytes),
		"max-model-len":              u(r.MaxModelLen),
		"max-num-seqs":               u(r.MaxNumSeqs),
		"max-num-batched-tokens":     u(r.MaxNumBatchedTokens),
		"block-size":                 u(r.BlockSize),
		"kv-cache-dtype":             r.KVCacheDtype,
		"kv-cache-dtype-skip-layers": r.Serve.KVCacheDtypeSkipLayers,
		"dtype":                      r.Dtype,
		"quantization":               quant,
		"tensor-parallel-size":       u(r.TensorParallelSize),
		"pipeline-parallel-size":     u(r.PipelineParallelSize),
		"data-parallel-size":         u(r.DataParallelSize),
		"enable-expert-parallel":     b(r.EnableExpertParallel),
		"enforce-eager":              b(r.EnforceEager),
		"disable-custom-all-reduce":  b(r.DisableCustomAllReduce),
		"trust-remote-code":          b(r.TrustRemoteCode),
		"async-scheduling":           b(r.Async),
		"enable-prefix-caching":      b(r.PrefixCaching),
		"enable-chunked-prefill":     b(!r.ChunkedOff),
		"cpu-offload-gb":             strconv.FormatFloat(r.CPUOffloadGiB, 'f', -1, 64),
		"swap-space":                 strconv.FormatFloat(r.SwapGiB, 'f', -1, 64),
		"mamba-cache-dtype":          r.MambaCacheDtype,
		"mamba-ssm-cache-dtype":      r.MambaSSMCacheDtype,
		"enable-lora":                b(r.LoRA.Enable),
		"max-loras":                  u(r.LoRA.MaxLoras),
		"max-lora-rank":              u(r.LoRA.MaxRank),
		"max-cpu-loras":              u(r.LoRA.MaxCPULoras),
		"fully-sharded-loras":        b(r.LoRA.FullySharded),
		"lora-dtype":                 r.LoRA.Dtype,
		"compilation-config":         r.Graphs.String(),
		"cudagraph-capture-sizes":    r.Compilation.SizesKey,
		"max-cudagraph-capture-size": u(r.Compilation.MaxKey),
		"optimization-level":         r.Compilation.Level,
		"num-gpu-blocks-override":    u(r.NumGPUBlocksOverride),
		"kv-offloading-size":         offloadSize(r.Offload),
		"kv-offloading-backend":      r.Offload.Backend,
		"enable-eplb":                b(r.EPLB.Enable),
		"eplb-config":                r.EPLB.Config,
		"all2all-backend":            r.All2AllBackend,
		"limit-mm-per-prompt":        r.MM.LimitPerPrompt,
		"language-model-only":        b(r.MM.LanguageModelOnly),
		"skip-mm-profiling":          b(r.MM.SkipProfiling),
		"mm-encoder-tp-mode":         r.MM.EncoderTPMode,
		"mm-processor-cache-gb":      strconv.FormatFloat(r.MM.ProcessorCacheGB, 'f', -1, 64),
		"mm-processor-kwargs":        r.MM.ProcessorKwargs,
	}
	var out []explain.Setting
	for _, sk := range serveSettings {
		v := values[sk.flag]
		from, given := ls.From[sk.flag]
		if sk.flag == "trust-remote-code" && !r.TrustRemoteCode {
			// It changes no memory: listed where on, as the line carries it.
			continue
		}
		if !given {
			// Settings that do not apply and were not given are left out:
			// the KV cache's bytes when the util sizes it, swap space where
			// the engine allocates none, a Mamba dtype without state layers.
			switch {
			case sk.flag == "kv-cache-memory-bytes" && r.KVCacheMemoryBytes == 0,
				sk.flag == "swap-space" && r.SwapGiB == 0,
				sk.flag == "cpu-offload-gb" && r.CPUOffloadGiB == 0,
				(sk.flag == "mamba-cache-dtype" || sk.flag == "mamba-ssm-cache-dtype") && r.MambaCacheMode == "",
				strings.Contains(sk.flag, "lora") && !r.LoRA.Enable,
				sk.flag == "compilation-config" && !r.Compilation.Given(),
				// The capture flags and -O are listed where a flag or the
				// log gave them: compilation-config lists the graphs.
				sk.flag == "cudagraph-capture-sizes", sk.flag == "max-cudagraph-capture-size", sk.flag == "optimization-level",
				sk.flag == "num-gpu-blocks-override" && r.NumGPUBlocksOverride == 0,
				sk.flag == "kv-cache-dtype-skip-layers" && r.Serve.KVCacheDtypeSkipLayers == "",
				strings.HasPrefix(sk.flag, "kv-offloading") && r.Offload.SizeGiB == nil,
				strings.Contains(sk.flag, "eplb") && !r.EPLB.Enable,
				sk.flag == "all2all-backend" && r.All2AllBackend == "",
				sk.flag == "language-model-only" && !r.MM.LanguageModelOnly,
				// Chunked prefill is listed where a flag or the log gave
				// it: its default shows in the batched tokens.
				sk.flag == "enable-chunked-prefill",
				mmFlag(sk.flag):
				continue
			}
		}
		detail, _ := r.Sources.Get(sk.flag)
		if sk.flag == "quantization" && detail == "" {
			detail = "the checkpoint's config.json"
		}
		st := explain.SettingOf(sk.flag, v, from, given, explain.FromDefault, detail)
		if v == "" {
			st.Value = "auto"
		}
		out = append(out, st)
	}
	return append(out, specSettingOf(ls, r)...)
}

// versionChoice is the vLLM version whose rules size the log, and why.
type versionChoice struct {
	Profile Profile
	// Source is "flag" (--vllm-version), "logged", or "assumed" when the
	// log states no usable version.
	Source string
	// Logged is the version as the log states it, if any.
	Logged string
	// Note says how a logged version was mapped to a profile.
	Note string
}

// releaseDigits reads the release a logged version names: 0.10.1.1 is
// 0.10.1, 0.10.2+cu130 is 0.10.2.
var releaseDigits = regexp.MustCompile(`^v?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?`)

// sourceBuild is setuptools-scm's fallback version of a vLLM built from a
// checkout without tags ("0.1.dev8168+g475c1a0"): no release at all.
var sourceBuild = regexp.MustCompile(`^0\.1\.dev[0-9]+`)

// chooseProfile returns the profile that sizes the log: --vllm-version's
// when given (spec, given), else the version the log states, on the engine
// era the log shows (V0 from 0.8 to 0.10 only where the log proves it);
// else V0's or main's rules, said in the note.
func chooseProfile(l *logs.Log, spec string, given bool) (versionChoice, error) {
	vc := versionChoice{Logged: l.EngineVersion}
	if given {
		p, err := ProfileFor(spec)
		if err != nil {
			return vc, err
		}
		vc.Profile, vc.Source = p, explain.FromFlag
		return vc, nil
	}
	vc.Source = explain.FromLogged
	m := releaseDigits.FindStringSubmatch(l.EngineVersion)
	switch {
	case l.EngineVersion == "" || m == nil:
		return assumedProfile(l, vc, "the log states no vLLM version")
	case sourceBuild.MatchString(l.EngineVersion):
		return assumedProfile(l, vc, fmt.Sprintf("the log's version %s is a source build's, no release", l.EngineVersion))
	}
	rel := m[1] + "." + m[2]
	if m[3] != "" {
		rel += "." + m[3]
	}
	if rel != strings.TrimPrefix(l.EngineVersion, "v") {
		vc.Note = fmt.Sprintf("logged %s: release %s", l.EngineVersion, rel)
	}
	v, err := ParseVersion(rel)
	if err != nil {
		return assumedProfile(l, vc, fmt.Sprintf("the log's version %s is not a vLLM release", l.EngineVersion))
	}
	v080, v0110 := Version{Minor: 8}, Version{Minor: 11}
	spec = rel
	switch {
	case v.Less(Version{Minor: 6}):
		p, _ := ProfileFor("v0")
		vc.Profile = p
		vc.Note = explain.JoinNote(vc.Note, fmt.Sprintf("vLLM %s is older than any profile membudget has: sized with %s's rules, pass --vllm-version to choose", rel, p.Describes))
		return vc, nil
	case l.Era == logs.EraV0 && v.AtLeast(v080) && v.Less(v0110):
		spec += ":v0"
		vc.Note = explain.JoinNote(vc.Note, "the log shows the V0 engine")
	case l.Era == logs.EraV1 && v.Less(v080):
		spec = "0.8.0"
		vc.Note = explain.JoinNote(vc.Note, fmt.Sprintf("vLLM %s ran its V1 engine (opt-in before 0.8.0), whose rules membudget has from 0.8.0 only: sized with 0.8.0's V1 rules", rel))
	case l.Era == logs.EraUnknown && v.AtLeast(v080) && v.Less(v0110):
		vc.Note = explain.JoinNote(vc.Note, "the log does not show the engine: V1, the default from 0.8.0 (pass --vllm-version "+rel+":v0 for V0)")
	}
	p, err := ProfileFor(spec)
	if err != nil {
		return vc, fmt.Errorf("the log's vLLM version %s (%s): %w; pass --vllm-version", l.EngineVersion, spec, err)
	}
	vc.Profile = p
	return vc, nil
}

// assumedProfile is the profile of a log without a usable version: V0's
// last default release when the log shows V0, else main.
func assumedProfile(l *logs.Log, vc versionChoice, why string) (versionChoice, error) {
	vc.Source = "assumed"
	spec, rules := "main", "main's"
	if l.Era == logs.EraV0 {
		spec, rules = "v0", "the V0 engine's of 0.7.3"
	}
	p, err := ProfileFor(spec)
	if err != nil {
		return vc, err
	}
	vc.Profile = p
	vc.Note = explain.JoinNote(vc.Note, fmt.Sprintf("%s: sized with %s rules; pass --vllm-version to choose", why, rules))
	return vc, nil
}

// explainInput is what [explainLog] sizes: the log, and the model, class, version and
// serve chosen for it.
type explainInput struct {
	Source  *explain.Source
	Model   explain.Model
	Class   explain.ClassChoice
	Version versionChoice
	Serve   loggedServe
}

// explainLog sizes in's serve under in's profile and sets every logged figure
// membudget predicts beside the prediction. The only errors are a serve
// membudget refuses ([*explain.ServeError]) and a log that states no figure
// membudget predicts.
func explainLog(in explainInput) (*explain.Explanation, error) {
	l := in.Source.Log
	ref, err := NewReference(in.Model.Arch, in.Serve.Serve, in.Class.Class, in.Version.Profile)
	if err != nil {
		return nil, engine.ServeRefusal(err, in.Serve.From)
	}
	r := ref.Serve
	p := ref.Predict()
	ex := &explain.Explanation{
		Log:      explain.LogInfo{Name: in.Source.Name, Engine: string(l.Engine), Version: l.EngineVersion, Era: string(l.Era), Lines: l.Lines},
		Model:    in.Model,
		Class:    explain.ClassInfoOf(in.Class),
		Rules:    explain.VersionInfo{Engine: "vllm", Profile: r.Profile.Name, Describes: r.Profile.Describes, Source: in.Version.Source, Logged: in.Version.Logged, Note: explain.JoinNote(in.Version.Note, r.Profile.Note)},
		Settings: settingsOf(in.Serve, r),
		Command:  Command(in.Model.Name, &r),
		Warnings: slices.Clone(in.Serve.Warnings),
	}
	preds := vllmPredictions(p, r)
	if r.KVCacheMemoryBytes > 0 {
		// With --kv-cache-memory-bytes the util does not size the cache,
		// but vLLM still requests total x util and logs it ("Desired GPU
		// memory utilization is (u, Y GiB)", vllm/v1/worker/utils.py
		// request_memory).
		if b, err := in.Class.Class.UtilBudget(r.GPUMemoryUtilization, r.Profile.Rounding); err == nil {
			preds["requested_memory"] = explain.Predicted{Bytes: b, OK: true, Note: "total x util, which vLLM requests and logs though --kv-cache-memory-bytes sizes the cache"}
		}
	}
	noteEncoderPass(preds, ref)
	ex.Figures = explain.Rows(l, vllmSpecs, preds)
	ex.NotPredicted = explain.NotPredicted(l, vllmSpecs, logs.KindDeviceTotal, logs.KindUtilization, logs.KindMaxModelLen)
	ex.Starts = startsCheck(l, p)
	ex.Blocks = blocksCheck(l, p, r)
	beside := ""
	if !p.GraphsCharged {
		beside = r.Profile.Describes
	}
	if err := ex.Tally(beside); err != nil {
		return nil, err
	}
	ex.Notes = append(notes(l, p, r), drafterNotes(l, in.Model.Arch, r)...)
	if n := graphMarginNote(p, &r, in.Model.Arch); n != "" {
		ex.Notes = append(ex.Notes, n)
	}
	if n := unifiedGraphNote(l, p, &r, in.Model.Arch); n != "" {
		ex.Notes = append(ex.Notes, n)
	}
	if n := coldKeptNote(ex.Figures, &r, in.Model.Arch); n != "" {
		ex.Notes = append(ex.Notes, n)
	}
	return ex, nil
}

// coldKeptNote is explain's note on a serve sized cold (--compile-cache
// cold, or VLLM_DISABLE_COMPILE_CACHE set) from vLLM 0.26.1: the
// allocator segment of the table copy the first stage's start can keep
// (coldKeptSegment), which membudget states and does not charge, and,
// where the logged available KV memory is below membudget's, how much of
// that gap the segment would account for. It says so only where taking
// the segment off brings membudget nearer the log (the gap is over half
// the segment), the case of rows 206-207 and 242 of
// corpus/observed/vllm.csv; otherwise it names the segment alone. "" where
// the serve is sized warm or no segment is counted (before 0.26.1, an
// embedding table looked up outside the compiled forward, a copy under
// 10 MiB).
func coldKeptNote(rows []explain.Row, r *Resolved, a *model.Arch) string {
	if !r.chargesColdCompile() || len(r.Stages) == 0 {
		return ""
	}
	// explain predicts the first stage's rank, the one that copies the
	// table (coldTableCopy).
	seg := coldKeptSegment(a, r, stageOf(r, 0))
	if seg == 0 {
		return ""
	}
	note := fmt.Sprintf("cold start's kept segment: from vLLM %s a first start can also keep the allocator segment of Inductor's benchmark copy of the embedding table reserved (%s, %s), an estimate membudget does not charge (coldcompile.go)", v0_26_1, engine.GiB(seg), keptEvidence)
	for _, row := range rows {
		if row.Figure != "available_kv_memory" || !row.IsPredicted || row.DifferenceBytes == nil || *row.DifferenceBytes <= 0 {
			continue
		}
		// DifferenceBytes is membudget's less the logged: positive where
		// the log has less KV memory.
		gap := uint64(*row.DifferenceBytes)
		if gap <= seg/2 {
			break
		}
		rest := fmt.Sprintf("leaving %s unexplained", engine.GiB(gap-min(gap, seg)))
		if seg > gap {
			rest = fmt.Sprintf("%s more than the gap", engine.GiB(seg-gap))
		}
		note += fmt.Sprintf("; the logged available KV memory (line %d) is %s below membudget's: kept, the segment would account for %s of it, %s", row.Line, engine.GiB(gap), engine.GiB(min(gap, seg)), rest)
		break
	}
	return note
}

// vllmSpecs are the figures of a vLLM log membudget predicts, in the order
// an explanation lists them.
var vllmSpecs = []explain.Spec{
	{ID: "weights", Label: "weights", Kind: logs.KindWeights, Unit: "bytes", Tol: explain.TolWeights},
	{ID: "activation_peak", Label: "activation peak", Kind: logs.KindActivationPeak, Unit: "bytes", Tol: explain.TolTerm},
	{ID: "activation_with_graphs", Label: "activation + graph estimate", Kind: logs.KindActivationWithGraphs, Unit: "bytes", Tol: explain.TolTerm},
	{ID: "non_torch", Label: "non-torch memory", Kind: logs.KindNonTorch, Unit: "bytes", Tol: explain.TolTerm},
	{ID: "consumed", Label: "weights + non-torch", Kind: logs.KindConsumed, Unit: "bytes", Tol: explain.TolSum},
	{ID: "torch_peak", Label: "torch peak (weights + activation)", Kind: logs.KindTorchPeak, Unit: "bytes", Tol: explain.TolSum},
	{ID: "non_kv_total", Label: "non-KV total", Kind: logs.KindNonKVTotal, Unit: "bytes", Tol: explain.TolSum},
	{ID: "encoder_cache_budget", Label: "encoder cache budget", Kind: logs.KindEncoderBudget, Unit: "tokens", Tol: explain.TolCount},
	{ID: "encoder_profile_items", Label: "encoder profile's dummy items", Kind: logs.KindEncoderItems, Unit: "items", Tol: explain.TolCount},
	{ID: "cuda_graph_estimate", Label: "the CUDA-graph estimate", Kind: logs.KindCUDAGraphEstimate, Unit: "bytes", Tol: explain.TolTerm},
	{ID: "cuda_graph", Label: "CUDA-graph capture", Kind: logs.KindCUDAGraph, Unit: "bytes", Tol: explain.TolTerm},
	{ID: "requested_memory", Label: "requested memory", Kind: logs.KindUtilBudget, Unit: "bytes", Tol: explain.TolTerm},
	{ID: "available_kv_memory", Label: "available KV memory", Kind: logs.KindKVCacheMemory, Unit: "bytes", Tol: explain.TolKV, Skip: []logs.Format{logs.FormatActualUsage}},
	{ID: "kv_cache_needed", Label: "KV memory one request needs", Kind: logs.KindKVCacheNeeded, Unit: "bytes", Tol: explain.TolKV},
	{ID: "gpu_blocks", Label: "GPU blocks", Kind: logs.KindGPUBlocks, Unit: "blocks", Tol: explain.TolCount},
	{ID: "kv_cache_tokens", Label: "GPU KV cache size", Kind: logs.KindKVCacheTokens, Unit: "tokens", Tol: explain.TolCount},
	{ID: "max_concurrency", Label: "maximum concurrency", Kind: logs.KindMaxConcurrency, Unit: "x", Tol: explain.TolCount},
	{ID: "estimated_max_model_len", Label: "estimated maximum model length", Kind: logs.KindEstimatedMaxModelLen, Unit: "tokens", Tol: explain.TolCount},
}

// vllmPredictions is membudget's value of each vLLM figure, by spec id.
func vllmPredictions(p Predicted, r Resolved) map[string]explain.Predicted {
	pr := map[string]explain.Predicted{
		"weights":         explain.PredictBytes(p.WeightsBytes),
		"activation_peak": explain.PredictBytes(p.ActivationPeakBytes),
		// The #49208 line's "peak activation": the transient peak plus the
		// CUDA-graph estimate the release charges (activationWithGraphs).
		"activation_with_graphs": activationWithGraphs(p),
		"non_torch":              explain.PredictBytes(p.NonTorchBytes),
		"consumed":               explain.PredictBytes(budget.SatAdd(p.WeightsBytes, p.NonTorchBytes)),
		"torch_peak":             explain.PredictBytes(budget.SatAdd(p.WeightsBytes, p.ActivationPeakBytes)),
		"non_kv_total":           explain.PredictBytes(budget.SatAdd(p.WeightsBytes, budget.SatAdd(p.ActivationPeakBytes, p.NonTorchBytes))),
		"cuda_graph_estimate":    explain.PredictBytes(p.GraphBytes),
		"cuda_graph":             explain.PredictBytes(p.GraphBytes),
		"requested_memory":       explain.PredictBytes(p.RequestedBytes),
		"available_kv_memory":    explain.PredictBytes(p.Capacity.AvailableBytes),
		"kv_cache_needed":        explain.PredictBytes(p.Capacity.NeededBytes),
		"gpu_blocks":             explain.PredictCount(float64(p.Capacity.Blocks)),
		"kv_cache_tokens":        explain.PredictCount(float64(p.Capacity.LoggedTokens)),
		// vLLM prints the concurrency with "%.2fx".
		"max_concurrency":         explain.PredictCount(math.Round(p.Capacity.Concurrency*100) / 100),
		"estimated_max_model_len": explain.PredictCount(float64(p.Capacity.EstimatedMaxModelLen)),
	}
	if e := r.Encoder; e.Sized {
		pr["encoder_cache_budget"] = explain.PredictCount(float64(e.Budget))
		pr["encoder_profile_items"] = explain.PredictCount(float64(e.Items))
	} else {
		note := cmp.Or(e.Why, "not a multimodal serve")
		pr["encoder_cache_budget"] = explain.Predicted{Note: note}
		pr["encoder_profile_items"] = explain.Predicted{Note: note}
	}
	if !r.Profile.GraphEstimateLogged {
		g := pr["cuda_graph_estimate"]
		g.Note = r.Profile.Describes + " logs no estimate: membudget's graph term is the capture"
		pr["cuda_graph_estimate"] = g
	} else {
		pr["cuda_graph"] = explain.Predicted{Note: "membudget predicts the estimate " + r.Profile.Describes + " logs, not what capture takes"}
	}
	if p.Capacity.Starts {
		e := pr["estimated_max_model_len"]
		e.Note = "membudget predicts vLLM starts: one request of max_model_len fits"
		pr["estimated_max_model_len"] = e
	}
	return pr
}

// startsCheck compares the log's evidence of whether vLLM started with the
// prediction: a max-model-len error says it did not; a graph capture or V1's
// "GPU KV cache size" without the error that it got past the check.
func startsCheck(l *logs.Log, p Predicted) *explain.StartsCheck {
	for _, f := range l.Figures {
		if f.Format == logs.FormatV0MaxLenError || f.Format == logs.FormatV1MaxLenError {
			return &explain.StartsCheck{Logged: false, Predicted: p.Capacity.Starts, Line: f.Line, Evidence: "the max-model-len error", Agree: !p.Capacity.Starts}
		}
	}
	for _, f := range l.Figures {
		if f.Kind == logs.KindCUDAGraph && f.Format == logs.FormatGraphCapture || f.Format == logs.FormatKVCacheSize {
			evidence := "the graph capture after the KV cache's allocation"
			if f.Format == logs.FormatKVCacheSize {
				evidence = "\"GPU KV cache size\", logged after the startup check"
			}
			sc := &explain.StartsCheck{Logged: true, Predicted: p.Capacity.Starts, Line: f.Line, Evidence: evidence, Agree: p.Capacity.Starts}
			if c := p.Capacity; !c.Starts && c.StartsOnLighterHost {
				sc.Agree, sc.Host = true, lighterHostStart(c)
			}
			return sc
		}
	}
	return nil
}

// lighterHostStart says why a start the class's host refuses agrees: on a
// unified device vLLM's startup check reads the host's available memory,
// so a log that got past it shows its host held at most HostBound, less
// than the class's driver_fixed_bytes (a stock image's).
func lighterHostStart(c Capacity) string {
	s := fmt.Sprintf("on the class's host (%s held at vLLM's snapshot) vLLM refuses util %v; the log's host passed the request of %s, so it held at most %s there, and every other check passes",
		engine.GiB(budget.SatSub(c.DeviceBytes, c.FreeAtStartup)), c.Util, engine.GiB(c.Requested), engine.GiB(c.HostBound))
	if c.UtilReached > 0 {
		s += fmt.Sprintf(" (within the class's util_reached %v)", c.UtilReached)
	}
	return s
}

// blocksCheck is the page arithmetic on the smallest logged available KV
// memory (vLLM gives every worker the fewest blocks any has).
func blocksCheck(l *logs.Log, p Predicted, r Resolved) *explain.BlocksCheck {
	var avail *logs.Figure
	var availBytes int64
	for _, f := range l.All(logs.KindKVCacheMemory) {
		if f.Format == logs.FormatActualUsage {
			continue
		}
		b, ok := f.Bytes()
		if !ok || b <= 0 {
			continue
		}
		if avail == nil || b < availBytes {
			avail, availBytes = &f, b
		}
	}
	if avail == nil || p.Capacity.BlockBytes == 0 {
		return nil
	}
	bc := &explain.BlocksCheck{AvailableText: avail.Text, AvailableLine: avail.Line, AvailableBytes: availBytes, RoundingBytes: avail.Tolerance(), BlockBytes: p.Capacity.BlockBytes}
	if blocks, ok := l.First(logs.KindGPUBlocks); ok && blocks.Value.Places == 0 && blocks.Value.Units >= 0 {
		bc.LoggedBlocks, bc.BlocksLine, bc.From = uint64(blocks.Value.Units), blocks.Line, "the logged block count"
	} else if tok, ok := l.First(logs.KindKVCacheTokens); ok && tok.Value.Places == 0 && tok.Value.Units >= 0 &&
		!r.Profile.LoggedTokensFromConcurrency && r.BlockSize > 0 && p.Capacity.Tokens == p.Capacity.Blocks*r.BlockSize && uint64(tok.Value.Units)%r.BlockSize == 0 {
		// One KV cache group: the version logs blocks x block size.
		bc.LoggedBlocks, bc.BlocksLine = uint64(tok.Value.Units)/r.BlockSize, tok.Line
		bc.From = fmt.Sprintf("the logged KV cache size, %d tokens, over the block size %d", tok.Value.Units, r.BlockSize)
	} else {
		return nil
	}
	if r.PipelineParallelSize > 1 {
		bc.Note = "pipeline parallelism: the stages' blocks differ in bytes; the check is not made"
		bc.Exact = true
		return bc
	}
	lo := max(availBytes-bc.RoundingBytes, 0)
	bc.Low = uint64(lo) / bc.BlockBytes
	bc.High = uint64(availBytes+bc.RoundingBytes) / bc.BlockBytes
	bc.Exact = bc.Low <= bc.LoggedBlocks && bc.LoggedBlocks <= bc.High
	if len(l.All(logs.KindKVCacheMemory)) > 1 {
		bc.Note = fmt.Sprintf("the smallest logged available KV memory (line %d), as vLLM gives every worker the fewest blocks", avail.Line)
	}
	return bc
}

// notes says how the log was read where it matters to the figures.
func notes(l *logs.Log, p Predicted, r Resolved) []string {
	var out []string
	if len(l.Versions) > 1 {
		out = append(out, fmt.Sprintf("the log states %d versions (%s): several runs in one log; where figures differ the first or rank 0's is taken", len(l.Versions), strings.Join(l.Versions, ", ")))
	}
	out = append(out, l.ReadNotes()...) // what the reader skipped or did not keep
	switch {
	case l.GraphBudget == logs.GraphBudgetCounted && !p.GraphsCharged:
		out = append(out, r.Profile.Describes+" does not charge the CUDA-graph estimate to the KV budget, but the log says it was (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1?): the available KV memory differs by the estimate")
	case l.GraphBudget == logs.GraphBudgetNotCounted && p.GraphsCharged:
		out = append(out, r.Profile.Describes+" charges the CUDA-graph estimate to the KV budget, but the log says it was not: the available KV memory differs by the estimate")
	}
	if r.TensorParallelSize > 1 || r.PipelineParallelSize > 1 {
		out = append(out, "figures are per GPU; membudget predicts the first pipeline stage's rank")
	}
	return out
}

// activationWithGraphs predicts the "peak activation" of vLLM PR #49208's
// line, term by term: the activation peak, plus the CUDA-graph estimate
// where the release charges it (peak_activation_memory =
// transient_peak_headroom + cudagraph_memory_estimate_applied,
// vllm/v1/worker/gpu_worker.py at main d18bb7b).
func activationWithGraphs(p Predicted) explain.Predicted {
	if !p.GraphsCharged {
		pr := explain.PredictBytes(p.ActivationPeakBytes)
		pr.Note = fmt.Sprintf("the activation peak %s; no CUDA-graph estimate, which this release does not charge", engine.GiB(p.ActivationPeakBytes))
		return pr
	}
	pr := explain.PredictBytes(budget.SatAdd(p.ActivationPeakBytes, p.GraphBytes))
	pr.Note = fmt.Sprintf("the activation peak %s + the CUDA-graph estimate charged %s", engine.GiB(p.ActivationPeakBytes), engine.GiB(p.GraphBytes))
	return pr
}

// pyStringList reads a Python list of strings as a log prints it
// (['0', 'sliding_window']) as the entries separated by spaces, false when
// it is not one or an entry holds a space or a quote.
func pyStringList(v string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(v), "[")
	if !ok {
		return "", false
	}
	var out []string
	for {
		rest = strings.TrimSpace(rest)
		if rest == "]" {
			return strings.Join(out, " "), true
		}
		if rest == "" || (rest[0] != '\'' && rest[0] != '"') {
			return "", false
		}
		end := strings.IndexByte(rest[1:], rest[0])
		if end < 0 {
			return "", false
		}
		e := rest[1 : 1+end]
		if e == "" || strings.ContainsAny(e, " \t'\"") {
			return "", false
		}
		out = append(out, e)
		rest = strings.TrimSpace(rest[end+2:])
		if after, ok := strings.CutPrefix(rest, ","); ok {
			rest = after
		} else if rest != "]" {
			return "", false
		}
	}
}
