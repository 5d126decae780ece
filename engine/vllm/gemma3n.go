package vllm

import "membudget/model"

// resolveGemma3n refuses an online quantization membudget does not size
// for the model ([model.Arch.QuantizationRefused]: Gemma 3n's) and gives
// every stage the served max_num_batched_tokens where the model allocates
// a buffer by it as vLLM builds it: Gemma 3n's per_layer_embeddings,
// max_num_batched_tokens x layers x hidden_size_per_layer_input in the
// model dtype, allocated in Gemma3nForConditionalGeneration.__init__
// (gemma3n_mm.py:580-588) and so charged with the weights.
func (r *Resolved) resolveGemma3n(a *model.Arch) error {
	if why := a.QuantizationRefused(); why != "" && r.Quantization != "" {
		// Its checkpoints' quantization_config is refused likewise.
		return settingErr("quantization", r.Quantization, "quantizing %s as vLLM loads it is not modelled: %s", configArch(a), why)
	}
	if !a.SizedByBatchedTokens() {
		return nil
	}
	off, err := r.towersOff()
	if err != nil {
		return err
	}
	for i := range r.Stages {
		r.Stages[i].BatchedTokens = r.MaxNumBatchedTokens
		r.Stages[i].TowersOff = off
	}
	return nil
}

// towersSkippedSince is the first release that builds no tower for a
// modality limited to 0 items in every model, Gemma 3n's among them: PR
// #32757 (merged 2026-01-21, after 0.14's branch: the flags of
// 2026-01-20 on are 0.15.0's) extended _mark_tower_model to "the rest of
// the models".
var towersSkippedSince = Version{0, 15, 0}

// towersOff is the modalities of Gemma 3n's towers that
// --limit-mm-per-prompt limits to 0 items: vLLM builds neither that tower
// nor its embedder (gemma3n_mm.py:560-570, interfaces.py:296-333).
func (r *Resolved) towersOff() (model.Modalities, error) {
	limits, err := mmLimits(r.MM.LimitPerPrompt, r.Profile)
	if err != nil {
		return 0, err
	}
	var off model.Modalities
	for _, m := range []struct {
		name string
		bit  model.Modalities
	}{{"image", model.ImageInput}, {"audio", model.AudioInput}} {
		if n, ok := limits[m.name]; ok && n == 0 {
			off |= m.bit
		}
	}
	if off != 0 && r.Profile.Release.Less(towersSkippedSince) {
		return 0, settingErr("limit-mm-per-prompt", r.MM.LimitPerPrompt, "a modality at 0: not modelled for %s, where whether Gemma 3n's tower for it is built is not known (from vLLM %s, PR #32757, it is not)", r.Profile.Describes, towersSkippedSince)
	}
	return off, nil
}

// gemma3nItems is Gemma 3n's largest image and audio clip: vLLM's
// processing info gives every image 256 embeddings and every clip 188,
// whatever the config says (TOKENS_PER_IMAGE, TOKENS_PER_AUDIO,
// gemma3n_mm.py:69-71, 174-177).
func gemma3nItems(*model.VisionTower, uint64, mmKwargs, func(string) uint64) ([]mmItem, error) {
	image, audio := model.Gemma3nItemTokens()
	return []mmItem{{"audio", audio}, {"image", image}}, nil
}
