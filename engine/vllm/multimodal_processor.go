package vllm

import (
	"fmt"
	"math"

	"membudget/budget"
	"membudget/model"
)

// This file reads a Qwen tower's largest item from the checkpoint's
// processor files (model.VisionTower ImageProcessor and VideoProcessor,
// the preprocessor_config.json and video_preprocessor_config.json the
// loader attaches) where the serve's --mm-processor-kwargs gives no
// max_pixels, as vLLM's profile does: its processing info reads the image
// processor's size, with --mm-processor-kwargs' min_pixels and max_pixels
// in place of shortest_edge and longest_edge (Qwen2VLProcessingInfo.
// _get_vision_info and get_image_size_with_most_features,
// vllm/model_executor/models/qwen2_vl.py:875-1011 at main d18bb7b; the
// same reads in Qwen3VLProcessingInfo._get_vision_info, qwen3_vl.py:
// 915-974), and Qwen3-VL's video processor's size and temporal_patch_size
// for its dummy video (get_max_video_tokens, qwen3_vl.py:990-1016).

// notSized is the reason a tower's items function gives for an item it
// does not size: not an error of the serve, the report says it.
type notSized string

func (n notSized) Error() string { return string(n) }

// pixelArg is a pixel count vLLM's processor reads and where it comes
// from: a --mm-processor-kwargs key (file "") or a processor file's key.
type pixelArg struct {
	n         uint64
	file, key string
}

