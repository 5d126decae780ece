package vllm

import (
	"bytes"
	"cmp"
	"encoding/json"
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
	"membudget/model"
	"membudget/model/explain"
)

// This file sizes what a multimodal model's serve adds: the encoder cache
// that V1's profile run fills with the outputs of a dummy batch of the
// largest items and keeps through the decoder's dummy run, the budget
// vLLM logs for it, the multimodal flags (--limit-mm-per-prompt,
// --skip-mm-profiling, --mm-encoder-tp-mode, --mm-processor-cache-gb,
// --mm-processor-kwargs) and the processor cache in host memory. Every
// rule is vLLM main's at commit d18bb7b (2026-08-14) unless it says
// otherwise.
//
// The encoder pass's own activations (the dummy items through the vision
// tower) are sized in encoderpass.go for the towers whose blocks it
// models, and said to be left out for the others.

// MM is a serve's multimodal settings under vLLM's flag names
// (vllm/config/multimodal.py MultiModalConfig). Its zero value is vLLM's
// defaults. It is kept comparable: the JSON values are kept as given and
// read when the serve is resolved.
type MM struct {
	// LimitPerPrompt is --limit-mm-per-prompt as given: a JSON object of
	// modality to count, or to {"count": N}; "" leaves every modality at
	// vLLM's 999 (get_limit_per_prompt, multimodal.py:487-501).
	LimitPerPrompt string
	// SkipProfiling is --skip-mm-profiling: the profile run without the
	// encoder pass and its cache (gpu_model_runner.py:6545-6550).
	SkipProfiling bool
	// EncoderTPMode is --mm-encoder-tp-mode: weights (vLLM's default) or
	// data; "" reads as weights.
	EncoderTPMode string
	// ProcessorCacheGB is --mm-processor-cache-gb where ProcessorCacheSet,
	// else vLLM's default 4 (multimodal.py:152).
	ProcessorCacheGB  float64
	ProcessorCacheSet bool
	// ProcessorKwargs is --mm-processor-kwargs as given, a JSON object.
	ProcessorKwargs string
	// LanguageModelOnly is --language-model-only (vLLM 0.16.0 on): every
	// modality's limit 0 whatever --limit-mm-per-prompt says
	// (get_limit_per_prompt, multimodal.py:492-493; see towers.go).
	LanguageModelOnly bool
}

// EncoderProfile is what vLLM's profile run does with a multimodal
// model's encoder, and what membudget charges of it.
type EncoderProfile struct {
	// Runs says the profile run passes a dummy batch through the encoder
	// and caches its outputs; Sized says membudget knows the largest
	// item, so that the cache below is charged.
	Runs, Sized bool
	// Modality is the dummy items' modality (the one of the most tokens
	// an item), TokensPerItem their tokens ("max_tokens_per_mm_item"),
	// Budget the encoder cache's budget in tokens and Items the dummy
	// items, as vLLM logs them ("Encoder cache will be initialized with a
	// budget of N tokens, and profiled with K image items of the maximum
	// feature size").
	Modality                     string
	TokensPerItem, Budget, Items uint64
	// CacheBytes is the cached outputs on a GPU: Items x TokensPerItem x
	// the projector's width x the dtype, HeldItems' in place of Items
	// where it is set (under --mm-encoder-tp-mode data, the all-gather's
	// Items rounded up to a multiple of the TP size, when that is more:
	// sizeEncoderCache); EveryStage says every pipeline stage holds them
	// (V1's profile_run runs the encoder on every rank,
	// gpu_model_runner.py:6542-6545; the V2 runner on the first alone,
	// gpu/model_runner.py:783), else the first stage alone.
	CacheBytes uint64
	HeldItems  uint64
	EveryStage bool
	// Why says why the profile does not run or is not sized.
	Why string
	// TextOnly says vLLM serves a multimodal model as text only (every
	// modality's limit 0, or no tower built): supports_multimodal_inputs
	// is false, so its runners feed the model token ids.
	TextOnly bool
	// Basis is what a sized item's tokens rest on that the serve and the
	// config do not give ("" when nothing): the report says it.
	Basis string
}

// mmSince is the first release whose encoder cache membudget sizes: PR
// #30475 (merged 2025-12-16) made the cache count an item's embeddings
// rather than its placeholder tokens (a Gemma 3 image: 256, not 262), and
// 0.14.0 is the first release surely after it. The budget's rules
// (vllm/multimodal/encoder_budget.py, vllm/v1/core/encoder_cache_manager.py
// compute_mm_encoder_budget) are the same from then to main.
var mmSince = v0_14_0

// mmV2Since is the first release whose V2 model runner surely profiles the
// encoder: PR #47985 ("[MRV2] Add encoder cache profiling
// implementation", merged 2026-07-21) added it; 0.28.0 is the first
// release surely after it. Before it a V2 serve's profile had no encoder
// pass, and on the V2 releases before 0.28.0 whether it has one is not
// known.
var mmV2Since = v0_28_0

// encoderDPRule is how vLLM runs a tower kind under --mm-encoder-tp-mode
// data.
type encoderDPRule struct {
	// class is the model class that sets supports_encoder_tp_data, where.
	class string
	// gathered says the tower's outputs are the items' embeddings as
	// run_dp_sharded_mrope_vision_model all-gathers them (vision.py:
	// 397-584), which the encoder cache keeps views of (sizeEncoderCache)
	// and the encoder pass holds (sizeEncoderPass); else a projector runs
	// after the gather and the cache holds its outputs, as in weights
	// mode.
	gathered bool
}

