package vllm

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/internal/shell"
	"membudget/model"
	"membudget/model/explain"
	"membudget/model/logs"
)

// This file sizes --speculative-config (-sc) for the proposers that hold
// nothing on the GPU: ngram and suffix. Their serve runs the V1 model
// runner, verifies k+1 tokens a request with the rejection sampler,
// captures its CUDA graphs at multiples of k+1, and keeps async
// scheduling off. EAGLE-3 and EAGLE drafts (eagle3, eagle) are sized in
// specdraft.go and specdraft_eagle.go, whole draft models (draft_model)
// in specdraftmodel.go, DeepSeek-V3's MTP layers in specmtp.go, Medusa
// heads in specmedusa.go; the other proposers with weights
// (mlp_speculator, ...) stay refused by name with the memory each would add. Every rule is vLLM
// main's at commit d18bb7b (2026-08-14).

// Speculative is a resolved --speculative-config: the JSON object as
// given and what membudget reads of it. Its zero value is a serve without
// speculative decoding.
type Speculative struct {
	// Method is vLLM's method after its inference and aliases
	// (vllm/config/speculative.py:741-801): "ngram" or "suffix" for the
	// methods membudget sizes.
	Method string
	// Tokens is num_speculative_tokens, k: the draft tokens a request
	// proposes each step (suffix: at most; its default is
	// suffix_decoding_max_tree_depth, speculative.py:1148-1151).
	Tokens uint64
	// LookupMin and LookupMax are ngram's prompt_lookup_min and _max
	// (defaults 5 and 5, speculative.py:803-829); 0 for suffix.
	LookupMin, LookupMax uint64
	// HostBytes is what the proposer holds in host memory on each worker
	// of the last pipeline stage at startup (see [specHostBytes]).
	HostBytes uint64
	// Draft is an eagle3, eagle or draft_model serve's draft (specdraft.go), nil for the
	// proposers without one.
	Draft *Draft
	// MTPLayers is the model's own MTP layers an mtp serve loads as the
	// draft (specmtp.go), 0 for any other method.
	MTPLayers uint64
	// Medusa is a medusa serve's heads (specmedusa.go), nil for any other
	// method.
	Medusa *Medusa
}

// specSince is the first release whose speculative decoding membudget
// sizes: the graph sizes rounded to multiples of k+1 (PR #28315,
// 2025-11-17), the largest capture scaled by k+1 (PR #30330, 2025-12-10),
// the dummy rejection sampler's 2 x max_num_seqs rows of logits (PR
// #26060, 2025-10-22) and async scheduling turned off for the proposers
// without a drafter (PR #27614, 2025-12-29): 0.14.0 is the first release
// surely after all four.
var specSince = v0_14_0

// specV1Since is the first release whose V2 model runner is a default
// (PR #39337, 2026-05-14): from it, vLLM runs an ngram or suffix serve on
// the V1 runner ("Model Runner V2 does not yet support ... speculative
// decoding; using the V1 model runner instead", vllm/config/vllm.py:
// 646-655, 2397-2408).
var specV1Since = v0_22_0

// specMethods are the methods membudget sizes.
var specMethods = []string{"ngram", "suffix", "eagle3", "eagle", "mtp", "draft_model", "medusa"}

// mtpAliases are the method names vLLM maps to "mtp" with a deprecation
// warning (MTPModelTypes, vllm/config/speculative.py:37-62, 752-756).
var mtpAliases = []string{"deepseek_mtp", "dots3_note_mtp", "mimo_mtp", "mimo_v2_mtp", "glm4_moe_mtp", "glm4_moe_lite_mtp",
	"glm_ocr_mtp", "ernie_mtp", "nemotron_h_mtp", "exaone_moe_mtp", "exaone4_5_mtp", "qwen3_next_mtp", "qwen3_5_mtp",
	"longcat_flash_mtp", "bailing_hybrid_v3_mtp", "minimax_m3_mtp", "bailing_hybrid_mtp", "kimi_k3_mtp",
	"pangu_ultra_moe_mtp", "step3p5_mtp", "hy_v3_mtp", "gemma4_mtp", "inkling_mtp"}

// specUnsized says, for each method vLLM takes that membudget does not
// size, what memory it would add (SpeculativeMethod, vllm/config/
// speculative.py:69-78; the proposers of vllm/v1/spec_decode/).
var specUnsized = map[string]string{
	"mlp_speculator":        "the MLP speculator's weights",
	"ngram_gpu":             "the GPU n-gram proposer's device buffers, and a cold torch.compile on every start (vLLM turns its compile cache off for it, vllm/compilation/backends.py:1083-1089, PR #29184)",
	"dflash":                "a DFlash block-diffusion draft (its weights, KV cache group and graphs)",
	"dspark":                "a DSpark draft on the V2 model runner (its weights, KV cache and graphs)",
	"custom_class":          "a custom proposer's own allocations, which membudget cannot read",
	"extract_hidden_states": "the hidden-state extraction's buffers and its KV connector",
}

