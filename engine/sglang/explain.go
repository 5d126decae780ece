package sglang

import (
	"errors"
	"fmt"
	"strconv"

	"membudget/engine"
	"membudget/model/explain"
	"membudget/model/logs"
)

// loggedServe is the server an SGLang log's server_args describe.
type loggedServe struct {
	Serve Serve
	// From says, by SGLang flag name ("mem-fraction-static"), which
	// settings the log gave.
	From map[string]explain.SettingFrom
}

// logSettings maps server_args' fields to SGLang's flags, in the order
// an explanation lists them.
var logSettings = []struct{ key, flag string }{
	{"mem_fraction_static", "mem-fraction-static"},
	{"context_length", "context-length"},
	{"max_running_requests", "max-running-requests"},
	{"max_total_tokens", "max-total-tokens"},
	{"chunked_prefill_size", "chunked-prefill-size"},
	{"max_prefill_tokens", "max-prefill-tokens"},
	{"cuda_graph_max_bs", "cuda-graph-max-bs"},
	{"disable_cuda_graph", "disable-cuda-graph"},
	{"disable_piecewise_cuda_graph", "disable-piecewise-cuda-graph"}, // v0.5.10 on, as __post_init__ resolved it
	{"trust_remote_code", "trust-remote-code"},
	{"page_size", "page-size"},
	{"kv_cache_dtype", "kv-cache-dtype"},
	{"attention_backend", "attention-backend"},
	{"tp_size", "tp-size"},
	{"pp_size", "pp-size"},
	{"dp_size", "dp-size"},
	{"enable_dp_attention", "enable-dp-attention"},
	{"nnodes", "nnodes"},
	{"dtype", "dtype"},
	{"quantization", "quantization"},
	// A Mamba hybrid's pool (mamba.go); at their defaults (None, 0.9,
	// "auto") they are taken as not given, which every release's
	// server_args logs for any model.
	{"enforce_disable_flashinfer_allreduce_fusion", "enforce-disable-flashinfer-allreduce-fusion"},
	{"disable_radix_cache", "disable-radix-cache"},
	{"disable_overlap_schedule", "disable-overlap-schedule"},
	{"mamba_full_memory_ratio", "mamba-full-memory-ratio"},
	{"max_mamba_cache_size", "max-mamba-cache-size"},
	{"mamba_ssm_dtype", "mamba-ssm-dtype"},
	{"mamba_radix_cache_strategy", "mamba-radix-cache-strategy"},
	// The feature transport as __post_init__ resolved it (v0.5.16 on:
	// self.mm_feature_transport = requested_transport, server_args.py:6634
	// at v0.5.16, :7667 at v0.5.17, :8021 at v0.5.18), so that a v0.5.17
	// log's cuda_ipc is refused by value and its cpu sized (mmtransport.go).
	{"mm_feature_transport", "mm-feature-transport"},
}