// encoderDPTowers are the tower kinds whose model classes support
// --mm-encoder-tp-mode data at d18bb7b (supports_encoder_tp_data,
// interfaces.py:152-156, read through the registry). For any other
// multimodal model vLLM falls back to weights before the tower is built,
// with a warning ("This model does not support `--mm-encoder-tp-mode
// data`. Falling back to `--mm-encoder-tp-mode weights`.", vllm/config/
// model.py:766-774), as it has since the flag became per model (PR #23733,
// 2025-08-27, before 0.14.0, the first release membudget sizes the flags
// for): Gemma 3, Gemma 3n, Gemma 4, Idefics3, the LLaVA family, Mistral 3,
// PaliGemma and Phi-4-multimodal among those membudget sizes. These
// towers build every linear layer with disable_tp in data mode, whole on
// every rank (model.Sharding.TowerWhole): qwen2_vl.py:253-314 and
// 486-508; qwen2_5_vl.py:319-387 and 580-604; qwen3_vl.py:410-427 and
// 513-538, the deepstack mergers included; glm4_1v.py:226-317 and
// 474-500; intern_vit.py:169-276 (InternVL's mlp1 is replicated either
// way, internvl.py:643-653); mllama4.py:135-150, 248-300 and 443-451, but
// not the projector's linear_1 (:172-179), which stays divided; and
// kimi_k25_vit.py:334-442 (its projector replicated either way,
// kimi_k25.py:887-945). The Qwen and GLM towers encode through
// run_dp_sharded_mrope_vision_model (qwen2_vl.py:1374-1400,
// qwen2_5_vl.py:1445-1506, qwen3_vl.py:2248-2274, glm4_1v.py:1891-1915);
// InternViT's encoder and Llama 4's tower through run_dp_sharded_vision_model
// (intern_vit.py:440-441, mllama4.py:829-836) and Kimi-K2.5's through the
// mrope one (kimi_k25_vit.py:865-872), each with a projector after the
// gather; their encoder passes are not sized in either mode.
// Each had it from before 0.14.0 (Qwen2.5-VL: PR #23733; Qwen2-VL: #25445;
// Qwen3-VL: #24955; GLM-4.5V: #23168; InternVL: #23909) or from its
// model's first release (Kimi-K2.5: #33131).
var encoderDPTowers = map[string]encoderDPRule{
	"qwen2_vl":   {class: "Qwen2VLForConditionalGeneration, qwen2_vl.py:1195", gathered: true},
	"qwen2_5_vl": {class: "Qwen2_5_VLForConditionalGeneration, qwen2_5_vl.py:1257", gathered: true},
	// Qwen3-VL-MoE (qwen3_vl_moe.py:223) and Qwen3.5 (qwen3_5.py:460, 681)
	// inherit it.
	"qwen3_vl": {class: "Qwen3VLForConditionalGeneration, qwen3_vl.py:1757", gathered: true},
	// GLM-4.5V's Glm4vMoeForConditionalGeneration inherits it (:2375).
	"glm4v":      {class: "Glm4vForConditionalGeneration, glm4_1v.py:1780", gathered: true},
	"intern_vit": {class: "InternVLChatModel, internvl.py:555"},
	"llama4":     {class: "Llama4ForConditionalGeneration, mllama4.py:744"},
	// MoonViT also falls back to data mode by itself where its heads do not
	// divide the ranks (vision.py:144-161, PR #49046).
	"moonvit": {class: "KimiK25ForConditionalGeneration, kimi_k25.py:315"},
}

// encoderDataParallel says vLLM runs a's tower in data mode for the
// serve's m: --mm-encoder-tp-mode data on a tower that supports it (at
// TP 1 too: the model still encodes through the data-parallel path, its
// weights as in weights mode).
func encoderDataParallel(a *model.Arch, m MM) bool {
	if a == nil || a.Vision == nil || m.EncoderTPMode != "data" {
		return false
	}
	_, ok := encoderDPTowers[a.Vision.Kind]
	return ok
}

// encoderGathered says the serve's encoder outputs are data mode's
// all-gathered embeddings (encoderDPRule.gathered).
func encoderGathered(a *model.Arch, m MM) bool {
	return encoderDataParallel(a, m) && encoderDPTowers[a.Vision.Kind].gathered
}

// defaultMMLimit is an unspecified modality's limit
// (vllm/config/multimodal.py:497-499).
const defaultMMLimit = 999

// givenLimit is modality's limit in limits (mmLimits' parse of
// --limit-mm-per-prompt), or an unnamed modality's.
func givenLimit(limits map[string]uint64, modality string) uint64 {
	if n, ok := limits[modality]; ok {
		return n
	}
	return defaultMMLimit
}

// maxMMLimit bounds a limit far above any serve, so that the products of
// the budget stay far from 2^64.
const maxMMLimit = 1 << 20

// mmTower is how vLLM's processor sizes a tower kind's largest item.
type mmTower struct {
	// modalities are the modalities the model takes (its processing
	// info's get_supported_mm_limits).
	modalities []string
	// kwargs are the --mm-processor-kwargs keys items reads; every other
	// key is refused by name.
	kwargs []string
	// items returns the tokens of the largest item of each modality, as
	// get_mm_max_tokens_per_item, under the serve's limit per modality;
	// why says why they are not sized when it is nil, unsized when it
	// returns none (the Qwen reason where "").
	items   func(v *model.VisionTower, maxModelLen uint64, kw mmKwargs, limit func(string) uint64) ([]mmItem, error)
	why     string
	unsized string
}

// mmItem is the largest item of a modality, in the language model's
// tokens.
type mmItem struct {
	modality string
	tokens   uint64
}

// mmKwargs are the integer --mm-processor-kwargs a tower reads.
type mmKwargs map[string]uint64

// notRead is the reason a tower's largest item is not sized: its
// processor's own files.
const notRead = "its largest item's tokens come from the checkpoint's processor files, which membudget does not read"

