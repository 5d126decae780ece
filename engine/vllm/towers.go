package vllm

import (
	"slices"
	"strings"

	"membudget/model"
)

// This file decides which of a multimodal model's towers vLLM does not
// build: a tower whose every modality --limit-mm-per-prompt limits to 0
// items. From 0.15.0 every model file builds its towers inside
// _mark_tower_model (vllm/model_executor/models/interfaces.py:296-333 at
// d18bb7b), which replaces them with StageMissingLayer when
// all(get_limit_per_prompt(m) == 0 for m in modalities); a modality the
// flag does not name counts 999 (vllm/config/multimodal.py:487-501), and
// the model's own cap on a modality (allowed_mm_limits) plays no part.

// towersSkippedSince is the first release whose every multimodal model
// skips a tower so limited: the context managers came with PR #32605
// (Qwen, LLaVA, Mistral 3, Pixtral, Llama 4), #32641 (Gemma 3, Gemma 3n,
// GLM-4.xV), #32650 (InternVL, LLaVA-NeXT, -NeXT-Video, -OneVision),
// #32663 (PaliGemma, Phi-4-multimodal), all merged 2026-01-20, and #32757
// (Idefics3 and SmolVLM, 2026-01-22), after 0.14's branch: the flags of
// 2026-01-20 on are 0.15.0's.
var towersSkippedSince = v0_15_0

// towerSet is one tower of a model as vLLM's model file marks it: the
// modalities _mark_tower_model is given, and the tower they stand for in
// [model.Sharding].TowersOff.
type towerSet struct {
	bit        model.Modalities
	modalities []string
}

// visionOf is a vision tower of the modalities given.
func visionOf(modalities ...string) []towerSet {
	return []towerSet{{model.ImageInput, modalities}}
}

// modelTowers are the towers of each [model.VisionTower] Kind, as the
// model files at d18bb7b mark them.
var modelTowers = map[string][]towerSet{
	"siglip":    visionOf("image"),          // gemma3_mm.py:520-526
	"paligemma": visionOf("image"),          // paligemma.py:295-304
	"llama4":    visionOf("image"),          // mllama4.py:765-777
	"pixtral":   visionOf("image"),          // mistral3.py:420-436
	"idefics3":  visionOf("image"),          // idefics3.py:523-527 (SmolVLM's class is Idefics3's)
	"moonvit":   visionOf("vision_chunk"),   // kimi_k25.py:357-378
	"glm4v":     visionOf("image", "video"), // glm4_1v.py:1805-1812
	"gemma4":    visionOf("image", "video"), // gemma4_mm.py:1065-1078 (its audio tower, E2B's and E4B's, is not sized)
	// InternVL's tower takes video too, whether or not the tokenizer
	// lets the model serve it (internvl.py:586-592).
	"intern_vit": visionOf("image", "video"),
	// LLaVA's and LLaVA-NeXT's tower and projector (llava.py:560-574,
	// llava_next.py:276-293).
	"clip":          visionOf("image"),
	"llava_siglip":  visionOf("image"),
	"llava_pixtral": visionOf("image"),
	// LLaVA-NeXT-Video's tower serves video alone
	// (llava_next_video.py:349-363); LLaVA-OneVision's both
	// (llava_onevision.py:511-522).
	"llava_next_video": visionOf("video"),
	"llava_onevision":  visionOf("image", "video"),
	// Qwen2-VL, Qwen2.5-VL, Qwen3-VL (and its MoE, and Qwen3.5):
	// qwen2_vl.py:1294-1301, qwen2_5_vl.py:1361-1368, qwen3_vl.py:1803-1809,
	// qwen3_vl_moe.py:248-254, qwen3_5.py:495-501, 714-720.
	"qwen2_vl":   visionOf("image", "video"),
	"qwen2_5_vl": visionOf("image", "video"),
	"qwen3_vl":   visionOf("image", "video"),
	// Phi-4-multimodal's image encoder is marked for images and video,
	// which it does not take: {"image": 0} alone leaves it built
	// (phi4mm.py:1039-1058).
	"phi4mm":      {{model.ImageInput, []string{"image", "video"}}, {model.AudioInput, []string{"audio"}}},
	"mobilenetv5": {{model.ImageInput, []string{"image"}}, {model.AudioInput, []string{"audio"}}}, // gemma3n_mm.py:560-570
}

// kimiTowersSince is the first release whose Kimi-K2.5 marks its tower:
// the model came with PR #33131 (2026-01-26) building it unconditionally,
// and PR #33346 (2026-01-30) put it in _mark_tower_model, after 0.15.0's
// branch, whose Kimi-K2.5 fixes were backported (#33320).
var kimiTowersSince = Version{0, 16, 0}