// buildServe returns the server the log's server_args describe. Only
// server_args is read: the scheduler's limits line states what SGLang
// derived (max_running_requests, the token count), not what it was given.
func buildServe(l *logs.Log, flags Serve, given map[string]bool) (loggedServe, error) {
	ss := loggedServe{From: map[string]explain.SettingFrom{}}
	last := map[string]logs.Setting{}
	for _, st := range l.Settings {
		if st.Source == logs.SourceServerArgs {
			last[st.Key] = st
		}
	}
	if st, ok := last["speculative_algorithm"]; ok && st.Literal != logs.LiteralNone {
		// The draft's worker logs a second pool and weight load, which
		// the log reader does not tell from the target's (spec.go sizes
		// such a serve from its flags).
		return ss, fmt.Errorf("the log's server_args %s=%s (line %d): a speculative-decoding serve's log is not explained: its draft's pool and weights log lines of their own, which membudget does not tell apart from the target's; size the serve with report instead", st.LoggedKey, st.Value, st.Line)
	}
	s := &ss.Serve
	for _, sk := range logSettings {
		st, ok := last[sk.key]
		if flagAliases.Given(given, sk.flag) {
			overrideSetting(&ss.Serve, flags, sk.flag)
			ss.From[sk.flag] = explain.SettingFrom{Source: explain.FromFlag}
			continue
		}
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
		case "nnodes":
			err = count(&s.Nodes.NNodes)
		case "disable-cuda-graph":
			b, ok := st.Bool()
			if !ok {
				err = errors.New("is not True or False")
			}
			s.DisableCudaGraph = b
		case "disable-piecewise-cuda-graph":
			b, ok := st.Bool()
			if !ok {
				err = errors.New("is not True or False")
			}
			s.DisablePiecewiseCudaGraph = b
		case "enable-dp-attention":
			b, ok := st.Bool()
			if !ok {
				err = errors.New("is not True or False")
			}
			s.EnableDPAttention = b
		case "trust-remote-code":
			b, ok := st.Bool()
			if !ok {
				err = errors.New("is not True or False")
			}
			s.TrustRemoteCode = b
		case "kv-cache-dtype":
			s.KVCacheDtype = st.Value
		case "attention-backend":
			s.AttentionBackend = st.Value
		case "dtype":
			s.Dtype = st.Value
		case "quantization":
			s.Quantization = st.Value
		case "disable-radix-cache", "disable-overlap-schedule", "enforce-disable-flashinfer-allreduce-fusion":
			b, ok := st.Bool()
			if !ok {
				err = errors.New("is not True or False")
			}
			switch sk.flag {
			case "disable-radix-cache":
				s.DisableRadixCache = b
			case "disable-overlap-schedule":
				s.DisableOverlapSchedule = b
			default:
				s.EnforceDisableARFusion = b
			}
		case "mamba-full-memory-ratio":
			f, ok := st.Float()
			if !ok || f <= 0 {
				err = errors.New("is not a number above 0")
			}
			if f != mambaFullMemoryRatio {
				s.MambaFullMemoryRatio = f
			}
		case "max-mamba-cache-size":
			err = count(&s.MaxMambaCacheSize)
		case "mamba-ssm-dtype":
			s.MambaSSMDtype = st.Value
		case "mamba-radix-cache-strategy":
			if st.Value != "auto" {
				s.MambaRadixCacheStrategy = st.Value
			}
		case "mm-feature-transport":
			s.MMFeatureTransport = st.Value
		}
		if err != nil {
			return ss, fmt.Errorf("the log's server_args %s=%s (line %d) %v", st.LoggedKey, st.Value, st.Line, err)
		}
		ss.From[sk.flag] = explain.SettingFrom{Source: explain.FromLogged, Value: st.Value, Key: st.LoggedKey, Detail: string(st.Source), Line: st.Line}
	}
	return ss, nil
}

// explainInput is what [explainLog] sizes.
type explainInput struct {
	Source  *explain.Source
	Model   explain.Model
	Class   explain.ClassChoice
	Profile Profile
	// ProfileNote says how the profile was chosen.
	ProfileNote string
	Serve       loggedServe
}

// logSpecs are the figures of an SGLang log membudget predicts.
var logSpecs = []explain.Spec{
	{ID: "weights", Label: "weights", Kind: logs.KindWeights, Unit: "bytes", Tol: explain.TolWeights},
	{ID: "kv_cache_tokens", Label: "KV cache tokens", Kind: logs.KindKVCacheTokens, Unit: "tokens", Tol: explain.TolCount},
	{ID: "k_cache_memory", Label: "K size", Kind: logs.KindKCacheMemory, Unit: "bytes", Tol: explain.TolKV},
	{ID: "v_cache_memory", Label: "V size", Kind: logs.KindVCacheMemory, Unit: "bytes", Tol: explain.TolKV},
	{ID: "kv_pool_memory", Label: "KV size (one latent pool)", Kind: logs.KindKVCacheMemory, Unit: "bytes", Tol: explain.TolKV},
	{ID: "piecewise_cuda_graphs", Label: "piecewise CUDA graphs", Kind: logs.KindPiecewiseGraph, Unit: "bytes", Tol: explain.TolTerm},
}