// mmTowers are the rules by [model.VisionTower] Kind (more in
// multimodal_towers.go). A kind not listed is a multimodal model whose
// encoder cache is not sized: the report says so.
var mmTowers = map[string]mmTower{
	// Gemma 3: every image is mm_tokens_per_image embeddings (256) without
	// pan-and-scan, which the processor leaves off (gemma3_mm.py:195-211,
	// get_num_crops returns 0 when do_pan_and_scan is false).
	"siglip": {modalities: []string{"image"}, items: gemma3Items},
	// Qwen2-VL and Qwen2.5-VL (qwen2_vl.py:863-1088): the image of the
	// most patches under the processor's max_pixels, and the video of the
	// most frames that fit the length.
	"qwen2_vl":   {modalities: []string{"image", "video"}, kwargs: []string{"max_pixels", "min_pixels"}, items: qwenVLItems},
	"qwen2_5_vl": {modalities: []string{"image", "video"}, kwargs: []string{"max_pixels", "min_pixels"}, items: qwenVLItems},
	"llama4":     {modalities: []string{"image"}, why: notRead},
	// LLaVA around Pixtral's tower counts rows and breaks by its processor.
	"llava_pixtral": {modalities: []string{"image"}, why: notRead},
	// Gemma 3n: every image and audio clip a fixed count.
	"mobilenetv5": {modalities: []string{"image", "audio"}, items: gemma3nItems},
	// Phi-4-multimodal's largest image follows the processor's dynamic_hd
	// crops (phi4mm.py:733-756), whose default is the checkpoint's
	// processor file; vLLM's docs launch it with {"dynamic_hd": 16}. It
	// takes images and audio (:584-585).
	"phi4mm": {modalities: []string{"image", "audio"}, kwargs: []string{"dynamic_hd"}, items: phi4mmItems, unsized: phi4mmUnsized},
}

// gemma3Items is Gemma 3's largest image: TokensPerImage embeddings.
func gemma3Items(v *model.VisionTower, _ uint64, _ mmKwargs, _ func(string) uint64) ([]mmItem, error) {
	if v.TokensPerImage == 0 {
		return nil, nil
	}
	return []mmItem{{"image", v.TokensPerImage}}, nil
}

// qwenMaxFrames is _MAX_FRAMES_PER_VIDEO (qwen2_vl.py:115).
const qwenMaxFrames = 14

// qwenMaxRatio is the widest aspect ratio Qwen's processor takes, which
// get_image_size_with_most_features keeps under (qwen2_vl.py:999-1009).
const qwenMaxRatio = 200

// qwenVLItems is Qwen2-VL's and Qwen2.5-VL's largest image and video
// (qwen2_vl.py:866-873, 960-1088): the image is max_pixels / (patch x
// merge)^2 merged patches, less where no factor pair of that count keeps
// the aspect ratio within 200; the video is that image over the most
// frames whose tokens fit --max-model-len, at most 14, counted in
// temporal_patch_size groups. max_pixels is --mm-processor-kwargs', else
// the checkpoint's preprocessor_config.json's (qwenImagePixels: Qwen2.5-VL's
// has 12845056); neither, a notSized error.
func qwenVLItems(v *model.VisionTower, maxModelLen uint64, kw mmKwargs, _ func(string) uint64) ([]mmItem, error) {
	minPixels, maxPixels, err := qwenImagePixels(v, kw)
	if err != nil {
		return nil, err
	}
	unit := v.PatchSize * max(v.SpatialMerge, 1)
	if maxPixels.n < unit*unit {
		return nil, maxPixels.refuse("is below one merged patch (%d x %d pixels): vLLM's processor has no image to profile", unit, unit)
	}
	n := qwenImageTokens(maxPixels.n / (unit * unit))
	if budget.SatMul(n, unit*unit) < minPixels.n {
		// smart_resize would scale the image up past max_pixels.
		return nil, minPixels.refuse("is above the largest image's %d pixels under max_pixels %d: not modelled (the processor scales it up)", n*unit*unit, maxPixels.n)
	}
	tp := max(v.TemporalPatch, 1)
	// _get_max_video_frames: the most frames whose tokens, ceil(frames /
	// tp) x n, stay within the length, 1 at least; then at most 14
	// (get_num_frames_with_most_features, one video a prompt).
	frames := uint64(1)
	if g := maxModelLen / n; g > 0 {
		frames = budget.SatMul(g, tp)
	}
	frames = min(frames, qwenMaxFrames)
	video := budget.SatMul(budget.CeilDiv(frames, tp), n)
	return []mmItem{{"image", n}, {"video", video}}, nil
}

// qwenImageTokens is the merged patches of Qwen's largest image:
// get_image_size_with_most_features factors the most patches max into
// height x width, the pair closest to square, and tries one fewer until
// the ratio is at most 200.
func qwenImageTokens(most uint64) uint64 {
	for n := most; n > 0; n-- {
		if h, w := qwenFactorPair(n); w <= qwenMaxRatio*h {
			return n
		}
	}
	return 0
}

// mmLimits reads --limit-mm-per-prompt: each modality's count, as vLLM's
// _validate_limit_per_prompt does (multimodal.py:264-287). A modality's
// dummy-data options (width, height, num_frames, length) shrink the
// items the profile runs and are refused by key: membudget sizes the
// largest item.
func mmLimits(s string, p Profile) (map[string]uint64, error) {
	if strings.TrimSpace(s) == "" {
		// No map for the serves without the flag: every compile of a
		// multimodal model reads the limits.
		return nil, nil
	}
	limits := map[string]uint64{}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		// Its argparse type is json.loads (parse_type, vllm/engine/
		// arg_utils.py:387): the key=value form of old releases fails.
		return nil, settingErr("limit-mm-per-prompt", s, "%s refuses it: not a JSON object (vllm/engine/arg_utils.py:387 reads it with json.loads); give modality to count, such as {\"image\": 2, \"video\": 0}", p.Describes)
	}
	for modality, raw := range obj {
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] == '{' {
			var opts map[string]json.RawMessage
			if err := json.Unmarshal(raw, &opts); err != nil {
				return nil, settingErr("limit-mm-per-prompt", s, "%q: %v", modality, err)
			}
			limits[modality] = defaultMMLimit
			for key, v := range opts {
				if key != "count" {
					return nil, settingErr("limit-mm-per-prompt", modality+"."+key, "%s: not modelled (the option shrinks the dummy %s items the profile runs; membudget sizes the largest item)", whatMm, modality)
				}
				raw = v
			}
			if _, ok := opts["count"]; !ok {
				continue
			}
		}
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			return nil, settingErr("limit-mm-per-prompt", s, "%q: want a count, 0 or more (vLLM's count has ge=0, multimodal.py:26)", modality)
		}
		if n > maxMMLimit {
			return nil, settingErr("limit-mm-per-prompt", s, "%q: %d is beyond any serve (at most %d)", modality, n, maxMMLimit)
		}
		limits[modality] = n
	}
	return limits, nil
}

