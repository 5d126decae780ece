package modelgen

import "pgregory.net/rapid"

// whisper draws model_type whisper: an encoder-decoder of one width
// (d_model) whose encoder and decoder have their own depth, heads and FFN
// (every head count dividing d_model), 80 or 128 mel bins, 1500 source and
// 448 target positions or fewer, sometimes leaning on WhisperConfig's
// defaults for its depths and lengths.
var whisper = family{types: []string{"whisper"}, draw: drawWhisper}

func drawWhisper(t *rapid.T, modelType string) map[string]any {
	headDim := rapid.SampledFrom([]uint64{32, 64}).Draw(t, "head_dim")
	heads := rapid.SampledFrom([]uint64{4, 6, 8, 12, 16, 20}).Draw(t, "heads")
	d := heads * headDim
	c := map[string]any{
		"model_type":              modelType,
		"architectures":           []string{"WhisperForConditionalGeneration"},
		"d_model":                 d,
		"encoder_attention_heads": heads,
		"decoder_attention_heads": heads,
		"encoder_ffn_dim":         4 * d,
		"decoder_ffn_dim":         4 * d,
		"vocab_size":              rapid.SampledFrom([]uint64{51865, 51866}).Draw(t, "vocab"),
		"num_mel_bins":            rapid.SampledFrom([]uint64{80, 128}).Draw(t, "mel_bins"),
		"torch_dtype":             rapid.SampledFrom([]string{"float16", "float32"}).Draw(t, "dtype"),
	}
	if !rapid.Bool().Draw(t, "class_depths") {
		c["encoder_layers"] = rapid.Uint64Range(1, 32).Draw(t, "encoder_layers")
		c["decoder_layers"] = rapid.Uint64Range(1, 32).Draw(t, "decoder_layers")
	}
	if !rapid.Bool().Draw(t, "class_lengths") {
		c["max_source_positions"] = rapid.SampledFrom([]uint64{1500, 750}).Draw(t, "source_positions")
		c["max_target_positions"] = rapid.SampledFrom([]uint64{448, 256}).Draw(t, "target_positions")
	}
	return c
}
