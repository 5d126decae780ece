package vllm

import (
	"fmt"
	"math"

	"membudget/model"
)

// This file sizes the largest item of GLM-4.1V's and GLM-4.5V's tower
// (glm4v), Kimi-K2.5's MoonViT (moonvit), Mistral 3's Pixtral tower,
// LLaVA's and LLaVA-NeXT's CLIP and SigLIP towers and PaliGemma's, as
// vLLM main d18bb7b's profile finds it (vllm/multimodal/encoder_budget.py
// get_mm_max_toks_per_item: the processing info's
// get_mm_max_tokens_per_item, else the embeddings of a dummy item of each
// modality run through the checkpoint's processor), and says why the
// other towers' is not sized.

func init() {
	mmTowers["glm4v"] = mmTower{modalities: []string{"image", "video"}, kwargs: []string{"max_pixels"}, items: glm4vItems}
	mmTowers["moonvit"] = mmTower{modalities: []string{"vision_chunk"}, items: moonViTItems, unsized: moonViTWhy}
	// PaliGemma: SigLIP's (image_size / patch_size)^2 embeddings an
	// image (paligemma.py:90-103, siglip.py:261-277; the inserted bos is
	// not an embedding, :209-214).
	mmTowers["paligemma"] = mmTower{modalities: []string{"image"}, items: gemma3Items}
	// LLaVA's and LLaVA-NeXT's CLIP or SigLIP tower: the model's count an
	// image (llavaImageTokens, llavaNextImageTokens: the base image and,
	// for LLaVA-NeXT, the tiles of the largest grid pinpoint); notRead
	// where the model has none.
	mmTowers["clip"] = mmTower{modalities: []string{"image"}, items: gemma3Items, unsized: notRead}
	mmTowers["llava_siglip"] = mmTower{modalities: []string{"image"}, items: gemma3Items, unsized: notRead}
	mmTowers["pixtral"] = mmTower{modalities: []string{"image"}, items: pixtralItems}
	mmTowers["qwen3_vl"] = mmTower{modalities: []string{"image", "video"}, kwargs: []string{"max_pixels", "min_pixels"}, items: qwen3VLItems}
	// The towers whose largest item is not sized, each with why.
	mmTowers["llava_onevision"] = mmTower{modalities: []string{"image", "video"}, why: llavaOneVisionWhy}
	mmTowers["llava_next_video"] = mmTower{modalities: []string{"video"}, why: llavaNextVideoWhy}
	mmTowers["idefics3"] = mmTower{modalities: []string{"image"}, why: idefics3Why}
	mmTowers["intern_vit"] = mmTower{why: internVLWhy}
}

// mmSupported are the modalities a tower's model takes at most some items
// of in a prompt (get_supported_mm_limits; the others take any number):
// PaliGemma one image (paligemma.py:86-87), GLM-4.xV one video
// (glm4_1v.py:986-987), LLaVA-NeXT-Video one video
// (llava_next_video.py:90-91).
var mmSupported = map[string]map[string]uint64{
	"paligemma":        {"image": 1},
	"glm4v":            {"video": 1},
	"llava_next_video": {"video": 1},
}

// mmBases are what a tower's sized item rests on beyond the config and
// the serve (EncoderProfile.Basis).
var mmBases = map[string]string{"glm4v": glm4vBasis, "moonvit": moonViTBasis}

// Why the largest item of LLaVA-OneVision, LLaVA-NeXT-Video and
// Idefics3/SmolVLM is not sized.
const (
	llavaOneVisionWhy = "its largest image is the anyres_max tiling of image_grid_pinpoints with unpadding and its video the most frames that fit --max-model-len (llava_onevision.py get_image_size_with_most_features, get_num_frames_with_most_features), which membudget does not count yet"
	llavaNextVideoWhy = "its video is the most frames that fit --max-model-len, each pooled by spatial_pool_stride (llava_next_video.py get_num_frames_with_most_features), which membudget does not count yet"
	idefics3Why       = "its image splits into tiles of the processor's size.longest_edge and max_image_size (preprocessor_config.json), which membudget does not read"
)