// mmProcessorKwargs reads --mm-processor-kwargs for tower t: the integer
// keys t reads; any other key is refused by name, since it may change an
// item's tokens.
func mmProcessorKwargs(s string, kind string, t mmTower, p Profile) (mmKwargs, error) {
	if strings.TrimSpace(s) == "" || strings.TrimSpace(s) == "null" {
		return nil, nil // read only: no map for the serves without the flag
	}
	kw := mmKwargs{}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		return nil, settingErr("mm-processor-kwargs", s, "%s refuses it: not a JSON object (vllm/engine/arg_utils.py:387 reads it with json.loads), such as {\"max_pixels\": 1003520}", p.Describes)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(t.kwargs, k) {
			return nil, settingErr("mm-processor-kwargs", k, "%s: not modelled for the %s tower (membudget reads %s); it refuses the key rather than size an item vLLM's processor would size otherwise",
				whatMmproc, kind, orNone(t.kwargs))
		}
		n, err := strconv.ParseUint(string(bytes.TrimSpace(obj[k])), 10, 64)
		if err != nil || n == 0 || n > 1<<40 {
			return nil, settingErr("mm-processor-kwargs", k, "want a positive integer, got %s", obj[k])
		}
		kw[k] = n
	}
	return kw, nil
}

// orNone is keys joined, or "no key".
func orNone(keys []string) string {
	if len(keys) == 0 {
		return "no key"
	}
	return strings.Join(keys, ", ")
}

// given says the serve sets a multimodal flag; --mm-encoder-tp-mode
// weights, vLLM's default, changes nothing in any release.
func (m MM) given() bool {
	return m.LanguageModelOnly || m.LimitPerPrompt != "" || m.SkipProfiling || m.EncoderTPMode != "" && m.EncoderTPMode != "weights" || m.ProcessorCacheSet || m.ProcessorKwargs != ""
}

