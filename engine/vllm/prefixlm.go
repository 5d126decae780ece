package vllm

import (
	"fmt"

	"membudget/model"
)

// The batch floor of a multimodal prefix-LM model.
//
// PR #43051 (84e351555, merged 2026-05-22 21:23 PDT, "[Bugfix]
// Auto-raise max_num_batched_tokens for prefix-LM multimodal models")
// raises a defaulted max_num_batched_tokens to the tokens of the largest
// item of any modality the model takes, so that one item fits a batch
// (vllm/engine/arg_utils.py:2811-2826 at d18bb7b, "Raising
// max_num_batched_tokens from %d to %d to accommodate '%s' input for
// prefix-LM model"). It runs after the raise to max_model_len without
// chunked prefill and before PR #28665's cap at max_num_seqs x
// max_model_len, and leaves a given --max-num-batched-tokens alone.
//
// Which models: is_multimodal_model and is_mm_prefix_lm, and the floor
// is _get_min_mm_batched_tokens (arg_utils.py:2728-2758): the largest of
// the processor info's get_mm_max_tokens_per_item at one item a
// modality, or none when the model does not override that method (the
// base returns None, vllm/multimodal/processing/context.py:492-510). Of
// the prefix-LM models (model_arch_config_convertor.py:357-380: bagel,
// gemma3, molmo2, moondream3, paligemma, umm by model_type; Gemma 4 by
// text_config use_bidirectional_attention "vision", :695-701), Gemma 3
// and PaliGemma do not override it, so their batch is not raised; Gemma 4
// does (gemma4_mm.py:253-279): an image is default_output_length tokens
// (280 on the published checkpoints) or the max_soft_tokens processor
// kwarg (at most 1120, _SUPPORTED_SOFT_TOKENS, :103), a video
// _VIDEO_MAX_FRAMES 32 frames of _VIDEO_MAX_SOFT_TOKENS 70 tokens plus 2
// + 6 framing tokens (:104-105, 274-278), 2496 tokens, and an audio clip
// the processor's audio_seq_length where the config has an
// audio_config. The video is counted whatever --limit-mm-per-prompt
// says of it (the method reads only its num_frames option, which
// membudget refuses), so the floor is 2496 on a Gemma 4 checkpoint
// without audio: it lifts vLLM's 2048-token default (a device under 70
// GiB or an A100) and nothing above it. is_mm_prefix_lm is false when
// the serve takes no multimodal input (--language-model-only, or every
// limit 0: _supports_multimodal_for_mm_prefix, vllm/config/model.py:
// 862-900), and then the batch is not raised.
var (
	// prefixLMFloorSince is the first release surely holding PR #43051:
	// 0.23.0, cut on 2026-06-07 (v2oracle.go's cuts).
	prefixLMFloorSince = v0_23_0
	// prefixLMFloorDoubt is the release in doubt: 0.22.0's branch was cut
	// between 2026-05-22 and 06-02, and whether it holds the PR, merged
	// late on 05-22, is not read.
	prefixLMFloorDoubt = v0_22_0
)

// gemma4VideoItemTokens is Gemma 4's largest video item: 32 frames
// (_VIDEO_MAX_FRAMES, gemma4_mm.py:105 at d18bb7b) of 70 soft tokens
// (_VIDEO_MAX_SOFT_TOKENS, :104) plus a begin and an end token and about
// six timestamp tokens each (:274-278): 32 x (70 + 2 + 6) = 2496.
const gemma4VideoItemTokens = 32 * (70 + 2 + 6)

// prefixLMFloor applies PR #43051's floor to a defaulted batch (see the
// comment above): it raises r.MaxNumBatchedTokens to the largest item of
// a multimodal Gemma 4 from 0.23.0, and refuses the serve by name where
// the raise would apply but its size is not known (0.22.x, or an audio
// tower whose clip length membudget does not read).
func (r *Resolved) prefixLMFloor(a *model.Arch, def func(string, string)) error {
	v := a.Vision
	p := r.Profile
	if v == nil || v.Kind != "gemma4" || !v.BidirectionalVision || p.Era != V1 || p.Release.Less(prefixLMFloorDoubt) {
		return nil
	}
	if r.MaxNumBatchedTokens >= gemma4VideoItemTokens && !v.AudioConfig {
		return nil
	}
	if r.prefixLMTextOnly(a) {
		return nil
	}
	if v.AudioConfig {
		return settingErr("max-num-batched-tokens", "", "%s raises its default to one audio clip's tokens where that is larger than the video's %d (PR #43051; the clip is the processor's audio_seq_length, gemma4_mm.py:267-269, which membudget does not read): give --max-num-batched-tokens, which vLLM keeps", configArch(a), gemma4VideoItemTokens)
	}
	if p.Release.Less(prefixLMFloorSince) {
		return settingErr("max-num-batched-tokens", "", "%s may raise its default %d to %s's largest item, a video of %d tokens (PR #43051, merged 2026-05-22, which membudget does not place in or out of 0.22's branch, cut between 05-22 and 06-02); give --max-num-batched-tokens, which vLLM keeps, or size it with --vllm-version 0.23.0 or later", p.Describes, r.MaxNumBatchedTokens, configArch(a), gemma4VideoItemTokens)
	}
	def("max-num-batched-tokens", fmt.Sprintf("%d, one video of %s (32 frames x 78 tokens, gemma4_mm.py:253-279), above the default %d: vLLM raises the batch of a multimodal prefix-LM model to hold its largest item (vllm/engine/arg_utils.py:2811-2826, PR #43051)", gemma4VideoItemTokens, configArch(a), r.MaxNumBatchedTokens))
	r.MaxNumBatchedTokens = gemma4VideoItemTokens
	return nil
}

// prefixLMTextOnly says the serve takes no multimodal input, so that
// vLLM clears is_mm_prefix_lm: --language-model-only, or a limit of 0 for
// every modality the model takes (vllm/multimodal/registry.py:131-145).
// A --limit-mm-per-prompt that does not parse says false: resolveMM
// refuses it by name.
func (r *Resolved) prefixLMTextOnly(a *model.Arch) bool {
	if r.MM.LanguageModelOnly {
		return true
	}
	limits, err := mmLimits(r.MM.LimitPerPrompt, r.Profile)
	if err != nil {
		return false
	}
	mods := []string{"image", "video"}
	if a.Vision.AudioConfig {
		mods = append(mods, "audio")
	}
	for _, m := range mods {
		if givenLimit(limits, m) > 0 {
			return false
		}
	}
	return true
}
