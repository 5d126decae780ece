package model

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
)

// The processor files a multimodal checkpoint keeps beside config.json:
// its image processor's settings, and (Qwen3-VL's, Qwen3.5's, GLM-4.xV's)
// its video processor's. transformers builds the processors from them
// (AutoImageProcessor, AutoVideoProcessor), and vLLM's profile run sizes
// its dummy items with those processors' settings wherever the serve's
// --mm-processor-kwargs gives none.
// processor_config.json, which transformers 5.x's save_pretrained writes,
// nests both under "image_processor" and "video_processor", and takes
// precedence where it has them.
const (
	PreprocessorFile      = "preprocessor_config.json"
	VideoPreprocessorFile = "video_preprocessor_config.json"
	ProcessorFile         = "processor_config.json"
)

// maxProcessorPixels bounds a pixel count a processor file may state: far
// above any published processor (Qwen3-VL's video, 25165824), so that a
// product with it stays far from 2^64.
const maxProcessorPixels = 1 << 40

// Processor is what a processor file states of the item sizes its
// processor keeps: the keys a Qwen-style processor reads, each 0 where the
// file does not state it. It holds the file's values as written; the
// processor class's defaults and overrides are applied by [Processor.QwenImagePixels]
// and [Processor.QwenVideoPixels].
type Processor struct {
	// File is the file read, as messages name it.
	File string
	// ShortestEdge and LongestEdge are size.shortest_edge and
	// size.longest_edge: for Qwen's processors, the fewest and most pixels
	// an item keeps (a video's counted over its temporal patch).
	ShortestEdge, LongestEdge uint64
	// SizeGiven says the file has a size object (with or without those
	// keys).
	SizeGiven bool
	// MinPixels and MaxPixels are the top-level min_pixels and max_pixels,
	// which Qwen2-VL's image processor lets override size (the spelling of
	// Qwen2-VL's and Qwen2.5-VL's published files).
	MinPixels, MaxPixels uint64
	// TemporalPatch is temporal_patch_size.
	TemporalPatch uint64
	// Invalid holds the keys above the file states in a form a Qwen
	// processor would not read (size not an object, a count not a
	// positive integer), each with what is wrong, nil when none. They are
	// refused by the Qwen rules that read them ([Processor.QwenImagePixels],
	// [Processor.QwenVideoPixels]), not when the file is read: another
	// tower's processor spells them its own way (CLIP's size
	// {"shortest_edge": 336}, an older one's size 224).
	Invalid map[string]string
}

// ParseProcessor reads a processor file (preprocessor_config.json or
// video_preprocessor_config.json) named file for its messages: the keys
// [Processor] holds, as written. A file that is not a JSON object is
// refused, naming it, as transformers cannot build a processor from it;
// a key in another form is kept in Invalid.
func ParseProcessor(file string, data []byte) (*Processor, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, fmt.Errorf("%s: not a JSON object (transformers reads it as the processor's settings)", file)
	}
	p := &Processor{File: file}
	invalid := func(key, format string, args ...any) {
		if p.Invalid == nil {
			p.Invalid = map[string]string{}
		}
		p.Invalid[key] = fmt.Sprintf(format, args...)
	}
	count := func(key string, raw json.RawMessage) uint64 {
		raw = bytes.TrimSpace(raw)
		if string(raw) == "null" {
			return 0
		}
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil || n == 0 || n > maxProcessorPixels {
			invalid(key, "want a positive integer, got %s", raw)
			return 0
		}
		return n
	}
	if raw, ok := top["size"]; ok && string(bytes.TrimSpace(raw)) != "null" {
		var size map[string]json.RawMessage
		if err := json.Unmarshal(raw, &size); err != nil || size == nil {
			invalid("size", "want an object such as {\"shortest_edge\": 3136, \"longest_edge\": 12845056}, got %s", bytes.TrimSpace(raw))
		} else {
			p.SizeGiven = true
			if v, ok := size["shortest_edge"]; ok {
				p.ShortestEdge = count("size.shortest_edge", v)
			}
			if v, ok := size["longest_edge"]; ok {
				p.LongestEdge = count("size.longest_edge", v)
			}
		}
	}
	for key, dst := range map[string]*uint64{"min_pixels": &p.MinPixels, "max_pixels": &p.MaxPixels, "temporal_patch_size": &p.TemporalPatch} {
		if v, ok := top[key]; ok {
			*dst = count(key, v)
		}
	}
	return p, nil
}

// Invalid1 returns the error of the first of keys the file states in a
// form not read (see Invalid), naming the file and the key; nil when
// none.
func (p *Processor) Invalid1(keys ...string) error {
	for _, k := range keys {
		if why, ok := p.Invalid[k]; ok {
			return fmt.Errorf("%s: %s: %s", p.File, k, why)
		}
	}
	return nil
}

// Qwen2-VL's image processor's default size, the one its file's size and
// min_pixels/max_pixels override: shortest_edge 56 x 56, longest_edge
// 28 x 28 x 1280 (transformers 5.x src/transformers/models/qwen2_vl/
// image_processing_pil_qwen2_vl.py at 035abaa1, Qwen2VLImageProcessorPil's
// class attribute size; the torchvision class, which vLLM asks for with
// use_fast, qwen2_vl.py:846-851 at vLLM d18bb7b, keeps the same default
// and the same __init__; the processor Qwen2-VL, Qwen2.5-VL, Qwen3-VL and
// Qwen3.5 checkpoints name).
const (
	qwenImageMinPixels = 56 * 56
	qwenImageMaxPixels = 28 * 28 * 1280
)