// qwen3VLItems is Qwen3-VL's and Qwen3.5's largest image, as Qwen2-VL's
// (Qwen3VLProcessingInfo keeps Qwen2VLProcessingInfo's
// get_image_size_with_most_features, qwen2_vl.py:975-1011, and counts it
// with its own _get_vision_info, qwen3_vl.py:915-974: an image of
// max_pixels / (patch x merge)^2 merged patches under max_pixels is kept
// whole), and while video is taken its largest video (qwen3VideoTokens,
// from the checkpoint's video_preprocessor_config.json).
func qwen3VLItems(v *model.VisionTower, maxModelLen uint64, kw mmKwargs, limit func(string) uint64) ([]mmItem, error) {
	items, err := qwenVLItems(v, maxModelLen, kw, limit)
	if err != nil {
		return nil, err
	}
	image := items[0]
	if limit("video") == 0 {
		return []mmItem{image}, nil
	}
	video, err := qwen3VideoTokens(v, kw)
	if err != nil {
		return nil, err
	}
	return []mmItem{image, {"video", video}}, nil
}

// internVLWhy is why InternVL's largest item is not sized.
const internVLWhy = "whether it takes video, whose frames would be its largest item, depends on the tokenizer holding the context video token (internvl.py:348-390), which membudget does not read; its image's tiles (max_dynamic_patch, use_thumbnail) are not counted yet"

// glm4vUnsized is why GLM-4.1V's and GLM-4.5V's largest item is not
// sized while the serve takes video.
const glm4vUnsized = "the image alone is sized, from --mm-processor-kwargs' max_pixels or the checkpoint's preprocessor_config.json size.longest_edge; the largest video's tokens come from the frames vLLM's profile picks (glm4_1v.py:1180-1212) resized by the checkpoint's video_preprocessor_config.json, which membudget does not size: --limit-mm-per-prompt '{\"video\": 0}' sizes the image"

// glm4vBasis is what GLM's image rests on: the checkpoint's own
// longest_edge, which the processor resizes the dummy image to when it is
// below max_pixels.
const glm4vBasis = "the image's tokens are max_pixels' as given: the checkpoint's processor keeps that image while max_pixels is at most its size.longest_edge (GLM-OCR's published preprocessor_config.json: 9633792), and shrinks it to that above"

// glm4vDummySide is the side of the image vLLM's profile asks
// smart_resize to fit under max_pixels (get_image_size_with_most_features,
// glm4_1v.py:1143-1156: 9999999 x 9999999).
const glm4vDummySide = 9999999

// glm4vMinPixels is the fewest pixels (temporal_patch_size frames of
// height x width) the processor keeps: a smaller image is scaled up.
// smart_resize's min_pixels default is 112 x 112
// (transformers models/glm4v/image_processing_glm4v.py), as is
// Glm4vImageProcessor's size.shortest_edge there and in GLM-OCR's
// published preprocessor_config.json (12544).
const glm4vMinPixels = 112 * 112

// glm4vItems is GLM-4.1V's and GLM-4.5V's largest image: the side
// smart_resize gives the 9999999-pixel square under max_pixels
// (image_processing_glm4v.py smart_resize at temporal_patch_size frames:
// beta = sqrt(2 x 9999999^2 / max_pixels), side = floor(9999999 / beta /
// 28) x 28), (side / 28)^2 merged patches (_get_vision_info,
// glm4_1v.py:1063-1102). max_pixels is vLLM's override of the processor's
// size.longest_edge (_get_image_max_pixels, :1104-1126): the dummy image
// is that side, and the checkpoint's processor keeps it whenever
// max_pixels is at most its own longest_edge (9633792 in GLM-OCR's
// published preprocessor_config.json, smart_resize's default). The video
// is not sized: a serve that takes video has none (glm4vUnsized).
func glm4vItems(v *model.VisionTower, _ uint64, kw mmKwargs, limit func(string) uint64) ([]mmItem, error) {
	if limit("video") > 0 {
		return nil, notSized(glm4vUnsized)
	}
	maxPixels, err := glm4vMaxPixels(v, kw)
	if err != nil {
		return nil, err
	}
	if v.TemporalPatch != 2 {
		// vLLM passes the frames as temporal_patch_size to a smart_resize
		// whose temporal_factor stays 2 (glm4_1v.py:1077-1086).
		return nil, maxPixels.refuse("not sized for a GLM-4.xV tower of temporal_patch_size %d (the published towers have 2, which smart_resize's temporal factor assumes)", v.TemporalPatch)
	}
	factor := v.PatchSize * max(v.SpatialMerge, 1)
	side := glm4vImageSide(maxPixels.n, factor)
	if 2*side*side < glm4vMinPixels {
		return nil, maxPixels.refuse("leaves the largest image %d x %d pixels, below the processor's %d (two frames): not modelled (the processor scales it up)", side, side, glm4vMinPixels)
	}
	n := side / factor
	return []mmItem{{"image", n * n}}, nil
}