// resolveMM applies the multimodal flags to a, refusing what vLLM refuses
// and what membudget does not size, naming the flag, and sizes the
// encoder cache and the processor cache.
func (r *Resolved) resolveMM(a *model.Arch) error {
	m := r.MM
	p := r.Profile
	if a.Vision == nil {
		if m.given() {
			// vLLM builds no multimodal config for a text model and ignores
			// them; so does membudget.
			r.Encoder = EncoderProfile{Why: "a text model: the multimodal flags change nothing"}
		}
		return nil
	}
	if tp := r.TensorParallelSize; a.Vision.Kind == "glm4v" && m.EncoderTPMode != "data" && tp > 1 && a.Vision.Heads%tp != 0 {
		// GLM-4.1V's and GLM-4.5V's tower divides its heads among the
		// ranks with no fallback at d18bb7b (glm4_1v.py:284-296,
		// dist_utils.divide asserts; vllm #24004, #49368). In data mode
		// the tower is built at TP 1 widths (:284-289): nothing to divide.
		return settingErr("tensor-parallel-size", tp, "vLLM asserts it: it does not divide the %d attention heads of %s's vision tower (glm4_1v.py:284-296; vllm #24004)", a.Vision.Heads, configArch(a))
	}
	if tp := r.TensorParallelSize; a.Vision.Kind == "phi4mm" && tp > 1 && a.Vision.Heads%tp != 0 {
		// Phi-4-multimodal's SigLIP tower divides its 16 heads among the
		// ranks (idefics2_vision_model.py:146-148 asserts it). Data mode
		// does not spare it: Phi4MMForCausalLM does not support it, and
		// vLLM falls back to weights before the tower is built
		// (encoderDPTowers).
		return settingErr("tensor-parallel-size", tp, "vLLM asserts it: it does not divide the %d attention heads of %s's SigLIP tower (idefics2_vision_model.py:146-148)", a.Vision.Heads, configArch(a))
	}
	if p.Era != V1 || p.Release.Less(mmSince) {
		if m.given() {
			return settingErr(firstMMFlag(m), "", "%s: not modelled for %s (membudget sizes the encoder cache from vLLM %s, whose cache counts an item's embeddings, PR #30475); membudget refuses it rather than size a serve vLLM would contradict",
				whatMm, p.Describes, mmSince)
		}
		// No multimodal flag given: every tower is built.
		if err := r.qwenTowerDivides(a, 0); err != nil {
			return err
		}
		r.Encoder = EncoderProfile{Runs: true, Why: fmt.Sprintf("not modelled for %s (from vLLM %s)", p.Describes, mmSince)}
		return nil
	}
	switch m.EncoderTPMode {
	case "", "weights":
	case "data":
		// A model that does not support it falls back to weights
		// (encoderTPLine says so).
		if encoderDataParallel(a, m) {
			for i := range r.Stages {
				r.Stages[i].TowerWhole = true
			}
		}
	default:
		return settingErr("mm-encoder-tp-mode", m.EncoderTPMode, "vLLM takes weights or data (vllm/config/multimodal.py MMEncoderTPMode)")
	}
	gb := 4.0
	if m.ProcessorCacheSet {
		gb = m.ProcessorCacheGB
		if math.IsNaN(gb) || gb < 0 || gb > maxGiBSetting {
			return settingErr("mm-processor-cache-gb", gb, "want a size in GiB, 0 or more (vLLM: ge=0)")
		}
	}
	if m.LanguageModelOnly && p.Release.Less(langOnlySince) {
		// The command line says so first (the flag table); a library
		// caller hears it here.
		return settingErr("language-model-only", "", "not a flag of %s: vLLM %s added it (PR #34120, merged 2026-02-09, after 0.15.0's branch), and an older vLLM stops at an unrecognized argument", p.Describes, langOnlySince)
	}
	limits, err := mmLimits(m.LimitPerPrompt, p)
	if err != nil {
		return err
	}
	if m.LanguageModelOnly {
		limits = languageOnlyLimits(a.Vision.Kind)
	}
	off, err := r.towersOff(a, limits)
	if err != nil {
		return err
	}
	for i := range r.Stages {
		r.Stages[i].TowersOff = off
	}
	if err := r.qwenTowerDivides(a, off); err != nil {
		return err
	}
	kind := a.Vision.Kind
	tower, known := mmTowers[kind]
	kw, err := mmProcessorKwargs(m.ProcessorKwargs, kind, tower, p)
	if err != nil {
		return err
	}
	limit := func(mod string) uint64 {
		n := givenLimit(limits, mod)
		if most, ok := mmSupported[kind][mod]; ok {
			// allowed_mm_limits: the model's own limit caps the user's
			// (vllm/multimodal/processing/context.py:420-434).
			n = min(n, most)
		}
		return n
	}
	textOnly := known && len(tower.modalities) > 0
	for _, mod := range tower.modalities {
		textOnly = textOnly && limit(mod) == 0
	}
	// No tower built: nothing for the profile to run.
	textOnly = textOnly || everyTowerOff(kind, off)
	if textOnly {
		// "All limits of multimodal modalities supported by the model are
		// set to 0, running in text-only mode" (vllm/multimodal/
		// registry.py:131-145): no encoder profile, no processor cache.
		r.Encoder = EncoderProfile{TextOnly: true, Why: "every modality's limit is 0: vLLM serves the model as text only"}
		if m.LanguageModelOnly {
			r.Encoder.Why = "--language-model-only: " + r.Encoder.Why
		}
		return nil
	}
	if gb > 0 {
		// The engine process's receiver cache keeps the items' data up to
		// the size (vllm/multimodal/cache.py:680-697); the API server's
		// sender keeps their metadata alone (:410-430).
		r.MMHostBytes = uint64(gb * (1 << 30))
	}
	e := EncoderProfile{Runs: true, EveryStage: !r.onV2Runner(a)}
	switch {
	case m.SkipProfiling:
		e = EncoderProfile{Why: "--skip-mm-profiling: the profile run leaves the encoder and its cache out (the encoder's memory at serving time is not charged, as vLLM does not)"}
	case r.onV2Runner(a) && p.Release.Less(mmV2Since):
		e = EncoderProfile{Why: fmt.Sprintf("%s runs the model on its V2 runner, whose encoder profiling came with PR #47985 (2026-07-21): whether this release has it is not known, so its cache is not charged", p.Describes)}
	case r.Runner == runnerPooling && !r.poolingChunks(a):
		e.Why = poolingEncoderWhy
	case !known || tower.items == nil:
		e.Why = cmp.Or(tower.why, "the "+kind+" tower's largest item is not sized")
	case kind == "qwen3_vl" && limit("video") > 0 && p.Release.Less(qwen3VideoSince):
		e.Why = qwen3VideoBefore
	default:
		items, err := tower.items(a.Vision, r.MaxModelLen, kw, limit)
		if why, ok := err.(notSized); ok {
			e.Why = string(why)
			break
		}
		if err != nil {
			return err
		}
		if len(items) == 0 {
			e.Why = cmp.Or(tower.unsized, "the largest image's tokens come from the checkpoint's preprocessor_config.json (max_pixels), which membudget does not read: --mm-processor-kwargs '{\"max_pixels\": N}' sizes them")
			break
		}
		r.sizeEncoderCache(a, items, limit, &e)
		if e.Sized {
			e.Basis = cmp.Or(processorBasis(kind, a.Vision, kw, e.Modality), mmBases[kind])
		}
	}
	r.Encoder = e
	r.EncoderPass = sizeEncoderPass(a, r, e)
	return nil
}

// sizeEncoderCache sets e from the largest items of the modalities whose
// limit is above 0, as MultiModalBudget does (vllm/multimodal/
// encoder_budget.py:47-192): the budget is max(max_num_batched_tokens,
// the largest item) (compute_mm_encoder_budget, encoder_cache_manager.py:
// 280-325, with SchedulerConfig's encoder budgets at max_num_batched_tokens,
// vllm/config/scheduler.py:238-239); the dummy items are of the modality
// of the most tokens (ties to the later name, get_modality_with_max_tokens),
// max(1, min(budget / T, max_num_seqs x max(1, min(limit, max_model_len /
// T)))) of them (_get_max_items, chunked prefill on); their outputs stay
// in the encoder cache through the decoder's dummy run
// (gpu_model_runner.py:6582-6596).
func (r *Resolved) sizeEncoderCache(a *model.Arch, items []mmItem, limit func(string) uint64, e *EncoderProfile) {
	var best mmItem
	for _, it := range items {
		if limit(it.modality) == 0 || it.tokens == 0 {
			continue
		}
		if it.tokens > best.tokens || it.tokens == best.tokens && it.modality > best.modality {
			best = it
		}
	}
	if best.tokens == 0 {
		e.Runs, e.Why = false, "every modality the tower takes has limit 0"
		return
	}
	t := best.tokens
	e.Sized, e.Modality, e.TokensPerItem = true, best.modality, t
	e.Budget = max(r.MaxNumBatchedTokens, t)
	perPrompt := max(1, min(limit(best.modality), r.MaxModelLen/t))
	e.Items = max(1, min(e.Budget/t, budget.SatMul(r.MaxNumSeqs, perPrompt)))
	// Qwen3-VL's tower returns each token's deepstack features beside it,
	// and the cache keeps them (qwen3_vl.py:863-881, 1819-1820).
	width := budget.SatMul(cmp.Or(a.Vision.OutHidden, a.Hidden), 1+a.Vision.Deepstack)
	held := e.Items
	if encoderGathered(a, r.MM) {
		// Data mode: the outputs the cache keeps are views of the
		// all-gather's buffer, every rank's share padded to rank 0's
		// ceil(K / TP) items (run_dp_sharded_mrope_vision_model,
		// vision.py:397-584: max_len_per_rank rows a rank).
		tp := max(r.TensorParallelSize, 1)
		held = budget.SatMul(budget.CeilDiv(e.Items, tp), tp)
	}
	if held > e.Items {
		e.HeldItems = held
	}
	e.CacheBytes = budget.SatMul(budget.SatMul(held, t), budget.SatMul(width, r.DtypeBytes))
}

