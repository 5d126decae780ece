package model

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shape is what a config must give, entered by hand from the published
// configs (corpus/models, ARCHITECTURES.md), not from the parser's output.
// Layer counts are by kind; zero fields are left out of the table.
type shape struct {
	ModelType                        string
	Layers, Hidden, Heads, KVHeads   uint64
	HeadDim, Vocab, MaxPos           uint64
	Tied                             bool
	Sliding, Window, Chunked, Chunk  uint64
	Linear, Mamba, MLPOnly           uint64
	MoELayers, Experts, TopK         uint64
	MoEInter, SharedInter            uint64
	MLA                              bool
	KVLatent                         uint64 // kv_lora_rank + qk_rope_head_dim
	RotaryDim                        uint64
	Rope                             string // RopeScaling's type; "" without one
	MTP                              uint64
	StateDtype, Vision, Quant, Dtype string
}

// rope3 and friends name the rope types of the table.
const (
	llama3 = "llama3"
	yarn   = "yarn"
)

var shippedShapes = map[string]shape{
	"LGAI-EXAONE__EXAONE-4.0-32B": {ModelType: "exaone4", Layers: 64, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 102400, MaxPos: 131072,
		Sliding: 48, Window: 4096, RotaryDim: 128, Rope: llama3, Dtype: "bfloat16"},
	// MTP: num_mtp_modules 3; every layer MoE of intermediate_size 1536.
	"MiniMaxAI__MiniMax-M2.7": {ModelType: "minimax_m2", Layers: 62, Hidden: 3072, Heads: 48, KVHeads: 8, HeadDim: 128, Vocab: 200064, MaxPos: 204800,
		MoELayers: 62, Experts: 256, TopK: 8, MoEInter: 1536, RotaryDim: 64, MTP: 3, Quant: "fp8", Dtype: "bfloat16"},
	"Qwen__Qwen2.5-0.5B-Instruct":         {ModelType: "qwen2", Layers: 24, Hidden: 896, Heads: 14, KVHeads: 2, HeadDim: 64, Vocab: 151936, MaxPos: 32768, Tied: true, RotaryDim: 64, Dtype: "float32"},
	"Qwen__Qwen2.5-1.5B-Instruct":         {ModelType: "qwen2", Layers: 28, Hidden: 1536, Heads: 12, KVHeads: 2, HeadDim: 128, Vocab: 151936, MaxPos: 32768, Tied: true, RotaryDim: 128, Rope: "default", Dtype: "float16"},
	"Qwen__Qwen2.5-14B-Instruct-AWQ":      {ModelType: "qwen2", Layers: 48, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 152064, MaxPos: 32768, RotaryDim: 128, Quant: "awq", Dtype: "float16"},
	"Qwen__Qwen2.5-72B":                   {ModelType: "qwen2", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 152064, MaxPos: 131072, RotaryDim: 128, Dtype: "bfloat16"},
	"Qwen__Qwen2.5-7B-Instruct-GPTQ-Int4": {ModelType: "qwen2", Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128, Vocab: 152064, MaxPos: 32768, RotaryDim: 128, Quant: "gptq", Dtype: "float16"},
	// Qwen2.5-Math-PRM-7B: Qwen2.5-7B's layers under a process reward
	// head (pooling_decoder.go), 4096 positions, rope_theta 10000.
	"Qwen__Qwen2.5-Math-PRM-7B": {ModelType: "qwen2", Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128, Vocab: 152064, MaxPos: 4096, RotaryDim: 128, Dtype: "bfloat16"},
	"Qwen__Qwen2.5-7B-Instruct": {ModelType: "qwen2", Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128, Vocab: 152064, MaxPos: 32768, RotaryDim: 128, Dtype: "bfloat16"},
	"Qwen__Qwen2.5-VL-7B-Instruct": {ModelType: "qwen2_5_vl", Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128, Vocab: 152064, MaxPos: 128000,
		RotaryDim: 128, Rope: "mrope", Vision: "qwen2_5_vl", Dtype: "bfloat16"},
	// An encoder: every head a KV head, no rotary table.
	"BAAI__bge-reranker-v2-m3": {ModelType: "xlm-roberta", Layers: 24, Hidden: 1024, Heads: 16, KVHeads: 16, HeadDim: 64, Vocab: 250002, MaxPos: 8194, Dtype: "float32"},
	"BAAI__bge-base-en-v1.5":   {ModelType: "bert", Layers: 12, Hidden: 768, Heads: 12, KVHeads: 12, HeadDim: 64, Vocab: 30522, MaxPos: 512, Dtype: "float32"},
	"Qwen__Qwen3-0.6B":         {ModelType: "qwen3", Layers: 28, Hidden: 1024, Heads: 16, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxPos: 40960, Tied: true, RotaryDim: 128, Dtype: "bfloat16"},
	"Qwen__Qwen3-235B-A22B-FP8": {ModelType: "qwen3_moe", Layers: 94, Hidden: 4096, Heads: 64, KVHeads: 4, HeadDim: 128, Vocab: 151936, MaxPos: 40960,
		MoELayers: 94, Experts: 128, TopK: 8, MoEInter: 1536, RotaryDim: 128, Quant: "fp8", Dtype: "bfloat16"},
	"Qwen__Qwen3-235B-A22B": {ModelType: "qwen3_moe", Layers: 94, Hidden: 4096, Heads: 64, KVHeads: 4, HeadDim: 128, Vocab: 151936, MaxPos: 40960,
		MoELayers: 94, Experts: 128, TopK: 8, MoEInter: 1536, RotaryDim: 128, Dtype: "bfloat16"},
	"Qwen__Qwen3-30B-A3B-FP8": {ModelType: "qwen3_moe", Layers: 48, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 128, Vocab: 151936, MaxPos: 40960,
		MoELayers: 48, Experts: 128, TopK: 8, MoEInter: 768, RotaryDim: 128, Quant: "fp8", Dtype: "bfloat16"},
	"Qwen__Qwen3-30B-A3B": {ModelType: "qwen3_moe", Layers: 48, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 128, Vocab: 151936, MaxPos: 40960,
		MoELayers: 48, Experts: 128, TopK: 8, MoEInter: 768, RotaryDim: 128, Dtype: "bfloat16"},
	"Qwen__Qwen3-32B-FP8": {ModelType: "qwen3", Layers: 64, Hidden: 5120, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxPos: 40960, RotaryDim: 128, Quant: "fp8", Dtype: "bfloat16"},
	"Qwen__Qwen3-32B":     {ModelType: "qwen3", Layers: 64, Hidden: 5120, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxPos: 40960, RotaryDim: 128, Dtype: "bfloat16"},
	"Qwen__Qwen3-8B":      {ModelType: "qwen3", Layers: 36, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxPos: 40960, RotaryDim: 128, Dtype: "bfloat16"},
	// full_attention_interval 4: 12 of 48 layers attend, 36 are delta nets;
	// partial_rotary_factor 0.25 of 256; no mamba_ssm_dtype (no hook).
	"Qwen__Qwen3-Next-80B-A3B-Thinking": {ModelType: "qwen3_next", Layers: 48, Hidden: 2048, Heads: 16, KVHeads: 2, HeadDim: 256, Vocab: 151936, MaxPos: 262144,
		Linear: 36, MoELayers: 48, Experts: 512, TopK: 10, MoEInter: 512, SharedInter: 512, RotaryDim: 64, Dtype: "bfloat16"},
	"Qwen__Qwen3-VL-32B-Instruct": {ModelType: "qwen3_vl", Layers: 64, Hidden: 5120, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxPos: 262144,
		RotaryDim: 128, Rope: "default", Vision: "qwen3_vl", Dtype: "bfloat16"},
	"Qwen__Qwen3.5-27B": {ModelType: "qwen3_5", Layers: 64, Hidden: 5120, Heads: 24, KVHeads: 4, HeadDim: 256, Vocab: 248320, MaxPos: 262144,
		Linear: 48, RotaryDim: 64, Rope: "default", MTP: 1, StateDtype: "float32", Vision: "qwen3_vl", Dtype: "bfloat16"},
	"Qwen__Qwen3.5-35B-A3B": {ModelType: "qwen3_5_moe", Layers: 40, Hidden: 2048, Heads: 16, KVHeads: 2, HeadDim: 256, Vocab: 248320, MaxPos: 262144,
		Linear: 30, MoELayers: 40, Experts: 256, TopK: 8, MoEInter: 512, SharedInter: 512, RotaryDim: 64, Rope: "default", MTP: 1, StateDtype: "float32", Vision: "qwen3_vl", Dtype: "bfloat16"},
	"Qwen__Qwen3.6-35B-A3B": {ModelType: "qwen3_5_moe", Layers: 40, Hidden: 2048, Heads: 16, KVHeads: 2, HeadDim: 256, Vocab: 248320, MaxPos: 262144,
		Linear: 30, MoELayers: 40, Experts: 256, TopK: 8, MoEInter: 512, SharedInter: 512, RotaryDim: 64, Rope: "default", MTP: 1, StateDtype: "float32", Vision: "qwen3_vl", Dtype: "bfloat16"},
	// head_dim is 5120/40 (olmo3.py ignores the key); yarn x8 of 8192.
	"allenai__Olmo-3.1-32B-Instruct": {ModelType: "olmo3", Layers: 64, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 100278, MaxPos: 65536,
		Sliding: 48, Window: 4096, RotaryDim: 128, Rope: yarn, Dtype: "bfloat16"},
	"codellama__CodeLlama-7b-hf":                {ModelType: "llama", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128, Vocab: 32016, MaxPos: 16384, RotaryDim: 128, Dtype: "bfloat16"},
	"deepseek-ai__DeepSeek-R1-Distill-Qwen-32B": {ModelType: "qwen2", Layers: 64, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 152064, MaxPos: 131072, RotaryDim: 128, Dtype: "bfloat16"},
	"deepseek-ai__DeepSeek-V3": {ModelType: "deepseek_v3", Layers: 61, Hidden: 7168, Heads: 128, KVHeads: 128, HeadDim: 192, Vocab: 129280, MaxPos: 163840,
		MoELayers: 58, Experts: 256, TopK: 8, MoEInter: 2048, SharedInter: 2048, MLA: true, KVLatent: 576, RotaryDim: 64, Rope: yarn, MTP: 1, Quant: "fp8", Dtype: "bfloat16"},
	"deepseek-ai__DeepSeek-R1": {ModelType: "deepseek_v3", Layers: 61, Hidden: 7168, Heads: 128, KVHeads: 128, HeadDim: 192, Vocab: 129280, MaxPos: 163840,
		MoELayers: 58, Experts: 256, TopK: 8, MoEInter: 2048, SharedInter: 2048, MLA: true, KVLatent: 576, RotaryDim: 64, Rope: yarn, MTP: 1, Quant: "fp8", Dtype: "bfloat16"},
	// first_k_dense_replace 1: 26 of 27 layers MoE; 2 shared experts of 1408.
	"deepseek-ai__DeepSeek-V2-Lite": {ModelType: "deepseek_v2", Layers: 27, Hidden: 2048, Heads: 16, KVHeads: 16, HeadDim: 192, Vocab: 102400, MaxPos: 163840,
		MoELayers: 26, Experts: 64, TopK: 6, MoEInter: 1408, SharedInter: 2816, MLA: true, KVLatent: 576, RotaryDim: 64, Rope: yarn, Dtype: "bfloat16"},
	"deepseek-ai__DeepSeek-V3.2": {ModelType: "deepseek_v32", Layers: 61, Hidden: 7168, Heads: 128, KVHeads: 128, HeadDim: 192, Vocab: 129280, MaxPos: 163840,
		MoELayers: 58, Experts: 256, TopK: 8, MoEInter: 2048, SharedInter: 2048, MLA: true, KVLatent: 576, RotaryDim: 64, Rope: yarn, MTP: 1, Quant: "fp8", Dtype: "bfloat16"},
	// OPT: multi-head (no num_key_value_heads), head_dim 2048/32, tied by
	// transformers' default, no rotary.
	"facebook__opt-1.3b": {ModelType: "opt", Layers: 24, Hidden: 2048, Heads: 32, KVHeads: 32, HeadDim: 64, Vocab: 50272, MaxPos: 2048, Tied: true, Dtype: "float16"},
	"facebook__opt-2.7b": {ModelType: "opt", Layers: 32, Hidden: 2560, Heads: 32, KVHeads: 32, HeadDim: 80, Vocab: 50272, MaxPos: 2048, Tied: true, Dtype: "float16"},
	"google__gemma-2-9b-it": {ModelType: "gemma2", Layers: 42, Hidden: 3584, Heads: 16, KVHeads: 8, HeadDim: 256, Vocab: 256000, MaxPos: 8192, Tied: true,
		Sliding: 21, Window: 4096, RotaryDim: 256, Dtype: "bfloat16"},
	// text_config gives neither heads, KV heads, head_dim nor vocabulary:
	// Gemma3TextConfig's 8, 4, 256 and 262208 (and max_position 131072);
	// 34 layers, each 6th global: 6, 12, 18, 24, 30, so 29 slide.
	"google__gemma-3-4b-it": {ModelType: "gemma3", Layers: 34, Hidden: 2560, Heads: 8, KVHeads: 4, HeadDim: 256, Vocab: 262208, MaxPos: 131072, Tied: true,
		Sliding: 29, Window: 1024, RotaryDim: 256, Rope: "linear", Vision: "siglip", Dtype: "bfloat16"},
	// Gemma 3 1B, text only: every 6th of 26 layers global (5, 11, 17,
	// 23), so 22 slide over 512; one KV head of 256, no rope scaling.
	"google__gemma-3-1b-it": {ModelType: "gemma3_text", Layers: 26, Hidden: 1152, Heads: 4, KVHeads: 1, HeadDim: 256, Vocab: 262144, MaxPos: 32768, Tied: true,
		Sliding: 22, Window: 512, RotaryDim: 256, Dtype: "bfloat16"},
	"google__gemma-3-27b-it": {ModelType: "gemma3", Layers: 62, Hidden: 5376, Heads: 32, KVHeads: 16, HeadDim: 128, Vocab: 262208, MaxPos: 131072, Tied: true,
		Sliding: 52, Window: 1024, RotaryDim: 128, Rope: "linear", Vision: "siglip", Dtype: "bfloat16"},
	// Gemma 3n (rebuilt from Gemma3nTextConfig's E4B defaults and E2B's
	// shape): every 5th layer full, window 512, 8 heads and 2 KV heads of
	// 256, the head always the embedding; E4B 35 layers (28 slide), E2B 30
	// (24 slide). The layers' KV sharing is TestGemma3nLayers'.
	"google__gemma-3n-E4B-it": {ModelType: "gemma3n", Layers: 35, Hidden: 2048, Heads: 8, KVHeads: 2, HeadDim: 256, Vocab: 262400, MaxPos: 32768, Tied: true,
		Sliding: 28, Window: 512, RotaryDim: 256, Vision: "mobilenetv5", Dtype: "bfloat16"},
	"google__gemma-3n-E2B-it": {ModelType: "gemma3n", Layers: 30, Hidden: 2048, Heads: 8, KVHeads: 2, HeadDim: 256, Vocab: 262400, MaxPos: 32768, Tied: true,
		Sliding: 24, Window: 512, RotaryDim: 256, Vision: "mobilenetv5", Dtype: "bfloat16"},
	// Every layer has the dense MLP and the MoE block; rope nested by layer
	// type, so no single RopeScaling; the vision tower of its vision_config.
	"google__gemma-4-26B-A4B": {ModelType: "gemma4", Layers: 30, Hidden: 2816, Heads: 16, KVHeads: 8, HeadDim: 256, Vocab: 262144, MaxPos: 262144, Tied: true,
		Sliding: 25, Window: 1024, MoELayers: 30, Experts: 128, TopK: 8, MoEInter: 704, RotaryDim: 256, Vision: "gemma4", Dtype: "bfloat16"},
	"meta-llama__Llama-2-70b-hf":         {ModelType: "llama", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 32000, MaxPos: 4096, RotaryDim: 128, Dtype: "float16"},
	"meta-llama__Llama-2-7b-hf":          {ModelType: "llama", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128, Vocab: 32000, MaxPos: 4096, RotaryDim: 128, Dtype: "float32"},
	"meta-llama__Llama-3.1-70B-Instruct": {ModelType: "llama", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 128256, MaxPos: 131072, RotaryDim: 128, Rope: llama3, Dtype: "bfloat16"},
	"meta-llama__Llama-3.1-8B-Instruct":  {ModelType: "llama", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 128256, MaxPos: 131072, RotaryDim: 128, Rope: llama3, Dtype: "bfloat16"},
	"meta-llama__Llama-3.2-1B-Instruct":  {ModelType: "llama", Layers: 16, Hidden: 2048, Heads: 32, KVHeads: 8, HeadDim: 64, Vocab: 128256, MaxPos: 131072, Tied: true, RotaryDim: 64, Rope: llama3, Dtype: "bfloat16"},
	"meta-llama__Llama-3.2-1B":           {ModelType: "llama", Layers: 16, Hidden: 2048, Heads: 32, KVHeads: 8, HeadDim: 64, Vocab: 128256, MaxPos: 131072, Tied: true, RotaryDim: 64, Rope: llama3, Dtype: "bfloat16"},
	"meta-llama__Llama-3.2-3B-Instruct":  {ModelType: "llama", Layers: 28, Hidden: 3072, Heads: 24, KVHeads: 8, HeadDim: 128, Vocab: 128256, MaxPos: 131072, Tied: true, RotaryDim: 128, Rope: llama3, Dtype: "bfloat16"},
	"meta-llama__Llama-3.3-70B-Instruct": {ModelType: "llama", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 128256, MaxPos: 131072, RotaryDim: 128, Rope: llama3, Dtype: "bfloat16"},
	// No-rope layers every 4th (12 of 48) attend globally, the other 36 in
	// chunks of 8192; MoE every 2nd layer (interleave_moe_layer_step 2),
	// one shared expert of intermediate_size.
	"meta-llama__Llama-4-Maverick-17B-128E-Instruct": {ModelType: "llama4", Layers: 48, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 202048, MaxPos: 1048576,
		Chunked: 36, Chunk: 8192, MoELayers: 24, Experts: 128, TopK: 1, MoEInter: 8192, SharedInter: 8192, RotaryDim: 128, Vision: "llama4", Dtype: "bfloat16"},
	"meta-llama__Llama-4-Maverick-17B-128E-Instruct-FP8": {ModelType: "llama4", Layers: 48, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 202048, MaxPos: 1048576,
		Chunked: 36, Chunk: 8192, MoELayers: 24, Experts: 128, TopK: 1, MoEInter: 8192, SharedInter: 8192, RotaryDim: 128, Vision: "llama4", Quant: "compressed-tensors", Dtype: "bfloat16"},
	"meta-llama__Llama-4-Scout-17B-16E-Instruct": {ModelType: "llama4", Layers: 48, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 202048, MaxPos: 10485760,
		Chunked: 36, Chunk: 8192, MoELayers: 48, Experts: 16, TopK: 1, MoEInter: 8192, SharedInter: 8192, RotaryDim: 128, Rope: llama3, Vision: "llama4", Dtype: "bfloat16"},
	// Phi-3 applies sliding_window to every layer; "su" is read as longrope.
	"microsoft__Phi-3-mini-128k-instruct": {ModelType: "phi3", Layers: 32, Hidden: 3072, Heads: 32, KVHeads: 32, HeadDim: 96, Vocab: 32064, MaxPos: 131072,
		Sliding: 32, Window: 262144, RotaryDim: 96, Rope: "longrope", Dtype: "bfloat16"},
	"microsoft__Phi-3-mini-4k-instruct": {ModelType: "phi3", Layers: 32, Hidden: 3072, Heads: 32, KVHeads: 32, HeadDim: 96, Vocab: 32064, MaxPos: 4096,
		Sliding: 32, Window: 2047, RotaryDim: 96, Dtype: "bfloat16"},
	// partial_rotary_factor 0.4 of head_dim 80: 32.
	"microsoft__phi-2": {ModelType: "phi", Layers: 32, Hidden: 2560, Heads: 32, KVHeads: 32, HeadDim: 80, Vocab: 51200, MaxPos: 2048, RotaryDim: 32, Dtype: "float16"},
	"microsoft__phi-4": {ModelType: "phi3", Layers: 40, Hidden: 5120, Heads: 40, KVHeads: 10, HeadDim: 128, Vocab: 100352, MaxPos: 16384, RotaryDim: 128, Dtype: "bfloat16"},
	"mistralai__Devstral-Small-2-24B-Instruct-2512": {ModelType: "mistral3", Layers: 40, Hidden: 5120, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 131072, MaxPos: 393216,
		RotaryDim: 128, Rope: yarn, Vision: "pixtral", Quant: "fp8", Dtype: "bfloat16"},
	"mistralai__Mistral-7B-Instruct-v0.3": {ModelType: "mistral", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 32768, MaxPos: 32768, RotaryDim: 128, Dtype: "bfloat16"},
	"mistralai__Mixtral-8x7B-v0.1": {ModelType: "mixtral", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 32000, MaxPos: 32768,
		MoELayers: 32, Experts: 8, TopK: 2, MoEInter: 14336, RotaryDim: 128, Dtype: "bfloat16"},
	// DeepSeek-V3's layout; first_k_dense_replace 1: 60 of 61 layers MoE.
	"moonshotai__Kimi-K2-Instruct": {ModelType: "kimi_k2", Layers: 61, Hidden: 7168, Heads: 64, KVHeads: 64, HeadDim: 192, Vocab: 163840, MaxPos: 131072,
		MoELayers: 60, Experts: 384, TopK: 8, MoEInter: 2048, SharedInter: 2048, MLA: true, KVLatent: 576, RotaryDim: 64, Rope: yarn, Quant: "fp8", Dtype: "bfloat16"},
	"moonshotai__Kimi-K2.5": {ModelType: "kimi_k25", Layers: 61, Hidden: 7168, Heads: 64, KVHeads: 64, HeadDim: 192, Vocab: 163840, MaxPos: 262144,
		MoELayers: 60, Experts: 384, TopK: 8, MoEInter: 2048, SharedInter: 2048, MLA: true, KVLatent: 576, RotaryDim: 64, Rope: yarn, Vision: "moonvit", Quant: "compressed-tensors", Dtype: "bfloat16"},
	// Read without its hf_quant_config.json: no quantization_config.
	"nvidia__Llama-3.1-70B-Instruct-FP8": {ModelType: "llama", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 128256, MaxPos: 131072, RotaryDim: 128, Rope: llama3, Dtype: "bfloat16"},
	// MEMEM*EMEMEM*...: 23 Mamba2, 6 attention, 23 MoE blocks.
	"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": {ModelType: "nemotron_h", Layers: 52, Hidden: 2688, Heads: 32, KVHeads: 2, HeadDim: 128, Vocab: 131072, MaxPos: 262144,
		Mamba: 23, MLPOnly: 23, MoELayers: 23, Experts: 128, TopK: 6, MoEInter: 1856, SharedInter: 3712, RotaryDim: 128, StateDtype: "float32", Dtype: "bfloat16"},
	// MEMEMEM*E...: 40 Mamba2, 8 attention, 40 latent MoE blocks; one MTP
	// block (num_nextn_predict_layers).
	"nvidia__NVIDIA-Nemotron-3-Super-120B-A12B-BF16": {ModelType: "nemotron_h", Layers: 88, Hidden: 4096, Heads: 32, KVHeads: 2, HeadDim: 128, Vocab: 131072, MaxPos: 262144,
		Mamba: 40, MLPOnly: 40, MoELayers: 40, Experts: 512, TopK: 22, MoEInter: 2688, SharedInter: 5376, RotaryDim: 128, MTP: 1, StateDtype: "float32", Dtype: "bfloat16"},
	"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4": {ModelType: "nemotron_h", Layers: 52, Hidden: 2688, Heads: 32, KVHeads: 2, HeadDim: 128, Vocab: 131072, MaxPos: 262144,
		Mamba: 23, MLPOnly: 23, MoELayers: 23, Experts: 128, TopK: 6, MoEInter: 1856, SharedInter: 3712, RotaryDim: 128, StateDtype: "float32", Dtype: "bfloat16"},
	// M-M-...-: 54 Mamba2, 10 attention, 54 relu2 MLP blocks; head_dim
	// from attention_head_dim; no mamba_ssm_cache_dtype: NemotronHConfig's
	// float32 (vLLM's hook defaults to it too).
	"nvidia__Nemotron-H-56B-Base-8K": {ModelType: "nemotron_h", Layers: 118, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 131072, MaxPos: 8192,
		Mamba: 54, MLPOnly: 54, RotaryDim: 128, StateDtype: "float32", Dtype: "bfloat16"},
	"nvidia__Qwen3-235B-A22B-NVFP4": {ModelType: "qwen3_moe", Layers: 94, Hidden: 4096, Heads: 64, KVHeads: 4, HeadDim: 128, Vocab: 151936, MaxPos: 40960,
		MoELayers: 94, Experts: 128, TopK: 8, MoEInter: 1536, RotaryDim: 128, Dtype: "bfloat16"},
	"nvidia__Qwen3.6-35B-A3B-NVFP4": {ModelType: "qwen3_5_moe", Layers: 40, Hidden: 2048, Heads: 16, KVHeads: 2, HeadDim: 256, Vocab: 248320, MaxPos: 262144,
		Linear: 30, MoELayers: 40, Experts: 256, TopK: 8, MoEInter: 512, SharedInter: 512, RotaryDim: 64, Rope: "default", MTP: 1, StateDtype: "float32", Vision: "qwen3_vl", Quant: "modelopt", Dtype: "bfloat16"},
	// Sliding on the even layers, yarn x32 of 4096.
	"openai__gpt-oss-120b": {ModelType: "gpt_oss", Layers: 36, Hidden: 2880, Heads: 64, KVHeads: 8, HeadDim: 64, Vocab: 201088, MaxPos: 131072,
		Sliding: 18, Window: 128, MoELayers: 36, Experts: 128, TopK: 4, MoEInter: 2880, RotaryDim: 64, Rope: yarn, Quant: "mxfp4", Dtype: "float32"},
	"openai__gpt-oss-20b": {ModelType: "gpt_oss", Layers: 24, Hidden: 2880, Heads: 64, KVHeads: 8, HeadDim: 64, Vocab: 201088, MaxPos: 131072,
		Sliding: 12, Window: 128, MoELayers: 24, Experts: 32, TopK: 4, MoEInter: 2880, RotaryDim: 64, Rope: yarn, Quant: "mxfp4", Dtype: "float32"},
	"seanses2-local__CodeLlama-7b-hf-bnb-8bit": {ModelType: "llama", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128, Vocab: 32016, MaxPos: 16384, RotaryDim: 128, Quant: "bitsandbytes", Dtype: "float32"},
	// first_k_dense_replace 3: 89 of 92 MoE; partial rotary 0.5 of 128.
	"zai-org__GLM-4.5": {ModelType: "glm4_moe", Layers: 92, Hidden: 5120, Heads: 96, KVHeads: 8, HeadDim: 128, Vocab: 151552, MaxPos: 131072,
		MoELayers: 89, Experts: 160, TopK: 8, MoEInter: 1536, SharedInter: 1536, RotaryDim: 64, MTP: 1, Dtype: "bfloat16"},
	// Gemma 1: head_dim 256 stated (not 3072/16), the head tied.
	"google__gemma-7b": {ModelType: "gemma", Layers: 28, Hidden: 3072, Heads: 16, KVHeads: 16, HeadDim: 256, Vocab: 256000, MaxPos: 8192, Tied: true, RotaryDim: 256, Dtype: "bfloat16"},
	// Granite 3: head_dim 2048/32 and 4096/32, tied.
	"ibm-granite__granite-3.1-2b-instruct": {ModelType: "granite", Layers: 40, Hidden: 2048, Heads: 32, KVHeads: 8, HeadDim: 64, Vocab: 49155, MaxPos: 131072, Tied: true, RotaryDim: 64, Dtype: "bfloat16"},
	"ibm-granite__granite-3.2-8b-instruct": {ModelType: "granite", Layers: 40, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 49155, MaxPos: 131072, Tied: true, RotaryDim: 128, Dtype: "bfloat16"},
	// decoder_sparse_step 1, no mlp_only_layers: all 24 layers MoE, one
	// shared expert of 5632; use_sliding_window false.
	"Qwen__Qwen1.5-MoE-A2.7B": {ModelType: "qwen2_moe", Layers: 24, Hidden: 2048, Heads: 16, KVHeads: 16, HeadDim: 128, Vocab: 151936, MaxPos: 8192,
		MoELayers: 24, Experts: 60, TopK: 4, MoEInter: 1408, SharedInter: 5632, RotaryDim: 128, Dtype: "bfloat16"},
	"Qwen__Qwen2.5-14B": {ModelType: "qwen2", Layers: 48, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 152064, MaxPos: 131072, RotaryDim: 128, Dtype: "bfloat16"},
	"Qwen__Qwen2.5-3B":  {ModelType: "qwen2", Layers: 36, Hidden: 2048, Heads: 16, KVHeads: 2, HeadDim: 128, Vocab: 151936, MaxPos: 32768, Tied: true, RotaryDim: 128, Dtype: "bfloat16"},
	"Qwen__Qwen3-14B":   {ModelType: "qwen3", Layers: 40, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxPos: 40960, RotaryDim: 128, Dtype: "bfloat16"},
	// Qwen3-14B's shape under Qwen's AWQ quantization_config, float16.
	"Qwen__Qwen3-14B-AWQ": {ModelType: "qwen3", Layers: 40, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxPos: 40960, RotaryDim: 128, Quant: "awq", Dtype: "float16"},
	"Qwen__Qwen3-4B":      {ModelType: "qwen3", Layers: 36, Hidden: 2560, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxPos: 40960, Tied: true, RotaryDim: 128, Dtype: "bfloat16"},
	// first_k_dense_replace 1: 59 of 60 layers MoE; 2 shared experts of 1536.
	"deepseek-ai__DeepSeek-V2.5": {ModelType: "deepseek_v2", Layers: 60, Hidden: 5120, Heads: 128, KVHeads: 128, HeadDim: 192, Vocab: 102400, MaxPos: 163840,
		MoELayers: 59, Experts: 160, TopK: 6, MoEInter: 1536, SharedInter: 3072, MLA: true, KVLatent: 576, RotaryDim: 64, Rope: yarn, Dtype: "bfloat16"},
	"facebook__opt-125m": {ModelType: "opt", Layers: 12, Hidden: 768, Heads: 12, KVHeads: 12, HeadDim: 64, Vocab: 50272, MaxPos: 2048, Tied: true, Dtype: "float16"},
	// layer_types: every 6th of 60 full (10), the full layers
	// global_head_dim 512 with 4 global KV heads (attention_k_eq_v); the
	// vision tower of its vision_config.
	"google__gemma-4-31B-it": {ModelType: "gemma4", Layers: 60, Hidden: 5376, Heads: 32, KVHeads: 16, HeadDim: 256, Vocab: 262144, MaxPos: 262144, Tied: true,
		Sliding: 50, Window: 1024, RotaryDim: 256, Vision: "gemma4", Dtype: "bfloat16"},
	// text_config mistral, rope_theta 1e9 without scaling; Pixtral tower.
	"mistralai__Mistral-Small-3.1-24B-Instruct-2503": {ModelType: "mistral3", Layers: 40, Hidden: 5120, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 131072, MaxPos: 131072,
		RotaryDim: 128, Vision: "pixtral", Dtype: "bfloat16"},
	// 43 layers, every one MoE (256 experts top-6, one shared of 2048),
	// a single 512-wide latent (num_key_value_heads 1) and a 128-token
	// window on each; the fp8 quantization_config, MXFP4 experts.
	"deepseek-ai__DeepSeek-V4-Flash": {ModelType: "deepseek_v4", Layers: 43, Hidden: 4096, Heads: 64, KVHeads: 1, HeadDim: 512, Vocab: 129280,
		MaxPos: 1048576, Window: 128, MoELayers: 43, Experts: 256, TopK: 6, MoEInter: 2048, SharedInter: 2048, RotaryDim: 64, Rope: yarn,
		MTP: 1, Quant: "fp8", Dtype: "bfloat16"},
	"deepseek-ai__DeepSeek-V4-Flash-0731": {ModelType: "deepseek_v4", Layers: 43, Hidden: 4096, Heads: 64, KVHeads: 1, HeadDim: 512, Vocab: 129280,
		MaxPos: 1048576, Window: 128, MoELayers: 43, Experts: 256, TopK: 6, MoEInter: 2048, SharedInter: 2048, RotaryDim: 64, Rope: yarn,
		MTP: 1, Quant: "fp8", Dtype: "bfloat16"},
	// model_type deepseek: layer 0 dense, 27 MoE layers of 64 experts
	// top-6 of 1408 and 2 shared (2 x 1408), multi-head attention.
	"deepseek-ai__deepseek-moe-16b-chat": {ModelType: "deepseek", Layers: 28, Hidden: 2048, Heads: 16, KVHeads: 16, HeadDim: 128, Vocab: 102400,
		MaxPos: 4096, MoELayers: 27, Experts: 64, TopK: 6, MoEInter: 1408, SharedInter: 2816, RotaryDim: 128, Dtype: "bfloat16"},
	// Every layer MoE: 64 experts top-8 of intermediate_size 1024.
	"allenai__OLMoE-1B-7B-0924": {ModelType: "olmoe", Layers: 16, Hidden: 2048, Heads: 16, KVHeads: 16, HeadDim: 128, Vocab: 50304, MaxPos: 4096,
		MoELayers: 16, Experts: 64, TopK: 8, MoEInter: 1024, RotaryDim: 128, Dtype: "bfloat16"},
	// Every layer MoE: 40 experts top-8 of intermediate_size 512; tied.
	"ibm-granite__granite-3.0-3b-a800m-instruct": {ModelType: "granitemoe", Layers: 32, Hidden: 1536, Heads: 24, KVHeads: 8, HeadDim: 64, Vocab: 49155,
		MaxPos: 4096, Tied: true, MoELayers: 32, Experts: 40, TopK: 8, MoEInter: 512, RotaryDim: 64, Dtype: "bfloat16"},
	// arcee (AFM-4.5B's shape): an ungated ReLU² MLP; YaRN x20 over 4096.
	"Delta-Vector__Austral-AFM-SFT": {ModelType: "arcee", Layers: 36, Hidden: 2560, Heads: 20, KVHeads: 4, HeadDim: 128, Vocab: 128005, MaxPos: 65536,
		RotaryDim: 128, Rope: yarn, Dtype: "bfloat16"},
	// Every layer MoE: 7 experts, every one active, of 11,008; float32.
	"allenai__FlexOlmo-7x7B-1T": {ModelType: "flex_olmo", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128, Vocab: 100352,
		MaxPos: 4096, MoELayers: 32, Experts: 7, TopK: 7, MoEInter: 11008, RotaryDim: 128, Dtype: "float32"},
	"zai-org__GLM-5": {ModelType: "glm_moe_dsa", Layers: 78, Hidden: 6144, Heads: 64, KVHeads: 64, HeadDim: 256, Vocab: 154880, MaxPos: 202752,
		MoELayers: 75, Experts: 256, TopK: 8, MoEInter: 2048, SharedInter: 2048, MLA: true, KVLatent: 576, RotaryDim: 64, Rope: "default", MTP: 1, Dtype: "bfloat16"},
	// GLM-5.2: GLM-5's shapes with 1048576 positions (and IndexCache,
	// TestGLM52ShippedIndexCache).
	"zai-org__GLM-5.2": {ModelType: "glm_moe_dsa", Layers: 78, Hidden: 6144, Heads: 64, KVHeads: 64, HeadDim: 256, Vocab: 154880, MaxPos: 1048576,
		MoELayers: 75, Experts: 256, TopK: 8, MoEInter: 2048, SharedInter: 2048, MLA: true, KVLatent: 576, RotaryDim: 64, Rope: "default", MTP: 1, Dtype: "bfloat16"},
}

