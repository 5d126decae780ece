package sglang

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// Bounds that keep every product of the ledger far from 2^64 while admitting
// any real serve.
const (
	maxParallel   = 1024
	maxTokens     = 1 << 30
	maxRequests   = 1 << 20
	maxPageSize   = 1 << 12
	maxBatchSize  = 1 << 16
	defaultPrefil = 16384 // --max-prefill-tokens (server_args.py:291; v0.4.9.post2 :78)
)

// Resolved is a [Serve] with every default of its profile applied and
// checked against the architecture and the class. What depends on the KV
// pool's size (max_running_requests, the req_to_token pool, the CUDA-graph
// batches) is the [Reference]'s.
type Resolved struct {
	Serve
	Profile Profile
	// FractionAsGiven is --mem-fraction-static as SGLang takes it, given
	// or defaulted, before the aiter backend's adjustment: the value its
	// launch line gives, on which SGLang applies that adjustment again.
	FractionAsGiven float64
	// GPUMemMiB is the device memory the defaults read (see [GPUMemMiB]).
	GPUMemMiB float64
	// ReservedMiB is what the default msf reserved (0 when the flag was
	// given).
	ReservedMiB float64
	// DerivedContextLen is the context length from the model's config.
	DerivedContextLen uint64
	DtypeBytes        uint64
	// KVDtypeBytes is the KV cache element's size.
	KVDtypeBytes uint64
	Quant        model.Quant
	// Stages is the decoder layers of each pipeline stage.
	Stages []model.Sharding
	// HybridSWA says the KV pool is split into a full-layer and a
	// sliding-layer pool.
	HybridSWA bool
	// ActivationTokens is the largest forward batch's tokens: the chunked
	// prefill size, or without chunking max(max_prefill_tokens,
	// context_len) (one request longer than the prefill budget is still
	// admitted alone: managers/schedule_policy.py:594, 613).
	ActivationTokens uint64
	// DistInitBytes is what distributed init holds on each GPU before the
	// weights load (an estimate, see [DistInitBytes]).
	DistInitBytes uint64
	// F0Bytes is the free memory after distributed init that the fraction
	// applies to: memory_bytes less the class's driver_fixed_bytes and
	// DistInitBytes.
	F0Bytes uint64
	// Sources says where each defaulted setting came from, by flag name.
	Sources map[string]string
	// Draft is the speculative draft, nil without speculative decoding
	// (see [Resolved.resolveSpec]).
	Draft *specDraft
	// Piecewise says the profile's default fraction reserves piecewise
	// CUDA graphs (see piecewise.go); PiecewiseOff is why not, where the
	// profile has them on by default and the serve turns them off.
	Piecewise    bool
	PiecewiseOff string
	// PiecewiseSizes are the token counts captured; PiecewiseCaptured says
	// SGLang still captures them after the handlers that follow the
	// fraction (see [trtllmMoEDisablesPiecewise]).
	PiecewiseSizes    []uint64
	PiecewiseCaptured bool
	// Mamba is a gated-delta-net hybrid's Mamba state pool, nil for any
	// other model (see [Resolved.resolveMamba]).
	Mamba *mambaPool
}

// Resolve applies profile p's defaults for a on class c and checks the
// settings against each other, the model and the device; every error is a
// *[engine.SettingError] naming the flag.
func Resolve(s Serve, a *model.Arch, c budget.Class, p Profile) (Resolved, error) {
	r := Resolved{Serve: s, Profile: p, Sources: map[string]string{}, GPUMemMiB: GPUMemMiB(c)}
	def := func(flag, why string) { r.Sources[flag] = why }
	for _, step := range []func() error{
		func() error { return r.checkModel(a) },
		func() error { return r.resolveRemoteCode(a) },
		func() error { return r.resolveParallel(a, def) },
		func() error { return r.resolveNodes() },
		func() error { return r.checkChangedModels(a) },
		func() error { return r.checkLMOnlyCheckpoint(a) },
		func() error { return r.resolveDtypes(a, def) },
		func() error { return r.resolveContext(a, def) },
		func() error { return r.resolveBatch(def) },
		func() error { return r.resolveBackend(a, c, def) },
		func() error { return r.resolveSpec(a, def) },
		func() error { return r.checkVocabShards(a) },
		func() error { return r.resolveMamba(a, c) },
		func() error { return r.resolveMXFP4(a, c) },
		func() error { return r.resolvePiecewise(a, c, def) },
		func() error { return r.resolveFraction(a, def) },
		func() error { return r.checkARFusion(a, c) },
		func() error { return r.checkExplicitARFusion(a, c) },
		func() error { return r.checkCustomARv2Multinode(c) },
		func() error { return r.resolveMMTransport(a, c) },
		func() error { return r.checkMMFeatureTransport(a, c) },
		func() error { return r.checkUE8M0(a, c) },
	} {
		if err := step(); err != nil {
			return Resolved{}, err
		}
	}
	r.DistInitBytes = distInitFor(r.Profile, c, r.TPSize, r.PPSize, r.Nodes.NNodes)
	r.F0Bytes = budget.SatSub(budget.SatSub(c.Device.MemoryBytes, c.Memory.DriverFixedBytes), r.DistInitBytes)
	return r, nil
}

// nativeSince says when arch became native in SGLang for p's refusal:
// "new in this release" at that release or its post releases, else "new
// in" the release it came in, "new in this release" for an architecture
// no release names. The release it came in is the oldest profile whose
// [Profile.UnreadModels] names it: each release's profile adds those it
// made native to its predecessor's (new059 to new0516), and a later one
// keeps them unread.
func nativeSince(p Profile, arch string) string {
	for _, o := range oldestFirst() {
		if !slices.Contains(o.UnreadModels, arch) {
			continue
		}
		if p.Name != o.Name && !strings.HasPrefix(p.Name, o.Name+".post") {
			return "new in " + o.Name
		}
		break
	}
	return "new in this release"
}

