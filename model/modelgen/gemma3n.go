package modelgen

import "pgregory.net/rapid"

// gemma3n draws model_type gemma3n (Gemma3nForConditionalGeneration, its
// language model in text_config with the MobileNetV5 tower and the audio
// conformer) and gemma3n_text (Gemma3nForCausalLM): per-layer embeddings
// of drawn width and rows, AltUp of 1 to 4 streams, a LAuReL rank, one MLP
// width or a list of one per layer, any number of trailing KV-shared
// layers, every 5th layer full or layer_types drawn; the wrapper's
// sub-configs sometimes left to their classes' defaults (E4B's), the audio
// conformer of drawn depth, width, kernel and chunk.
var gemma3n = family{types: []string{"gemma3n", "gemma3n_text"}, draw: drawGemma3n}

func drawGemma3n(t *rapid.T, modelType string) map[string]any {
	text := drawGemma3nText(t)
	if modelType == "gemma3n_text" {
		return text
	}
	c := map[string]any{"model_type": modelType, "torch_dtype": text["torch_dtype"]}
	if rapid.Bool().Draw(t, "explicit_text_config") {
		c["text_config"] = text
	}
	if rapid.Bool().Draw(t, "explicit_vision_config") {
		c["vision_config"] = map[string]any{"architecture": "mobilenetv5_300m_enc", "hidden_size": 2048,
			"vocab_size": rapid.SampledFrom([]uint64{64, 128, 200}).Draw(t, "vision_vocab")}
	}
	if rapid.Bool().Draw(t, "explicit_audio_config") {
		heads := rapid.SampledFrom([]uint64{1, 2, 4, 8}).Draw(t, "audio_heads")
		c["audio_config"] = map[string]any{
			"hidden_size":               heads * rapid.SampledFrom([]uint64{32, 64, 192}).Draw(t, "audio_head_dim"),
			"conf_num_attention_heads":  heads,
			"conf_num_hidden_layers":    rapid.Uint64Range(0, 12).Draw(t, "audio_layers"),
			"conf_conv_kernel_size":     rapid.Uint64Range(1, 7).Draw(t, "audio_kernel"),
			"conf_attention_chunk_size": rapid.Uint64Range(1, 24).Draw(t, "audio_chunk"),
			"input_feat_size":           rapid.SampledFrom([]uint64{64, 80, 128}).Draw(t, "mel_bins"),
			"sscp_conv_channel_size":    []uint64{rapid.SampledFrom([]uint64{32, 128}).Draw(t, "sscp0"), rapid.SampledFrom([]uint64{16, 32}).Draw(t, "sscp1")},
			"vocab_size":                rapid.SampledFrom([]uint64{64, 128}).Draw(t, "audio_vocab"),
		}
	}
	return c
}

// drawGemma3nText draws a gemma3n_text config.
func drawGemma3nText(t *rapid.T) map[string]any {
	c, s := decoder(t, "gemma3n_text", false)
	c["head_dim"] = s.headDim
	delete(c, "tie_word_embeddings")
	if rapid.Bool().Draw(t, "per_layer_widths") {
		widths := make([]uint64, s.layers)
		for i := range widths {
			widths[i] = 128 * rapid.Uint64Range(1, 128).Draw(t, "inter_x128")
		}
		c["intermediate_size"] = widths
	}
	c["hidden_size_per_layer_input"] = rapid.SampledFrom([]uint64{64, 128, 256}).Draw(t, "ple_width")
	c["vocab_size_per_layer_input"] = rapid.Uint64Range(256, 262144).Draw(t, "ple_vocab")
	c["altup_num_inputs"] = rapid.Uint64Range(1, 4).Draw(t, "altup")
	c["laurel_rank"] = rapid.SampledFrom([]uint64{16, 32, 64}).Draw(t, "laurel_rank")
	c["num_kv_shared_layers"] = rapid.Uint64Range(0, s.layers).Draw(t, "kv_shared")
	c["sliding_window"] = window(t)
	if rapid.Bool().Draw(t, "explicit_layer_types") {
		c["layer_types"] = layerTypes(t, s.layers, "sliding_attention", "full_attention")
	}
	return c
}
