package explain

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"membudget/engine"
	"membudget/engine/vllm"
	"membudget/model"
	"membudget/model/logs"
)

// Where a setting came from.
const (
	FromFlag    = "flag"
	FromLogged  = "logged"
	FromDefault = "vLLM default"
)

// SettingFrom is where one setting of the serve came from: a flag, or a log
// line.
type SettingFrom struct {
	// Source is [FromFlag] or [FromLogged].
	Source string
	// Value is the value as given or logged.
	Value string
	// Key is the setting's name in the log ("max_model_len"); Detail the
	// kind of line ("engine config", "non-default args", a figure's line);
	// Line its line. Empty for a flag.
	Key    string
	Detail string
	Line   int
}

// LoggedServe is the serve a log's settings describe, with the flags that
// override them.
type LoggedServe struct {
	Serve vllm.Serve
	// From says, by vLLM flag name ("max-model-len"), where each setting
	// that a flag or the log gave came from; the others take vLLM's
	// defaults.
	From map[string]SettingFrom
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
	{"dtype", "dtype"},
	{"quantization", "quantization"},
	{"tensor_parallel_size", "tensor-parallel-size"},
	{"pipeline_parallel_size", "pipeline-parallel-size"},
	{"data_parallel_size", "data-parallel-size"},
	{"enable_expert_parallel", "enable-expert-parallel"},
	{"enforce_eager", "enforce-eager"},
	{"async_scheduling", "async-scheduling"},
	{"enable_prefix_caching", "enable-prefix-caching"},
	{"cpu_offload_gb", "cpu-offload-gb"},
	{"swap_space", "swap-space"},
	{"mamba_cache_dtype", "mamba-cache-dtype"},
	{"mamba_ssm_cache_dtype", "mamba-ssm-cache-dtype"},
}

// flagAliases are the other names the CLI registers a flag under.
var flagAliases = map[string][]string{
	"tensor-parallel-size":   {"tp"},
	"pipeline-parallel-size": {"pp"},
	"data-parallel-size":     {"dp"},
	"enable-expert-parallel": {"ep"},
	"quantization":           {"q"},
	"async-scheduling":       {"no-async-scheduling"},
	"enable-prefix-caching":  {"no-enable-prefix-caching"},
}

func flagGiven(given map[string]bool, flag string) bool {
	if given[flag] {
		return true
	}
	for _, a := range flagAliases[flag] {
		if given[a] {
			return true
		}
	}
	return false
}

// unmodelled are logged settings whose memory membudget does not model:
// their presence makes a prediction an underestimate.
var unmodelled = []struct{ key, what string }{
	{"speculative_config", "speculative decoding (a draft model's weights, KV cache and graphs)"},
	{"enable_lora", "LoRA adapters (their weights and the punica buffers)"},
	{"kv_transfer_config", "a KV connector (its buffers)"},
}

// BuildServe returns the serve the log's settings describe: each setting
// the log states (the last statement: the engine config's resolved value)
// unless its flag was given (given holds the flags given, by name, aliases
// included), then, for the util and max_model_len, the figures the memory
// lines restate. flags holds the flags' values. A logged value vLLM's flag
// would refuse is an error naming the log line and the flag to pass.
func BuildServe(l *logs.Log, flags vllm.Serve, given map[string]bool) (LoggedServe, error) {
	ls := LoggedServe{Serve: flags, From: map[string]SettingFrom{}}
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
				ls.From[canon] = SettingFrom{Source: FromFlag}
			}
		}
	}
	for _, sk := range serveSettings {
		if flagGiven(given, sk.flag) {
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
			ls.From[sk.flag] = SettingFrom{Source: FromLogged, Value: st.Value, Key: st.LoggedKey, Detail: string(st.Source), Line: st.Line}
		} else if sk.flag == "quantization" {
			ls.Warnings = append(ls.Warnings, fmt.Sprintf("the log's quantization=%s (line %d) is not a --quantization membudget sizes (%s): the checkpoint's config.json decides the weights' format", st.Value, st.Line, quantNames()))
		}
	}
	// The memory lines restate the util and the length when no setting
	// line does.
	if _, ok := ls.From["gpu-memory-utilization"]; !ok {
		if f, ok := l.First(logs.KindUtilization); ok {
			if u := f.Float64(); u > 0 && u <= 1 {
				ls.Serve.GPUMemoryUtilization = u
				ls.From["gpu-memory-utilization"] = SettingFrom{Source: FromLogged, Value: f.Value.String(), Key: string(f.Kind), Detail: string(f.Format), Line: f.Line}
			}
		}
	}
	if _, ok := ls.From["max-model-len"]; !ok {
		if f, ok := l.First(logs.KindMaxModelLen); ok && f.Value.Places == 0 && f.Value.Units > 0 {
			ls.Serve.MaxModelLen, ls.Serve.AutoMaxModelLen = uint64(f.Value.Units), false
			ls.From["max-model-len"] = SettingFrom{Source: FromLogged, Value: f.Value.String(), Key: string(f.Kind), Detail: string(f.Format), Line: f.Line}
		}
	}
	for _, u := range unmodelled {
		if st, ok := l.Setting(u.key); ok && st.Literal != logs.LiteralNone && !(st.Literal == logs.LiteralBool && st.Value == "False") {
			ls.Warnings = append(ls.Warnings, fmt.Sprintf("the log's %s (line %d) uses %s, which membudget does not model: its predictions leave that memory out", st.LoggedKey, st.Line, u.what))
		}
	}
	return ls, nil
}