// checkModel refuses what membudget does not model of SGLang's memory for
// this architecture, naming it, rather than guessing.
func (r *Resolved) checkModel(a *model.Arch) error {
	if a.Pooler != nil {
		// SGLang serves a reward model as an embedding model
		// (--is-embedding), whose runner is not read.
		return settingErr("model", a.Source, "%v is a pooling model (a reward or score head in place of the LM head), which SGLang serves as an embedding model (--is-embedding): its memory there is not modelled", a.Architectures)
	}
	if !slices.ContainsFunc(a.Architectures, func(arch string) bool { return slices.Contains(r.Profile.Native, arch) }) {
		return settingErr("model", a.Source, "%s has no native implementation of %v: it would fall back to its Transformers backend (model_loader/utils.py), whose memory is not modelled", r.Profile.Describes, a.Architectures)
	}
	if i := slices.IndexFunc(a.Architectures, func(arch string) bool {
		return slices.Contains(r.Profile.UnreadModels, arch) && !gdnRead(arch, r.Profile)
	}); i >= 0 {
		return settingErr("model", a.Source, "%s implements %s natively, %s, and its model file (python/sglang/srt/models/) is not read: how it lays out the weights and the KV cache is not modelled%s", r.Profile.Describes, a.Architectures[i], nativeSince(r.Profile, a.Architectures[i]), gdnElsewhere(a))
	}
	gdn := gdnModelled(a, r.Profile) // a walk of every layer: once, not per layer
	for i, l := range a.Layers {
		switch {
		case l.Kind == model.LinearAttention && gdn:
			// Qwen3-Next's delta-net layers keep their state in the Mamba
			// pool (mamba.go).
		case l.Kind == model.LinearAttention || l.Kind == model.Mamba || l.MambaBeside:
			// Falcon-H1's layers keep a Mamba state beside their attention.
			return settingErr("model", a.Source, "layer %d is %s or keeps a Mamba state beside it: SGLang's Mamba state pool and its share of the rest (handle_max_mamba_cache, model_runner.py:1446-1493 at v0.5.6.post2) are not modelled%s", i, l.Kind, gdnElsewhere(a))
		case l.Kind == model.ChunkedAttention:
			return settingErr("model", a.Source, "layer %d is %s: Llama 4's split of the pool by attention_chunk_size (model_runner.py:1523-1550 at v0.5.6.post2) is not modelled", i, l.Kind)
		case l.Kind != model.FullAttention && l.Kind != model.SlidingAttention:
			return settingErr("model", a.Source, "layer %d is %s, which SGLang's KV pool is not modelled for", i, l.Kind)
		case l.SharesKV:
			return settingErr("model", a.Source, "layer %d shares another layer's KV cache, which is not modelled for SGLang", i)
		case l.CrossAttention:
			return settingErr("model", a.Source, "layer %d cross-attends to an encoder's output (an encoder-decoder model), which SGLang's KV pool is not modelled for", i)
		case l.HeadDim != 0 || l.KVHeads != 0:
			return settingErr("model", a.Source, "layer %d has its own attention shape; SGLang's pool takes one head_dim and head count for every layer, and such models are not modelled", i)
		}
	}
	if slices.Contains(a.Architectures, "MiniCPM3ForCausalLM") {
		// vLLM decompresses MiniCPM3's latent into a per-head KV; SGLang
		// keeps the latent (configs/model_config.py sets attention_arch MLA
		// for MiniCPM3ForCausalLM, head_dim 128).
		return settingErr("model", a.Source, "SGLang keeps MiniCPM3's KV as an MLA latent (configs/model_config.py, attention_arch MLA for MiniCPM3ForCausalLM), which is not modelled for it; membudget sizes vLLM's per-head cache")
	}
	if a.Indexer != nil {
		return settingErr("model", a.Source, "DeepSeek V3.2's sparse-attention indexer (NSA pool, page size 64) is not modelled for SGLang")
	}
	if a.SlidingLayers() > 0 && !isSGLangSWA(a) {
		return settingErr("model", a.Source, "model_type %s has sliding-window layers; only Gemma 2, Gemma 3 and gpt-oss report their window to SGLang's KV pool (get_attention_sliding_window_size), and for others what the pool keeps is not modelled", a.ModelType)
	}
	return nil
}

// isSGLangSWA reports whether SGLang's model for a reports a sliding window
// (get_attention_sliding_window_size: models/gemma2.py:47-48,
// gemma3_causal.py:51-52, gemma3_mm.py:284, gpt_oss.py:94 at v0.5.6.post2).
func isSGLangSWA(a *model.Arch) bool {
	switch a.ModelType {
	case "gemma2", "gemma3", "gemma3_text", "gpt_oss":
		return true
	}
	return false
}

// shardCites are SGLang's sources for the tensor-parallel checks
// (python/sglang/srt/layers/linear.py at v0.5.6.post2).
var shardCites = engine.ShardCites{
	Heads:   " (SGLang's QKVParallelLinear, layers/linear.py:826)",
	KVHeads: " (layers/linear.py:829-831)",
	MLP:     " (layers/linear.py:499)",
}

func (r *Resolved) resolveParallel(a *model.Arch, def func(string, string)) error {
	const why = "SGLang's default 1"
	// cmp.Or returns the first refusal.
	if err := cmp.Or(
		engine.ResolveDegree("tp-size", &r.TPSize, maxParallel, def, why),
		engine.ResolveDegree("pp-size", &r.PPSize, maxParallel, def, why),
		engine.ResolveDegree("dp-size", &r.DPSize, maxParallel, def, why),
	); err != nil {
		return err
	}
	if r.EnableDPAttention {
		return settingErr("enable-dp-attention", "", "not modelled: DP attention shards the attention weights over tp/dp ranks and sizes the KV cell by them, which membudget's weights do not express")
	}
	tp, pp := r.TPSize, r.PPSize
	// layers/linear.py: QKVParallelLinear divides the heads among the ranks
	// (:826), and divides the KV heads or replicates them (:829-831);
	// MergedColumnParallelLinear divides every output (:499). The same at
	// v0.4.9.post2 (:866-871, :552).
	if err := engine.CheckHeads(a, tp, "tp-size", shardCites); err != nil {
		return err
	}
	if err := engine.CheckShards(a, tp, "tp-size", false, shardCites); err != nil {
		return err
	}
	if pp > uint64(len(a.Layers)) {
		return settingErr("pp-size", pp, "more stages than the %d layers of %s", len(a.Layers), a.Source)
	}
	if pp > 1 && a.MLA && r.Profile.MLANoPP {
		return settingErr("pp-size", pp, "%s asserts pp_size == 1 for MLA models (model_runner.py:943-945)", r.Profile.Describes)
	}
	r.HybridSWA = r.Profile.HybridSWA && a.SlidingLayers() > 0 && isSGLangSWA(a)
	if pp > 1 && r.HybridSWA {
		return settingErr("pp-size", pp, "not modelled: %s's sliding-window pool reads every decoder layer's window (model_runner.py:1552-1577), which a pipeline stage does not hold", r.Profile.Describes)
	}
	r.Stages = pipelineStages(len(a.Layers), int(pp), r.Profile.PPSplit)
	return nil
}

