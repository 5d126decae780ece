package modelgen

// glm4MoELite draws model_type glm4_moe_lite (GLM-4.7-Flash): DeepSeek's
// multi-head latent attention and MoE placement as deepseek draws them,
// read with GLM-4.5's float32 router.
var glm4MoELite = family{types: []string{"glm4_moe_lite"}, draw: drawDeepSeek}
