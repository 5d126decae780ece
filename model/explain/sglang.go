package explain

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"membudget/engine"
	"membudget/engine/sglang"
	"membudget/model/logs"
)

// SGLangServe is the server an SGLang log's server_args describe.
type SGLangServe struct {
	Serve sglang.Serve
	// From says, by SGLang flag name ("mem-fraction-static"), which
	// settings the log gave.
	From map[string]SettingFrom
}

// sglangSettings maps server_args' fields to SGLang's flags, in the order
// an explanation lists them.
var sglangSettings = []struct{ key, flag string }{
	{"mem_fraction_static", "mem-fraction-static"},
	{"context_length", "context-length"},
	{"max_running_requests", "max-running-requests"},
	{"max_total_tokens", "max-total-tokens"},
	{"chunked_prefill_size", "chunked-prefill-size"},
	{"max_prefill_tokens", "max-prefill-tokens"},
	{"cuda_graph_max_bs", "cuda-graph-max-bs"},
	{"disable_cuda_graph", "disable-cuda-graph"},
	{"page_size", "page-size"},
	{"kv_cache_dtype", "kv-cache-dtype"},
	{"attention_backend", "attention-backend"},
	{"tp_size", "tp-size"},
	{"pp_size", "pp-size"},
	{"dp_size", "dp-size"},
	{"enable_dp_attention", "enable-dp-attention"},
	{"dtype", "dtype"},
	{"quantization", "quantization"},
}

// BuildSGLangServe returns the server the log's server_args describe. Only
// server_args is read: the scheduler's limits line states what SGLang
// derived (max_running_requests, the token count), not what it was given.
func BuildSGLangServe(l *logs.Log) (SGLangServe, error) {
	ss := SGLangServe{From: map[string]SettingFrom{}}
	last := map[string]logs.Setting{}
	for _, st := range l.Settings {
		if st.Source == logs.SourceServerArgs {
			last[st.Key] = st
		}
	}
	s := &ss.Serve
	for _, sk := range sglangSettings {
		st, ok := last[sk.key]
		if !ok || st.Literal == logs.LiteralNone {
			continue
		}
		count := func(dst *uint64) error {
			n, ok := st.Int()
			if !ok || n < 0 {
				return errors.New("is not a count")
			}
			*dst = uint64(n) // 0 is SGLang's "default" as well as membudget's
			return nil
		}
		var err error
		switch sk.flag {
		case "mem-fraction-static":
			f, ok := st.Float()
			if !ok || f <= 0 || f >= 1 {
				err = errors.New("is not a fraction in (0, 1)")
			}
			s.MemFractionStatic = f
		case "context-length":
			err = count(&s.ContextLength)
		case "max-running-requests":
			err = count(&s.MaxRunningRequests)
		case "max-total-tokens":
			err = count(&s.MaxTotalTokens)
		case "chunked-prefill-size":
			n, ok := st.Int()
			if !ok {
				err = errors.New("is not an integer")
			}
			s.ChunkedPrefillSize = n
		case "max-prefill-tokens":
			err = count(&s.MaxPrefillTokens)
		case "cuda-graph-max-bs":
			err = count(&s.CudaGraphMaxBS)
		case "page-size":
			err = count(&s.PageSize)
		case "tp-size":
			err = count(&s.TPSize)
		case "pp-size":
			err = count(&s.PPSize)
		case "dp-size":
			err = count(&s.DPSize)
		case "disable-cuda-graph":
			b, ok := st.Bool()
			if !ok {
				err = errors.New("is not True or False")
			}
			s.DisableCudaGraph = b
		case "enable-dp-attention":
			b, ok := st.Bool()
			if !ok {
				err = errors.New("is not True or False")
			}
			s.EnableDPAttention = b
		case "kv-cache-dtype":
			s.KVCacheDtype = st.Value
		case "attention-backend":
			s.AttentionBackend = st.Value
		case "dtype":
			s.Dtype = st.Value
		case "quantization":
			s.Quantization = st.Value
		}
		if err != nil {
			return ss, fmt.Errorf("the log's server_args %s=%s (line %d) %v", st.LoggedKey, st.Value, st.Line, err)
		}
		ss.From[sk.flag] = SettingFrom{Source: FromLogged, Value: st.Value, Key: st.LoggedKey, Detail: string(st.Source), Line: st.Line}
	}
	return ss, nil
}

// SGLangInput is what [ExplainSGLang] sizes.
type SGLangInput struct {
	Source  *Source
	Model   Model
	Class   ClassChoice
	Profile sglang.Profile
	// ProfileNote says how the profile was chosen.
	ProfileNote string
	Serve       SGLangServe
}

// sglangSpecs are the figures of an SGLang log membudget predicts.
var sglangSpecs = []spec{
	{"weights", "weights", logs.KindWeights, "bytes", tolWeights, nil},
	{"kv_cache_tokens", "KV cache tokens", logs.KindKVCacheTokens, "tokens", tolCount, nil},
	{"k_cache_memory", "K size", logs.KindKCacheMemory, "bytes", tolKV, nil},
	{"v_cache_memory", "V size", logs.KindVCacheMemory, "bytes", tolKV, nil},
	{"kv_pool_memory", "KV size (one latent pool)", logs.KindKVCacheMemory, "bytes", tolKV, nil},
}

