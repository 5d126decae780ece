package properties

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/vllm"
	"membudget/model"
)

// genHybridFamilies draws the families whose layers keep per-sequence
// state (qwen3_next's gated delta nets, nemotron_h's Mamba2 layers); false
// leaves them out while the engine cannot size their state.
const genHybridFamilies = true

// genFamilies are the model_types genConfig draws: every family the model
// reads, text models of the multimodal wrappers included.
var genFamilies = []string{"llama", "mistral", "qwen2", "qwen3", "qwen3_moe", "mixtral", "deepseek_v2", "deepseek_v3", "deepseek_v32",
	"gemma2", "gemma3_text", "gemma3", "phi", "phi3", "opt", "gpt_oss", "llama4_text", "glm4_moe", "minimax_m2", "olmo3", "exaone4",
	"gemma4_text", "gemma", "granite", "qwen2_moe", "qwen2_5_vl", "qwen3_vl", "mistral3", "llama4", "qwen3_next", "nemotron_h", "qwen3_5"}

// genWrapped are the multimodal wrappers genConfig draws: the text model
// they wrap, whose keys the generator draws first.
var genWrapped = map[string]string{"qwen2_5_vl": "qwen2", "qwen3_vl": "qwen3", "mistral3": "mistral", "llama4": "llama4_text", "qwen3_5": "qwen3_next"}