// pipelineStages splits n layers among pp stages as the profile's
// get_pp_indices does (python/sglang/srt/distributed/utils.py:63-97 at
// v0.5.6.post2, :63-93 at v0.4.9.post2).
func pipelineStages(n, pp int, split PPSplit) []model.Sharding {
	parts := make([]int, pp)
	for i := range parts {
		parts[i] = n / pp
	}
	switch split {
	case PPLastOneExtra:
		for i := pp - n%pp; i < pp; i++ {
			parts[i]++
		}
	default:
		parts[pp-1] += n % pp
	}
	return model.Stages(parts)
}

func (r *Resolved) resolveDtypes(a *model.Arch, def func(string, string)) error {
	switch strings.ToLower(r.Dtype) {
	case "", "auto":
		// configs/model_config.py:863-903 _get_and_verify_dtype (the same at
		// v0.4.9.post2): the config's dtype; float32 checkpoints are served
		// in float16, Gemma's in bfloat16.
		r.Dtype = a.Dtype
		if a.Dtype == "float32" {
			r.Dtype = "float16"
			if strings.HasPrefix(a.ModelType, "gemma") {
				r.Dtype = "bfloat16"
			}
		}
		def("dtype", "auto: the checkpoint's dtype; float32 served in float16 (bfloat16 for Gemma)")
	case "bfloat16", "float16", "float32":
		r.Dtype = strings.ToLower(r.Dtype)
	case "half":
		r.Dtype = "float16"
	case "float":
		r.Dtype = "float32"
	default:
		return settingErr("dtype", fmt.Sprintf("%q", r.Dtype), "want auto, half, float16, bfloat16, float or float32")
	}
	r.DtypeBytes, _ = model.DtypeBytes(r.Dtype)
	switch r.KVCacheDtype {
	case "", "auto":
		// The model dtype, unless the checkpoint's ModelOpt quant_config
		// has kv_cache_quant_algo FP8 (model_runner.py:1627-1639).
		r.KVCacheDtype = "auto"
		r.KVDtypeBytes = r.DtypeBytes
		if r.Profile.CheckpointFP8KV && a.Quant.Method == "modelopt" && a.Quant.KVCacheDtype == "fp8_e4m3" {
			r.KVDtypeBytes = 1
			def("kv-cache-dtype", "auto: fp8_e4m3, the checkpoint's kv_cache_quant_algo FP8 (model_runner.py:1627-1639)")
		}
	case "fp8_e4m3", "fp8_e5m2":
		r.KVDtypeBytes = 1 // stored as uint8 (mem_cache/memory_pool.py:443-447)
	case "bf16", "bfloat16":
		if !r.Profile.BF16KVFlag {
			return settingErr("kv-cache-dtype", r.KVCacheDtype, "%s takes auto, fp8_e5m2 or fp8_e4m3 (server_args.py:686-691)", r.Profile.Describes)
		}
		r.KVDtypeBytes = 2
	case "fp4_e2m1":
		return settingErr("kv-cache-dtype", r.KVCacheDtype, "not modelled: the fp4 KV cell (half a byte per value and an fp8 scale per 16, model_runner.py:1421-1436)")
	default:
		return settingErr("kv-cache-dtype", fmt.Sprintf("%q", r.KVCacheDtype), "want auto, fp8_e4m3, fp8_e5m2, bf16 or bfloat16")
	}
	q, err := resolveQuant(a, r.Quantization)
	if err != nil {
		return err
	}
	r.Quant = q
	return r.checkUnreadQuant(a)
}

// checkUnreadQuant refuses, by name, a checkpoint whose quantization the
// profile's release processes in ways membudget has not read (see
// [Profile.UnreadQuant] and [Profile.FP8IgnoreUnstripped]).
func (r *Resolved) checkUnreadQuant(a *model.Arch) error {
	p := r.Profile
	if r.Quant.Method == "inc" {
		// model/quant_inc.go reads vLLM's INC method; SGLang's own
		// loading of an auto-round checkpoint is not read.
		return settingErr("model", a.Source, "an AutoRound (quant_method auto-round) checkpoint: membudget models how vLLM's INC method loads it, not how %s does; membudget refuses it rather than size weights SGLang may lay out otherwise", p.Describes)
	}
	if slices.Contains(p.UnreadQuant, r.Quant.Method) {
		return settingErr("model", a.Source, "%s: %s; membudget refuses it rather than size weights its SGLang lays out otherwise", p.Describes, unreadQuantWhy[r.Quant.Method])
	}
	if p.FP8IgnoreUnstripped && r.Quant.Method == "fp8" && slices.ContainsFunc(r.Quant.NotConvert, func(m string) bool { return fp8IgnoreMayDiffer(a, m) }) {
		return settingErr("model", a.Source, "%s keeps the \"model.\" prefix of fp8's ignored_layers (PR #18926; layers/quantization/fp8.py:170-178) and matches them as substrings of its own layer prefixes (quantization/utils.py:46-91): which of this checkpoint's layers stay unquantized is not read", p.Describes)
	}
	if p.FP8IgnoreMoE && r.Quant.Method == "fp8" {
		prefixes := fp8MoEPrefixes(a)
		if i := slices.IndexFunc(r.Quant.NotConvert, func(m string) bool { return fp8IgnoreSkipsMoE(prefixes, m) }); i >= 0 {
			return settingErr("model", a.Source, "%s leaves a fused MoE layer unquantized when an fp8 ignored_layers entry matches its experts' prefix (PR #18742; layers/quantization/fp8.py:230-236, quantization/utils.py is_layer_skipped), and %q does: an fp8 checkpoint's bfloat16 experts are not modelled", p.Describes, r.Quant.NotConvert[i])
		}
	}
	return nil
}