// Qwen3-VL's video processor's defaults (transformers
// src/transformers/models/qwen3_vl/video_processing_qwen3_vl.py at
// 930941c6, Qwen3VLVideoProcessor's class attributes: size
// {"shortest_edge": 128 x 32 x 32, "longest_edge": 32 x 32 x 768},
// temporal_patch_size 2).
const (
	qwen3VideoMinPixels     = 128 * 32 * 32
	qwen3VideoMaxPixels     = 32 * 32 * 768
	qwen3VideoTemporalPatch = 2
)

// QwenImagePixels returns the fewest and most pixels of an image under
// Qwen2-VL's image processor built from p, as transformers 5.x builds it
// (Qwen2VLImageProcessorPil.__init__): the file's size, else the class's
// default, with its min_pixels and max_pixels, where given, in place of
// shortest_edge and longest_edge. A size without both keys is refused, as
// transformers refuses it ("size must contain 'shortest_edge' and
// 'longest_edge' keys").
func (p *Processor) QwenImagePixels() (lo, hi uint64, err error) {
	if err := p.Invalid1("size", "size.shortest_edge", "size.longest_edge", "min_pixels", "max_pixels"); err != nil {
		return 0, 0, err
	}
	lo, hi = qwenImageMinPixels, qwenImageMaxPixels
	if p.SizeGiven {
		lo, hi = p.ShortestEdge, p.LongestEdge
	}
	lo, hi = cmp.Or(p.MinPixels, lo), cmp.Or(p.MaxPixels, hi)
	if lo == 0 || hi == 0 {
		return 0, 0, fmt.Errorf("%s: size: transformers' Qwen2-VL image processor refuses a size without both shortest_edge and longest_edge", p.File)
	}
	return lo, hi, nil
}

// QwenVideoPixels returns the fewest and most pixels of a video (counted
// over its temporal patch) and the temporal patch under Qwen3-VL's video
// processor built from p: the file's size and temporal_patch_size, else
// the class's defaults (Qwen3VLVideoProcessor, whose __init__ refuses a
// size without both keys). min_pixels and max_pixels are not its keys: a
// file that states them is refused by name, since which of them the
// processor would honour is not read.
func (p *Processor) QwenVideoPixels() (lo, hi, temporal uint64, err error) {
	if err := p.Invalid1("size", "size.shortest_edge", "size.longest_edge", "temporal_patch_size"); err != nil {
		return 0, 0, 0, err
	}
	if p.MinPixels != 0 || p.MaxPixels != 0 || p.Invalid["min_pixels"] != "" || p.Invalid["max_pixels"] != "" {
		return 0, 0, 0, fmt.Errorf("%s: min_pixels/max_pixels: not read for Qwen3-VL's video processor, whose size is size.shortest_edge and size.longest_edge", p.File)
	}
	lo, hi = qwen3VideoMinPixels, qwen3VideoMaxPixels
	if p.SizeGiven {
		lo, hi = p.ShortestEdge, p.LongestEdge
	}
	if lo == 0 || hi == 0 {
		return 0, 0, 0, fmt.Errorf("%s: size: transformers' Qwen3-VL video processor refuses a size without both shortest_edge and longest_edge", p.File)
	}
	return lo, hi, cmp.Or(p.TemporalPatch, qwen3VideoTemporalPatch), nil
}

// AttachProcessors sets a's vision tower's processors from the files'
// contents, each nil where the file is absent; named by the paths given.
// A text model (no vision tower) takes none: nothing is read for it.
func AttachProcessors(a *Arch, imagePath string, image []byte, videoPath string, video []byte) error {
	if a == nil || a.Vision == nil {
		return nil
	}
	if image != nil {
		p, err := ParseProcessor(imagePath, image)
		if err != nil {
			return err
		}
		a.Vision.ImageProcessor = p
	}
	if video != nil {
		p, err := ParseProcessor(videoPath, video)
		if err != nil {
			return err
		}
		a.Vision.VideoProcessor = p
	}
	return nil
}

// PickProcessors returns the image and video processor settings among a
// checkpoint's processor files (each nil where absent, named by its path)
// as transformers finds them (image_processing_base.py
// get_image_processor_dict; video_processing_utils.py
// get_video_processor_dict, "nested config if found -> video processor
// config -> image processor config"): the image processor's is
// processor_config.json's "image_processor" where that file has one, else
// preprocessor_config.json; the video processor's is its
// "video_processor", else video_preprocessor_config.json, else
// preprocessor_config.json. A nested one is named by the file and its key.
// A processor_config.json that is not a JSON object is an error naming
// it, as transformers cannot read it.
func PickProcessors(combinedPath string, combined []byte, imagePath string, image []byte, videoPath string, video []byte) (img []byte, imgPath string, vid []byte, vidPath string, err error) {
	var nested map[string]json.RawMessage
	if combined != nil {
		if err := json.Unmarshal(combined, &nested); err != nil || nested == nil {
			return nil, "", nil, "", fmt.Errorf("%s: not a JSON object (transformers reads the nested processors' settings from it)", combinedPath)
		}
	}
	img, imgPath = image, imagePath
	if raw, ok := nested["image_processor"]; ok {
		img, imgPath = raw, combinedPath+" (image_processor)"
	}
	switch raw, ok := nested["video_processor"]; {
	case ok:
		vid, vidPath = raw, combinedPath+" (video_processor)"
	case video != nil:
		vid, vidPath = video, videoPath
	default:
		vid, vidPath = image, imagePath
	}
	return img, imgPath, vid, vidPath, nil
}