func quantNames() string {
	var names []string
	for k := range model.QuantMethods {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// applySetting sets one logged setting on s and returns the value applied
// as vLLM's flag takes it, "" when the value is one membudget leaves to the
// checkpoint (an unknown quantization method).
func applySetting(s *vllm.Serve, flag string, st logs.Setting) (string, error) {
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
		if _, ok := model.QuantMethods[st.Value]; !ok {
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
	case "async-scheduling":
		return switch2(&s.AsyncScheduling)
	case "enable-prefix-caching":
		return switch2(&s.EnablePrefixCaching)
	case "cpu-offload-gb":
		f, err := gibs()
		if err != nil {
			return "", err
		}
		s.CPUOffloadGiB = f
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
		return vllm.ParseHumanInt(st.Value)
	}
	return 0, fmt.Errorf("is not an integer")
}

// Setting is one setting of the serve an explanation sized, as resolved,
// and where it came from.
type Setting struct {
	// Flag is vLLM's flag without its dashes.
	Flag  string `json:"flag"`
	Value string `json:"value"`
	// Source is "logged", "flag" or "vLLM default".
	Source string `json:"source"`
	// Detail is the log line's kind and the key it was read under, or the
	// default's reason.
	Detail string `json:"detail,omitempty"`
	Line   int    `json:"line,omitempty"`
}

// settingsOf lists every sizing setting of r with its source.
func settingsOf(ls LoggedServe, r vllm.Resolved) []Setting {
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	b := strconv.FormatBool
	quant := r.Quant.Method
	if quant == "" {
		quant = "none"
	}
	values := map[string]string{
		"gpu-memory-utilization": strconv.FormatFloat(r.GPUMemoryUtilization, 'f', -1, 64),
		"kv-cache-memory-bytes":  u(r.KVCacheMemoryBytes),
		"max-model-len":          u(r.MaxModelLen),
		"max-num-seqs":           u(r.MaxNumSeqs),
		"max-num-batched-tokens": u(r.MaxNumBatchedTokens),
		"block-size":             u(r.BlockSize),
		"kv-cache-dtype":         r.KVCacheDtype,
		"dtype":                  r.Dtype,
		"quantization":           quant,
		"tensor-parallel-size":   u(r.TensorParallelSize),
		"pipeline-parallel-size": u(r.PipelineParallelSize),
		"data-parallel-size":     u(r.DataParallelSize),
		"enable-expert-parallel": b(r.EnableExpertParallel),
		"enforce-eager":          b(r.EnforceEager),
		"async-scheduling":       b(r.Async),
		"enable-prefix-caching":  b(r.PrefixCaching),
		"cpu-offload-gb":         strconv.FormatFloat(r.CPUOffloadGiB, 'f', -1, 64),
		"swap-space":             strconv.FormatFloat(r.SwapGiB, 'f', -1, 64),
		"mamba-cache-dtype":      r.MambaCacheDtype,
		"mamba-ssm-cache-dtype":  r.MambaSSMCacheDtype,
	}
	var out []Setting
	for _, sk := range serveSettings {
		v := values[sk.flag]
		from, given := ls.From[sk.flag]
		if !given {
			// Settings that do not apply and were not given are left out:
			// the KV cache's bytes when the util sizes it, swap space where
			// the engine allocates none, a Mamba dtype without state layers.
			switch {
			case sk.flag == "kv-cache-memory-bytes" && r.KVCacheMemoryBytes == 0,
				sk.flag == "swap-space" && r.SwapGiB == 0,
				sk.flag == "cpu-offload-gb" && r.CPUOffloadGiB == 0,
				(sk.flag == "mamba-cache-dtype" || sk.flag == "mamba-ssm-cache-dtype") && r.MambaCacheMode == "":
				continue
			}
		}
		st := Setting{Flag: sk.flag, Value: v}
		switch {
		case given && from.Source == FromFlag:
			st.Source = FromFlag
		case given:
			st.Source, st.Line = FromLogged, from.Line
			st.Detail = fmt.Sprintf("%s: %s=%s", from.Detail, from.Key, from.Value)
		default:
			st.Source = FromDefault
			st.Detail = r.Sources[sk.flag]
			if sk.flag == "quantization" && st.Detail == "" {
				st.Detail = "the checkpoint's config.json"
			}
		}
		if v == "" {
			st.Value = "auto"
		}
		out = append(out, st)
	}
	return out
}

// VersionChoice is the vLLM version whose rules size the log, and why.
type VersionChoice struct {
	Profile vllm.Profile
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

// ChooseProfile returns the profile that sizes the log: --vllm-version's
// when given (spec, given), else the version the log states, on the engine
// era the log shows (V0 from 0.8 to 0.10 only where the log proves it);
// else V0's or main's rules, said in the note.
func ChooseProfile(l *logs.Log, spec string, given bool) (VersionChoice, error) {
	vc := VersionChoice{Logged: l.EngineVersion}
	if given {
		p, err := vllm.ProfileFor(spec)
		if err != nil {
			return vc, err
		}
		vc.Profile, vc.Source = p, FromFlag
		return vc, nil
	}
	vc.Source = FromLogged
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
	v, err := vllm.ParseVersion(rel)
	if err != nil {
		return assumedProfile(l, vc, fmt.Sprintf("the log's version %s is not a vLLM release", l.EngineVersion))
	}
	v080, v0110 := vllm.Version{Minor: 8}, vllm.Version{Minor: 11}
	spec = rel
	switch {
	case v.Less(vllm.Version{Minor: 6}):
		p, _ := vllm.ProfileFor("v0")
		vc.Profile = p
		vc.Note = joinNote(vc.Note, fmt.Sprintf("vLLM %s is older than any profile membudget has: sized with %s's rules, pass --vllm-version to choose", rel, p.Describes))
		return vc, nil
	case l.Era == logs.EraV0 && v.AtLeast(v080) && v.Less(v0110):
		spec += ":v0"
		vc.Note = joinNote(vc.Note, "the log shows the V0 engine")
	case l.Era == logs.EraV1 && v.Less(v080):
		spec = "0.8.0"
		vc.Note = joinNote(vc.Note, fmt.Sprintf("vLLM %s ran its V1 engine (opt-in before 0.8.0), whose rules membudget has from 0.8.0 only: sized with 0.8.0's V1 rules", rel))
	case l.Era == logs.EraUnknown && v.AtLeast(v080) && v.Less(v0110):
		vc.Note = joinNote(vc.Note, "the log does not show the engine: V1, the default from 0.8.0 (pass --vllm-version "+rel+":v0 for V0)")
	}
	p, err := vllm.ProfileFor(spec)
	if err != nil {
		return vc, fmt.Errorf("the log's vLLM version %s (%s): %w; pass --vllm-version", l.EngineVersion, spec, err)
	}
	vc.Profile = p
	return vc, nil
}

// assumedProfile is the profile of a log without a usable version: V0's
// last default release when the log shows V0, else main.
func assumedProfile(l *logs.Log, vc VersionChoice, why string) (VersionChoice, error) {
	vc.Source = "assumed"
	spec, rules := "main", "main's"
	if l.Era == logs.EraV0 {
		spec, rules = "v0", "the V0 engine's of 0.7.3"
	}
	p, err := vllm.ProfileFor(spec)
	if err != nil {
		return vc, err
	}
	vc.Profile = p
	vc.Note = joinNote(vc.Note, fmt.Sprintf("%s: sized with %s rules; pass --vllm-version to choose", why, rules))
	return vc, nil
}

func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