// fp8IgnoreSkipsMoE reports whether v0.5.10's Fp8Config skips a fused MoE
// layer of prefixes (see [fp8MoEPrefixes]) for ignored_layers entry m: the
// entry is kept both with and without "model." (fp8.py:195-201), and
// is_layer_skipped takes a prefix holding "experts" as skipped when an
// entry is a substring of it or, for an entry naming experts, it a
// substring of the entry (quantization/utils.py at v0.5.10).
func fp8IgnoreSkipsMoE(prefixes []string, m string) bool {
	base := strings.TrimPrefix(m, "model.")
	named, full := strings.Contains(m, "experts"), "model."+base
	return slices.ContainsFunc(prefixes, func(prefix string) bool {
		return strings.Contains(prefix, base) || named && strings.Contains(full, prefix)
	})
}

// fp8MoEPrefixes returns the prefixes a's fused MoE layers may have in
// SGLang's models: model.layers.<i>.mlp.experts (Qwen's, DeepSeek's,
// GLM's) and model.layers.<i>.block_sparse_moe.experts (Mixtral's). They
// are made once per serve, not once per ignored_layers entry: an fp8
// checkpoint's list runs to hundreds (Qwen3-30B-A3B-FP8's 145).
func fp8MoEPrefixes(a *model.Arch) []string {
	var out []string
	for i, l := range a.Layers {
		if l.MoE {
			out = append(out, fmt.Sprintf("model.layers.%d.mlp.experts", i), fmt.Sprintf("model.layers.%d.block_sparse_moe.experts", i))
		}
	}
	return out
}

// fp8IgnoreMayDiffer reports whether ignored_layers entry m may leave
// other layers of a's SGLang model unquantized kept with its "model."
// prefix than stripped of it, as v0.5.8 did (is_layer_skipped,
// quantization/utils.py:46-91 at v0.5.9). A text model's linear layers
// are prefixed "model.layers.<i>." and the rest, or lm_head (its
// *ForCausalLM adds "model" in front of its decoder's, models/llama.py,
// qwen2.py, qwen3.py, qwen3_moe.py, deepseek_v2.py), where "layers."
// occurs once: an entry "model.layers.<rest>" with no other "model." is a
// substring of such a prefix exactly where "layers.<rest>" is. Not so an
// entry of a multimodal model (its towers and language model are
// prefixed otherwise), one naming experts (matched the other way round,
// the prefix inside the entry, :86-91) or a projection (gate_proj and
// up_proj are also looked up whole, :81-85), nor any other.
func fp8IgnoreMayDiffer(a *model.Arch, m string) bool {
	if !strings.Contains(m, "model.") {
		return false // nothing to strip
	}
	return a.Vision != nil || a.Audio != nil || !strings.HasPrefix(m, "model.layers.") || strings.Count(m, "model.") > 1 ||
		strings.Contains(m, "experts") || strings.Contains(m, "_proj")
}

// QuantizationMethods maps the --quantization names SGLang takes whose
// layout membudget models (server_args.py QUANTIZATION_CHOICES, read at
// SGLang main 001067f) to the layout family of [model.QuantMethods]; SGLang
// refuses a method other than the checkpoint's, so a name maps to the
// checkpoint method it names.
var QuantizationMethods = map[string]string{
	"fp8": "fp8", "awq": "awq", "awq_marlin": "awq", "gptq": "gptq", "gptq_marlin": "gptq",
	"bitsandbytes": "bitsandbytes", "compressed-tensors": "compressed-tensors",
	"modelopt": "modelopt", "modelopt_fp8": "modelopt", "modelopt_fp4": "modelopt", "modelopt_mixed": "modelopt",
	"mxfp4": "mxfp4",
}

// quantizations is SGLang's --quantization: its names in any case, a
// method other than the checkpoint's refused, and fp8 applied online to an
// unquantized checkpoint with one scale per tensor (configs/model_config.py:
// 652-747 at v0.5.6.post2, _verify_quantization).
var quantizations = engine.Quantizations{
	Methods:  QuantizationMethods,
	Fold:     true,
	Unknown:  "not modelled; the modelled methods are",
	Mismatch: ": SGLang refuses a different method (configs/model_config.py:728-737)",
	Online: func(method string) (model.Quant, bool) {
		q, err := model.Online(method)
		return q, err == nil
	},
}

// resolveQuant applies --quantization to the checkpoint's own quantization
// (see [engine.Quantizations.Resolve]).
func resolveQuant(a *model.Arch, flag string) (model.Quant, error) {
	return quantizations.Resolve(a, flag)
}

func (r *Resolved) resolveContext(a *model.Arch, def func(string, string)) error {
	r.DerivedContextLen = DerivedContextLength(a)
	allow := r.Profile.AllowLongContextByDefault
	switch r.AllowLongContext {
	case engine.On:
		allow = true
	case engine.Off:
		allow = false
	}
	switch {
	case r.ContextLength == 0:
		r.ContextLength = r.DerivedContextLen
		def("context-length", "derived from the model's config as SGLang's get_context_length does")
	case r.ContextLength > r.DerivedContextLen && !allow:
		// configs/model_config.py:288-313 _derive_context_length.
		return settingErr("context-length", r.ContextLength, "above the context length %d derived from %s: %s refuses it unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 (configs/model_config.py:292-313)", r.DerivedContextLen, a.Source, r.Profile.Describes)
	}
	if r.ContextLength > maxTokens {
		return settingErr("context-length", r.ContextLength, "beyond any serve (at most %d)", maxTokens)
	}
	return nil
}

