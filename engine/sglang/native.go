package sglang

// The architectures each release implements natively: the classes named
// *ForCausalLM, *ForConditionalGeneration or *LMHeadModel, or listed in an
// EntryClass, of python/sglang/srt/models/ at the release's commit
// (git grep -E '^class [A-Za-z0-9_]+(ForCausalLM|ForConditionalGeneration|LMHeadModel)'
// and the EntryClass lists). Another architecture falls back to SGLang's
// Transformers backend (model_loader/utils.py:68-80 at v0.5.6.post2, :66-78
// at v0.4.9.post2), whose memory is not modelled.

var (
	native056 = []string{
		"ApertusForCausalLM", "ArceeForCausalLM", "AutoModel", "BaiChuanBaseForCausalLM",
		"BaichuanForCausalLM", "BailingMoEForCausalLM", "BailingMoeForCausalLM",
		"BailingMoeV2ForCausalLM", "BertModel", "CLIPModel", "ChatGLMForCausalLM", "ChatGLMModel",
		"Cohere2ForCausalLM", "CohereForCausalLM", "DbrxForCausalLM", "DeciLMForCausalLM",
		"DeepseekForCausalLM", "DeepseekOCRForCausalLM", "DeepseekV2ForCausalLM",
		"DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekVL2ForCausalLM", "DotsOCRForCausalLM",
		"DotsVLMForCausalLM", "Ernie4_5_ForCausalLM", "Ernie4_5_MoeForCausalLM", "ExaoneForCausalLM",
		"FalconH1ForCausalLM", "GPT2LMHeadModel", "GPTBigCodeForCausalLM", "Gemma2ForCausalLM",
		"Gemma3ForCausalLM", "Gemma3ForConditionalGeneration", "Gemma3nForCausalLM",
		"Gemma3nForConditionalGeneration", "GemmaForCausalLM", "Glm4ForCausalLM", "Glm4MoeForCausalLM",
		"Glm4vForConditionalGeneration", "Glm4vMoeForConditionalGeneration", "GptOssForCausalLM",
		"GraniteForCausalLM", "GraniteMoeForCausalLM", "Grok1ForCausalLM", "Grok1ModelForCausalLM",
		"HunYuanDenseV1ForCausalLM", "HunYuanMoEV1ForCausalLM", "InternLM2ForCausalLM",
		"InternLM2ForRewardModel", "InternLM3ForCausalLM", "InternS1ForConditionalGeneration",
		"InternVLChatModel", "JetNemotronForCausalLM", "JetVLMForConditionalGeneration",
		"KimiLinearForCausalLM", "KimiVLForConditionalGeneration", "Llama4ForCausalLM",
		"Llama4ForConditionalGeneration", "LlamaEmbeddingModel", "LlamaForCausalLM",
		"LlavaBaseForCausalLM", "LlavaForConditionalGeneration", "LlavaLlamaForCausalLM",
		"LlavaMistralForCausalLM", "LlavaQwenForCausalLM", "LlavaVidForCausalLM",
		"LongcatFlashForCausalLM", "MiMoForCausalLM", "MindSporeForCausalLM", "MiniCPM3ForCausalLM",
		"MiniCPMForCausalLM", "MiniMaxM2ForCausalLM", "Ministral3ForCausalLM",
		"Mistral3ForConditionalGeneration", "MistralForCausalLM", "MistralLarge3ForCausalLM",
		"MistralModel", "MixtralForCausalLM", "MllamaForCausalLM", "MllamaForConditionalGeneration",
		"NVILAForConditionalGeneration", "NVILALiteForConditionalGeneration", "NemotronHForCausalLM",
		"OPTForCausalLM", "Olmo2ForCausalLM", "OlmoForCausalLM", "OlmoeForCausalLM", "OrionForCausalLM",
		"POINTSV15ChatModel", "PaddleOCRVLForConditionalGeneration", "PersimmonForCausalLM",
		"Phi3ForCausalLM", "Phi3SmallForCausalLM", "Phi4MMForCausalLM", "PhiForCausalLM",
		"PhiMoEForCausalLM", "PixtralForConditionalGeneration", "PixtralVisionModel", "QWenLMHeadModel",
		"QuantMixtralForCausalLM", "Qwen2AudioForConditionalGeneration", "Qwen2ForCausalLM",
		"Qwen2ForRewardModel", "Qwen2MoeForCausalLM", "Qwen2VLForConditionalGeneration",
		"Qwen2_5_VLForConditionalGeneration", "Qwen3ForCausalLM", "Qwen3MoeForCausalLM",
		"Qwen3NextForCausalLM", "Qwen3OmniMoeForConditionalGeneration",
		"Qwen3OmniMoeThinkerForConditionalGeneration", "Qwen3VLForConditionalGeneration",
		"Qwen3VLMoeForConditionalGeneration", "Sarashina2VisionForCausalLM", "SolarForCausalLM",
		"StableLmForCausalLM", "Starcoder2ForCausalLM", "Step3VLForConditionalGeneration",
		"TeleFLMForCausalLM", "TorchNativeLlamaForCausalLM", "TorchNativePhi3ForCausalLM",
		"TransformersForCausalLM", "XLMRobertaModel", "XverseForCausalLM", "XverseMoeForCausalLM",
		"YiVLForCausalLM",
	}
	native049 = []string{
		"AutoModel", "BaiChuanBaseForCausalLM", "BaichuanForCausalLM", "BertModel", "CLIPModel",
		"ChatGLMForCausalLM", "ChatGLMModel", "Cohere2ForCausalLM", "CohereForCausalLM",
		"DbrxForCausalLM", "DeepseekForCausalLM", "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM",
		"DeepseekVL2ForCausalLM", "ExaoneForCausalLM", "GPT2LMHeadModel", "GPTBigCodeForCausalLM",
		"Gemma2ForCausalLM", "Gemma3ForCausalLM", "Gemma3ForConditionalGeneration", "Gemma3nForCausalLM",
		"Gemma3nForConditionalGeneration", "GemmaForCausalLM", "Glm4ForCausalLM", "GraniteForCausalLM",
		"Grok1ForCausalLM", "Grok1ModelForCausalLM", "HunYuanMoEV1ForCausalLM", "InternLM2ForCausalLM",
		"InternLM2ForRewardModel", "InternLM3ForCausalLM", "InternVLChatModel",
		"KimiVLForConditionalGeneration", "Llama4ForCausalLM", "Llama4ForConditionalGeneration",
		"LlamaEmbeddingModel", "LlamaForCausalLM", "LlavaBaseForCausalLM",
		"LlavaForConditionalGeneration", "LlavaLlamaForCausalLM", "LlavaMistralForCausalLM",
		"LlavaQwenForCausalLM", "LlavaVidForCausalLM", "MiMoForCausalLM", "MiniCPM3ForCausalLM",
		"MiniCPMForCausalLM", "Mistral3ForConditionalGeneration", "MistralForCausalLM", "MistralModel",
		"MixtralForCausalLM", "MllamaForCausalLM", "MllamaForConditionalGeneration", "Olmo2ForCausalLM",
		"OlmoForCausalLM", "OlmoeForCausalLM", "Phi3ForCausalLM", "Phi3SmallForCausalLM",
		"Phi4MMForCausalLM", "PhiMoEForCausalLM", "PixtralVisionModel", "QWenLMHeadModel",
		"QuantMixtralForCausalLM", "Qwen2AudioForConditionalGeneration", "Qwen2ForCausalLM",
		"Qwen2ForRewardModel", "Qwen2MoeForCausalLM", "Qwen2VLForConditionalGeneration",
		"Qwen2_5_VLForConditionalGeneration", "Qwen3ForCausalLM", "Qwen3MoeForCausalLM",
		"StableLmForCausalLM", "TorchNativeLlamaForCausalLM", "TorchNativePhi3ForCausalLM",
		"TransformersForCausalLM", "VILAForConditionalGeneration", "XLMRobertaModel", "XverseForCausalLM",
		"XverseMoeForCausalLM", "YiVLForCausalLM",
	}
)