func shapeOf(a *Arch) shape {
	s := shape{ModelType: a.ModelType, Layers: a.NumLayers, Hidden: a.Hidden, Heads: a.Heads, KVHeads: a.KVHeads, HeadDim: a.HeadDim,
		Vocab: a.Vocab, MaxPos: a.MaxPosition, Tied: a.TiedEmbeddings, Window: a.SlidingWindow, Chunk: a.AttentionChunkSize,
		Experts: a.Experts, TopK: a.ExpertsPerToken, MoEInter: a.MoEIntermediate, SharedInter: a.SharedIntermediate, MLA: a.MLA,
		RotaryDim: a.RotaryDim, MTP: a.MTPLayers, StateDtype: a.StateDtype, Quant: a.Quant.Method, Dtype: a.Dtype}
	for _, l := range a.Layers {
		switch l.Kind {
		case SlidingAttention:
			s.Sliding++
		case ChunkedAttention:
			s.Chunked++
		case LinearAttention:
			s.Linear++
		case Mamba:
			s.Mamba++
		case NoMixer:
			s.MLPOnly++
		}
		if l.MoE {
			s.MoELayers++
		}
	}
	if a.MLA {
		s.KVLatent = a.KVLoraRank + a.QKRopeHeadDim
	}
	if a.RopeScaling != nil {
		s.Rope = a.RopeScaling.Type
	}
	if a.Vision != nil {
		s.Vision = a.Vision.Kind
	}
	return s
}