// genConfig draws a valid config.json of one of the families, with shapes
// from the real ranges: heads 1-64, GQA ratios, head_dim 32-256, MLA and its
// indexer, MoE, sliding windows (uniform, alternating, patterned, by
// layer_types), chunked attention, gated delta nets, Mamba2, partial rotary,
// Gemma 3's vision tower, and every quantization scheme the family takes.
func genConfig() *rapid.Generator[map[string]any] {
	return rapid.Custom(func(t *rapid.T) map[string]any {
		families := genFamilies
		if !genHybridFamilies {
			families = families[:len(families)-3]
		}
		wrapper := rapid.SampledFrom(families).Draw(t, "family")
		family := wrapper
		if text, ok := genWrapped[wrapper]; ok {
			family = text
		}
		heads := rapid.SampledFrom([]uint64{1, 2, 4, 8, 16, 32, 64}).Draw(t, "heads")
		kvDiv := rapid.SampledFrom(divisors(heads)).Draw(t, "kv_ratio")
		headDim := rapid.SampledFrom([]uint64{32, 64, 80, 128, 256}).Draw(t, "head_dim")
		layers := rapid.Uint64Range(1, 48).Draw(t, "layers")
		maxPos := rapid.SampledFrom([]uint64{256, 2048, 4096, 32768, 131072}).Draw(t, "max_position")
		modelType := family
		if wrapper == "qwen3_5" {
			modelType = "qwen3_5_text"
		}
		c := map[string]any{
			"model_type":              modelType,
			"hidden_size":             heads * headDim,
			"num_hidden_layers":       layers,
			"num_attention_heads":     heads,
			"num_key_value_heads":     heads / kvDiv,
			"intermediate_size":       128 * rapid.Uint64Range(1, 160).Draw(t, "inter_x128"),
			"vocab_size":              rapid.Uint64Range(256, 262144).Draw(t, "vocab"),
			"max_position_embeddings": maxPos,
			"torch_dtype":             rapid.SampledFrom([]string{"bfloat16", "float16", "float32"}).Draw(t, "dtype"),
			"tie_word_embeddings":     rapid.Bool().Draw(t, "tied"),
		}
		if rapid.Bool().Draw(t, "explicit_head_dim") && family != "opt" && family != "olmo3" {
			c["head_dim"] = headDim
			c["hidden_size"] = 128 * rapid.Uint64Range(1, 64).Draw(t, "hidden_x128")
		}
		window := rapid.Uint64Range(1, 8192).Draw(t, "window")
		experts := rapid.Uint64Range(2, 64).Draw(t, "experts")
		topk := rapid.Uint64Range(1, experts).Draw(t, "topk")
		moeInter := 128 * rapid.Uint64Range(1, 16).Draw(t, "moe_inter_x128")
		x8 := func(label string, hi uint64) uint64 { return 8 * rapid.Uint64Range(1, hi).Draw(t, label) }
		kinds := func(label string, choices ...string) []string {
			out := make([]string, layers)
			for i := range out {
				out[i] = rapid.SampledFrom(choices).Draw(t, label)
			}
			return out
		}
		switch family {
		case "llama":
			if rapid.Bool().Draw(t, "layer_types") {
				c["layer_types"] = kinds("layer_type", "full_attention", "sliding_attention", "chunked_attention")
				c["sliding_window"] = window
				c["attention_chunk_size"] = rapid.Uint64Range(1, 8192).Draw(t, "chunk")
			}
			c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
		case "qwen2":
			if rapid.Bool().Draw(t, "qwen2_sliding") {
				c["use_sliding_window"] = true
				c["sliding_window"] = window
				c["max_window_layers"] = 0 // every layer: vLLM refuses a partial window (qwen2.py:348-357)
			}
		case "mistral", "phi3":
			if rapid.Bool().Draw(t, "sliding") {
				c["sliding_window"] = window
			}
			if family == "phi3" && rapid.Bool().Draw(t, "partial") {
				c["partial_rotary_factor"] = rapid.SampledFrom([]float64{0.25, 0.5, 0.75}).Draw(t, "partial_rotary_factor")
			}
		case "phi":
			c["partial_rotary_factor"] = rapid.SampledFrom([]float64{0.25, 0.4, 0.5, 1}).Draw(t, "partial_rotary_factor")
		case "opt":
			delete(c, "intermediate_size")
			delete(c, "num_key_value_heads")
			c["ffn_dim"] = 128 * rapid.Uint64Range(1, 160).Draw(t, "ffn_x128")
			if rapid.Bool().Draw(t, "projected") {
				c["word_embed_proj_dim"] = 128 * rapid.Uint64Range(1, 8).Draw(t, "word_embed_x128")
			}
		case "gemma":
			c["tie_word_embeddings"] = true // gemma.py:349-350 asserts it
		case "granite":
			c["attention_bias"] = rapid.Bool().Draw(t, "attention_bias")
			c["mlp_bias"] = rapid.Bool().Draw(t, "mlp_bias")
			c["embedding_multiplier"] = 12.0
			c["residual_multiplier"] = 0.22
			c["attention_multiplier"] = 1 / float64(headDim)
			c["logits_scaling"] = rapid.SampledFrom([]float64{8, 16}).Draw(t, "logits_scaling")
		case "qwen2_moe":
			c["num_experts"] = experts
			c["num_experts_per_tok"] = topk
			c["moe_intermediate_size"] = moeInter
			c["shared_expert_intermediate_size"] = moeInter * rapid.Uint64Range(0, 4).Draw(t, "shared_x")
			c["decoder_sparse_step"] = rapid.Uint64Range(1, 2).Draw(t, "sparse_step")
			var dense []uint64
			for i := range layers {
				if rapid.Bool().Draw(t, "mlp_only") {
					dense = append(dense, i)
				}
			}
			c["mlp_only_layers"] = dense
		case "gemma2":
			c["sliding_window"] = window
		case "gemma3_text", "gemma3":
			text := c
			text["sliding_window"] = window
			text["sliding_window_pattern"] = rapid.Uint64Range(1, 8).Draw(t, "pattern")
			if family == "gemma3" {
				text = map[string]any{}
				for k, v := range c {
					text[k] = v
				}
				text["model_type"] = "gemma3_text"
				vh := 16 * rapid.Uint64Range(1, 72).Draw(t, "vision_hidden_x16")
				patch := rapid.SampledFrom([]uint64{14, 16}).Draw(t, "patch")
				c = map[string]any{"model_type": "gemma3", "text_config": text, "torch_dtype": text["torch_dtype"],
					"vision_config": map[string]any{"hidden_size": vh, "intermediate_size": 16 * rapid.Uint64Range(1, 300).Draw(t, "vision_inter_x16"),
						"num_hidden_layers": rapid.Uint64Range(1, 27).Draw(t, "vision_layers"), "num_attention_heads": rapid.SampledFrom(divisors(vh/16)).Draw(t, "vision_heads"),
						"patch_size": patch, "image_size": patch * rapid.Uint64Range(1, 64).Draw(t, "patches_side")},
					"mm_tokens_per_image": rapid.SampledFrom([]uint64{64, 256}).Draw(t, "mm_tokens")}
			}
		case "qwen3_moe", "mixtral":
			c["num_experts_per_tok"] = topk
			if family == "mixtral" {
				c["num_local_experts"] = experts
			} else {
				c["num_experts"] = experts
				c["moe_intermediate_size"] = moeInter
			}
		case "deepseek_v2", "deepseek_v3", "deepseek_v32":
			c["kv_lora_rank"] = rapid.SampledFrom([]uint64{64, 128, 512}).Draw(t, "kv_lora")
			c["qk_rope_head_dim"] = rapid.SampledFrom([]uint64{16, 32, 64}).Draw(t, "rope")
			c["qk_nope_head_dim"] = rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "nope")
			c["v_head_dim"] = rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "v")
			c["q_lora_rank"] = rapid.SampledFrom([]uint64{0, 64, 1536}).Draw(t, "q_lora")
			if family == "deepseek_v32" {
				c["q_lora_rank"] = rapid.SampledFrom([]uint64{64, 1536}).Draw(t, "q_lora_v32")
				c["index_topk"] = rapid.SampledFrom([]uint64{64, 2048}).Draw(t, "index_topk")
				c["index_head_dim"] = rapid.SampledFrom([]uint64{64, 128}).Draw(t, "index_head_dim")
				c["index_n_heads"] = rapid.SampledFrom([]uint64{4, 64}).Draw(t, "index_n_heads")
			}
			if rapid.Bool().Draw(t, "moe") {
				c["n_routed_experts"] = experts
				c["num_experts_per_tok"] = topk
				c["moe_intermediate_size"] = moeInter
				c["n_shared_experts"] = rapid.Uint64Range(0, 2).Draw(t, "shared")
				c["first_k_dense_replace"] = rapid.Uint64Range(0, layers).Draw(t, "first_dense")
				c["topk_method"] = "noaux_tc"
			}
		case "gpt_oss":
			c["head_dim"] = headDim
			c["hidden_size"] = 64 * rapid.Uint64Range(1, 64).Draw(t, "hidden_x64")
			c["num_local_experts"] = experts
			c["num_experts_per_tok"] = topk
			c["intermediate_size"] = 64 * rapid.Uint64Range(1, 64).Draw(t, "expert_inter_x64")
			c["sliding_window"] = window
			c["rope_scaling"] = map[string]any{"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": maxPos / 32,
				"beta_fast": 32.0, "beta_slow": 1.0}
			c["torch_dtype"] = "bfloat16"
		case "llama4_text":
			c["num_local_experts"] = experts
			c["num_experts_per_tok"] = topk
			c["intermediate_size_mlp"] = 128 * rapid.Uint64Range(1, 64).Draw(t, "mlp_x128")
			c["interleave_moe_layer_step"] = rapid.Uint64Range(1, 2).Draw(t, "moe_step")
			c["use_qk_norm"] = rapid.Bool().Draw(t, "qk_norm")
			if rapid.Bool().Draw(t, "chunked") {
				c["attention_chunk_size"] = rapid.Uint64Range(1, 8192).Draw(t, "chunk")
			}
		case "glm4_moe":
			c["n_routed_experts"] = experts
			c["num_experts_per_tok"] = topk
			c["moe_intermediate_size"] = moeInter
			c["n_shared_experts"] = rapid.Uint64Range(0, 1).Draw(t, "shared")
			c["first_k_dense_replace"] = rapid.Uint64Range(0, layers).Draw(t, "first_dense")
			c["use_qk_norm"] = rapid.Bool().Draw(t, "qk_norm")
			c["num_nextn_predict_layers"] = rapid.Uint64Range(0, 1).Draw(t, "mtp")
		case "minimax_m2":
			c["num_local_experts"] = experts
			c["num_experts_per_tok"] = topk
			c["intermediate_size"] = moeInter
			c["use_qk_norm"] = true
			c["use_routing_bias"] = rapid.Bool().Draw(t, "routing_bias")
			c["head_dim"] = headDim
			c["rotary_dim"] = headDim / rapid.SampledFrom([]uint64{1, 2}).Draw(t, "rotary_div")
			c["num_mtp_modules"] = rapid.Uint64Range(0, 3).Draw(t, "mtp")
		case "olmo3", "exaone4":
			c["layer_types"] = kinds("layer_type", "full_attention", "sliding_attention")
			c["sliding_window"] = window
		case "gemma4_text":
			c["layer_types"] = kinds("layer_type", "full_attention", "sliding_attention")
			c["sliding_window"] = window
			c["head_dim"] = headDim
			c["global_head_dim"] = 2 * headDim
			if rapid.Bool().Draw(t, "k_eq_v") {
				// Half or all the KV heads: the global layers' KV page is
				// then the sliding layers' or twice it, which vLLM's page
				// unification needs (one must divide the other).
				c["attention_k_eq_v"] = true
				c["num_global_key_value_heads"] = max(1, heads/kvDiv/rapid.SampledFrom([]uint64{1, 2}).Draw(t, "global_kv_div"))
			}
			if rapid.Bool().Draw(t, "moe_block") {
				c["enable_moe_block"] = true
				c["num_experts"] = experts
				c["top_k_experts"] = topk
				c["moe_intermediate_size"] = moeInter
			}
		case "qwen3_next":
			c["head_dim"] = headDim
			c["full_attention_interval"] = rapid.Uint64Range(1, 4).Draw(t, "full_interval")
			keyHeads := rapid.SampledFrom([]uint64{8, 16}).Draw(t, "linear_key_heads")
			c["linear_num_key_heads"] = keyHeads
			c["linear_num_value_heads"] = keyHeads * rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "linear_value_ratio")
			c["linear_key_head_dim"] = rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "linear_key_dim")
			c["linear_value_head_dim"] = rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "linear_value_dim")
			c["linear_conv_kernel_dim"] = rapid.Uint64Range(2, 4).Draw(t, "linear_conv")
			c["num_experts"] = experts
			c["num_experts_per_tok"] = topk
			c["moe_intermediate_size"] = moeInter
			c["shared_expert_intermediate_size"] = moeInter
		case "nemotron_h":
			pattern := make([]byte, layers)
			blocks := "M*-E"
			if rapid.Bool().Draw(t, "dense_hybrid") {
				blocks = "M*-"
			}
			for i := range pattern {
				pattern[i] = rapid.SampledFrom([]byte(blocks)).Draw(t, "block")
			}
			c["hybrid_override_pattern"] = string(pattern)
			c["mamba_num_heads"] = x8("mamba_heads_x8", 16)
			c["mamba_head_dim"] = x8("mamba_head_dim_x8", 8)
			c["ssm_state_size"] = x8("state_x8", 16)
			c["n_groups"] = rapid.SampledFrom([]uint64{1, 8}).Draw(t, "n_groups")
			c["conv_kernel"] = rapid.Uint64Range(2, 4).Draw(t, "conv")
			c["chunk_size"] = 128
			if rapid.Bool().Draw(t, "fp32_state") {
				c["mamba_ssm_cache_dtype"] = "float32"
			}
			c["time_step_limit"] = []any{0.0, "Infinity"} // re-written as Python's bare Infinity by genConfigJSON
			if blocks == "M*-E" {
				c["n_routed_experts"] = experts
				c["num_experts_per_tok"] = topk
				c["moe_intermediate_size"] = moeInter
				c["n_shared_experts"] = 1
				c["moe_shared_expert_intermediate_size"] = moeInter
			}
		}
		if q := genQuant(t, family); q != nil {
			c["quantization_config"] = q
		}
		if wrapper != family {
			c = genWrap(t, wrapper, c)
		}
		return c
	})
}