// ExplainSGLang sizes an SGLang log's server with engine/sglang and sets its
// logged figures beside the prediction: the weights loaded, the pool's
// tokens and its K and V sizes.
func ExplainSGLang(in SGLangInput) (*Explanation, error) {
	l := in.Source.Log
	ref, err := sglang.NewReference(in.Model.Arch, in.Serve.Serve, in.Class.Class, in.Profile)
	if err != nil {
		se := &ServeError{Err: err}
		var sErr *engine.SettingError
		if errors.As(err, &sErr) {
			se.Flag = sErr.Flag
			if from, ok := in.Serve.From[sErr.Flag]; ok {
				se.Logged = &from
			}
		}
		return nil, se
	}
	r := ref.Serve
	c := ref.Capacity()
	ex := &Explanation{
		Log:   LogInfo{Name: in.Source.Name, Engine: string(l.Engine), Version: l.EngineVersion, Era: string(l.Era), Lines: l.Lines},
		Model: in.Model,
		Class: classInfo(in.Class),
		Rules: VersionInfo{Engine: "sglang", Profile: r.Profile.Name, Describes: r.Profile.Describes, Source: "assumed", Note: in.ProfileNote},
	}
	if in.ProfileNote == "" {
		ex.Rules.Source = FromFlag
	}
	ex.Settings = sglangSettingsOf(in.Serve, r)
	ex.Command = sglangCommand(in.Model.Name, r)
	preds := map[string]predicted{
		"weights":         bytesOf(c.LoadedBytes),
		"kv_cache_tokens": countOf(float64(c.MaxTotalNumTokens)),
		"k_cache_memory":  bytesOf(c.KBytes),
		"v_cache_memory":  bytesOf(c.VBytes),
		"kv_pool_memory":  bytesOf(c.KBytes),
	}
	if !c.MLA {
		preds["kv_pool_memory"] = predicted{note: "membudget sizes separate K and V pools for this model"}
	}
	if c.HybridSWA {
		for _, id := range []string{"kv_cache_tokens", "k_cache_memory", "v_cache_memory"} {
			p := preds[id]
			p.note = "the full-layer pool's; the sliding-window pool is logged apart"
			preds[id] = p
		}
	}
	if !c.Starts {
		ex.Warnings = append(ex.Warnings, "membudget says SGLang does not start: "+c.Failure)
	}
	ex.Figures = rows(l, sglangSpecs, preds)
	ex.NotPredicted = notPredicted(l, sglangSpecs)
	if err := ex.tally(""); err != nil { // no graph figure is compared
		return nil, err
	}
	if r.TPSize > 1 || r.PPSize > 1 {
		ex.Notes = append(ex.Notes, "figures are per GPU; membudget predicts the first pipeline stage's rank (TP0)")
	}
	return ex, nil
}

// ChooseSGLangProfile returns the profile of --sglang-version spec, or the
// default when the log states none (SGLang's startup lines carry no
// version), said in the note.
func ChooseSGLangProfile(spec string, given bool) (sglang.Profile, string, error) {
	if given {
		p, err := sglang.ProfileFor(spec)
		if err != nil {
			return p, "", fmt.Errorf("--sglang-version: %w", err)
		}
		return p, "", nil
	}
	p, err := sglang.ProfileFor("")
	if err != nil {
		return p, "", err
	}
	return p, fmt.Sprintf("SGLang's startup lines state no version: sized with %s's rules; pass --sglang-version to choose", p.Name), nil
}

func sglangSettingsOf(ss SGLangServe, r sglang.Resolved) []Setting {
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	values := map[string]string{
		"mem-fraction-static":  strconv.FormatFloat(r.MemFractionStatic, 'f', -1, 64),
		"context-length":       u(r.ContextLength),
		"max-running-requests": u(r.MaxRunningRequests),
		"max-total-tokens":     u(r.MaxTotalTokens),
		"chunked-prefill-size": strconv.FormatInt(r.ChunkedPrefillSize, 10),
		"max-prefill-tokens":   u(r.MaxPrefillTokens),
		"cuda-graph-max-bs":    u(r.CudaGraphMaxBS),
		"disable-cuda-graph":   strconv.FormatBool(r.DisableCudaGraph),
		"page-size":            u(r.PageSize),
		"kv-cache-dtype":       r.KVCacheDtype,
		"attention-backend":    r.AttentionBackend,
		"tp-size":              u(r.TPSize),
		"pp-size":              u(r.PPSize),
		"dp-size":              u(r.DPSize),
		"enable-dp-attention":  strconv.FormatBool(r.EnableDPAttention),
		"dtype":                r.Dtype,
		"quantization":         r.Quant.Method,
	}
	var out []Setting
	for _, sk := range sglangSettings {
		v := values[sk.flag]
		from, given := ss.From[sk.flag]
		if !given && (v == "" || v == "0") {
			continue // unset and not defaulted: SGLang sizes it from the pool
		}
		st := Setting{Flag: sk.flag, Value: v}
		if given {
			st.Source, st.Line = FromLogged, from.Line
			st.Detail = fmt.Sprintf("%s: %s=%s", from.Detail, from.Key, from.Value)
		} else {
			st.Source, st.Detail = "SGLang default", r.Sources[sk.flag]
		}
		out = append(out, st)
	}
	return out
}

// sglangCommand is the `python -m sglang.launch_server` line of the
// resolved server.
func sglangCommand(model string, r sglang.Resolved) string {
	args := []string{"python -m sglang.launch_server --model-path", model,
		"--mem-fraction-static", strconv.FormatFloat(r.MemFractionStatic, 'f', -1, 64),
		"--context-length", strconv.FormatUint(r.ContextLength, 10),
		"--tp-size", strconv.FormatUint(r.TPSize, 10)}
	if r.PPSize > 1 {
		args = append(args, "--pp-size", strconv.FormatUint(r.PPSize, 10))
	}
	if r.KVCacheDtype != "" && r.KVCacheDtype != "auto" {
		args = append(args, "--kv-cache-dtype", r.KVCacheDtype)
	}
	return strings.Join(args, " ")
}
