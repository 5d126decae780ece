package vllm

import (
	"membudget/budget"
	"membudget/model"
)

// This file sizes the largest items of Phi-4-multimodal's processor
// (vllm/model_executor/models/phi4mm.py at d18bb7b), which the encoder
// cache of the profile run holds.

// phi4mmUnsized is why its encoder cache is not sized when phi4mmItems
// gives no item.
const phi4mmUnsized = "its largest image follows the processor's dynamic_hd, from the checkpoint's processor files, which membudget does not read (--mm-processor-kwargs '{\"dynamic_hd\": N}' sizes it), and its audio's tokens the feature extractor's sampling_rate, which is not read either: the cache is sized where images are taken and outnumber the longest audio"

// Phi-4-multimodal's dummy audio and its frames (phi4mm.py): 241,000
// samples (_AUDIO_MAX_SOUNDFILE_SIZE, :64, 846-851), doubled for a feature
// extractor of 8 to 16 kHz (:774-780), framed by a 400-sample window every
// 160 samples (:783-787). No rate vLLM takes gives more frames: above 16
// kHz the samples are divided, below 8 kHz it raises.
const (
	phi4mmAudioSamples = 241000 * 2
	phi4mmAudioWindow  = 400
	phi4mmAudioHop     = 160
)

// phi4mmItems is Phi-4-multimodal's largest image under dynamic_hd d (the
// serve's --mm-processor-kwargs reach the processor that sizes it,
// vllm/multimodal/processing/context.py:178-208),
// where the serve takes images and that image outnumbers the longest
// audio, so that the profile runs images: get_image_size_with_most_features
// is one 448 px crop wide and d tall (phi4mm.py:746-757), whose tokens
// (_compute_num_image_tokens, :628-715, with the 2x2 compression of
// :66-73) are, for g = 448 / 14 / 2 = 16 features a side: g^2 global, one
// separator, g of global newlines, g x g·d of crops and g·d crop newlines:
// 272·d + 273 for Phi-4-multimodal. The longest audio is ceil(3011 frames
// / compression_rate) tokens (:794-814). Else no item: the audio's
// tokens depend on the sampling rate, which is not read.
func phi4mmItems(v *model.VisionTower, _ uint64, kw mmKwargs, limit func(string) uint64) ([]mmItem, error) {
	d, ok := kw["dynamic_hd"]
	c := v.Conformer
	if !ok || limit("image") == 0 || c == nil || c.Compression == 0 || v.PatchSize == 0 {
		return nil, nil
	}
	g := v.ImageSize / v.PatchSize / 2
	image := budget.SatAdd(budget.SatMul(budget.SatMul(g, g)+g, d), g*g+1+g)
	frames := uint64((phi4mmAudioSamples-phi4mmAudioWindow)/phi4mmAudioHop + 1)
	audio := budget.CeilDiv(frames, c.Compression)
	if limit("audio") > 0 && audio > image {
		// Ties go to the image (get_modality_with_max_tokens).
		return nil, nil
	}
	return []mmItem{{"image", image}}, nil
}