// genWrap wraps a drawn text config in the multimodal wrapper, with a
// vision tower of the wrapper's kind (its language model nested under
// text_config, or at the top for Qwen2.5-VL).
func genWrap(t *rapid.T, wrapper string, text map[string]any) map[string]any {
	hidden := text["hidden_size"]
	heads := rapid.SampledFrom([]uint64{1, 2, 4, 8, 16}).Draw(t, "vision_heads")
	vh := heads * 16 * rapid.Uint64Range(1, 6).Draw(t, "vision_head_x16")
	vinter := 16 * rapid.Uint64Range(1, 256).Draw(t, "vision_inter_x16")
	vlayers := rapid.Uint64Range(1, 32).Draw(t, "vision_layers")
	patch := rapid.SampledFrom([]uint64{14, 16}).Draw(t, "patch")
	var vision map[string]any
	switch wrapper {
	case "qwen2_5_vl", "qwen3_vl", "qwen3_5":
		vision = map[string]any{"depth": vlayers, "hidden_size": vh, "intermediate_size": vinter, "num_heads": heads,
			"in_channels": 3, "out_hidden_size": hidden, "patch_size": patch, "spatial_merge_size": 2, "temporal_patch_size": 2}
		if wrapper != "qwen2_5_vl" {
			vision["num_position_embeddings"] = rapid.SampledFrom([]uint64{576, 2304}).Draw(t, "vision_positions")
			vision["deepstack_visual_indexes"] = []uint64{0}[:rapid.IntRange(0, 1).Draw(t, "deepstack")]
		}
	case "mistral3":
		vision = map[string]any{"hidden_size": vh, "intermediate_size": vinter, "num_hidden_layers": vlayers, "num_attention_heads": heads,
			"patch_size": patch, "image_size": patch * rapid.Uint64Range(1, 110).Draw(t, "patches_side"), "num_channels": 3}
	case "llama4":
		vision = map[string]any{"hidden_size": vh, "intermediate_size": 4 * vh, "num_hidden_layers": vlayers, "num_attention_heads": heads,
			"patch_size": patch, "image_size": patch * rapid.Uint64Range(1, 24).Draw(t, "patches_side"), "num_channels": 3,
			"vision_output_dim": 16 * rapid.Uint64Range(1, 256).Draw(t, "vision_out_x16"), "projector_input_dim": 16 * rapid.Uint64Range(1, 256).Draw(t, "proj_in_x16"),
			"projector_output_dim": 16 * rapid.Uint64Range(1, 256).Draw(t, "proj_out_x16"), "pixel_shuffle_ratio": 0.5}
	}
	if wrapper == "qwen2_5_vl" {
		text["model_type"] = wrapper
		text["vision_config"] = vision
		return text
	}
	c := map[string]any{"model_type": wrapper, "text_config": text, "vision_config": vision, "torch_dtype": text["torch_dtype"]}
	if q, ok := text["quantization_config"]; ok {
		delete(text, "quantization_config")
		c["quantization_config"] = q
	}
	if wrapper == "mistral3" {
		c["spatial_merge_size"] = 2
		c["multimodal_projector_bias"] = rapid.Bool().Draw(t, "projector_bias")
	}
	return c
}