// specKeys are the keys of --speculative-config that membudget reads or
// that change no memory for ngram and suffix; any other key is refused by
// name.
var specKeys = []string{"method", "model", "num_speculative_tokens", "prompt_lookup_max", "prompt_lookup_min",
	// Suffix decoding's tree: host memory of the Arctic Inference
	// package (vllm/v1/spec_decode/suffix_decoding.py), not the GPU's.
	"suffix_decoding_max_tree_depth", "suffix_decoding_max_cached_requests", "suffix_decoding_max_spec_factor", "suffix_decoding_min_token_prob",
	// vllm/config/speculative.py:132-136: the draft's checkpoint revision.
	"revision", "code_revision",
	// speculative.py:105, 1116-1121: the draft model's TP (specdraftmodel.go).
	"draft_tensor_parallel_size"}

// specConfig is the object of --speculative-config as membudget reads it.
type specConfig struct {
	method, model string
	// revision is the draft's revision (speculative.py:132-136), "" for
	// its default branch.
	revision          string
	tokens, treeDepth uint64
	lookMin, lookMax  uint64
	// draftTP is draft_tensor_parallel_size, 0 when not given.
	draftTP uint64
	// other is the first key outside specKeys, sorted, "" when none.
	other string
}

// parseSpecConfig reads --speculative-config's JSON object, refusing, as
// vLLM's pydantic validation does, a value of the wrong type.
func parseSpecConfig(v string) (specConfig, error) {
	var sc specConfig
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v), &m); err != nil || m == nil {
		if err == nil {
			err = fmt.Errorf("null")
		}
		return sc, fmt.Errorf("want a JSON object, as vLLM reads it: %v", err)
	}
	str := func(key string, to *string) error {
		raw, ok := m[key]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return nil
		}
		if err := json.Unmarshal(raw, to); err != nil {
			return fmt.Errorf("key %q is %s; want a string", key, raw)
		}
		return nil
	}
	count := func(key string, to *uint64) error {
		raw, ok := m[key]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return nil
		}
		n, err := strconv.ParseUint(string(bytes.TrimSpace(raw)), 10, 32)
		if err != nil || n == 0 {
			// Field(gt=0) and Field(ge=1), speculative.py:91, 160-163, and
			// suffix_decoding_max_tree_depth >= 1, :1157-1160.
			return fmt.Errorf("key %q is %s; vLLM takes an integer of 1 or more", key, raw)
		}
		*to = n
		return nil
	}
	// cmp.Or returns the first refusal.
	if err := cmp.Or(str("method", &sc.method), str("model", &sc.model), str("revision", &sc.revision), count("num_speculative_tokens", &sc.tokens),
		count("prompt_lookup_min", &sc.lookMin), count("prompt_lookup_max", &sc.lookMax),
		count("suffix_decoding_max_tree_depth", &sc.treeDepth), count("draft_tensor_parallel_size", &sc.draftTP)); err != nil {
		return sc, err
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !slices.Contains(specKeys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		slices.Sort(keys)
		sc.other = keys[0]
	}
	return sc, nil
}

// specMethod is the method vLLM infers from sc (vllm/config/
// speculative.py:741-756, 800-801): an MTP alias is "mtp"; without a
// method, "ngram" for the model "ngram" or "[ngram]", a dotted module path
// a custom proposer, anything else a draft model.
func specMethod(sc specConfig) string {
	switch {
	case slices.Contains(mtpAliases, sc.method):
		return "mtp"
	case sc.method == "[ngram]":
		return "ngram"
	case sc.method != "":
		return sc.method
	case sc.model == "ngram" || sc.model == "[ngram]":
		return "ngram"
	case isModulePath(sc.model):
		return "custom_class"
	}
	return "draft_model"
}

// isModulePath is SpeculativeConfig._is_custom_proposer_path: a dotted
// path of identifiers that is not a local path (speculative.py:720-730).
func isModulePath(s string) bool {
	if s == "" || strings.ContainsAny(s, "/\\") {
		return false
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || !isIdent(p) {
			return false
		}
	}
	return true
}