// firstMMFlag is the first multimodal flag m sets, for a refusal.
func firstMMFlag(m MM) string {
	switch {
	case m.LanguageModelOnly:
		return "language-model-only"
	case m.LimitPerPrompt != "":
		return "limit-mm-per-prompt"
	case m.SkipProfiling:
		return "skip-mm-profiling"
	case m.EncoderTPMode != "" && m.EncoderTPMode != "weights":
		return "mm-encoder-tp-mode"
	case m.ProcessorCacheSet:
		return "mm-processor-cache-gb"
	}
	return "mm-processor-kwargs"
}

// appendEncoderItems appends the encoder cache the profile run keeps on a
// stage to its activation peak.
func appendEncoderItems(items []budget.Item, r *Resolved, st model.Sharding) []budget.Item {
	if !st.First && !r.Encoder.EveryStage || !r.Encoder.Sized || r.Encoder.CacheBytes == 0 {
		return items
	}
	return append(items, budget.Item{Name: "encoder_cache", Term: budget.TermActivation, Bytes: r.Encoder.CacheBytes})
}

// mmFlags are the flags registerMM registers: a request that names one
// registers them all.
var mmFlags = []string{"limit-mm-per-prompt", "skip-mm-profiling", "mm-encoder-tp-mode", "mm-processor-cache-gb", "mm-processor-kwargs"}

// registerMM registers the multimodal flags that size a serve into m.
func registerMM(fs *flag.FlagSet, m *MM) {
	fs.Var(&jsonFlag{&m.LimitPerPrompt, "limit-mm-per-prompt"}, "limit-mm-per-prompt", `vLLM's --limit-mm-per-prompt, JSON: items a prompt takes by modality ({"image": 0, "video": 0}: text only; default 999 each)`)
	fs.BoolVar(&m.SkipProfiling, "skip-mm-profiling", false, "vLLM's --skip-mm-profiling: the profile run without the encoder pass and its cache")
	fs.StringVar(&m.EncoderTPMode, "mm-encoder-tp-mode", "", "vLLM's --mm-encoder-tp-mode: weights (default) or data: the vision tower whole on every GPU, each encoding its share of the items (a model that does not support it falls back to weights, as vLLM does)")
	fs.Var(&mmCacheFlag{m}, "mm-processor-cache-gb", "vLLM's --mm-processor-cache-gb: the processor cache in host memory, GiB (default 4; counted on unified devices)")
	fs.Var(&jsonFlag{&m.ProcessorKwargs, "mm-processor-kwargs"}, "mm-processor-kwargs", `vLLM's --mm-processor-kwargs, JSON: the Qwen towers' max_pixels and min_pixels (over the checkpoint's preprocessor_config.json), GLM-4.xV's max_pixels and Phi-4-multimodal's dynamic_hd size the largest item; other keys are refused`)
}

// jsonFlag is a flag whose value is a JSON object, kept as given: it is
// read when the serve is resolved, so that a release that does not size
// the flag refuses it by name before its value is judged.
type jsonFlag struct {
	v    *string
	name string
}

func (f *jsonFlag) String() string {
	if f.v == nil {
		return ""
	}
	return *f.v
}

func (f *jsonFlag) Set(s string) error {
	*f.v = strings.TrimSpace(s)
	return nil
}

// mmCacheFlag is --mm-processor-cache-gb: argparse's float.
type mmCacheFlag struct{ m *MM }

func (f *mmCacheFlag) String() string {
	if f.m == nil || !f.m.ProcessorCacheSet {
		return ""
	}
	return strconv.FormatFloat(f.m.ProcessorCacheGB, 'f', -1, 64)
}

func (f *mmCacheFlag) Set(s string) error {
	v, err := pyfloat.Parse(s)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("want a size in GiB, 0 or more, got %q", s)
	}
	f.m.ProcessorCacheGB, f.m.ProcessorCacheSet = v, true
	return nil
}

// writeMMFlags writes the multimodal flags of a serve to a launch line, as
// given.
func writeMMFlags(b *strings.Builder, m MM) {
	str := func(name, v string) {
		b.WriteString(" --")
		b.WriteString(name)
		b.WriteByte(' ')
		b.WriteString(v)
	}
	if m.LimitPerPrompt != "" {
		str("limit-mm-per-prompt", shell.Quote(m.LimitPerPrompt))
	}
	if m.SkipProfiling {
		b.WriteString(" --skip-mm-profiling")
	}
	if m.EncoderTPMode != "" {
		str("mm-encoder-tp-mode", shell.Quote(m.EncoderTPMode))
	}
	if m.ProcessorCacheSet {
		str("mm-processor-cache-gb", strconv.FormatFloat(m.ProcessorCacheGB, 'f', -1, 64))
	}
	if m.ProcessorKwargs != "" {
		str("mm-processor-kwargs", shell.Quote(m.ProcessorKwargs))
	}
	if m.LanguageModelOnly {
		b.WriteString(" --language-model-only")
	}
}