func (r *Resolved) resolveBatch(def func(string, string)) error {
	p := r.Profile
	if r.MaxPrefillTokens == 0 {
		r.MaxPrefillTokens = defaultPrefil
		def("max-prefill-tokens", "SGLang's default 16384")
	}
	switch {
	case r.ChunkedPrefillSize == 0:
		r.ChunkedPrefillSize = defaultChunkedPrefill(p, r.GPUMemMiB)
		def("chunked-prefill-size", fmt.Sprintf("SGLang's default for %.0f MiB of device memory", r.GPUMemMiB))
	case r.ChunkedPrefillSize < 0:
		r.ChunkedPrefillSize = -1
	case r.ChunkedPrefillSize > maxTokens:
		return settingErr("chunked-prefill-size", r.ChunkedPrefillSize, "beyond any serve (at most %d)", maxTokens)
	}
	if r.CudaGraphMaxBS == 0 {
		r.CudaGraphMaxBS = defaultCudaGraphMaxBS(p, r.GPUMemMiB, r.TPSize)
		if r.CudaGraphMaxBS > 0 {
			def("cuda-graph-max-bs", fmt.Sprintf("SGLang's default for %.0f MiB of device memory at TP%d", r.GPUMemMiB, r.TPSize))
		}
	}
	for _, f := range []struct {
		flag  string
		v     uint64
		limit uint64
	}{{"max-prefill-tokens", r.MaxPrefillTokens, maxTokens}, {"cuda-graph-max-bs", r.CudaGraphMaxBS, maxBatchSize},
		{"max-running-requests", r.MaxRunningRequests, maxRequests}, {"max-total-tokens", r.MaxTotalTokens, maxTokens}} {
		if f.v > f.limit {
			return settingErr(f.flag, f.v, "beyond any serve (at most %d)", f.limit)
		}
	}
	r.ActivationTokens = uint64(max(r.ChunkedPrefillSize, 0))
	if r.ChunkedPrefillSize <= 0 {
		r.ActivationTokens = max(r.MaxPrefillTokens, r.ContextLength)
	}
	return nil
}

// resolveBackend picks the attention backend as the profile's SGLang does
// when none is given, for what it decides of memory: the page size, and
// whether CUDA graphs are captured (v0.5.6.post2 server_args.py:1350-1529;
// v0.4.9.post2 model_runner.py:354-403 picks fa3, flashinfer, aiter or
// triton, all of page size 1).
func (r *Resolved) resolveBackend(a *model.Arch, c budget.Class, def func(string, string)) error {
	si := c.Device.Silicon
	nv := si.Vendor == budget.NVIDIA
	p := r.Profile
	if r.AttentionBackend == "" && p.TRTLLMOnBlackwell {
		switch {
		case a.MLA && nv && si.Major == 10 && slices.Contains(a.Architectures, "DeepseekV3ForCausalLM"):
			r.AttentionBackend = "trtllm_mla" // server_args.py:1069-1078
		case a.MLA && si.Vendor == budget.AMD && (max(1, a.KVHeads/r.TPSize) == 16 || max(1, a.KVHeads/r.TPSize) == 128):
			// aiter takes 16 or 128 KV heads per rank (server_args.py:
			// 1396-1401); else triton.
			r.AttentionBackend = "aiter"
		case a.MLA:
			// fa3 on Hopper, flashinfer on SM100, triton elsewhere: page
			// size 1 (server_args.py:1390-1403).
		case nv && (si.Major == 10 || si.Major == 12 && !p.TRTLLMSM100Only):
			// Hopper takes fa3 or flashinfer (page size 1); is_blackwell() is
			// SM10x and SM12x (utils/common.py:221-224), and takes trtllm_mha
			// (server_args.py:1382-1383); from v0.5.7 is_sm100_supported(),
			// SM10x alone, does, and SM12x takes flashinfer (PR #14842).
			r.AttentionBackend = "trtllm_mha"
		case si.Vendor == budget.AMD:
			r.AttentionBackend = "aiter"
		}
		if r.AttentionBackend != "" {
			def("attention-backend", "SGLang's default for "+c.Device.Name)
		}
	} else if r.AttentionBackend == "" && si.Vendor == budget.AMD && !a.MLA {
		r.AttentionBackend = "aiter" // v0.4.9.post2 model_runner.py:378
		def("attention-backend", "SGLang's default for "+c.Device.Name)
	}
	known := []string{"fa3", "flashinfer", "triton", "flashmla", "cutlass_mla", "aiter", "torch_native"}
	if p.TRTLLMOnBlackwell {
		known = append(known, "trtllm_mha", "trtllm_mla")
	}
	if r.AttentionBackend != "" && !slices.Contains(known, r.AttentionBackend) {
		return settingErr("attention-backend", r.AttentionBackend, "not modelled for %s; the modelled backends are %s", p.Describes, strings.Join(known, ", "))
	}
	if r.PageSize == 0 {
		r.PageSize = 1
		def("page-size", "SGLang's default 1")
	}
	if r.PageSize > maxPageSize {
		return settingErr("page-size", r.PageSize, "at most %d", maxPageSize)
	}
	switch r.AttentionBackend {
	case "flashmla":
		r.PageSize = 64 // server_args.py:1427-1434 (v0.4.9.post2 :360-364)
		def("page-size", "64: FlashMLA's only page size")
	case "cutlass_mla":
		r.PageSize = 128 // server_args.py:1436-1443 (v0.4.9.post2 :366-370)
		def("page-size", "128: CUTLASS MLA's only page size")
	case "trtllm_mla":
		if !blackwellSupported(p, si) {
			return settingErr("attention-backend", r.AttentionBackend, "SGLang refuses it on %s: TensorRT-LLM MLA needs Blackwell (server_args.py:1449-1452)", c.Device.Name)
		}
		if r.PageSize != 32 && r.PageSize != 64 {
			r.PageSize = 64 // server_args.py:1454-1458
			def("page-size", "64: TensorRT-LLM MLA takes 32 or 64")
		}
		switch {
		case p.TRTLLMMLABF16 && r.KVCacheDtype == "bf16":
		case r.KVCacheDtype != "auto" && r.KVCacheDtype != "fp8_e4m3":
			takes := "fp8_e4m3 or auto (server_args.py:1460-1463)"
			if p.TRTLLMMLABF16 {
				takes = "fp8_e4m3, bf16 or auto (v0.5.7 server_args.py:1619)"
			}
			return settingErr("kv-cache-dtype", r.KVCacheDtype, "SGLang refuses it with the TensorRT-LLM MLA backend, which takes %s", takes)
		}
	case "trtllm_mha":
		if !(nv && si.Major == 10) {
			if p.TRTLLMSM100Only {
				return settingErr("attention-backend", r.AttentionBackend, "%s refuses it on %s (compute capability %s): TensorRT-LLM MHA needs SM100 (v0.5.7 server_args.py:1629-1633): pass --attention-backend flashinfer or triton", p.Describes, c.Device.Name, si)
			}
			return settingErr("attention-backend", r.AttentionBackend, "%s refuses it on %s (compute capability %s): TensorRT-LLM MHA needs SM100 (server_args.py:1470-1473); it is the default on every Blackwell in this release (server_args.py:1382-1383, sgl-project/sglang#14814, fixed after it by PR #14842, v0.5.7): pass --attention-backend flashinfer or triton", p.Describes, c.Device.Name, si)
		}
		if r.PageSize == 128 && p.TRTLLMMHAPage128 {
			return settingErr("page-size", r.PageSize, "%s keeps 128 with the TensorRT-LLM MHA backend (sgl-project/sglang PR #30971; arg_groups/overrides.py:2081-2094) on trtllm-gen's "+
				"dynamic tokens-per-page kernels, which need GQA and equal QK and V head dims, checked as the backend starts (not read), where earlier releases set 64: "+
				"not modelled; pass --page-size 64", p.Describes)
		}
		if r.PageSize != 16 && r.PageSize != 32 && r.PageSize != 64 {
			r.PageSize = 64 // server_args.py:1475-1479
			def("page-size", "64: TensorRT-LLM MHA takes 16, 32 or 64")
		}
	case "torch_native":
		if !r.DisableCudaGraph {
			// Derived, not given: from v0.5.14 that is after the default
			// fraction, where a given one is before it (see
			// [Profile.GraphPhases]).
			r.DisableCudaGraph = true // server_args.py:1410-1414
			def("disable-cuda-graph", "the torch_native backend disables CUDA graphs")
		}
	}
	if p.GptOssSplitAlways && a.ModelType == "gpt_oss" {
		return settingErr("model", a.Source, "%s gives gpt-oss a paged sliding-window pool under every attention backend, trtllm_mha's gate removed (sgl-project/sglang PR #19079; configs/model_config.py:360-372, 1438-1448), which is not modelled", p.Describes)
	}
	if p.GptOssSplit && a.ModelType == "gpt_oss" && r.AttentionBackend != "trtllm_mha" {
		return settingErr("model", a.Source, "%s gives gpt-oss a paged sliding-window pool unless its attention is trtllm_mha (sgl-project/sglang PRs #17261, #17429; configs/model_config.py:1220-1229, server_args.py:1278-1287), which is not modelled; on SM100 its default trtllm_mha keeps one pool", p.Describes)
	}
	if r.HybridSWA && r.PageSize != 1 {
		// SWAKVPool allocates both of its pools with page size 1
		// (mem_cache/memory_pool.py:1181-1183), whatever the server's.
		def("page-size", fmt.Sprintf("%d for the token count; the sliding-window pools use 1 (mem_cache/memory_pool.py:1181-1183)", r.PageSize))
	}
	if r.ChunkedPrefillSize > 0 && uint64(r.ChunkedPrefillSize)%r.PageSize != 0 {
		// server_args.py:4129-4132 (v0.4.9.post2 :344).
		return settingErr("chunked-prefill-size", r.ChunkedPrefillSize, "SGLang asserts it is divisible by --page-size %d", r.PageSize)
	}
	return nil
}