// genQuant draws a quantization_config the family takes, or nil: fp8 (per
// tensor, static, block), AWQ, GPTQ, bitsandbytes (NF4, and 8-bit without
// experts), compressed-tensors (fp8 per channel, int8, W4A16), ModelOpt
// (NVFP4, FP8), compressed-tensors NVFP4 and gpt-oss's MXFP4.
func genQuant(t *rapid.T, family string) map[string]any {
	schemes := []string{"", "", "fp8", "fp8-static", "fp8-block", "awq", "gptq", "bnb-nf4", "ct-fp8", "ct-int8", "ct-w4a16", "ct-nvfp4", "modelopt-nvfp4", "modelopt-fp8"}
	moe := family == "qwen3_moe" || family == "qwen2_moe" || family == "mixtral" || family == "llama4_text" || family == "glm4_moe" || family == "minimax_m2" ||
		family == "gemma4_text" || family == "qwen3_next" || family == "nemotron_h" || family == "gpt_oss" || strings.HasPrefix(family, "deepseek")
	if !moe {
		schemes = append(schemes, "bnb-8bit")
	}
	if family == "gpt_oss" {
		schemes = []string{"", "mxfp4", "mxfp4"}
	}
	ct := func(weights, acts map[string]any, format string) map[string]any {
		g := map[string]any{"targets": []string{"Linear"}, "weights": weights}
		if acts != nil {
			g["input_activations"] = acts
		}
		return map[string]any{"quant_method": "compressed-tensors", "format": format, "ignore": []string{"lm_head", "re:.*mlp\\.gate$"},
			"config_groups": map[string]any{"group_0": g}}
	}
	switch q := rapid.SampledFrom(schemes).Draw(t, "quant"); q {
	case "fp8":
		return map[string]any{"quant_method": "fp8"}
	case "fp8-static":
		return map[string]any{"quant_method": "fp8", "activation_scheme": "static", "modules_to_not_convert": []string{"lm_head"}}
	case "fp8-block":
		return map[string]any{"quant_method": "fp8", "weight_block_size": []uint64{128, 128}}
	case "awq", "gptq":
		return map[string]any{"quant_method": q, "bits": 4, "group_size": rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "group")}
	case "bnb-nf4":
		return map[string]any{"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": rapid.Bool().Draw(t, "double_quant")}
	case "bnb-8bit":
		return map[string]any{"quant_method": "bitsandbytes", "load_in_8bit": true}
	case "ct-fp8":
		return ct(map[string]any{"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true},
			map[string]any{"num_bits": 8, "type": "float", "strategy": "token", "dynamic": true}, "float-quantized")
	case "ct-int8":
		return ct(map[string]any{"num_bits": 8, "type": "int", "strategy": "channel", "symmetric": true},
			map[string]any{"num_bits": 8, "type": "int", "strategy": "token", "dynamic": true}, "int-quantized")
	case "ct-w4a16":
		return ct(map[string]any{"num_bits": 4, "type": "int", "strategy": "group", "group_size": 32, "symmetric": rapid.Bool().Draw(t, "symmetric")}, nil, "pack-quantized")
	case "ct-nvfp4":
		nvfp4 := map[string]any{"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16, "symmetric": true}
		return ct(nvfp4, nvfp4, "nvfp4-pack-quantized")
	case "modelopt-nvfp4":
		return map[string]any{"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": []string{"lm_head"}}
	case "modelopt-fp8":
		return map[string]any{"quant_method": "modelopt", "quant_algo": "FP8"}
	case "mxfp4":
		return map[string]any{"quant_method": "mxfp4", "modules_to_not_convert": []string{"model.layers.*.self_attn", "lm_head"}}
	}
	return nil
}

// genConfigJSON is a drawn config as Python's json module writes it: the
// string "Infinity" that stands for a float becomes the bare constant.
func genConfigJSON(c map[string]any) ([]byte, error) {
	data, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(data, []byte(`"Infinity"`), []byte("Infinity")), nil
}

// layerShapesDivide reports whether tp divides what the family's layers
// split among ranks beyond the heads and intermediate sizes: per-layer KV
// heads (Gemma 4's global layers), the delta net's and Mamba's heads and
// groups.
func layerShapesDivide(a *model.Arch, tp uint64) bool {
	for _, l := range a.Layers {
		if l.KVHeads > 0 && l.KVHeads%tp != 0 && tp%l.KVHeads != 0 {
			return false
		}
	}
	if d := a.DeltaNet; d != nil && (d.NumKeyHeads%tp != 0 || d.NumValueHeads%tp != 0) {
		return false
	}
	if m := a.Mamba; m != nil && (m.NumHeads%tp != 0 || (m.NGroups%tp != 0 && m.NGroups != 1)) {
		return false
	}
	return true
}

func divisors(n uint64) []uint64 {
	var d []uint64
	for i := uint64(1); i <= n; i++ {
		if n%i == 0 {
			d = append(d, i)
		}
	}
	return d
}

// sizedClass draws a device class sized around the serve's own footprint,
// so that the queries' answers spread over nothing-fits, inside the range
// and capped, rather than piling up at the ends: the budget is the fixed
// ledger plus k sequences of a drawn length (k up to twice the sequence
// cap), the driver's fixed bytes around what the util leaves beside it.
func sizedClass(t *rapid.T, a *model.Arch, s vllm.Serve, si budget.Silicon) budget.Class {
	probe := budget.Class{Name: "probe", Device: budget.Device{Name: "probe", Silicon: si, MemoryBytes: 1 << 50}, Memory: budget.DriverTerms{UtilCeiling: 1}}
	ref, err := vllm.NewReference(a, s, probe, current)
	if err != nil {
		t.Fatalf("a valid serve is refused: %v", err)
	}
	fixed := ref.Evaluate(0, 0).Footprint.Ledger
	length := rapid.Uint64Range(1, ref.Serve.MaxModelLen).Draw(t, "sizing_length")
	perSeq := ref.Evaluate(1, length).Footprint.Ledger - fixed
	k := rapid.Uint64Range(0, 2*ref.Serve.MaxNumSeqs).Draw(t, "sizing_seqs")
	b := fixed + k*perSeq + rapid.Uint64Range(0, perSeq).Draw(t, "sizing_jitter")
	memory := uint64(float64(b)/s.GPUMemoryUtilization) + 1
	beside := memory - uint64(float64(memory)*s.GPUMemoryUtilization)
	return budget.Class{
		Name:   "gen",
		Device: budget.Device{Name: "Generated GPU", Silicon: si, MemoryBytes: memory},
		Memory: budget.DriverTerms{
			DriverFixedBytes:     rapid.Uint64Range(0, beside+beside/4).Draw(t, "fixed"),
			DriverBudgetPerMille: rapid.Uint64Range(0, 20).Draw(t, "per_mille"),
			Unified:              rapid.Bool().Draw(t, "unified"),
			UtilCeiling:          1,
		},
	}
}

// serveCase is a parsed architecture with a serve that Resolve accepts;
// Config, its config.json, comes first so that a counterexample reads.
type serveCase struct {
	Config string
	Arch   *model.Arch
	Serve  vllm.Serve
	Class  budget.Class
	Ref    *vllm.Reference
}

func (c serveCase) String() string {
	return fmt.Sprintf("%s / %+v on %+v", c.Arch, c.Serve, c.Class)
}

// genServeCase draws a config, parses it with the real parser, and draws
// serve settings vLLM would accept for it: TP among the divisors that fit
// the heads, KV heads and intermediate sizes; lengths within the model's.
func genServeCase(maxSeqsCap, maxLenCap uint64) *rapid.Generator[serveCase] {
	return rapid.Custom(func(t *rapid.T) serveCase {
		cfg := genConfig().Draw(t, "config")
		data, err := genConfigJSON(cfg)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		a, err := model.ParseConfig("gen.json", data)
		if err != nil {
			t.Fatalf("a generated valid config does not parse: %v\n%s", err, data)
		}
		ep := a.Experts > 0 && rapid.Bool().Draw(t, "expert_parallel")
		var tps []uint64
		for _, tp := range []uint64{1, 2, 4, 8} {
			if a.Heads%tp == 0 && (a.MLA || a.KVHeads%tp == 0 || tp%a.KVHeads == 0) && a.Intermediate%tp == 0 && (ep || a.MoEIntermediate%tp == 0) &&
				a.SharedIntermediate%tp == 0 && layerShapesDivide(a, tp) {
				tps = append(tps, tp)
			}
		}
		seqs := rapid.Uint64Range(1, maxSeqsCap).Draw(t, "max_num_seqs")
		s := vllm.Serve{
			GPUMemoryUtilization: rapid.Float64Range(0.05, 1).Draw(t, "util"),
			MaxModelLen:          rapid.Uint64Range(1, min(a.MaxPosition, maxLenCap)).Draw(t, "max_model_len"),
			MaxNumSeqs:           seqs,
			MaxNumBatchedTokens:  rapid.Uint64Range(seqs, 16384).Draw(t, "max_num_batched_tokens"),
			BlockSize:            16 * rapid.SampledFrom([]uint64{1, 2, 4, 8, 16}).Draw(t, "block_size_x16"),
			KVCacheDtype:         rapid.SampledFrom([]string{"auto", "fp8", "bfloat16"}).Draw(t, "kv_cache_dtype"),
			TensorParallelSize:   rapid.SampledFrom(tps).Draw(t, "tp"),
			PipelineParallelSize: rapid.Uint64Range(1, min(4, uint64(len(a.Layers)))).Draw(t, "pp"),
			DataParallelSize:     rapid.SampledFrom([]uint64{1, 2}).Draw(t, "dp"),
			EnableExpertParallel: ep,
			EnforceEager:         rapid.Bool().Draw(t, "enforce_eager"),
			AsyncScheduling:      rapid.SampledFrom([]engine.Switch{engine.Default, engine.On, engine.Off}).Draw(t, "async"),
			CPUOffloadGiB:        float64(rapid.Uint64Range(0, 2).Draw(t, "cpu_offload_gib")) / 4,
		}
		if a.Indexer != nil {
			// DeepSeek V3.2's indexer takes blocks of 64 tokens only
			// (vllm/v1/attention/backends/mla/indexer.py:126-143).
			s.BlockSize = 64 * rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "block_size_x64")
		}
		if rapid.Bool().Draw(t, "default_block") {
			s.BlockSize = 0 // the backend's, which for MLA depends on the silicon
		}
		if a.Quant.Method == "" && rapid.Bool().Draw(t, "online_fp8") {
			s.Quantization = "fp8"
		}
		si := rapid.SampledFrom(silicons).Draw(t, "silicon")
		if s.KVCacheDtype == "fp8" && si.Vendor == budget.NVIDIA && !si.AtLeast(8, 9) {
			s.KVCacheDtype = "auto" // vLLM refuses fp8 KV there: a setting error, tested elsewhere
		}
		if rapid.Bool().Draw(t, "kv_cache_memory") {
			s.KVCacheMemoryBytes = rapid.Uint64Range(1<<20, 1<<34).Draw(t, "kv_cache_memory_bytes")
		}
		c := sizedClass(t, a, s, si)
		s.KVCacheMemoryBytes = min(s.KVCacheMemoryBytes, c.Device.MemoryBytes)
		ref, err := vllm.NewReference(a, s, c, current)
		if err != nil {
			t.Fatalf("a valid serve is refused: %v", err)
		}
		return serveCase{string(data), a, s, c, ref}
	})
}

