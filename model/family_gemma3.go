package model

import (
	"encoding/json"
)

func init() {
	registerMultimodal("gemma3", readGemma3,
		ckptFamily(gemma3Rename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms, gemmaNorms}, siglipTower))
	register("gemma3_text", flat(readGemma3Text), ckptFamily(gemma3Rename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms, gemmaNorms}))
	registerVisionTower("siglip", (*weights).siglip)
	declareClass("gemma3", gemma3Class)
	declareClass("gemma3_text", gemma3TextClass)
	declareClass("siglip_vision_model", siglipVisionClass)
}

// The transformers classes of Gemma 3's configs, read at
// huggingface/transformers@008f5c8c29be (configuration_gemma3.py) and
// @091ffff471 (configuration_siglip.py). The published configs lean on
// them: google/gemma-3-4b-it's text_config gives neither its heads, its
// head_dim nor its vocabulary.
var (
	gemma3Class = configClass{
		Name:     "Gemma3Config",
		Source:   "src/transformers/models/gemma3/configuration_gemma3.py@008f5c8c29be",
		Defaults: []classDefault{{"mm_tokens_per_image", "256"}},
		Nested:   map[string]string{"text_config": "gemma3_text", "vision_config": "siglip_vision_model"},
	}
	gemma3TextClass = configClass{
		Name:   "Gemma3TextConfig",
		Source: "src/transformers/models/gemma3/configuration_gemma3.py@008f5c8c29be",
		Defaults: []classDefault{
			{"vocab_size", "262208"}, {"hidden_size", "2304"}, {"intermediate_size", "9216"},
			{"num_hidden_layers", "26"}, {"num_attention_heads", "8"}, {"num_key_value_heads", "4"},
			{"head_dim", "256"}, {"max_position_embeddings", "131072"}, {"tie_word_embeddings", "true"},
			{"attention_bias", "false"}, {"sliding_window", "4096"}, {"sliding_window_pattern", "6"},
		},
	}
	siglipVisionClass = configClass{
		Name:   "SiglipVisionConfig",
		Source: "src/transformers/models/siglip/configuration_siglip.py@091ffff47174",
		Defaults: []classDefault{
			{"hidden_size", "768"}, {"intermediate_size", "3072"}, {"num_hidden_layers", "12"},
			{"num_attention_heads", "12"}, {"num_channels", "3"}, {"image_size", "224"}, {"patch_size", "32"},
		},
	}
)

// readGemma3 reads Gemma 3's multimodal config: the language model of its
// text_config (readGemma3Text), in the wrapper's dtype where text_config
// has none, and the SigLIP tower of its vision_config.
func readGemma3(o jsonObject, a *Arch) jsonObject {
	text, ok := o.object("text_config")
	if !ok {
		o.fail("text_config", "missing (required for model_type gemma3)")
		return o
	}
	if d := readDtype(o); !text.has("torch_dtype") && !text.has("dtype") {
		text.m["torch_dtype"], _ = json.Marshal(d)
	}
	fillClass("gemma3_text", text, a)
	readGemma3Text(text, a)
	a.tree.rename = [][2]string{{"language_model.model.", "model."}, {"language_model.lm_head", "lm_head"},
		{"model.language_model.", "model."}, {"model.vision_tower.", "vision_tower."}, {"model.multi_modal_projector.", "multi_modal_projector."}}
	if v, ok := o.object("vision_config"); ok {
		a.Vision = &VisionTower{
			Kind:         "siglip",
			Hidden:       v.uint("hidden_size"),
			Intermediate: v.uint("intermediate_size"),
			Layers:       v.uint("num_hidden_layers"),
			Heads:        v.uint("num_attention_heads"),
			PatchSize:    v.uint("patch_size"),
			ImageSize:    v.uint("image_size"),
			Channels:     v.uintOr("num_channels", 3),
			ConfigLayers: v.uint("num_hidden_layers"),
			ConfigHidden: v.uint("hidden_size"),
		}
		a.Vision.TokensPerImage = o.uintOr("mm_tokens_per_image", 256)
	}
	return text
}

// readGemma3Text reads Gemma 3's language model: Gemma's four norms and
// per-head q and k norms, the head tied, every layer sliding but each
// sliding_window_pattern-th unless layer_types says otherwise, and a local
// rotary table beside the global one.
func readGemma3Text(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.gemmaNorms()
	a.QKNorm = true
	a.TiedEmbeddings = true
	window := o.uint("sliding_window")
	pattern := o.uintOr("sliding_window_pattern", 0)
	a.uniformLayers(o, 0)
	if a.layerTypes == nil && pattern > 0 {
		for i := range a.Layers {
			// transformers Gemma3: a layer slides unless (i+1) % pattern == 0.
			if (uint64(i)+1)%pattern != 0 {
				a.Layers[i].Kind = SlidingAttention
			}
		}
		a.SlidingWindow = window
	}
	// Gemma 3 keeps two rotary tables: the sliding layers' local rope
	// (rope_local_base_freq, unscaled) and the global layers' (scaled).
	a.Rotary = append([]RotaryTable{{Name: "rotary_emb_local", Positions: a.MaxPosition, Dim: a.RotaryDim}}, a.Rotary...)
}

// siglip adds Gemma 3's SigLIP tower and projector (siglip.py,
// gemma3_mm.py), unquantized.
func (w *weights) siglip(v *VisionTower) {
	p := "vision_tower.vision_model."
	h := v.Hidden
	w.idefics2Encoder(p, v, false, false)
	w.layerNorm(p+"post_layernorm", h)
	w.add("multi_modal_projector.mm_input_projection_weight", bytesOf(h*w.a.Hidden, w.dt))
	w.add("multi_modal_projector.mm_soft_emb_norm.weight", bytesOf(h, w.dt))
}

var (
	// siglipTower: Gemma 3's SigLIP vision tower and projector, on the
	// first stage (vllm/model_executor/models/siglip.py, gemma3_mm.py).
	siglipTower = onVisionTower(under("vision_tower.vision_model.", []moduleRule{
		{module: "embeddings.patch_embedding"},
		{module: "embeddings.position_embedding"},
	}, under("encoder.layers.*.", clipLayer), []moduleRule{
		{module: "post_layernorm"},
	}), []moduleRule{
		{module: "multi_modal_projector.mm_input_projection_weight"},
		{module: "multi_modal_projector.mm_soft_emb_norm"},
	})
	// gemma3Rename: Gemma 3's checkpoints nest the language model under
	// language_model. (before transformers 4.52) or model.language_model.
	// (after); gemma3_mm.py's hf_to_vllm_mapper maps both.
	gemma3Rename = [][2]string{
		{"language_model.model.", "model."},
		{"language_model.lm_head.", "lm_head."},
		{"model.language_model.", "model."},
		{"model.vision_tower.", "vision_tower."},
		{"model.multi_modal_projector.", "multi_modal_projector."},
	}
)