// resolveFraction applies the default --mem-fraction-static, and the
// adjustments SGLang makes after it.
func (r *Resolved) resolveFraction(a *model.Arch, def func(string, string)) error {
	p := r.Profile
	switch m := r.MemFractionStatic; {
	case m == 0:
		r.MemFractionStatic, r.ReservedMiB = DefaultMemFractionStatic(p, MSFInputs{
			GPUMemMiB: r.GPUMemMiB, TPSize: r.TPSize, PPSize: r.PPSize,
			ChunkedPrefillSize: r.ChunkedPrefillSize, MaxPrefillTokens: r.MaxPrefillTokens, CudaGraphMaxBS: r.CudaGraphMaxBS,
			Speculative: r.Draft != nil, PiecewiseMiB: piecewiseReserveMiB(r, a),
			// Given, not derived: the torch_native backend's turns them
			// off after the default (see [Resolved.resolvePiecewise]).
			DecodeGraphsOff: r.DisableCudaGraph && r.Sources["disable-cuda-graph"] == "",
		})
		why := fmt.Sprintf("SGLang's default: %.0f MiB reserved of %.0f MiB (server_args.py, %s)", r.ReservedMiB, r.GPUMemMiB, p.Describes)
		if f := vlmFactor(a, p); f != 1 {
			r.MemFractionStatic *= f
			why += fmt.Sprintf(", x%.4g for the vision tower", f)
		}
		def("mem-fraction-static", why)
		if r.MemFractionStatic <= 0 {
			// SGLang takes its default as it comes (server_args.py, no check)
			// and cannot size a pool from it: a serve of this device needs
			// a fraction given.
			return settingErr("mem-fraction-static", r.MemFractionStatic, "SGLang's default here: it reserves %.0f MiB of %.0f MiB of device memory, which leaves no static pool; give a --mem-fraction-static", r.ReservedMiB, r.GPUMemMiB)
		}
	case math.IsNaN(m) || m <= 0 || m >= 1:
		return settingErr("mem-fraction-static", m, "must be in (0, 1): it is the share of free memory the weights and the KV pool take")
	}
	r.FractionAsGiven = r.MemFractionStatic
	if p.AiterMSF && r.AttentionBackend == "aiter" && r.ContextLength > AiterMinContext {
		// server_args.py:1499-1501, applied to a given value too.
		r.MemFractionStatic *= AiterFactor
		why := "x0.85: the aiter backend above 8192 tokens of context (server_args.py:1499-1501)"
		if prev, ok := r.Sources["mem-fraction-static"]; ok {
			why = prev + "; " + why
		}
		def("mem-fraction-static", why)
	}
	return nil
}