func loadShipped(t testing.TB) map[string]*Arch {
	t.Helper()
	files, err := filepath.Glob("../corpus/models/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs under corpus/models: %v", err)
	}
	archs := map[string]*Arch{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		a, err := ParseConfig(f, data)
		if err != nil {
			t.Fatalf("%v", err)
		}
		archs[strings.TrimSuffix(filepath.Base(f), ".json")] = a
	}
	return archs
}

// loadWithQuantFile parses a shipped config with its hf_quant_config.json
// from corpus/models/hf_quant_config/.
func loadWithQuantFile(t testing.TB, name string) *Arch {
	t.Helper()
	data := corpusModel(t, name)
	qf := "../corpus/models/hf_quant_config/" + name + ".json"
	q, err := os.ReadFile(qf)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseConfig(name+".json", data, WithHFQuantConfig(qf, q))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestShippedConfigsParse(t *testing.T) {
	archs := loadShipped(t)
	for name, want := range shippedShapes {
		a, ok := archs[name]
		if !ok {
			t.Errorf("%s is not shipped", name)
			continue
		}
		if diff := cmp.Diff(want, shapeOf(a)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	for name := range archs {
		if _, ok := shippedShapes[name]; !ok {
			t.Errorf("%s is shipped but has no expected shape here", name)
		}
	}
	families := map[string]bool{}
	for _, a := range archs {
		families[a.ModelType] = true
	}
	for _, f := range []string{"llama", "mistral", "qwen2", "qwen3", "phi", "phi3", "mixtral", "qwen3_moe", "deepseek_v2", "deepseek_v3",
		"gemma2", "gemma3", "opt", "gpt_oss", "llama4", "qwen3_next", "qwen3_5", "qwen3_5_moe", "nemotron_h", "qwen2_5_vl", "qwen3_vl",
		"mistral3", "glm4_moe", "deepseek_v32", "kimi_k2", "gemma4", "minimax_m2", "olmo3", "glm_moe_dsa", "kimi_k25", "exaone4",
		"gemma", "granite", "qwen2_moe", "gemma3n"} {
		if !families[f] {
			t.Errorf("family %s has no shipped config", f)
		}
	}
}

// TestHFQuantConfigFiles: the ModelOpt checkpoints whose config.json has no
// quantization_config read it from hf_quant_config.json.
func TestHFQuantConfigFiles(t *testing.T) {
	tests := []struct {
		name       string
		algo, kv   string
		notConvert int
	}{
		{"nvidia__Llama-3.1-70B-Instruct-FP8", "FP8", "fp8_e4m3", 1}, // exclude_modules: lm_head
		// lm_head, in_proj and out_proj of 6 Mamba layers, q, k, v and o of
		// the 6 attention layers, the 23 Mamba convolutions: 1+12+24+23.
		{"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4", "NVFP4", "fp8_e4m3", 60},
		{"nvidia__Qwen3-235B-A22B-NVFP4", "NVFP4", "fp8_e4m3", 94 + 1}, // every layer's router and lm_head
	}
	for _, tt := range tests {
		a := loadWithQuantFile(t, tt.name)
		got := struct {
			Method, Algo, KV string
			NotConvert       int
		}{a.Quant.Method, a.Quant.Algo, a.Quant.KVCacheDtype, len(a.Quant.NotConvert)}
		want := struct {
			Method, Algo, KV string
			NotConvert       int
		}{"modelopt", tt.algo, tt.kv, tt.notConvert}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestGemma3Layers(t *testing.T) {
	a := loadShipped(t)["google__gemma-3-27b-it"]
	for i, l := range a.Layers {
		// pattern 6: layers 5, 11, ..., 59 are global (10 of 62).
		if want := (i+1)%6 != 0; l.Sliding() != want {
			t.Errorf("layer %d sliding = %v, want %v", i, l.Sliding(), want)
		}
	}
	want := []RotaryTable{{Name: "rotary_emb_local", Positions: 131072, Dim: 128}, {Name: "rotary_emb", Positions: 131072 * 8, Dim: 128}}
	if diff := cmp.Diff(want, a.Rotary); diff != "" {
		t.Errorf("rotary tables: local unscaled and global x8 linear (-want +got):\n%s", diff)
	}
	if a.Vision == nil || a.Vision.Layers != 27 || a.Vision.Hidden != 1152 {
		t.Errorf("vision tower = %+v, want SigLIP 27 x 1152", a.Vision)
	}
}

func TestDeepSeekDenseLayers(t *testing.T) {
	a := loadShipped(t)["deepseek-ai__DeepSeek-V3"]
	for i, l := range a.Layers {
		if want := i >= 3; l.MoE != want { // first_k_dense_replace = 3
			t.Errorf("layer %d MoE = %v, want %v", i, l.MoE, want)
		}
	}
	if a.Quant.BlockN != 128 || a.Quant.BlockK != 128 || a.SharedExperts != 1 {
		t.Errorf("quant %+v shared %d, want fp8 128x128 blocks and 1 shared expert", a.Quant, a.SharedExperts)
	}
}

// kinds spells a layer pattern one letter a layer: F full, S sliding, C
// chunked, L linear, M Mamba, - MLP only; a following "e" marks MoE.
func kinds(ls []Layer) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteByte("FSCLM-"[l.Kind])
		if l.MoE {
			b.WriteByte('e')
		}
	}
	return b.String()
}

// TestLayerPatterns: each family's layers as its config and vLLM's model
// file say, entered from the configs.
func TestLayerPatterns(t *testing.T) {
	archs := loadShipped(t)
	rep := func(s string, n int) string { return strings.Repeat(s, n) }
	tests := []struct{ name, want string }{
		// gpt_oss.py:157: sliding on even layer indices.
		{"openai__gpt-oss-20b", rep("SeFe", 12)},
		// Llama 4 Maverick: no rope every 4th layer (global), MoE every 2nd.
		{"meta-llama__Llama-4-Maverick-17B-128E-Instruct", rep("CCeCFe", 12)},
		// Qwen3.5-27B: layer_types 3 linear then 1 full.
		{"Qwen__Qwen3.5-27B", rep("LLLF", 16)},
		// Nemotron-3-Nano: hybrid_override_pattern with E for MoE blocks.
		{"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "M-eM-eMF-eM-eM-eMF-eM-eM-eMF-eM-eM-eMF-eM-eM-eMF-eM-eM-eM-eMF-eM-eM-eM-eM-e"},
		// Nemotron-3-Super: the same letters over 88 blocks.
		{"nvidia__NVIDIA-Nemotron-3-Super-120B-A12B-BF16", "M-eM-eM-eMF-eM-eM-eM-eMF-eM-eM-eM-eMF-eM-eM-eM-eM-eMF-eM-eM-eM-eM-eMF-eM-eM-eM-eM-eMF-eM-eM-eM-eM-eMF-eM-eM-eM-eMF-eM-eM-eM-eM-e"},
		// OLMo 3: three sliding then one full.
		{"allenai__Olmo-3.1-32B-Instruct", rep("SSSF", 16)},
		// GLM-4.5: three dense, then MoE.
		{"zai-org__GLM-4.5", "FFF" + rep("Fe", 89)},
	}
	for _, tt := range tests {
		if got := kinds(archs[tt.name].Layers); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	l4 := archs["meta-llama__Llama-4-Maverick-17B-128E-Instruct"]
	for i, l := range l4.Layers {
		if want := (i+1)%4 == 0; l.NoRoPE != want {
			t.Errorf("llama4 layer %d NoRoPE = %v, want %v", i, l.NoRoPE, want)
		}
	}
	g4 := archs["google__gemma-4-26B-A4B"]
	for i, l := range g4.Layers {
		// layer_types: every 6th full; full layers global_head_dim 512 and,
		// with attention_k_eq_v, 2 global KV heads.
		want := Layer{Kind: SlidingAttention, MoE: true}
		if (i+1)%6 == 0 {
			want = Layer{Kind: FullAttention, MoE: true, HeadDim: 512, KVHeads: 2}
		}
		if diff := cmp.Diff(want, l); diff != "" {
			t.Errorf("gemma4 layer %d (-want +got):\n%s", i, diff)
		}
	}
}

// TestStateShapes: the per-sequence state of the hybrid families, from
// their configs' keys.
func TestStateShapes(t *testing.T) {
	archs := loadShipped(t)
	// Nemotron-3-Nano: mamba_num_heads 64 x mamba_head_dim 64 = 4096,
	// ssm_state_size 128, n_groups 8, conv_kernel 4, chunk_size 128.
	if diff := cmp.Diff(&MambaShape{Version: 2, NumHeads: 64, HeadDim: 64, StateSize: 128, NGroups: 8, ConvKernel: 4, Intermediate: 4096, ChunkSize: 128},
		archs["nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"].Mamba); diff != "" {
		t.Errorf("nemotron mamba (-want +got):\n%s", diff)
	}
	// Qwen3.5-27B: 16 key heads, 48 value heads, 128 x 128, kernel 4.
	if diff := cmp.Diff(&DeltaNetShape{NumKeyHeads: 16, NumValueHeads: 48, KeyHeadDim: 128, ValueHeadDim: 128, ConvKernel: 4},
		archs["Qwen__Qwen3.5-27B"].DeltaNet); diff != "" {
		t.Errorf("qwen3.5 delta net (-want +got):\n%s", diff)
	}
	// DeepSeek-V3.2: index_head_dim 128, index_n_heads 64, index_topk 2048.
	if diff := cmp.Diff(&IndexerShape{HeadDim: 128, NumHeads: 64, TopK: 2048}, archs["deepseek-ai__DeepSeek-V3.2"].Indexer); diff != "" {
		t.Errorf("v3.2 indexer (-want +got):\n%s", diff)
	}
	if archs["zai-org__GLM-5"].Indexer == nil || archs["deepseek-ai__DeepSeek-V3"].Indexer != nil {
		t.Error("GLM-5 has an indexer, DeepSeek-V3 none")
	}
}

// TestRopeAndLengthKeys: rope_scaling as read (legacy type, su renamed,
// mrope, nested by layer type) and the length keys.
func TestRopeAndLengthKeys(t *testing.T) {
	archs := loadShipped(t)
	tests := []struct {
		name  string
		ropes []RopeScaling
		keys  map[string]uint64
	}{
		{"meta-llama__Llama-3.1-8B-Instruct", []RopeScaling{{Type: "llama3", Factor: 8, OriginalMaxPosition: 8192}}, map[string]uint64{"max_position_embeddings": 131072}},
		// Legacy "type": "yarn", factor 40 of 4096.
		{"deepseek-ai__DeepSeek-V3.2", []RopeScaling{{Type: "yarn", Factor: 40, OriginalMaxPosition: 4096}}, map[string]uint64{"max_position_embeddings": 163840}},
		// "type": "su" is longrope; original_max_position_embeddings 4096
		// beside rope_scaling.
		{"microsoft__Phi-3-mini-128k-instruct", []RopeScaling{{Type: "longrope", OriginalMaxPosition: 4096}}, map[string]uint64{"max_position_embeddings": 131072}},
		{"Qwen__Qwen2.5-VL-7B-Instruct", []RopeScaling{{Type: "mrope", MRoPE: true}}, map[string]uint64{"max_position_embeddings": 128000}},
		// transformers 5's rope_parameters, default with mrope_section.
		{"Qwen__Qwen3.5-27B", []RopeScaling{{Type: "default", MRoPE: true}}, map[string]uint64{"max_position_embeddings": 262144}},
		{"google__gemma-4-26B-A4B", []RopeScaling{{Type: "proportional", LayerType: "full_attention"}, {Type: "default", LayerType: "sliding_attention"}},
			map[string]uint64{"max_position_embeddings": 262144}},
		{"facebook__opt-1.3b", nil, map[string]uint64{"max_position_embeddings": 2048}},
	}
	for _, tt := range tests {
		a := archs[tt.name]
		if diff := cmp.Diff(tt.ropes, a.RopeScalings); diff != "" {
			t.Errorf("%s rope (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.keys, a.MaxLenKeys); diff != "" {
			t.Errorf("%s length keys (-want +got):\n%s", tt.name, diff)
		}
	}
	doc := strings.Replace(llamaLike, `"torch_dtype"`, `"n_positions": 1024, "model_max_length": 1e30, "seq_length": 512.0, "torch_dtype"`, 1)
	a, err := ParseConfig("x.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	// 1e30 is tokenizers' "unlimited": saturated, not refused.
	want := map[string]uint64{"max_position_embeddings": 256, "n_positions": 1024, "model_max_length": 1<<64 - 1, "seq_length": 512}
	if diff := cmp.Diff(want, a.MaxLenKeys); diff != "" {
		t.Errorf("length keys (-want +got):\n%s", diff)
	}
}

// TestRotaryTables: each table's rows and width by rope type, entered by
// hand from the configs.
func TestRotaryTables(t *testing.T) {
	archs := loadShipped(t)
	tests := []struct {
		name string
		want []RotaryTable
	}{
		// yarn: original 4096 x factor 32; gpt_oss.py builds it in float32.
		{"openai__gpt-oss-20b", []RotaryTable{{Name: "rotary_emb", Positions: 131072, Dim: 64, Dtype: "float32"}}},
		// longrope: 4096 short + 131072 long rows.
		{"microsoft__Phi-3-mini-128k-instruct", []RotaryTable{{Name: "rotary_emb", Positions: 4096 + 131072, Dim: 96}}},
		// mrope: 4 x 128000.
		{"Qwen__Qwen2.5-VL-7B-Instruct", []RotaryTable{{Name: "rotary_emb", Positions: 4 * 128000, Dim: 128}}},
		// mrope 4 x 262144, partial 0.25 of 256.
		{"Qwen__Qwen3.5-27B", []RotaryTable{{Name: "rotary_emb", Positions: 4 * 262144, Dim: 64}}},
		// partial 0.5 of 128.
		{"zai-org__GLM-4.5", []RotaryTable{{Name: "rotary_emb", Positions: 131072, Dim: 64}}},
		// rotary_dim 64.
		{"MiniMaxAI__MiniMax-M2.7", []RotaryTable{{Name: "rotary_emb", Positions: 204800, Dim: 64}}},
		// yarn 8192 x 8.
		{"allenai__Olmo-3.1-32B-Instruct", []RotaryTable{{Name: "rotary_emb", Positions: 65536, Dim: 128}}},
		// V3.2's indexer keeps a second table of the same shape.
		{"deepseek-ai__DeepSeek-V3.2", []RotaryTable{{Name: "rotary_emb", Positions: 163840, Dim: 64}, {Name: "rotary_emb_indexer", Positions: 163840, Dim: 64}}},
		// Gemma 4: a table per layer type, the global one global_head_dim wide.
		{"google__gemma-4-26B-A4B", []RotaryTable{{Name: "rotary_emb_sliding_attention", Positions: 262144, Dim: 256}, {Name: "rotary_emb_full_attention", Positions: 262144, Dim: 512}}},
		{"facebook__opt-1.3b", nil},
		{"nvidia__Nemotron-H-56B-Base-8K", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, archs[tt.name].Rotary); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

const llamaLike = `{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
 "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 1000, "max_position_embeddings": 256,
 "torch_dtype": "bfloat16"}`

func TestConfigErrors(t *testing.T) {
	unsupported, err := os.ReadFile("testdata/unsupported/RedHatAI__DeepSeek-V4-Flash-NVFP4-FP8.json")
	if err != nil {
		t.Fatal(err)
	}
	with := func(old, new string) string {
		if !strings.Contains(llamaLike, old) {
			t.Fatalf("%q not in llamaLike", old)
		}
		return strings.Replace(llamaLike, old, new, 1)
	}
	remote := func(drop string) string {
		return strings.Replace(with(drop, ""), `"model_type": "llama"`, `"model_type": "acme_llama", "architectures": ["LlamaForCausalLM"]`, 1)
	}
	withQuant := func(q string) string { return with(`"torch_dtype"`, `"quantization_config": `+q+`, "torch_dtype"`) }
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"real unsupported family", strings.NewReplacer(`"deepseek_v4"`, `"deepseek_v9"`, `"DeepseekV4ForCausalLM"`, `"DeepseekV9ForCausalLM"`).Replace(string(unsupported)),
			`x.json: model_type: "deepseek_v9": unknown model_type; known: ` + strings.Join(ModelTypes(), ", ")},
		{"no model_type", `{"hidden_size": 4}`, "x.json: model_type: missing (required)"},
		{"not json", `{"model_type": `, "x.json: not a JSON object: unexpected end of JSON input"},
		{"array", `[1]`, "x.json: not a JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage"},
		// LlamaConfig gives these (TestClassDefaults); a trust_remote_code
		// config read as Llama by its architectures has no transformers
		// class to give them, so they stay errors.
		{"missing hidden", remote(`"hidden_size": 64, `), "x.json: hidden_size: missing (required)"},
		{"missing vocab", remote(`"vocab_size": 1000, `), "x.json: vocab_size: missing (required)"},
		{"missing intermediate", remote(`"intermediate_size": 128, `), "x.json: intermediate_size: missing (required)"},
		{"string layers", with(`"num_hidden_layers": 2`, `"num_hidden_layers": "2"`), `x.json: num_hidden_layers: must be a non-negative integer, got "2"`},
		{"negative heads", with(`"num_attention_heads": 4`, `"num_attention_heads": -4`), `x.json: num_attention_heads: must be a non-negative integer, got -4`},
		{"fractional", with(`"intermediate_size": 128`, `"intermediate_size": 128.5`), `x.json: intermediate_size: must be a non-negative integer, got 128.5`},
		{"heads do not divide hidden", with(`"num_attention_heads": 4`, `"num_attention_heads": 5`),
			"x.json: num_attention_heads: 5 does not divide hidden_size 64 and there is no head_dim"},
		{"kv heads do not divide heads", with(`"num_key_value_heads": 2`, `"num_key_value_heads": 3`),
			"x.json: num_key_value_heads: 3 does not divide num_attention_heads 4"},
		{"zero layers", with(`"num_hidden_layers": 2`, `"num_hidden_layers": 0`), "x.json: num_hidden_layers: must be above 0"},
		{"absurd hidden", with(`"hidden_size": 64`, `"hidden_size": 18446744073709551615, "head_dim": 16`),
			"x.json: hidden_size: 18446744073709551615 is beyond any real model (at most 1048576)"},
		{"bad dtype", with(`"bfloat16"`, `"int8"`), `x.json: torch_dtype: unsupported dtype "int8"; want bfloat16, float16 or float32`},
		{"bad quant", withQuant(`{"quant_method": "hqq"}`),
			`x.json: quantization_config.quant_method: "hqq" is not supported; supported: ` + quantMethodNames()},
		{"awq without group", withQuant(`{"quant_method": "awq", "bits": 4}`),
			`x.json: quantization_config.group_size: want a positive group size, got 0`},
		{"3-bit awq", withQuant(`{"quant_method": "awq", "bits": 3, "group_size": 128}`),
			`x.json: quantization_config.bits: 3-bit awq is not supported; only 4-bit (auto_awq.py TYPE_MAP)`},
		{"asymmetric gptq", withQuant(`{"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": false}`),
			`x.json: quantization_config.sym: asymmetric GPTQ is refused by vLLM (auto_gptq.py:101-104)`},
		{"fp8 block with static activations", withQuant(`{"quant_method": "fp8", "weight_block_size": [128, 128], "activation_scheme": "static"}`),
			`x.json: quantization_config.activation_scheme: static activations with weight_block_size: vLLM's block-wise fp8 takes dynamic activations only`},
		{"bnb neither", withQuant(`{"quant_method": "bitsandbytes"}`),
			`x.json: quantization_config.load_in_4bit: neither load_in_4bit nor load_in_8bit is set`},
		{"bnb 8-bit MoE", `{"model_type": "mixtral", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "intermediate_size": 128,
 "vocab_size": 100, "max_position_embeddings": 64, "num_local_experts": 2, "num_experts_per_tok": 1,
 "quantization_config": {"quant_method": "bitsandbytes", "load_in_8bit": true}}`,
			`x.json: quantization_config.load_in_8bit: 8-bit bitsandbytes of a mixture of experts is refused by vLLM`},
		{"ct bad regex", withQuant(`{"quant_method": "compressed-tensors", "config_groups": {}, "ignore": ["re:(?=x)"]}`),
			"x.json: quantization_config.ignore: error parsing regexp: invalid or unsupported Perl syntax: `(?=`"},
		{"ct w4a8", withQuant(`{"quant_method": "compressed-tensors", "config_groups": {"g": {"targets": ["Linear"],
 "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128},
 "input_activations": {"num_bits": 8, "type": "int", "strategy": "token"}}}}`),
			`x.json: quantization_config.config_groups.g.weights: int 4-bit weights (strategy "group") with input activations true are not a scheme the model sizes: W8A8 fp8 or int8, W4A16/W8A16 int, NVFP4`},
		{"modelopt without algo", withQuant(`{"quant_method": "modelopt"}`), `x.json: quantization_config.quant_algo: missing (required for modelopt)`},
		{"mxfp4 on llama", withQuant(`{"quant_method": "mxfp4"}`), `x.json: quantization_config.quant_method: mxfp4 is supported for model_type gpt_oss only, not "llama"`},
		{"layer_types length", with(`"torch_dtype"`, `"layer_types": ["full_attention"], "torch_dtype"`),
			"x.json: layer_types: has 1 entries for 2 layers"},
		{"layer_types unknown", with(`"torch_dtype"`, `"layer_types": ["full_attention", "conv"], "torch_dtype"`),
			`x.json: layer_types: layer 1: unsupported type "conv"; want full_attention, sliding_attention, chunked_attention, linear_attention or mamba`},
		{"sliding without window", with(`"torch_dtype"`, `"layer_types": ["full_attention", "sliding_attention"], "torch_dtype"`),
			"x.json: sliding_window: missing (required)"},
		{"chunked without size", with(`"torch_dtype"`, `"layer_types": ["chunked_attention", "full_attention"], "torch_dtype"`),
			"x.json: attention_chunk_size: missing (required)"},
		{"linear without shape", with(`"torch_dtype"`, `"layer_types": ["linear_attention", "full_attention"], "torch_dtype"`),
			"x.json: linear_num_key_heads: missing (required)\nx.json: linear_num_value_heads: missing (required)\nx.json: linear_key_head_dim: missing (required)\n" +
				"x.json: linear_value_head_dim: missing (required)\nx.json: linear_conv_kernel_dim: missing (required)"},
		{"gemma3 without text_config", `{"model_type": "gemma3"}`, "x.json: text_config: missing (required for model_type gemma3)"},
		{"llama4 without text_config", `{"model_type": "llama4"}`, "x.json: text_config: missing (required for model_type llama4)"},
		{"wrapper of a foreign text model", `{"model_type": "qwen3_5", "text_config": {"model_type": "qwen3_5"}}`,
			`x.json: text_config.model_type: "qwen3_5" is not a text model the model knows for qwen3_5 (want qwen3_5_text)`},
		{"head_dim 0", with(`"torch_dtype"`, `"head_dim": 0, "torch_dtype"`),
			"x.json: head_dim: must be above 0 (leave it out to derive it from hidden_size / num_attention_heads)"},
		{"partial rotary above 1", with(`"torch_dtype"`, `"partial_rotary_factor": 1.5, "torch_dtype"`),
			"x.json: partial_rotary_factor: 1.5: want a fraction of head_dim in (0, 1]"},
		{"rope factor NaN", with(`"torch_dtype"`, `"rope_scaling": {"rope_type": "linear", "factor": NaN}, "torch_dtype"`),
			`x.json: rope_scaling.factor: must be a finite number, got "NaN"`},
		{"rope factor huge", with(`"torch_dtype"`, `"rope_scaling": {"rope_type": "yarn", "factor": 1e9}, "torch_dtype"`),
			"x.json: rope_scaling.factor: 1e+09: want a scaling factor in (0, 1024]"},
		{"rope type unknown", with(`"torch_dtype"`, `"rope_scaling": {"type": "xpos"}, "torch_dtype"`),
			`x.json: rope_scaling.type: "xpos" is not a rope type the model sizes; want one of [default linear dynamic ntk yarn deepseek_yarn llama3 longrope mrope proportional]`},
		{"longrope without original", with(`"torch_dtype"`, `"rope_scaling": {"type": "su"}, "torch_dtype"`),
			"x.json: rope_scaling.original_max_position_embeddings: missing (required for longrope, whose short table it sizes)"},
		{"negative length key", with(`"torch_dtype"`, `"seq_length": -1, "torch_dtype"`), "x.json: seq_length: must be a non-negative integer, got -1"},
		{"nemotron pattern length", `{"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 8,
 "vocab_size": 100, "max_position_embeddings": 64, "hybrid_override_pattern": "M*"}`, "x.json: hybrid_override_pattern: has 2 blocks for 3 layers"},
		{"nemotron pattern letter", `{"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 8,
 "vocab_size": 100, "max_position_embeddings": 64, "hybrid_override_pattern": "MX"}`, `x.json: hybrid_override_pattern: block 1: 'X' is not M, *, - or E`},
		// A latent MoE is sized (family_nemotron_h.go); a zero width is not one.
		{"nemotron latent moe of zero width", `{"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "intermediate_size": 8,
 "vocab_size": 100, "max_position_embeddings": 64, "hybrid_override_pattern": "E", "moe_latent_size": 0}`,
			"x.json: moe_latent_size: 0: want the routed experts' width, or null for hidden_size"},
		// null: no query latent (left out, DeepseekV3Config gives 1536).
		{"indexer without query latent", `{"model_type": "deepseek_v32", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "intermediate_size": 8,
 "vocab_size": 100, "max_position_embeddings": 64, "kv_lora_rank": 16, "q_lora_rank": null, "qk_nope_head_dim": 8, "qk_rope_head_dim": 8, "v_head_dim": 8,
 "index_topk": 4, "index_head_dim": 8, "index_n_heads": 2}`,
			"x.json: q_lora_rank: the indexer projects from the query latent: q_lora_rank must be set with index_topk"},
		{"gemma4 per-layer inputs", `{"model_type": "gemma4", "text_config": {"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
 "intermediate_size": 8, "vocab_size": 100, "max_position_embeddings": 64, "hidden_size_per_layer_input": 256}}`,
			"x.json: text_config.hidden_size_per_layer_input: 256: Gemma 4's per-layer inputs are not supported"},
		// Gemma4ClippableLinear's clipping buffers (the E2B and E4B
		// towers) are not sized; nor a tower whose heads do not fill its
		// width one KV head a head.
		{"gemma4 clipped tower", `{"model_type": "gemma4", "text_config": {"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
 "intermediate_size": 8, "vocab_size": 100, "max_position_embeddings": 64, "hidden_size_per_layer_input": 0},
 "vision_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 2,
 "head_dim": 16, "patch_size": 4, "position_embedding_size": 8, "use_clipped_linears": true}}`,
			"x.json: vision_config.use_clipped_linears: true: the clipping buffers of Gemma4ClippableLinear are not sized (the published 26B-A4B and 31B towers write false)"},
		{"gemma4 tower heads", `{"model_type": "gemma4", "text_config": {"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
 "intermediate_size": 8, "vocab_size": 100, "max_position_embeddings": 64, "hidden_size_per_layer_input": 0},
 "vision_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
 "head_dim": 16, "patch_size": 4, "position_embedding_size": 8}}`,
			"x.json: vision_config.num_key_value_heads: 1 KV heads and 2 heads of 16 over hidden_size 32: membudget sizes the tower whose heads fill its width, one KV head a head (the published Gemma 4 towers)"},
		{"duplicate key", with(`"num_hidden_layers": 2`, `"num_hidden_layers": 32, "num_hidden_layers": 1`),
			"x.json: num_hidden_layers: appears twice; which value is meant is not known"},
		{"duplicate nested key", `{"model_type": "gemma3", "text_config": {"hidden_size": 8, "hidden_size": 16}}`,
			"x.json: text_config.hidden_size: appears twice; which value is meant is not known"},
		{"Infinity where a size belongs", with(`"vocab_size": 1000`, `"vocab_size": Infinity`),
			`x.json: vocab_size: must be a non-negative integer, got "Infinity"`},
		{"gemma3 bad nested", `{"model_type": "gemma3", "text_config": {"hidden_size": "big"}}`,
			// Gemma3TextConfig gives the layers, heads and window the
			// text_config omits: only the bad value is left to refuse.
			"x.json: text_config.hidden_size: must be a non-negative integer, got \"big\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseConfig("x.json", []byte(tt.doc))
			if err == nil {
				t.Fatalf("ParseConfig = %v, want error", a)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Errorf("%T does not unwrap to *ConfigError", err)
			}
		})
	}
}

func TestUnknownModelTypeIsTyped(t *testing.T) {
	_, err := ParseConfig("x.json", []byte(`{"model_type": "no_such_family"}`))
	var ce *ConfigError
	if !errors.Is(err, ErrUnknownModelType) || !errors.As(err, &ce) || ce.Key != "model_type" {
		t.Errorf("error %v: want a ConfigError on model_type naming %v", err, ErrUnknownModelType)
	}
	if !strings.Contains(err.Error(), "known: "+strings.Join(ModelTypes(), ", ")) {
		t.Errorf("error %v does not list the known model types", err)
	}
}

// TestPythonJSONConstants: Python's json writes NaN, Infinity and
// -Infinity; a config holding them where no size is read parses, and the
// words inside strings or keys are left alone.
func TestPythonJSONConstants(t *testing.T) {
	doc := strings.Replace(llamaLike, `"torch_dtype"`, `"time_step_limit": [0.0, Infinity], "time_step_floor": -Infinity, "x": NaN, "note": "NaN Infinity", "InfinityKey": 1, "torch_dtype"`, 1)
	if _, err := ParseConfig("x.json", []byte(doc)); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{`[0.0, Infinity]`, `[0.0, "Infinity"]`},
		{`{"a": -Infinity}`, `{"a": "-Infinity"}`},
		{`{"a":NaN}`, `{"a":"NaN"}`},
		{`{"NaN": "Infinity \" NaN"}`, `{"NaN": "Infinity \" NaN"}`},
		{`[InfinityX, NaNs]`, `[InfinityX, NaNs]`}, // not the constants: left for the decoder to refuse
	}
	for _, tt := range tests {
		if got := string(fromPythonJSON([]byte(tt.in))); got != tt.want {
			t.Errorf("fromPythonJSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
