package modelgen

import "pgregory.net/rapid"

// phi4mm draws model_type phi4mm: Phi-3's flat text config (fused q/k/v
// and gate/up, an optional model-level sliding window, partial rotary)
// with the image tower vLLM fixes (img_processor absent, null or the one
// name vLLM's processor takes) and a cascades conformer whose optional layers (grouped keys,
// the pointwise GLU and its projection back, the depthwise multiplier and
// pointwise width, the GLU biases, a causal subsampler, symmetric T5
// buckets) and projection (mlp or linear, downsample_rate) are drawn.
var phi4mm = family{types: []string{"phi4mm"}, draw: drawPhi4MM}

func drawPhi4MM(t *rapid.T, modelType string) map[string]any {
	c := drawPhi3(t, modelType)
	switch rapid.IntRange(0, 2).Draw(t, "img_processor") {
	case 1:
		c["img_processor"] = nil // the config class's None
	case 2:
		// The one name vLLM's processor looks up (phi4mm.py:66-73).
		c["img_processor"] = "siglip-so400m-patch14-448"
	}
	heads := rapid.SampledFrom([]uint64{1, 2, 4, 8, 16}).Draw(t, "audio_heads")
	dim := heads * 8 * rapid.Uint64Range(1, 16).Draw(t, "audio_head_x8")
	mels := rapid.SampledFrom([]uint64{40, 64, 80, 128}).Draw(t, "mels")
	conformer := map[string]any{
		"input_size": mels, "chunk_size": -1, "left_chunk": 18,
		"attention_dim": dim, "attention_heads": heads,
		"attention_group_size":            rapid.SampledFrom(divisors(heads)).Draw(t, "audio_group"),
		"linear_units":                    8 * rapid.Uint64Range(1, 256).Draw(t, "audio_ffn_x8"),
		"num_blocks":                      rapid.Uint64Range(1, 24).Draw(t, "audio_blocks"),
		"ext_pw_out_channel":              rapid.SampledFrom([]uint64{0, dim, dim / 2}).Draw(t, "ext_pw_out_channel"),
		"ext_pw_kernel_size":              rapid.SampledFrom([]uint64{1, 3}).Draw(t, "ext_pw_kernel_size"),
		"depthwise_seperable_out_channel": rapid.SampledFrom([]uint64{0, dim, dim * 2}).Draw(t, "dw_out"),
		"depthwise_multiplier":            rapid.Uint64Range(1, 2).Draw(t, "dw_multiplier"),
		"kernel_size":                     rapid.SampledFrom([]uint64{3, 5}).Draw(t, "audio_kernel"),
		"bias_in_glu":                     rapid.Bool().Draw(t, "bias_in_glu"),
		"time_reduction":                  rapid.SampledFrom([]uint64{2, 4, 8}).Draw(t, "time_reduction"),
		"input_layer":                     "nemo_conv",
		"nemo_conv_settings":              map[string]any{"conv_channels": 32 * rapid.Uint64Range(1, 32).Draw(t, "conv_channels_x32"), "is_causal": rapid.Bool().Draw(t, "subsampler_causal")},
		"encoder_embedding_config":        map[string]any{"input_size": mels},
		"relative_attention_bias_args": map[string]any{"type": "t5", "t5_bias_max_distance": rapid.Uint64Range(1, 1000).Draw(t, "t5_distance"),
			"t5_bias_symmetric": rapid.Bool().Draw(t, "t5_symmetric")},
		"causal": true, "batch_norm": false, "activation": "swish",
	}
	audio := map[string]any{"embedding_cls": "audio", "use_qformer": false, "use_conv_downsample": false,
		"projection_cls":   rapid.SampledFrom([]string{"mlp", "linear"}).Draw(t, "projection_cls"),
		"downsample_rate":  rapid.Uint64Range(1, 2).Draw(t, "downsample_rate"),
		"compression_rate": rapid.SampledFrom([]uint64{1, 4, 8, 16}).Draw(t, "compression_rate")}
	c["embd_layer"] = map[string]any{"embedding_cls": "image_audio", "audio_embd_layer": audio,
		"image_embd_layer": map[string]any{"crop_size": 448, "embedding_cls": "tune_image"}}
	c["audio_processor"] = map[string]any{"name": "cascades", "config": conformer}
	return c
}
