package modelgen

import "pgregory.net/rapid"

// llavaNextVideo draws model_type llava_next_video: LLaVA's text models
// with a CLIP tower built to vision_feature_layer (an index, a list, or
// LlavaNextVideoConfig's -2 left out) and the two-layer projector, biased
// or not. The quantization config is at the top or under text_config.
var llavaNextVideo = family{types: []string{"llava_next_video"}, draw: drawLlavaNextVideo}

func drawLlavaNextVideo(t *rapid.T, modelType string) map[string]any {
	c := drawLlava(t, modelType)
	vision := c["vision_config"].(map[string]any)
	vision["model_type"] = "clip_vision_model" // the tower every checkpoint holds
	delete(vision, "num_channels")
	return c
}
