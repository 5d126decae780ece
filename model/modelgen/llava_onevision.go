package modelgen

import "pgregory.net/rapid"

// llavaOnevision draws model_type llava_onevision: LLaVA's text models
// (a Qwen2 text_config sometimes without its model_type, which
// LlavaOnevisionConfig reads as Qwen2's) with a SigLIP tower built to
// vision_feature_layer (an index, a list, or the class's -1 left out) and
// the two-layer projector, biased or not. The quantization config is at
// the top or under text_config.
var llavaOnevision = family{types: []string{"llava_onevision"}, draw: drawLlavaOnevision}

func drawLlavaOnevision(t *rapid.T, modelType string) map[string]any {
	c := drawLlava(t, modelType)
	vision := c["vision_config"].(map[string]any)
	vision["model_type"] = "siglip_vision_model" // the tower every checkpoint holds
	delete(vision, "num_channels")
	text := c["text_config"].(map[string]any)
	if _, named := text["model_type"]; !named {
		text["model_type"] = "llama" // drawLlava left LlavaConfig's default out
	}
	if text["model_type"] == "qwen2" && rapid.IntRange(0, 3).Draw(t, "onevision_text_type_left_out") == 0 {
		delete(text, "model_type") // LlavaOnevisionConfig's default text model
	}
	if _, given := c["vision_feature_layer"]; !given || rapid.IntRange(0, 3).Draw(t, "onevision_feature_layer_left_out") == 0 {
		delete(c, "vision_feature_layer") // LlavaOnevisionConfig's -1
	}
	return c
}