// explainLog sizes an SGLang log's server with engine/sglang and sets its
// logged figures beside the prediction: the weights loaded, the pool's
// tokens and its K and V sizes, and the piecewise CUDA graphs' capture.
func explainLog(in explainInput) (*explain.Explanation, error) {
	l := in.Source.Log
	ref, err := NewReference(in.Model.Arch, in.Serve.Serve, in.Class.Class, in.Profile)
	if err != nil {
		return nil, engine.ServeRefusal(err, in.Serve.From)
	}
	r := ref.Serve
	c := ref.Capacity()
	ex := &explain.Explanation{
		Log:   explain.LogInfo{Name: in.Source.Name, Engine: string(l.Engine), Version: l.EngineVersion, Era: string(l.Era), Lines: l.Lines},
		Model: in.Model,
		Class: explain.ClassInfoOf(in.Class),
		Rules: explain.VersionInfo{Engine: "sglang", Profile: r.Profile.Name, Describes: r.Profile.Describes, Source: "assumed", Note: in.ProfileNote},
	}
	if in.ProfileNote == "" {
		ex.Rules.Source = explain.FromFlag
	}
	ex.Settings = settingsOf(in.Serve, r)
	ex.Command = Command(in.Model.Name, "", r)
	preds := map[string]explain.Predicted{
		"weights":         explain.PredictBytes(c.LoadedBytes),
		"kv_cache_tokens": explain.PredictCount(float64(c.MaxTotalNumTokens)),
		"k_cache_memory":  explain.PredictBytes(c.KBytes),
		"v_cache_memory":  explain.PredictBytes(c.VBytes),
		"kv_pool_memory":  explain.PredictBytes(c.KBytes),
	}
	// The piecewise graphs are charged at SGLang's own reserve for them
	// (see piecewise.go), which no logged capture has yet checked.
	if pw := ref.piecewiseItem(); len(pw) > 0 {
		p := explain.PredictBytes(pw[0].Bytes)
		p.Note = "SGLang's reserve for them in the default --mem-fraction-static, which membudget charges"
		preds["piecewise_cuda_graphs"] = p
	} else {
		preds["piecewise_cuda_graphs"] = explain.Predicted{Note: "membudget charges none for this serve under " + r.Profile.Name + " (" + piecewiseNone(r) + ")"}
	}
	if !c.MLA {
		preds["kv_pool_memory"] = explain.Predicted{Note: "membudget sizes separate K and V pools for this model"}
	}
	if c.HybridSWA {
		for _, id := range []string{"kv_cache_tokens", "k_cache_memory", "v_cache_memory"} {
			p := preds[id]
			p.Note = "the full-layer pool's; the sliding-window pool is logged apart"
			preds[id] = p
		}
	}
	if !c.Starts {
		ex.Warnings = append(ex.Warnings, "membudget says SGLang does not start: "+c.Failure)
	}
	if c.Caveat != "" {
		// What may stop the serve after the pool, which no logged figure
		// compares (see [Capacity.Caveat]).
		ex.Notes = append(ex.Notes, "SGLang starts, "+c.Caveat)
	}
	ex.Figures = explain.Rows(l, logSpecs, preds)
	ex.NotPredicted = explain.NotPredicted(l, logSpecs)
	if err := ex.Tally(""); err != nil { // no graph figure is compared
		return nil, err
	}
	if r.TPSize > 1 || r.PPSize > 1 {
		ex.Notes = append(ex.Notes, "figures are per GPU; membudget predicts the first pipeline stage's rank (TP0)")
	}
	ex.Notes = append(ex.Notes, l.ReadNotes()...) // what the reader skipped or did not keep
	return ex, nil
}

// chooseProfile returns the profile of --sglang-version spec, or the
// default when the log states none (SGLang's startup lines carry no
// version), said in the note.
func chooseProfile(spec string, given bool) (Profile, string, error) {
	if given {
		p, err := ProfileFor(spec)
		if err != nil {
			return p, "", fmt.Errorf("--sglang-version: %w", err)
		}
		return p, "", nil
	}
	p, err := ProfileFor("")
	if err != nil {
		return p, "", err
	}
	return p, fmt.Sprintf("SGLang's startup lines state no version: sized with %s's rules; pass --sglang-version to choose", p.Name), nil
}

func settingsOf(ss loggedServe, r Resolved) []explain.Setting {
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
		"trust-remote-code":    strconv.FormatBool(r.TrustRemoteCode),
		"page-size":            u(r.PageSize),
		"kv-cache-dtype":       r.KVCacheDtype,
		"attention-backend":    r.AttentionBackend,
		"tp-size":              u(r.TPSize),
		"pp-size":              u(r.PPSize),
		"dp-size":              u(r.DPSize),
		"enable-dp-attention":  strconv.FormatBool(r.EnableDPAttention),
		"nnodes":               u(r.Nodes.NNodes),
		"dtype":                r.Dtype,
		"quantization":         r.Quant.Method,
		"mm-feature-transport": r.MMFeatureTransport,
	}
	if r.Profile.PiecewiseByDefault {
		// Off where given or where SGLang turns them off for the serve;
		// no setting of a release before v0.5.10.
		values["disable-piecewise-cuda-graph"] = strconv.FormatBool(!r.Piecewise)
	}
	var out []explain.Setting
	for _, sk := range logSettings {
		v := values[sk.flag]
		from, given := ss.From[sk.flag]
		if !given && (v == "" || v == "0") {
			continue // unset and not defaulted: SGLang sizes it from the pool
		}
		if sk.flag == "trust-remote-code" && !r.TrustRemoteCode {
			continue // no memory: listed where on, as the line carries it
		}
		out = append(out, explain.SettingOf(sk.flag, v, from, given, "SGLang default", r.Sources[sk.flag]))
	}
	return out
}