// silicons are the devices the generators size on: the backends, block
// sizes and dtypes vLLM picks differ between them.
var silicons = []budget.Silicon{
	{Vendor: budget.NVIDIA, Major: 9},           // Hopper: FlashAttention(-MLA)
	{Vendor: budget.NVIDIA, Major: 10},          // Blackwell: FlashInfer(-MLA)
	{Vendor: budget.NVIDIA, Major: 8, Minor: 9}, // Ada: Triton-MLA
	{Vendor: budget.NVIDIA, Major: 8},           // Ampere
	{Vendor: budget.NVIDIA, Major: 7, Minor: 5}, // Turing: no bfloat16, no fp8 KV
	{Vendor: budget.AMD, Target: "gfx942"},      // MI300X
}

// current is the profile the properties size under.
var current, _ = vllm.ProfileFor("main")

// genPoint draws (seqs, tokens) that reach the edges: 0, 1, block
// boundaries, the caps, and beyond.
func genPoint(t *rapid.T, c serveCase) (uint64, uint64) {
	bs := c.Ref.Serve.BlockSize
	s := rapid.OneOf(rapid.Uint64Range(0, 4), rapid.Uint64Range(0, c.Ref.Serve.MaxNumSeqs), rapid.Uint64Range(0, 1<<20)).Draw(t, "seqs")
	tok := rapid.OneOf(
		rapid.Uint64Range(0, 3),
		rapid.Custom(func(t *rapid.T) uint64 {
			// a block boundary, one before it or one after it
			v := bs*rapid.Uint64Range(0, 4096).Draw(t, "blocks") + rapid.Uint64Range(0, 2).Draw(t, "off")
			return budget.SatSub(v, 1)
		}),
		rapid.Uint64Range(0, c.Ref.Serve.MaxModelLen),
		rapid.Uint64Range(0, math.MaxUint32),
	).Draw(t, "tokens")
	return s, tok
}