// isIdent is Python's str.isidentifier for ASCII names.
func isIdent(s string) bool {
	for i, c := range s {
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// specRefusal is what refuses a --speculative-config object before any
// model is read: the method membudget does not size, with what it would
// add, or a key it does not read. "" when the object is sized (or is not
// a JSON object, which resolveSpec refuses).
func specRefusal(v string) string {
	sc, err := parseSpecConfig(v)
	if err != nil {
		return ""
	}
	method := specMethod(sc)
	if what, ok := specUnsized[method]; ok {
		return what
	}
	if sc.other != "" && slices.Contains(specMethods, method) {
		return fmt.Sprintf("speculative decoding with the key %q (membudget reads %s)", sc.other, strings.Join(specKeys, ", "))
	}
	return ""
}

// resolveSpec applies --speculative-config's defaults and refuses what
// vLLM refuses and what membudget does not size, naming the flag. It runs
// before the lengths are resolved: an ngram or suffix serve runs on the V1
// model runner, whose batches in flight those count.
func (r *Resolved) resolveSpec(a *model.Arch, c budget.Class, def func(string, string)) error {
	v := strings.TrimSpace(r.SpeculativeConfig)
	if v == "" {
		return nil
	}
	p := r.Profile
	if p.Release.Less(Version{0, 8, 0}) {
		return settingErr("speculative-config", "", "%s has no --speculative-config (vLLM 0.8.0 added it, #14434)", p.Describes)
	}
	sc, err := parseSpecConfig(v)
	if err != nil {
		return settingErr("speculative-config", v, "%v", err)
	}
	method := specMethod(sc)
	if what, ok := specUnsized[method]; ok {
		return settingErr("speculative-config", method, "%s: not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", what, p.Describes)
	}
	if !slices.Contains(specMethods, method) {
		// pydantic's Literal check of SpeculativeMethod (speculative.py:69-78).
		return settingErr("speculative-config", method, "vLLM refuses the method: it takes %s, %s", strings.Join(specMethods, ", "), strings.Join(slices.Sorted(maps.Keys(specUnsized)), ", "))
	}
	if sc.other != "" {
		return settingErr("speculative-config", sc.other, "speculative decoding with this key: not modelled for %s (membudget reads %s); membudget refuses it rather than size a serve vLLM would contradict", p.Describes, strings.Join(specKeys, ", "))
	}
	if p.Era == V0 || p.Release.Less(specSince) {
		return settingErr("speculative-config", method, "speculative decoding (the rejection sampler's profile run, the graph sizes at multiples of k+1): not modelled for %s (membudget sizes ngram and suffix from vLLM %s, whose spec-decode rules it has read); membudget refuses it rather than size a serve vLLM would contradict", p.Describes, specSince)
	}
	if p.V2EveryModel && !drafted(method) {
		// Main falls back to the V1 runner for these methods; the release
		// that runs every model on the V2 runner (PR #53183) is sized from
		// its release notes, not its source, which may refuse them instead
		// ("Model Runner V2 does not yet support: ngram/ngram_gpu
		// speculative decoding" where V2 is forced).
		return settingErr("speculative-config", method, "speculative decoding on the V1 model runner: not modelled for %s, which runs every model on the V2 runner (PR #53183) and whose source membudget has not read; membudget refuses it rather than size a serve vLLM would contradict", p.Describes)
	}
	if state, _ := r.layerCounts(a); state > 0 && (method != "mtp" || !model.QwenMTP(a)) {
		// resolveState charges the state blocks a sequence keeps for any
		// method; the drafters beside them on a hybrid are sized for
		// Qwen3.5's own MTP layers alone.
		return settingErr("speculative-config", method, "speculative decoding with %s on %s, a model with state layers: not modelled (membudget sizes speculative decoding on a model with state layers for Qwen3.5's own MTP layers, --speculative-config '{\"method\": \"mtp\", ...}', alone); membudget refuses it rather than size a serve vLLM would contradict", method, a.Source)
	}
	if si := c.Device.Silicon; !r.EnforceEager && si.Vendor == budget.NVIDIA && (si.Major == 10 && !a.MLA || si.Major == 12 && a.MLA) {
		// vLLM captures FULL decode graphs at multiples of k+1 only where
		// every attention backend takes a uniform batch of k+1 tokens a
		// request; else it falls back to PIECEWISE graphs at the sizes
		// unrounded (vllm/config/compilation.py:1440-1458). FlashInfer,
		// the first backend on SM10x (vllm/platforms/cuda.py:144-155),
		// takes them only where TRT-LLM attention serves the heads
		// (flashinfer.py:960-1006); Triton MLA, the first MLA backend on
		// SM12x (cuda.py:130-134), never (triton_mla.py:51-52).
		return settingErr("speculative-config", method, "speculative decoding's CUDA graphs on %s (compute capability %s): vLLM's default attention backend there decides whether it captures FULL decode graphs at multiples of k+1 or PIECEWISE graphs alone, which membudget does not model; pass --enforce-eager to size the serve without graphs", c.Device.Name, si)
	}
	s := Speculative{Method: method, Tokens: sc.tokens}
	switch method {
	case "ngram":
		if s.Tokens == 0 {
			// _verify_args (speculative.py:1348-1353).
			return settingErr("speculative-config", v, "vLLM refuses it: num_speculative_tokens must be provided with speculative model unless the draft model config contains an n_predict parameter")
		}
		s.LookupMin, s.LookupMax = sc.lookMin, sc.lookMax
		switch {
		case s.LookupMin == 0 && s.LookupMax == 0:
			s.LookupMin, s.LookupMax = 5, 5
		case s.LookupMin == 0:
			s.LookupMin = s.LookupMax
		case s.LookupMax == 0:
			s.LookupMax = s.LookupMin
		}
		if s.LookupMin > s.LookupMax {
			return settingErr("speculative-config", v, "vLLM refuses it: prompt_lookup_min=%d must be <= prompt_lookup_max=%d (vllm/config/speculative.py:825-829)", s.LookupMin, s.LookupMax)
		}
	case "eagle3", "eagle":
		if s.Tokens == 0 {
			// An EAGLE-3 config.json has no n_predict (speculative.py:
			// 1348-1353).
			return settingErr("speculative-config", v, "vLLM refuses it: num_speculative_tokens must be provided with speculative model unless the draft model config contains an n_predict parameter")
		}
		d, err := r.resolveDraft(sc, a)
		if err != nil {
			return err
		}
		s.Draft = d
	case "draft_model":
		if s.Tokens == 0 {
			// The draft's n_predict (speculative.py:1348-1353) is not read.
			return settingErr("speculative-config", v, "a draft model without num_speculative_tokens (vLLM would take its config's n_predict, which membudget does not read): not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", p.Describes)
		}
		d, err := r.resolveDraftModel(sc, a)
		if err != nil {
			return err
		}
		s.Draft = d
	case "medusa":
		m, err := r.resolveMedusa(sc, a)
		if err != nil {
			return err
		}
		s.Medusa = m
	case "mtp":
		n, err := r.resolveMTP(sc, a)
		if err != nil {
			return err
		}
		s.MTPLayers = n
	case "suffix":
		if c.Memory.Unified {
			return settingErr("speculative-config", method, "suffix decoding's trees (up to suffix_decoding_max_cached_requests responses, in host memory): not modelled for a unified device, where host memory is the GPU's; membudget refuses it rather than size a serve vLLM would contradict")
		}
		if s.Tokens == 0 {
			s.Tokens = sc.treeDepth
			if s.Tokens == 0 {
				s.Tokens = suffixTreeDepth
			}
			def("speculative-config", "num_speculative_tokens: suffix_decoding_max_tree_depth, vLLM's default for suffix decoding (vllm/config/speculative.py:1148-1151)")
		}
	}
	if s.Tokens > maxSpecTokens {
		return settingErr("speculative-config", s.Tokens, "num_speculative_tokens beyond any serve (at most %d)", maxSpecTokens)
	}
	if q := 1 + s.Tokens; !r.EnforceEager && q > max(r.CaptureCeiling, maxCaptureSize) {
		// adjust_cudagraph_sizes_for_spec_decode (vllm/config/
		// compilation.py:1553-1560) finds no size to capture.
		return settingErr("speculative-config", s.Tokens, "vLLM refuses it: No valid cudagraph sizes after rounding to multiple of %d (num_speculative_tokens + 1); lower num_speculative_tokens or pass --enforce-eager", q)
	}
	if r.AsyncScheduling == engine.On && p.AsyncByDefault && !drafted(method) && method != "draft_model" {
		// vllm/config/vllm.py:1153-1173.
		return settingErr("async-scheduling", "", "vLLM refuses it: Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU/DSpark kind of speculative decoding (--speculative-config method %q)", method)
	}
	if !p.Release.Less(specV1Since) && !drafted(method) {
		if r.Profile.v2Forced {
			// _get_v2_model_runner_unsupported_features names ngram's
			// method apart (vllm/config/vllm.py:2396-2399 at d18bb7b).
			feature := fmt.Sprintf("speculative method '%s'", method)
			if method == "ngram" {
				feature = "ngram/ngram_gpu speculative decoding"
			}
			return refuseV2Unsupported("speculative-config", method, feature)
		}
		r.Profile.v1Runner = true
	}
	r.Spec = s
	return nil
}

// drafted says a method runs a drafter model (EagleModelTypes, vllm/
// config/speculative.py:66-68): vLLM keeps its async scheduling and its
// V2 model runner, which it gives up for ngram and suffix.
func drafted(method string) bool {
	return method == "eagle3" || method == "eagle" || method == "mtp"
}

// suffixTreeDepth is suffix_decoding_max_tree_depth's default
// (vllm/config/speculative.py:195).
const suffixTreeDepth = 24

// maxSpecTokens bounds num_speculative_tokens far above any serve, so
// that the graph sizes' products stay far from 2^64.
const maxSpecTokens = 1 << 10

// finishSpec completes the speculative decoding of a serve whose lengths
// and runner are resolved: async scheduling is off by default for a
// proposer without a drafter ("Async scheduling not supported with
// %s-based speculative decoding and will be disabled", vllm/config/
// vllm.py:1196-1207, from PR #27614), with the batches in flight that
// follow; the proposer's host memory follows the lengths.
func (r *Resolved) finishSpec(a *model.Arch) error {
	if r.Spec.Method == "" {
		return nil
	}
	if r.Runner == runnerPooling {
		// A pooling model samples no tokens to verify: the pooling runner
		// builds no drafter (gpu_model_runner.py:628-700 is the
		// generating runner's).
		return settingErr("speculative-config", r.Spec.Method, "speculative decoding needs a generating model, and --runner pooling serves %s without a sampler", a.Source)
	}
	if r.AsyncScheduling == engine.Default && r.Async && r.Spec.Draft == nil && r.Spec.MTPLayers == 0 {
		// EAGLE keeps it (EagleModelTypes, vllm.py:1196-1207).
		r.asyncOffByDefault(a)
		r.Sources.Set("async-scheduling", "off: vLLM disables it for "+r.Spec.Method+"-based speculative decoding (vllm/config/vllm.py:1196-1207)")
	}
	if d := r.Spec.Draft; d != nil && d.Method == "draft_model" && r.MaxNumBatchedTokens <= draftModelSlots {
		// _set_max_num_scheduled_tokens (vllm/config/vllm.py:1840-1881).
		return settingErr("max-num-batched-tokens", r.MaxNumBatchedTokens, "vLLM refuses it: VllmConfig does not have enough slots to schedule a token and support the speculative decoding settings. Got max_num_batched_tokens=%d and scheduled_token_delta=%d", r.MaxNumBatchedTokens, draftModelSlots)
	}
	r.Spec.HostBytes = specHostBytes(r)
	return nil
}

// specQueryLen is a decode step's tokens a request: 1 + k under
// speculative decoding (uniform_decode_query_len, vllm/v1/worker/
// gpu_model_runner.py:905), else 1.
func specQueryLen(r *Resolved) uint64 {
	return 1 + r.Spec.Tokens
}

// specSizes is the capture sizes under speculative decoding, q = k+1 a
// decode step: each size rounded up to a multiple of q and kept when the
// rounded size is at most the largest, without duplicates; q alone where
// none is left and q is at most the largest
// (CompilationConfig.adjust_cudagraph_sizes_for_spec_decode,
// vllm/config/compilation.py:1518-1563, applied at vllm/config/vllm.py:
// 1480-1488). The FULL decode graphs are then those from q to q x
// max_num_seqs ([Graphs.DecodeQuery]; vllm/v1/cudagraph_dispatcher.py:
// 208-225).
func specSizes(sizes []uint64, q uint64) ([]uint64, error) {
	if len(sizes) == 0 {
		return sizes, nil
	}
	largest := slices.Max(sizes)
	var out []uint64
	for _, s := range sizes {
		if rs := budget.RoundUp(s, q); rs <= largest {
			out = append(out, rs)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		if q > largest {
			return nil, settingErr("speculative-config", q-1, "vLLM stops at startup: no CUDA-graph size is left once the sizes are rounded to multiples of num_speculative_tokens + 1 = %d (the largest is %d; vllm/config/compilation.py:1553-1560): lower num_speculative_tokens or raise max_cudagraph_capture_size", q, largest)
		}
		out = []uint64{q} // "if one valid but would be round_down use that" (:1549-1551)
	}
	return out, nil
}

// specSamplerBytes is what the profile run's dummy rejection sampler
// holds above the dummy sampler's peak: it draws fresh logits for the
// draft and bonus positions, 2 x reqs rows in the model dtype, while it
// samples the bonus rows (a copy of reqs rows, sampled at the sampler's
// own bytes a logit) and keeps their raw logits as float32 logprobs
// (logprobs_mode_override "raw_logits", vllm/v1/sample/sampler.py:87-93;
// vllm/v1/sample/rejection_sampler.py:133-146; gpu_model_runner.py:
// 6407-6452, PR #26060): reqs x vocab x (2 x dtype + 4) beyond the
// sampler's reqs x vocab x its bytes a logit, the first logits being
// freed when the name is rebound. The later target phase (the float32
// target logits, their clone and the probabilities) holds less. No public
// log of vLLM 0.14+ with ngram prints its activation peak; this is the
// code's arithmetic.
func specSamplerBytes(r *Resolved, reqs, vocab uint64) uint64 {
	if r.Spec.Method == "" || onV2Speculator(r) { // the V2 dummy sampler runs no rejection sampler (specv2.go)
		return 0
	}
	return budget.SatMul(budget.SatMul(reqs, vocab), 2*r.DtypeBytes+4)
}

// ngramWarmupRows is the dummy batch NgramProposer.__init__ proposes for
// to trigger its Numba JIT: 1024 requests of max_model_len int32 tokens
// (vllm/v1/spec_decode/ngram_proposer.py:56-62).
const ngramWarmupRows = 1024

// specHostBytes is the proposer's host memory on a worker of the last
// stage at startup: ngram's buffers of max_num_seqs x k and max_num_seqs
// int32 (ngram_proposer.py:30-32) and its JIT warmup's 1024 x
// max_model_len int32 token array (:56-62); suffix's trees grow with the
// responses cached and are not sized (0).
func specHostBytes(r *Resolved) uint64 {
	if r.Spec.Method != "ngram" {
		return 0
	}
	buffers := budget.SatMul(budget.SatMul(r.MaxNumSeqs, r.Spec.Tokens+1), 4)
	warmup := budget.SatMul(budget.SatMul(ngramWarmupRows, r.MaxModelLen), 4)
	return budget.SatAdd(buffers, warmup)
}

// specFlags are the names --speculative-config is registered under.
var specFlags = []string{"speculative-config", "sc"}

// registerSpec registers --speculative-config and its alias -sc into v.
func registerSpec(fs *flag.FlagSet, v *string, on func(...string) bool) {
	for _, name := range specFlags {
		if on(name) {
			fs.Var(specFlag{v}, name, "vLLM's --speculative-config (-sc), JSON: ngram and suffix sized (the rejection sampler, graphs at multiples of k+1, async scheduling off), eagle3, eagle and draft_model with a local draft directory (its weights and KV layers), medusa (its heads' weights); other drafts refused by name")
		}
	}
}

// specFlag is --speculative-config: a JSON object, kept as given for the
// launch line.
type specFlag struct{ v *string }

func (f specFlag) String() string {
	if f.v == nil {
		return ""
	}
	return *f.v
}

func (f specFlag) Set(s string) error {
	if _, err := parseSpecConfig(s); err != nil {
		return err
	}
	*f.v = strings.TrimSpace(s)
	return nil
}

// writeSpecFlags writes the serve's --speculative-config as given.
func writeSpecFlags(b *strings.Builder, v string) {
	if v == "" {
		return
	}
	b.WriteString(" --speculative-config ")
	b.WriteString(shell.Quote(v))
}

// specJSON is the serve's speculative decoding and what it holds: the
// report's "serve"."speculative".
type specJSON struct {
	Config               string `json:"config"`
	Method               string `json:"method"`
	NumSpeculativeTokens uint64 `json:"num_speculative_tokens"`
	PromptLookupMin      uint64 `json:"prompt_lookup_min,omitempty"`
	PromptLookupMax      uint64 `json:"prompt_lookup_max,omitempty"`
	// SamplerBytes is what the rejection sampler's profile run holds
	// above the sampler's peak on the last stage (it adds at most that to
	// the footprint, whose profile peak is the larger of the forward pass
	// and the sampler); HostBytes the proposer's host memory on a worker
	// of the last stage.
	SamplerBytes uint64 `json:"rejection_sampler_bytes"`
	HostBytes    uint64 `json:"host_bytes"`
	// DraftWeightBytes and DraftKVBytes are an EAGLE draft's weights and
	// its layers' share of the KV cache on a GPU of the last stage; 0 for
	// ngram and suffix, which have no draft model.
	DraftWeightBytes uint64 `json:"draft_weight_bytes"`
	DraftKVBytes     uint64 `json:"draft_kv_bytes"`
	// DraftGraphBytes is an EAGLE or draft-model drafter's share of the
	// CUDA-graph term on a GPU of the last stage (specgraphs.go); absent
	// when eager.
	DraftGraphBytes uint64 `json:"draft_graph_bytes,omitempty"`
	// V2BufferBytes is the V2 speculator's buffers on a GPU of the last
	// stage (specv2.go) where vLLM charges them (from 0.26.1), absent on
	// the V1 runner and before 0.26.1; DraftProfileBytes is what
	// an EAGLE drafter's part of the profile run adds to the torch peak
	// there, on the V2 speculator (specv2.go) or the V1 proposer
	// (specpeak.go), absent where it adds nothing.
	V2BufferBytes     uint64 `json:"v2_speculator_buffer_bytes,omitempty"`
	DraftProfileBytes uint64 `json:"draft_profile_run_bytes,omitempty"`
	// MedusaHeads is the Medusa heads vLLM builds (k) and
	// MedusaStepLogitsBytes their logits of a decode step at max_num_seqs
	// requests, drawn outside the profile run and not charged
	// (specmedusa.go); 0 for the other methods.
	MedusaHeads           uint64 `json:"medusa_heads,omitempty"`
	MedusaStepLogitsBytes uint64 `json:"medusa_step_logits_bytes,omitempty"`
}

// specJSON is the sizing's speculative decoding for the report, nil
// without it.
func (sz *Sizing) specJSON() *specJSON {
	r := sz.Serve
	if r.Spec.Method == "" {
		return nil
	}
	j := &specJSON{Config: r.SpeculativeConfig, Method: r.Spec.Method, NumSpeculativeTokens: r.Spec.Tokens,
		PromptLookupMin: r.Spec.LookupMin, PromptLookupMax: r.Spec.LookupMax,
		SamplerBytes: sz.specSamplerItem(), HostBytes: r.Spec.HostBytes,
		DraftWeightBytes: sz.draftWeightItem(len(r.Stages) - 1), DraftKVBytes: sz.draftKVBytes(), DraftGraphBytes: sz.draftGraphItem(),
		MedusaStepLogitsBytes: medusaLogitsBytes(r),
		V2BufferBytes:         sz.specDraftItem("v2_draft_buffers"), DraftProfileBytes: sz.specDraftItem("draft_profile_run")}
	if m := r.Spec.Medusa; m != nil {
		j.MedusaHeads = m.Heads
	}
	return j
}

// specSamplerItem is the rejection sampler's bytes on the last stage.
func (sz *Sizing) specSamplerItem() uint64 {
	r := sz.Serve
	reqs := min(r.MaxNumSeqs, r.MaxNumBatchedTokens)
	return specSamplerBytes(r, reqs, budget.RoundUp(sz.Model.Arch.Vocab, vocabPadding))
}

// splitSpec names the rejection sampler in a footprint's lines: the
// sampler line without it, then its own (the sum is the sampler term).
// The sampler term is what the sampler's peak holds above the forward
// pass's, so the rejection sampler's share of it is its bytes, or the
// whole term where the sampler alone stays under the forward pass.
func (sz *Sizing) splitSpec(lines []engine.FootprintLine, fp budget.Footprint) []engine.FootprintLine {
	r := sz.Serve
	if r.Spec.Method == "" || fp.Stage != len(r.Stages)-1 {
		return lines
	}
	return splitOut(lines, budget.TermSampler, "rejection sampler", sz.specSamplerItem())
}

// specSettings are the lines a report prints of the serve's speculative
// decoding beside its settings.
func (sz *Sizing) specSettings() []string {
	r := sz.Serve
	if r.Spec.Method == "" {
		return nil
	}
	if r.Spec.Draft != nil || r.Spec.MTPLayers > 0 {
		return append([]string{fmt.Sprintf("speculative decoding: %s, %d token(s) a step (k+1 = %d verified a request); %s, %s", r.Spec.Method, r.Spec.Tokens, specQueryLen(r), specRunnerName(r), sz.draftGraphsSetting()), sz.draftSettings()}, append(sz.specV1Settings(), sz.specV2Settings()...)...)
	}
	graphs := fmt.Sprintf("CUDA graphs at multiples of %d", specQueryLen(r))
	if r.EnforceEager {
		graphs = "eager"
	}
	if r.Spec.Medusa != nil {
		return []string{fmt.Sprintf("speculative decoding: %s, %d token(s) a step (k+1 = %d verified a request); the V1 model runner, %s", r.Spec.Method, r.Spec.Tokens, specQueryLen(r), graphs), sz.medusaSettings()}
	}
	out := []string{fmt.Sprintf("speculative decoding: %s, %d token(s) a step (k+1 = %d verified a request); no draft weights or draft KV; the V1 model runner, CUDA graphs at multiples of %d",
		r.Spec.Method, r.Spec.Tokens, specQueryLen(r), specQueryLen(r))}
	switch r.Spec.Method {
	case "ngram":
		where := "host memory, not the GPU's"
		if sz.Class.Memory.Unified {
			where = "on this unified device, the GPU's memory: counted"
		}
		out = append(out, fmt.Sprintf("ngram proposer: %s per last-stage worker at startup (its Numba warmup of 1024 x max_model_len tokens; %s)", engine.GiB(r.Spec.HostBytes), where))
	case "suffix":
		out = append(out, "suffix decoding: its trees grow in host memory with the responses cached (suffix_decoding_max_cached_requests), not sized")
	}
	return out
}

// readLoggedSpec reads a log's speculative_config, which vLLM prints as a
// Python dict ("non-default args: {..., 'speculative_config': {'method':
// 'ngram', 'num_speculative_tokens': 3}}"), into the serve when it is an
// object membudget sizes and --speculative-config was not given; it
// reports whether it did, so that the setting is no longer a warning of
// memory left out.
func (ls *loggedServe) readLoggedSpec(l *logs.Log, given map[string]bool) bool {
	if flagAliases.Given(given, "speculative-config") || given["sc"] {
		ls.From["speculative-config"] = explain.SettingFrom{Source: explain.FromFlag}
		return true // the flag's config is sized instead
	}
	// The arguments' dict has every key given; the engine config's
	// SpeculativeConfig repr only the method, the draft and k
	// (vllm/config/speculative.py:1505-1519): the dict first.
	var st logs.Setting
	var v string
	for _, s := range l.Settings {
		if s.Key != "speculative_config" || s.Literal == logs.LiteralNone {
			continue
		}
		if j, ok := pyDictJSON(s.Value); ok {
			st, v = s, j
			break
		}
		if j, ok := specReprJSON(s.Value); ok && v == "" {
			st, v = s, j
		}
	}
	if v == "" {
		return false
	}
	sc, err := parseSpecConfig(v)
	if err != nil || specRefusal(v) != "" || !slices.Contains(loggedSpecMethods, specMethod(sc)) {
		return false // mtp stays a warning: explain does not size it
	}
	ls.Serve.SpeculativeConfig = v
	ls.From["speculative-config"] = explain.SettingFrom{Source: explain.FromLogged, Value: st.Value, Key: st.LoggedKey, Detail: string(st.Source), Line: st.Line}
	return true
}

// specSettingOf is the explanation's line of the serve's
// --speculative-config, none without it.
func specSettingOf(ls loggedServe, r Resolved) []explain.Setting {
	if r.SpeculativeConfig == "" {
		return nil
	}
	from, given := ls.From["speculative-config"]
	return []explain.Setting{explain.SettingOf("speculative-config", r.SpeculativeConfig, from, given, explain.FromDefault, "")}
}

// dropUnsizedSpec leaves out of the serve a logged speculative config
// that membudget does not size for a under p on c (an older release, a
// model with state layers, a backend whose decode graphs it does not
// model), with a warning, as explain did before: the log is explained,
// short of it.
func (ls *loggedServe) dropUnsizedSpec(a *model.Arch, c budget.Class, p Profile) {
	if _, logged := ls.From["speculative-config"]; !logged || ls.From["speculative-config"].Source != explain.FromLogged || a == nil {
		return
	}
	r := Resolved{Serve: ls.Serve, Profile: p}
	err := r.resolveSpec(a, c, func(string, string) {})
	if err == nil {
		return
	}
	ls.Serve.SpeculativeConfig = ""
	delete(ls.From, "speculative-config")
	ls.Warnings = append(ls.Warnings, fmt.Sprintf("the log's speculative_config is not sized here (%v): its predictions leave that memory out", err))
}

// specRepr is SpeculativeConfig's repr in the engine config line:
// SpeculativeConfig(method='ngram', model=None, num_spec_tokens=3).
var specRepr = regexp.MustCompile(`^SpeculativeConfig\(method='([a-z0-9_]+)', model=(?:None|'[^']*'), num_spec_tokens=([0-9]+)\)$`)

// specReprJSON is the JSON of the config a SpeculativeConfig repr states,
// for the methods whose repr names no draft, and mtp, whose repr's draft
// is the target itself (vLLM sets model to the target's for the MTP
// methods, vllm/config/speculative.py:758-770 at main d18bb7b); false for
// any other.
func specReprJSON(v string) (string, bool) {
	m := specRepr.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil || m[1] != "ngram" && m[1] != "suffix" && m[1] != "mtp" {
		return "", false // a draft's repr names no more than its path
	}
	return `{"method": "` + m[1] + `", "num_speculative_tokens": ` + m[2] + `}`, true
}

// pyDictJSON turns a Python dict literal of strings, numbers, booleans
// and None, as vLLM logs a config, into JSON; false when it holds
// anything else (an escape, a nested quote).
func pyDictJSON(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "{") || strings.ContainsAny(v, "\\\"") {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case c == '\'':
			end := strings.IndexByte(v[i+1:], '\'')
			if end < 0 {
				return "", false
			}
			b.WriteByte('"')
			b.WriteString(v[i+1 : i+1+end])
			b.WriteByte('"')
			i += end + 2
		case strings.HasPrefix(v[i:], "True"):
			b.WriteString("true")
			i += 4
		case strings.HasPrefix(v[i:], "False"):
			b.WriteString("false")
			i += 5
		case strings.HasPrefix(v[i:], "None"):
			b.WriteString("null")
			i += 4
		default:
			b.WriteByte(c)
			i++
		}
	}
	out := b.String()
	if !json.Valid([]byte(out)) {
		return "", false
	}
	return out, true
}