// mmJSON is the serve's encoder profile: the report's
// "serve"."multimodal".
type mmJSON struct {
	LimitPerPrompt  string `json:"limit_mm_per_prompt,omitempty"`
	SkipProfiling   bool   `json:"skip_mm_profiling"`
	ProcessorKwargs string `json:"mm_processor_kwargs,omitempty"`
	// Profiled says the profile run passes the encoder; Sized that its
	// cache is charged; NotSized why not.
	Profiled bool   `json:"encoder_profiled"`
	Sized    bool   `json:"encoder_cache_sized"`
	NotSized string `json:"not_sized,omitempty"`
	Modality string `json:"modality,omitempty"`
	// Basis is what the item's tokens rest on beyond the config.
	Basis string `json:"basis,omitempty"`
	// TokensPerItem, BudgetTokens and Items are what vLLM logs; CacheBytes
	// the cached outputs on a GPU of the first stage.
	TokensPerItem uint64 `json:"max_tokens_per_mm_item,omitempty"`
	BudgetTokens  uint64 `json:"encoder_cache_budget_tokens,omitempty"`
	Items         uint64 `json:"profiled_items,omitempty"`
	CacheBytes    uint64 `json:"encoder_cache_bytes"`
	// ProcessorCacheBytes is the processor cache in host memory.
	ProcessorCacheBytes uint64 `json:"processor_cache_bytes"`
	// PassSized says the encoder pass is charged (PassNotSized why not);
	// PassPatches and PassPeakBytes are the dummy batch's patches and the
	// pass's torch peak on a GPU of the first stage, PassBytes what it
	// adds to the activation peak there (0 where the decoder's run with
	// the cache is the larger).
	PassSized     bool   `json:"encoder_pass_sized"`
	PassNotSized  string `json:"encoder_pass_not_sized,omitempty"`
	PassPatches   uint64 `json:"encoder_pass_patches,omitempty"`
	PassPeakBytes uint64 `json:"encoder_pass_peak_bytes"`
	PassBytes     uint64 `json:"encoder_pass_bytes"`
	// LanguageModelOnly is --language-model-only: no tower built, no
	// encoder profile.
	LanguageModelOnly bool `json:"language_model_only,omitempty"`
	// EncoderTPMode is the --mm-encoder-tp-mode vLLM runs the tower in,
	// weights or data (data given to a model that does not support it
	// falls back to weights); TowerReplicated says the tower's weights
	// are whole on every GPU of a TP above 1 (data mode), and
	// PassItems is the dummy items a GPU encodes.
	EncoderTPMode   string `json:"mm_encoder_tp_mode"`
	TowerReplicated bool   `json:"tower_replicated"`
	PassItems       uint64 `json:"encoder_pass_items,omitempty"`
}

// mmJSON is the sizing's multimodal part for the report, nil for a
// text model.
func (sz *Sizing) mmJSON() *mmJSON {
	r := sz.Serve
	if sz.Model.Arch == nil || sz.Model.Arch.Vision == nil {
		return nil
	}
	e := r.Encoder
	j := &mmJSON{LimitPerPrompt: r.MM.LimitPerPrompt, SkipProfiling: r.MM.SkipProfiling, ProcessorKwargs: r.MM.ProcessorKwargs,
		Profiled: e.Runs, Sized: e.Sized, NotSized: e.Why, Modality: e.Modality, Basis: e.Basis, TokensPerItem: e.TokensPerItem,
		BudgetTokens: e.Budget, Items: e.Items, CacheBytes: e.CacheBytes, ProcessorCacheBytes: r.MMHostBytes,
		PassSized: r.EncoderPass.Sized, PassNotSized: r.EncoderPass.Why, PassPatches: r.EncoderPass.Patches, PassPeakBytes: r.EncoderPass.PeakBytes}
	j.PassBytes, _ = sz.encoderPassBytes(0)
	j.LanguageModelOnly = r.MM.LanguageModelOnly
	j.EncoderTPMode = "weights"
	if encoderDataParallel(sz.Model.Arch, r.MM) {
		j.EncoderTPMode = "data"
		j.TowerReplicated = r.towerReplicated()
	}
	j.PassItems = r.EncoderPass.Items
	return j
}

// encoderTPLine is the report's line on --mm-encoder-tp-mode data, ""
// without it: the tower whole on every GPU and what that adds, or vLLM's
// fallback to weights.
func (sz *Sizing) encoderTPLine() string {
	a, r := sz.Model.Arch, sz.Serve
	if r.MM.EncoderTPMode != "data" || a == nil || a.Vision == nil {
		return ""
	}
	rule, ok := encoderDPTowers[a.Vision.Kind]
	switch {
	case !ok:
		return fmt.Sprintf("vision tower: --mm-encoder-tp-mode data: %s does not support it, and vLLM falls back to weights with a warning (\"This model does not support `--mm-encoder-tp-mode data`\", vllm/config/model.py:766-774): sized as weights mode", configArch(a))
	case r.TensorParallelSize <= 1:
		return "vision tower: --mm-encoder-tp-mode data at TP 1: the tower's weights as in weights mode; its items still go through the data-parallel path (" + rule.class + ")"
	case !r.towerReplicated():
		return "" // the tower is not built: towersLine says so
	}
	st := stageOf(r, 0)
	whole := budget.ItemBytes(model.RankWeights(a, st))
	st.TowerWhole = false
	more := budget.SatSub(whole, budget.ItemBytes(model.RankWeights(a, st)))
	what := "its weights"
	if a.Vision.Kind == "llama4" {
		what = "its weights, the projector's linear_1 apart (mllama4.py:172-179),"
	}
	return fmt.Sprintf("vision tower: --mm-encoder-tp-mode data: %s whole on every GPU of the first stage, replicated rather than divided among the %d TP ranks (%s, disable_tp): %s more a GPU than weights mode; each GPU encodes its share of the profile's items",
		what, r.TensorParallelSize, rule.class, engine.GiB(more))
}

