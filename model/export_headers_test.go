package model

import "membudget/model/safetensors"

// HeaderFixtures are the full-size header fixtures by checkpoint, for the
// external test that loads them from a directory as `--model <dir>` does
// (model/hub imports this package, so that test lives outside it).
var HeaderFixtures = map[string]func() (string, []safetensors.Tensor){
	"deepseek-ai/DeepSeek-V4-Flash":                 deepSeekV4FlashHeader,
	"google/gemma-3n-E2B-it":                        gemma3nHeader("google__gemma-3n-E2B-it", 30, 8192),
	"microsoft/Phi-4-multimodal":                    phi4MMHeader,
	"meta-llama/Llama-3.1-8B-Instruct":              llama31_8BHeader,
	"google/gemma-3-4b-it":                          gemma3_4BHeader,
	"openai/gpt-oss-20b":                            gptOss20BHeader,
	"Qwen/Qwen3-30B-A3B":                            qwen3_30BA3BHeader,
	"Qwen/Qwen2.5-VL-7B-Instruct":                   qwen25VL7BHeader,
	"deepseek-ai/DeepSeek-V2-Lite":                  deepSeekV2LiteHeader,
	"mistralai/Mixtral-8x7B-v0.1":                   mixtral8x7BHeader,
	"microsoft/phi-4":                               phi4Header,
	"mistralai/Mistral-7B-Instruct-v0.3":            mistral7BHeader,
	"Qwen/Qwen3-VL-32B-Instruct":                    qwen3VL32BHeader,
	"mistralai/Mistral-Small-3.1-24B-Instruct-2503": mistralSmall31Header,
	"zai-org/GLM-4.5":                               glm45Header,
	"meta-llama/Llama-4-Scout-17B-16E-Instruct":     llama4ScoutHeader,
	"deepseek-ai/DeepSeek-V3":                       deepSeekV3Header,
	"MiniMaxAI/MiniMax-M2.5":                        miniMaxM2Header,
	"Qwen/Qwen3.5-27B":                              qwen35_27BHeader,
	"Qwen/Qwen3-Next-80B-A3B-Thinking":              qwen3NextHeader,
	"nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16":    nemotronNanoHeader,
	"Qwen/Qwen3.5-35B-A3B":                          qwen35_35BA3BHeader,
	"google/gemma-2-9b-it":                          gemma2_9BHeader,
	"allenai/Olmo-3.1-32B-Instruct":                 olmo3_32BHeader,
	"LGAI-EXAONE/EXAONE-4.0-32B":                    exaone4_32BHeader,
	"ibm-granite/granite-3.2-8b-instruct":           granite32_8BHeader,
	"allenai/OLMo-2-1124-13B":                       olmo2_13BHeader,
	"Qwen/Qwen1.5-MoE-A2.7B":                        qwen15MoEHeader,
	"deepseek-ai/DeepSeek-V3.2-Exp":                 deepSeekV32ExpHeader,
}