// glm4vNoProcessor is why GLM-4.xV's image is not sized: neither the
// serve nor the checkpoint's preprocessor_config.json gives max_pixels.
const glm4vNoProcessor = "the largest image's tokens come from max_pixels, which neither --mm-processor-kwargs nor a preprocessor_config.json's size.longest_edge beside config.json gives (a config.json alone, or a shipped model without its processor files): --mm-processor-kwargs '{\"max_pixels\": N}' sizes them"

// glm4vMaxPixels is the max_pixels vLLM's GLM-4.xV profile reads
// (_get_image_max_pixels, glm4_1v.py:1104-1126): --mm-processor-kwargs',
// else the image processor's size.longest_edge, which the checkpoint's
// processor then keeps the image under. A file whose size has no
// longest_edge, or that states the top-level min_pixels or max_pixels
// (which vLLM's read of the raw size passes over and the processor object
// may not), is not sized.
func glm4vMaxPixels(v *model.VisionTower, kw mmKwargs) (pixelArg, error) {
	if n, ok := kw["max_pixels"]; ok {
		return pixelArg{n: n, key: "max_pixels"}, nil
	}
	p := v.ImageProcessor
	if p == nil {
		return pixelArg{}, notSized(glm4vNoProcessor)
	}
	if err := p.Invalid1("size", "size.longest_edge"); err != nil {
		return pixelArg{}, err
	}
	switch {
	case p.MinPixels != 0 || p.MaxPixels != 0:
		return pixelArg{}, notSized(fmt.Sprintf("%s states min_pixels or max_pixels beside size, which vLLM's GLM-4.xV profile and transformers' processor may read apart: not sized (--mm-processor-kwargs '{\"max_pixels\": N}' sizes the image)", p.File))
	case p.LongestEdge == 0:
		return pixelArg{}, notSized(fmt.Sprintf("%s has no size.longest_edge, the max_pixels vLLM's GLM-4.xV profile reads: --mm-processor-kwargs '{\"max_pixels\": N}' sizes the image", p.File))
	}
	return pixelArg{n: p.LongestEdge, file: p.File, key: "size.longest_edge"}, nil
}

// glm4vImageSide is the side smart_resize gives the 9999999-pixel square
// of two frames under maxPixels, in factor steps and factor at least; it
// follows the float operations of transformers' smart_resize so that a
// side on a step's edge rounds as it does there.
func glm4vImageSide(maxPixels, factor uint64) uint64 {
	const s = glm4vDummySide
	beta := math.Sqrt(float64(2*s*s) / float64(maxPixels))
	side := uint64(math.Floor(float64(s)/beta/float64(factor))) * factor
	return max(factor, side)
}

// The processor Kimi-K2.5 is published with: media_proc_cfg in its
// preprocessor_config.json. The file itself is not in the material
// membudget was built from; these values are quoted alike, as the
// published checkpoint's, by several independent readers of it (an
// RTP-LLM wrapper's _DEFAULT_MEDIA_PROC_CFG "matching the ckpt-side
// outputs", prime-rl's KIMI_K25_DEFAULTS, a model table that notes
// Kimi-K2.6's file is byte-identical): in_patch_limit 16384,
// patch_limit_on_one_side 512, in_patch_limit_each_frame 4096,
// in_patch_limit_video and fixed_output_tokens null, patch_size 14,
// merge_kernel_size 2. vLLM builds the processor from the checkpoint alone
// (kimi_k25.py:119-168): --mm-processor-kwargs does not change them.
const (
	kimiK25InPatchLimit = 16384
	kimiK25SideLimit    = 512
	kimiK25FrameLimit   = 4096
	kimiK25Patch        = 14
	kimiK25Merge        = 2
)