// qwenTowerDivides refuses a --tensor-parallel-size that does not divide
// a built Qwen-VL tower's heads or MLP width in weights mode, as vLLM
// asserts it: the attention divides its heads (dist_utils.divide,
// qwen2_5_vl.py:364-369, qwen2_vl.py:288-300; Qwen3-VL's block is
// Qwen2.5-VL's attention), the MLP's Merged/ColumnParallelLinear its
// width (linear.py:461-466, 683). Qwen2.5-VL-3B's and -7B's 3420-wide MLP
// does not divide by 8. Data mode builds the tower at TP 1 and divides
// nothing.
func (r *Resolved) qwenTowerDivides(a *model.Arch, off model.Modalities) error {
	v, tp := a.Vision, r.TensorParallelSize
	switch {
	case tp <= 1 || off&model.ImageInput != 0 || encoderDataParallel(a, r.MM):
		return nil
	case v.Kind != "qwen2_vl" && v.Kind != "qwen2_5_vl" && v.Kind != "qwen3_vl":
		return nil
	case v.Heads%tp != 0:
		return settingErr("tensor-parallel-size", tp, "vLLM asserts it: it does not divide the %d attention heads of %s's vision tower (dist_utils.divide, qwen2_5_vl.py:364-369); --mm-encoder-tp-mode data (vLLM 0.10.0 on) keeps the tower whole on every GPU instead", v.Heads, configArch(a))
	case v.Intermediate%tp != 0:
		return settingErr("tensor-parallel-size", tp, "vLLM asserts it: it does not divide the %d-wide MLP of %s's vision tower (linear.py:461-466, 683); --mm-encoder-tp-mode data (vLLM 0.10.0 on) keeps the tower whole on every GPU instead", v.Intermediate, configArch(a))
	}
	return nil
}

// towerReplicated says the serve's first stage holds its vision tower
// whole on each of its TP ranks: data mode above TP 1, the tower built.
func (r *Resolved) towerReplicated() bool {
	return r.TensorParallelSize > 1 && len(r.Stages) > 0 && r.Stages[0].TowerWhole && r.Stages[0].TowersOff&model.ImageInput == 0
}

// splitEncoderCache names the encoder cache in a footprint's lines: the
// activation peak without it, then it.
func (sz *Sizing) splitEncoderCache(lines []engine.FootprintLine, fp budget.Footprint) []engine.FootprintLine {
	e := sz.Serve.Encoder
	if !e.Sized || fp.Stage != 0 && !e.EveryStage {
		return lines
	}
	return splitOut(lines, budget.TermActivation, "encoder cache", e.CacheBytes)
}

// mmSettings are the lines a report prints of a multimodal serve: the
// encoder profile as vLLM logs it, what is not sized, and the processor
// cache.
func (sz *Sizing) mmSettings() []string {
	if sz.Model.Arch == nil || sz.Model.Arch.Vision == nil {
		return nil
	}
	r := sz.Serve
	e := r.Encoder
	var out []string
	if l := r.towersLine(sz.Model.Arch); l != "" {
		out = append(out, l)
	}
	if l := sz.encoderTPLine(); l != "" {
		out = append(out, l)
	}
	switch {
	case e.Sized:
		where := "the first stage's GPUs"
		if e.EveryStage {
			where = "every GPU"
		}
		held := ""
		if e.HeldItems > e.Items {
			held = fmt.Sprintf(" (the all-gather's rows of %d items under --mm-encoder-tp-mode data, which the outputs are views of)", e.HeldItems)
		}
		out = append(out, fmt.Sprintf("encoder cache: a budget of %d tokens, profiled with %d %s items of %d tokens (max_tokens_per_mm_item), whose outputs the profile keeps: %s on %s%s",
			e.Budget, e.Items, e.Modality, e.TokensPerItem, engine.GiB(e.CacheBytes), where, held))
		if e.Basis != "" {
			out = append(out, "encoder cache: "+e.Basis)
		}
	case e.Runs:
		out = append(out, "encoder cache: not sized ("+e.Why+"): vLLM's profile run charges it, and its KV cache comes out smaller than this report says")
	default:
		out = append(out, "encoder: "+e.Why)
	}
	if e.Runs {
		out = append(out, sz.encoderPassLine())
	}
	if r.MMHostBytes > 0 {
		where := "host memory, not the GPU's"
		if sz.Class.Memory.Unified {
			where = "on this unified device, the GPU's memory: counted"
		}
		out = append(out, fmt.Sprintf("multimodal processor cache: up to %s in the engine process (%s)", engine.GiB(r.MMHostBytes), where))
	}
	return out
}

// mmRefusal says a setting error refuses the serve's multimodal flags
// whatever its layout: a refusal of --mm-encoder-tp-mode data depends on
// the TP size.
func mmRefusal(se *engine.SettingError) bool {
	switch se.Flag {
	case "limit-mm-per-prompt", "language-model-only", "skip-mm-profiling", "mm-processor-cache-gb", "mm-processor-kwargs":
		return true
	}
	return false
}

// mmFlag says flag is one of the multimodal flags.
func mmFlag(flag string) bool { return slices.Contains(mmFlags, flag) }

// dropUnsizedMM leaves a log's multimodal settings out of the serve where
// membudget does not read them for a under p (a text model, a release
// before mmSince), so that the log is still explained; for a multimodal
// model with a warning that the encoder cache is left out. Flags given on
// the command line stay, and are refused by name as a serve's are.
func (ls *loggedServe) dropUnsizedMM(a *model.Arch, p Profile) {
	vision := a != nil && a.Vision != nil
	if vision && p.Era == V1 && !p.Release.Less(mmSince) {
		return
	}
	var dropped []string
	for _, flag := range mmFlags {
		if from, ok := ls.From[flag]; !ok || from.Source != explain.FromLogged {
			continue
		}
		delete(ls.From, flag)
		dropped = append(dropped, "--"+flag)
		m := &ls.Serve.MM
		switch flag {
		case "limit-mm-per-prompt":
			m.LimitPerPrompt = ""
		case "skip-mm-profiling":
			m.SkipProfiling = false
		case "mm-encoder-tp-mode":
			m.EncoderTPMode = ""
		case "mm-processor-cache-gb":
			m.ProcessorCacheGB, m.ProcessorCacheSet = 0, false
		case "mm-processor-kwargs":
			m.ProcessorKwargs = ""
		}
	}
	if vision && len(dropped) > 0 {
		ls.Warnings = append(ls.Warnings, fmt.Sprintf("the log's multimodal settings (%s) are read from vLLM %s only: its predictions leave the encoder cache out", strings.Join(dropped, ", "), mmSince))
	}
}