// AiterFactor is what v0.5.6.post2 multiplies --mem-fraction-static by on
// the aiter attention backend above AiterMinContext tokens of context, a
// given value too (server_args.py:1499-1501).
const (
	AiterFactor     = 0.85
	AiterMinContext = 8192
)

// vlmFactor is the default msf's adjustment for a multimodal model: SGLang
// disables multimodal for Gemma 3 unless --enable-multimodal
// (configs/model_config.py:137-150), so only other models with a vision
// tower are adjusted: by 0.90 (v0.4.9.post2, server_args.py:328-331) or by
// 0.95 x clamp(1 - 0.1 x (layers x hidden^2 / (24 x 1024^2) - 1), 0.8, 1.05)
// (v0.5.6.post2, server_args.py:4402-4438). The layers and hidden size
// are the vision config object's num_hidden_layers and hidden_size, read
// with getattr's defaults 24 and 1024, not the tower vLLM or SGLang builds:
// Qwen's vision configs have no num_hidden_layers (24 stands in), and
// Qwen2-VL's hidden_size is the language model's 3584.
func vlmFactor(a *model.Arch, p Profile) float64 {
	if a.Vision == nil || slices.Contains(a.Architectures, "Gemma3ForConditionalGeneration") || strings.HasPrefix(a.ModelType, "gemma3") {
		return 1
	}
	if p.VLMFlat {
		return 0.90
	}
	layers, hidden := cmp.Or(a.Vision.ConfigLayers, 24), cmp.Or(a.Vision.ConfigHidden, 1024)
	ratio := float64(layers) * float64(hidden) * float64(hidden) / (24 * 1024 * 1024)
	return 0.95 * max(0.8, min(1.05, 1-0.1*(ratio-1)))
}

// DistInitBytes is membudget's estimate of what distributed init (NCCL
// communicators, custom all-reduce and symmetric-memory buffers) holds on
// each GPU of a world of tp x pp ranks joined by link before the weights
// load, beyond the CUDA context the class's driver_fixed_bytes holds.
// SGLang measures the fraction's base after it (model_runner.py:697-702),
// so it is not in F0; no class holds it, so it is this package's estimate,
// from the logs that measure it:
//
//   - 1 rank: nothing (no communicator is built).
//   - NVLink (NVSwitch boards, where NCCL sets up NVLink SHARP buffers;
//     NCCL_NVLS_ENABLE is on by default where the switch supports it,
//     NCCL's environment documentation), and every link no log measures
//     (XGMI, none): at 2 to 4 ranks 1.6 GiB, fitted
//     to corpus/observed/vllm.csv row 4 (SGLang, Qwen3-235B-A22B-FP8 on 4x
//     H100, 367,404 tokens at msf 0.93, which puts 2.16 GiB before the
//     weights against the class's 0.56 GiB context); vLLM's own H100 logs
//     show the NCCL setup alike at TP2 and TP4 (rows 125, 126). At more
//     ranks 2.01 GiB, the largest "Init torch distributed ends. mem usage"
//     of an 8x H200 SGLang log (sgl-project/sglang PR #11716).
//   - PCIe with peer access: 0.39 GiB (SGLang's "GB" is 2^30 bytes), the
//     "Init torch distributed ends" mem usage of 4x RTX PRO 6000 at TP 4
//     (sgl-project/sglang#40558), where no custom all-reduce is built (more
//     than two GPUs without NVLink, custom_all_reduce.py:83-89 at
//     v0.5.6.post2); [distInitFor] adds v0.5.11's buffers at TP 2.
//   - PCIe without peer access (GeForce cards on the stock driver): 0.21
//     GiB, row 321 (SGLang v0.5.13.post1, Qwen3-32B on 4x RTX 5090 at TP
//     4, 187,069 tokens of 65,536 B at msf 0.88 over 15.50 GiB of weights a
//     rank: F0 = (11.418 + 15.50) / 0.88 = 30.59 GiB of the card's 31.36,
//     0.56 of it the class's context). Row 320 (v0.5.5.post2, Qwen3-14B on
//     4x RTX 4090 at TP 4) logs the memory free before the weights, 23.08
//     GiB of 23.55: 0.12 GiB beyond the class's 0.35 context. It is held
//     out; the larger of the two is kept, so that the pool is not sized
//     above what either card leaves.
//
// Every figure is per rank and taken at its world size alone: no log
// measures a PCIe world above 4. No log measures a world across nodes
// either: it takes the figure of its class's link, as on one node (see
// [Resolved.resolveNodes]).
func DistInitBytes(world uint64, link budget.Interconnect) uint64 {
	switch {
	case world <= 1:
		return 0
	case link == budget.PCIeP2P:
		return distInitPCIeP2P
	case link == budget.PCIe:
		return distInitPCIe
	case world <= 4:
		return distInitUpTo4
	}
	return distInitAbove4
}

const (
	distInitUpTo4   = 1638 * mib // 1.6 GiB
	distInitAbove4  = 2058 * mib // 2.01 GiB
	distInitPCIeP2P = 399 * mib  // 0.39 GiB
	distInitPCIe    = 215 * mib  // 0.21 GiB
)

// legacyCustomARBytes is what v0.5.11's CustomAllreduce allocates on each
// GPU on CUDA: its metadata and its buffer as IPC-shared allocations of
// meta_size() + _MAX_CAR_SIZE and _MAX_CAR_SIZE, and its rank data of 8
// MiB, with _MAX_CAR_SIZE = 8192 x 1024 (distributed/device_communicators/
// custom_all_reduce.py:38, 98-116 at v0.5.11); meta_size(), the signal
// block, is not counted.
const legacyCustomARBytes = 3 * 8 * mib