// flagAliases are the other names SGLang's flags are registered under.
var flagAliases = engine.Aliases{
	"tp-size": {"tensor-parallel-size", "tp"},
	"pp-size": {"pipeline-parallel-size", "pp"},
	"dp-size": {"data-parallel-size", "dp"},
}

// overrideSetting sets dst's setting of flag to the flags' value.
func overrideSetting(dst *Serve, flags Serve, flag string) {
	switch flag {
	case "mem-fraction-static":
		dst.MemFractionStatic = flags.MemFractionStatic
	case "context-length":
		dst.ContextLength = flags.ContextLength
	case "max-running-requests":
		dst.MaxRunningRequests = flags.MaxRunningRequests
	case "max-total-tokens":
		dst.MaxTotalTokens = flags.MaxTotalTokens
	case "chunked-prefill-size":
		dst.ChunkedPrefillSize = flags.ChunkedPrefillSize
	case "max-prefill-tokens":
		dst.MaxPrefillTokens = flags.MaxPrefillTokens
	case "cuda-graph-max-bs":
		dst.CudaGraphMaxBS = flags.CudaGraphMaxBS
	case "disable-cuda-graph":
		dst.DisableCudaGraph = flags.DisableCudaGraph
	case "disable-piecewise-cuda-graph":
		dst.DisablePiecewiseCudaGraph = flags.DisablePiecewiseCudaGraph
	case "trust-remote-code":
		dst.TrustRemoteCode = flags.TrustRemoteCode
	case "enforce-disable-flashinfer-allreduce-fusion":
		dst.EnforceDisableARFusion = flags.EnforceDisableARFusion
	case "disable-radix-cache":
		dst.DisableRadixCache = flags.DisableRadixCache
	case "disable-overlap-schedule":
		dst.DisableOverlapSchedule = flags.DisableOverlapSchedule
	case "mamba-full-memory-ratio":
		dst.MambaFullMemoryRatio = flags.MambaFullMemoryRatio
	case "max-mamba-cache-size":
		dst.MaxMambaCacheSize = flags.MaxMambaCacheSize
	case "mamba-ssm-dtype":
		dst.MambaSSMDtype = flags.MambaSSMDtype
	case "mamba-radix-cache-strategy":
		dst.MambaRadixCacheStrategy = flags.MambaRadixCacheStrategy
	case "page-size":
		dst.PageSize = flags.PageSize
	case "kv-cache-dtype":
		dst.KVCacheDtype = flags.KVCacheDtype
	case "attention-backend":
		dst.AttentionBackend = flags.AttentionBackend
	case "tp-size":
		dst.TPSize = flags.TPSize
	case "pp-size":
		dst.PPSize = flags.PPSize
	case "dp-size":
		dst.DPSize = flags.DPSize
	case "enable-dp-attention":
		dst.EnableDPAttention = flags.EnableDPAttention
	case "nnodes":
		dst.Nodes.NNodes = flags.Nodes.NNodes
	case "dtype":
		dst.Dtype = flags.Dtype
	case "quantization":
		dst.Quantization = flags.Quantization
	case "mm-feature-transport":
		dst.MMFeatureTransport = flags.MMFeatureTransport
	}
}

// piecewiseNone says why membudget charges no piecewise graphs for r.
func piecewiseNone(r Resolved) string {
	switch {
	case !r.Profile.PiecewiseByDefault:
		return "piecewise CUDA graphs are off unless --enable-piecewise-cuda-graph, which membudget does not take"
	case r.PiecewiseOff != "":
		return r.PiecewiseOff + " turns them off"
	}
	return "SGLang turns them off after the default fraction reserved them"
}