// skippedBefore015 are the architectures whose model file skipped its
// tower at limit 0 before 0.15.0, each with its own test of the limits
// (the same as _mark_tower_model's): PR #14417 (2025-03-07: Qwen2-VL,
// Pixtral), #22299 (2025-08-08: LLaVA, Mistral 3, Llama 4, Qwen2.5-VL)
// and #26000 (2025-09-30: Qwen3-VL and its MoE), as the files stood on
// 2026-01-19 (llava.py:554, mistral3.py:461, mllama4.py:776,
// pixtral.py:407, qwen2_vl.py:1236-1238). Every other model file of
// then built its towers whatever the limits; LLaVA-NeXT's, whose kinds
// LLaVA shares, among them.
var skippedBefore015 = []string{
	"LlavaForConditionalGeneration", "Mistral3ForConditionalGeneration", "Llama4ForConditionalGeneration",
	"PixtralForConditionalGeneration", "Qwen2VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration",
	"Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration",
}

// towersOff is the towers of a that vLLM does not build under the serve's
// --limit-mm-per-prompt, as mmLimits parsed it into limits: those whose
// every modality is limited to 0, in a release whose model file skips
// them. Where whether the release's file skips them is not known, a serve
// that limits them so is refused naming the flag.
func (r *Resolved) towersOff(a *model.Arch, limits map[string]uint64) (model.Modalities, error) {
	if a.Vision == nil || len(limits) == 0 {
		return 0, nil
	}
	var off model.Modalities
	for _, t := range modelTowers[a.Vision.Kind] {
		zero := true
		for _, m := range t.modalities {
			zero = zero && givenLimit(limits, m) == 0
		}
		if zero {
			off |= t.bit
		}
	}
	if off == 0 {
		return 0, nil
	}
	p := r.Profile
	switch {
	case a.Vision.Kind == "moonvit" && p.Release.Less(kimiTowersSince) && p.TowersSkipped:
		// --language-model-only is refused before kimiTowersSince already
		// (langOnlySince, resolveMM): only the limits get here.
		return 0, settingErr("limit-mm-per-prompt", r.MM.LimitPerPrompt, "vision_chunk at 0: not modelled for %s, where whether Kimi-K2.5's tower is built is not known (from vLLM %s, PR #33346, it is not)", p.Describes, kimiTowersSince)
	case p.TowersSkipped:
		return off, nil
	case len(a.Architectures) > 0 && slices.Contains(skippedBefore015, a.Architectures[0]):
		return off, nil
	}
	// The release's model file builds the towers whatever the limits:
	// they stay charged.
	return 0, nil
}

// langOnlySince is the first release with --language-model-only: PR
// #34120 merged 2026-02-09, after 0.15.0's branch was cut (PR #33346 of
// 2026-01-30 is not in it either, see kimiTowersSince).
var langOnlySince = Version{0, 16, 0}

// languageOnlyLimits is what --language-model-only makes of the limits of
// a model of kind: every modality 0. vLLM's get_limit_per_prompt returns 0
// for any modality under it, before it reads --limit-mm-per-prompt
// (vllm/config/multimodal.py:492-493 at d18bb7b; so since the flag came,
// PR #34120, 2026-02-09), which _mark_tower_model and the profile's
// text-only test both ask: the map names every modality membudget asks
// after for the kind (its towers' marks and its processor's modalities),
// each 0, so that none falls back to the 999 of an unnamed one.
func languageOnlyLimits(kind string) map[string]uint64 {
	limits := map[string]uint64{}
	for _, t := range modelTowers[kind] {
		for _, m := range t.modalities {
			limits[m] = 0
		}
	}
	for _, m := range mmTowers[kind].modalities {
		limits[m] = 0
	}
	for m := range mmSupported[kind] {
		limits[m] = 0
	}
	return limits
}

// everyTowerOff says off holds every tower of a model of kind.
func everyTowerOff(kind string, off model.Modalities) bool {
	ts := modelTowers[kind]
	for _, t := range ts {
		if off&t.bit == 0 {
			return false
		}
	}
	return len(ts) > 0
}

// towersLine is the report's line of the towers vLLM does not build for
// the serve, "" when it builds them all.
func (r *Resolved) towersLine(a *model.Arch) string {
	if len(r.Stages) == 0 || r.Stages[0].TowersOff == 0 || a.Vision == nil {
		return ""
	}
	var off []string
	for _, t := range modelTowers[a.Vision.Kind] {
		if r.Stages[0].TowersOff&t.bit != 0 {
			name := "the vision tower and its projector"
			if t.bit == model.AudioInput {
				name = "the audio tower"
			}
			off = append(off, name+" ("+strings.Join(t.modalities, ", ")+" at 0)")
		}
	}
	if r.MM.LanguageModelOnly {
		return "towers not built: " + strings.Join(off, "; ") + ": --language-model-only sets every modality's limit to 0 (vllm/config/multimodal.py:492-493), and vLLM leaves out a tower whose every modality is limited to 0 (_mark_tower_model, interfaces.py:296-333): its weights are not charged"
	}
	return "towers not built: " + strings.Join(off, "; ") + ": vLLM leaves out a tower whose every modality --limit-mm-per-prompt limits to 0 (_mark_tower_model from 0.15.0, the model file's own test before), and its weights are not charged"
}