// distInitFor is [DistInitBytes] for the serve, with v0.5.11's custom
// all-reduce buffers where it built them beside a figure measured without
// them: a tensor-parallel group of 2 on one node of an NVIDIA class whose
// GPUs reach each other over PCIe with peer access (v0.5.11's
// CustomAllreduce takes world size 2 without NVLink, and P2P must pass,
// custom_all_reduce_utils.py:412-480; more than two PCIe GPUs, or none
// with peer access, build none), where the release builds the legacy
// class: before v0.5.12 (see [Profile.CustomARv2]), or from it across
// nodes (server_args.py:4248-4255 at v0.5.12 turns v2 off there) where
// the group itself is on one node (--nnodes at most --pp-size: a group
// across nodes builds none, can_use_custom_all_reduce_with_nvlink
// returning None unless every rank is on one node,
// custom_all_reduce_utils.py:430 at v0.5.11), v2 building nothing without
// NVLink. Before v0.5.12 a group across nodes keeps the buffers, high by
// them as [Resolved.resolveNodes] says, so that the node count changes
// nothing else a GPU holds.
// Over NVLink v2 builds one allocation of 8 MiB of graph parameters, a 16
// MiB pull buffer and 2 x TP x its push size (jit_kernel/include/
// sgl_kernel/distributed/custom_all_reduce.cuh:80-104, 175-200, 250-300:
// 26 to 32 MiB on an H200), within a few MiB of v0.5.11's 24 MiB and the
// NVLink estimate's noise, which holds them both.
//
// From v0.5.16 (see [Profile.CustomARv2Symm]) v2's workspace on one node
// over NVLink is [customARv2SymmBytes], charged beyond the 24 MiB of
// v0.5.11's buffers the estimate holds.
func distInitFor(p Profile, c budget.Class, tp, pp, nnodes uint64) uint64 {
	est := DistInitBytes(tp*pp, c.Device.Interconnect)
	legacy := !p.CustomARv2 || nnodes > 1 && nnodes <= pp
	if legacy && c.Device.Silicon.Vendor == budget.NVIDIA && tp == 2 && c.Device.Interconnect == budget.PCIeP2P {
		return budget.SatAdd(est, legacyCustomARBytes)
	}
	if p.CustomARv2Symm && nnodes == 1 && c.Device.Silicon.Vendor == budget.NVIDIA && c.Device.Interconnect == budget.NVLink {
		return budget.SatAdd(est, budget.SatSub(customARv2SymmBytes(c.Device.Silicon.Major, tp), legacyCustomARBytes))
	}
	return est
}

// customARv2SymmBytes is what v0.5.16's custom all-reduce v2 holds on each
// rank of a TP group of tp GPUs joined by NVLink on one node (built for 2
// to 8, custom_all_reduce_v2.py:410-420; across nodes server_args.py:
// 6655-6662 turns v2 off), on NVIDIA compute capability major:
//   - one symmetric-memory allocation (custom_all_reduce_v2.py:161-186) of
//     2 x tp push buffers, a pull buffer and 128 bytes of semaphore a pull
//     block. Each buffer is the size the arch's table wants
//     (configs/custom_all_reduce_v2.py: for SM90 and SM100 the largest
//     one-shot push threshold of graph and eager dispatch, and two-shot
//     pull thresholds of 16 MB and up; elsewhere 1 MB and 16 MB), capped
//     at SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB = 16 MiB (environ.py:750;
//     custom_all_reduce_v2.py:120-128): the pull buffer is 16 MiB at every
//     size and arch. PyTorch's CUDASymmetricMemoryAllocator::alloc rounds
//     the block (the size, then its signal pad, 9 KiB at most) up to the
//     driver's recommended granularity, 2 MiB on these GPUs; the push sizes
//     are multiples of 128 KiB, so the semaphores (128 B a pull block, one
//     block an SM at most: under 32 KiB) and the pad always take the next
//     2 MiB step.
//   - the graph pointer table, 131072 rows of tp uint64 (:139-146): tp
//     MiB, which the caching allocator rounds up to 2 MiB.
//
// At TP 2 on an H100 that is 2 x 2 x 16 + 16 = 80 MiB, 82 with the step,
// and 2 MiB of table: 84 MiB, 60 above the estimate's 24.
func customARv2SymmBytes(major int, tp uint64) uint64 {
	if tp < 2 || tp > 8 {
		return 0
	}
	push := customARv2PushKiB(major, tp) * 1024
	push = min(push, customARv2CapBytes)
	body := 2*tp*push + customARv2CapBytes
	block := (body/(2*mib) + 1) * 2 * mib
	table := budget.RoundUp(tp*mib, 2*mib)
	return block + table
}

// customARv2CapBytes is SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB's default,
// 16 x 1024 KiB (v0.5.16 environ.py:750), which caps both buffers.
const customARv2CapBytes = 16 * mib

// customARv2PushKiB is the push buffer v0.5.16's table wants, in KiB: the
// larger of the graph and eager one-shot push thresholds for the world
// size (configs/custom_all_reduce_v2.py: _sm90_config :145-172 for
// compute capability 9, _sm100_config :115-143 for 10), 1 MB elsewhere
// (get_all_reduce_config's default, :174-194).
func customARv2PushKiB(major int, tp uint64) uint64 {
	switch major {
	case 9:
		// graph 16 MB, 1.25 MB, 384 KB, 192 KB, 128 KB x 3; eager 32 MB,
		// 3 MB, 896 KB, 384 KB, 192 KB, 128 KB, 128 KB.
		return [...]uint64{2: 32768, 3: 3072, 4: 896, 5: 384, 6: 192, 7: 128, 8: 128}[tp]
	case 10:
		// graph 8, 4, 2.25, 1.5, 1, 0.625, 0.5 MB; eager 16, 8, 3, 2,
		// 1.25, 1, 0.75 MB.
		return [...]uint64{2: 16384, 3: 8192, 4: 3072, 5: 2048, 6: 1280, 7: 1024, 8: 768}[tp]
	}
	return 1024
}