// kimiK25DummySide is the side of the dummy image and of each frame of
// the dummy video chunk (MaxImageTokenMeta, kimi_k25.py:85-89).
const kimiK25DummySide = 3000

// moonViTItems is Kimi-K2.5's largest vision chunk (the one modality it
// takes, get_supported_mm_limits, kimi_k25.py:176-178): the dummy builder
// keeps the larger of a 3000 x 3000 image and a chunk of such frames
// (get_dummy_mm_items, :188-215), each counted by the processor's
// navit_resize (transformers_utils/processors/kimi_k25_vision_fused.py:
// 63-130): the image under in_patch_limit patches, the chunk's frames
// under in_patch_limit_each_frame, one frame's tokens for the chunk
// (its frames pooled in time). Every token of the placeholder is an
// embedding (_get_prompt_updates, :272-290).
func moonViTItems(v *model.VisionTower, _ uint64, _ mmKwargs, _ func(string) uint64) ([]mmItem, error) {
	if v.PatchSize != kimiK25Patch || v.SpatialMerge != kimiK25Merge {
		return nil, nil
	}
	image := navitTokens(kimiK25DummySide, kimiK25InPatchLimit)
	chunk := navitTokens(kimiK25DummySide, kimiK25FrameLimit)
	return []mmItem{{"vision_chunk", max(image, chunk)}}, nil
}

// navitTokens is navit_resize_image's tokens for a side x side image
// under limit patches: the scale min(1, sqrt(limit / (side / 14)^2),
// 512 x 14 / side), the scaled side truncated, padded up to the merged
// patch (28), then counted in merged patches.
func navitTokens(side, limit uint64) uint64 {
	patches := float64(side / kimiK25Patch)
	s1 := math.Sqrt(float64(limit) / (patches * patches))
	s2 := float64(kimiK25SideLimit*kimiK25Patch) / float64(side)
	scale := min(1.0, s1, s2)
	n := min(max(1, uint64(float64(side)*scale)), kimiK25SideLimit*kimiK25Patch)
	factor := uint64(kimiK25Merge * kimiK25Patch)
	tokens := (n + (factor-n%factor)%factor) / factor
	return tokens * tokens
}

// moonViTBasis is what Kimi-K2.5's item rests on: the published
// processor's limits, not in config.json.
const moonViTBasis = "the item's tokens are the published Kimi-K2.5 processor's (preprocessor_config.json media_proc_cfg: in_patch_limit 16384, patch_limit_on_one_side 512, in_patch_limit_each_frame 4096), which membudget does not read from the checkpoint: a checkpoint with other limits profiles another item"

// moonViTWhy is why a MoonViT tower's largest item is not sized.
const moonViTWhy = "its largest item's tokens come from the checkpoint's preprocessor_config.json (media_proc_cfg), which membudget does not read; it sizes the published Kimi-K2.5's processor (14-pixel patches, a 2 x 2 merge), which this tower's patch and merge are not"

// pixtralItems is Mistral 3's largest image: vision_config's image_size
// square (get_image_size_with_most_features, mistral3.py), in cells of
// patch_size x spatial_merge_size, ceil'd as transformers'
// _num_image_tokens does ((side - 1) / cell + 1 a side,
// image_processing_pixtral.py; PixtralHFEncoderInfo.get_patch_grid_size,
// pixtral.py:1110-1145); its break and end tokens are not embeddings
// (select_token_id, mistral3.py:284-303).
func pixtralItems(v *model.VisionTower, _ uint64, _ mmKwargs, _ func(string) uint64) ([]mmItem, error) {
	cell := v.PatchSize * max(v.SpatialMerge, 1)
	if cell == 0 || v.ImageSize == 0 {
		return nil, nil
	}
	n := (v.ImageSize-1)/cell + 1
	return []mmItem{{"image", n * n}}, nil
}