// refuse is the error that the count, as given, is not sized: a setting
// error naming --mm-processor-kwargs' key, else one naming the file and
// its key.
func (a pixelArg) refuse(format string, args ...any) error {
	if a.file == "" {
		return settingErr("mm-processor-kwargs", a.key, "%d %s", a.n, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%s: %s %d: %s", a.file, a.key, a.n, fmt.Sprintf(format, args...))
}

// qwenNoProcessor is why a Qwen tower's image is not sized: neither the
// serve nor the checkpoint's files give its max_pixels.
const qwenNoProcessor = "the largest image's tokens come from max_pixels, which neither --mm-processor-kwargs nor an image processor file beside config.json (processor_config.json, preprocessor_config.json) gives (a config.json alone, or a shipped model without its processor files): --mm-processor-kwargs '{\"max_pixels\": N}' sizes them"

// qwenImagePixels returns the fewest and most pixels of an image under
// the Qwen tower v's processor: --mm-processor-kwargs' min_pixels and
// max_pixels where given, else the checkpoint's preprocessor_config.json
// as transformers' image processor builds it (model.Processor
// QwenImagePixels). lo.n is 0 where neither gives it; a notSized error
// where neither gives max_pixels.
func qwenImagePixels(v *model.VisionTower, kw mmKwargs) (lo, hi pixelArg, err error) {
	if n, ok := kw["max_pixels"]; ok {
		hi = pixelArg{n: n, key: "max_pixels"}
	}
	if n, ok := kw["min_pixels"]; ok {
		lo = pixelArg{n: n, key: "min_pixels"}
	}
	if p := v.ImageProcessor; p != nil {
		fileLo, fileHi, err := p.QwenImagePixels()
		if err != nil {
			return lo, hi, err
		}
		if hi.n == 0 {
			hi = pixelArg{n: fileHi, file: p.File, key: qwenKey(p.MaxPixels, "max_pixels", p.SizeGiven, "size.longest_edge")}
		}
		if lo.n == 0 {
			lo = pixelArg{n: fileLo, file: p.File, key: qwenKey(p.MinPixels, "min_pixels", p.SizeGiven, "size.shortest_edge")}
		}
	}
	if hi.n == 0 {
		return lo, hi, notSized(qwenNoProcessor)
	}
	return lo, hi, nil
}

// qwenKey names the key a processor file's count came from: the
// top-level key where the file states it, else size's, else the class's
// default.
func qwenKey(top uint64, topKey string, sizeGiven bool, sizeKey string) string {
	switch {
	case top != 0:
		return topKey
	case sizeGiven:
		return sizeKey
	}
	return sizeKey + " (transformers' default)"
}

// qwenFactorPair is the closest factor pair of n, smaller first, as
// get_image_size_with_most_features' closest_factor_pair finds it
// (qwen2_vl.py:998-1003): the largest divisor at most isqrt(n).
func qwenFactorPair(n uint64) (h, w uint64) {
	h = uint64(math.Sqrt(float64(n)))
	for h*h > n {
		h--
	}
	for (h+1)*(h+1) <= n {
		h++
	}
	for ; h > 1; h-- {
		if n%h == 0 {
			break
		}
	}
	h = max(h, 1)
	return h, n / h
}

// qwen3VideoSince is the first release whose Qwen3-VL profile sizes its
// dummy video as two frames under the video processor's longest_edge
// (PR #32684, "fix encoder cache hang in Qwen3VL", merged 2026-01-25;
// 0.16.0, released 2026-02-25, is the first release surely after it).
// Before, the video was the most frames of the largest image that fit
// the length (up to 2048), which membudget does not size.
var qwen3VideoSince = Version{0, 16, 0}

// qwen3VideoBefore is why Qwen3-VL's video is not sized before
// qwen3VideoSince.
const qwen3VideoBefore = "the largest video of a release before 0.16.0 is the most frames of the largest image that fit --max-model-len, up to 2048 (before vLLM PR #32684), which membudget does not size: --limit-mm-per-prompt '{\"video\": 0}' sizes the image alone"

// qwen3NoVideoProcessor is why Qwen3-VL's video is not sized: no video
// processor file was read.
const qwen3NoVideoProcessor = "the largest video's tokens come from the checkpoint's video processor (video_preprocessor_config.json, else processor_config.json's or preprocessor_config.json's, its size.longest_edge), and none was read beside config.json (a config.json alone, or a shipped model without them): --limit-mm-per-prompt '{\"video\": 0}' sizes the image alone"

// qwen3VideoFrames is the frames of Qwen3-VL's dummy video: "treat videos
// as special images", two frames (qwen3_vl.py:1109-1110, num_frames=2 in
// get_max_video_tokens, :1012).
const qwen3VideoFrames = 2

// qwen3VideoTokens is the tokens of Qwen3-VL's and Qwen3.5's largest
// video (get_max_video_tokens, qwen3_vl.py:990-1016): the image of the
// most merged patches under the video processor's longest_edge over its
// temporal_patch_size (get_image_size_with_most_features, the closest
// factor pair), two frames of it resized by the video processor's
// smart_resize (transformers models/qwen3_vl/video_processing_qwen3_vl.py:
// with the frames counted, t_bar x h x w kept within max_pixels, else
// scaled by beta = sqrt(frames x h x w / max_pixels) and floored to the
// merged patch) under its size, with --mm-processor-kwargs' min_pixels
// and max_pixels in their place where given (_get_vision_info,
// :933-956), then one temporal group of (h / patch) x (w / patch)
// patches, a token for every merge^2 of them.
func qwen3VideoTokens(v *model.VisionTower, kw mmKwargs) (uint64, error) {
	p := v.VideoProcessor
	if p == nil {
		return 0, notSized(qwen3NoVideoProcessor)
	}
	if _, ok := p.Invalid["min_pixels"]; ok || p.MinPixels != 0 || p.MaxPixels != 0 || p.Invalid["max_pixels"] != "" {
		// A Qwen2.5-VL-style file (transformers falls back to
		// preprocessor_config.json for the video processor): which size
		// Qwen3VLVideoProcessor makes of its top-level counts is not read.
		return 0, notSized(fmt.Sprintf("the largest video's tokens come from the video processor's size, and %s states min_pixels or max_pixels instead, which transformers' Qwen3-VL video processor does not take as its size: --limit-mm-per-prompt '{\"video\": 0}' sizes the image alone", p.File))
	}
	fileLo, fileHi, tpv, err := p.QwenVideoPixels()
	if err != nil {
		return 0, err
	}
	if v.TemporalPatch != 2 || tpv != 2 {
		// smart_resize rounds the two frames to the tower's temporal
		// factor (round(2 / t) x t, Python's half-to-even round): the
		// published towers' 2 keeps them at 2.
		return 0, notSized(fmt.Sprintf("the largest video is not sized for a temporal_patch_size of %d (vision_config) and %d (%s): the published towers have 2", v.TemporalPatch, tpv, p.File))
	}
	unit := v.PatchSize * max(v.SpatialMerge, 1)
	if unit == 0 {
		return 0, notSized("the vision config gives no patch_size")
	}
	target := pixelArg{n: fileHi / tpv, file: p.File, key: "size.longest_edge"}
	n := qwenImageTokens(target.n / (unit * unit))
	if n == 0 {
		return 0, target.refuse("over temporal_patch_size %d is below one merged patch (%d x %d pixels): vLLM's processor has no video to profile", tpv, unit, unit)
	}
	hf, wf := qwenFactorPair(n)
	h, w := hf*unit, wf*unit
	lo := pixelArg{n: fileLo, file: p.File, key: "size.shortest_edge"}
	hi := pixelArg{n: fileHi, file: p.File, key: "size.longest_edge"}
	if m, ok := kw["min_pixels"]; ok {
		lo = pixelArg{n: m, key: "min_pixels"}
	}
	if m, ok := kw["max_pixels"]; ok {
		hi = pixelArg{n: m, key: "max_pixels"}
	}
	frames := uint64(qwen3VideoFrames)
	switch px := frames * h * w; {
	case px > hi.n:
		beta := math.Sqrt(float64(px) / float64(hi.n))
		h = max(unit, uint64(math.Floor(float64(h)/beta/float64(unit)))*unit)
		w = max(unit, uint64(math.Floor(float64(w)/beta/float64(unit)))*unit)
	case px < lo.n:
		return 0, lo.refuse("is above the largest video's %d pixels (two frames of %d x %d): not modelled (the processor scales it up)", px, h, w)
	}
	m := max(v.SpatialMerge, 1)
	grid := budget.CeilDiv(frames, v.TemporalPatch)
	return grid * (h / v.PatchSize) * (w / v.PatchSize) / (m * m), nil
}

// processorBasis is what a Qwen or GLM-4.xV tower's dummy item of
// modality rests on beyond the serve and config.json
// (EncoderProfile.Basis): the processor file whose size gave it, "" where
// --mm-processor-kwargs did or the tower reads no processor file.
func processorBasis(kind string, v *model.VisionTower, kw mmKwargs, modality string) string {
	switch {
	case kind == "glm4v":
		p, err := glm4vMaxPixels(v, kw)
		if err != nil || p.file == "" {
			return ""
		}
		return fmt.Sprintf("the largest image's tokens rest on the image processor's size.longest_edge %d (%s), as vLLM reads it without --mm-processor-kwargs' max_pixels; the processor keeps that image", p.n, p.file)
	case kind != "qwen2_vl" && kind != "qwen2_5_vl" && kind != "qwen3_vl":
		return ""
	case kind == "qwen3_vl" && modality == "video" && v.VideoProcessor != nil:
		_, hi, _, err := v.VideoProcessor.QwenVideoPixels()
		if err != nil {
			return ""
		}
		return fmt.Sprintf("the largest video's tokens rest on the video processor's size.longest_edge %d (%s), as vLLM reads it", hi, v.VideoProcessor.File)
	}
	if _, ok := kw["max_pixels"]; ok || v.ImageProcessor == nil {
		return ""
	}
	_, hi, err := qwenImagePixels(v, kw)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("the largest %s's tokens rest on the image processor's %s %d (%s), as vLLM reads it without --mm-processor-kwargs' max_pixels", modality, hi.key, hi.n, hi.file)
}
