package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tinyLlama is a one-layer Llama for the quantization layouts: hidden 256,
// 4 heads of 64, 2 KV heads, intermediate 512. Its linear layers on one
// rank (in x out): qkv_proj 256 x 512 ((4 + 2x2) heads x 64), o_proj 256 x
// 256, gate_up_proj 256 x 1024, down_proj 512 x 256.
const tinyLlama = `{"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 1, "num_attention_heads": 4,
 "num_key_value_heads": 2, "intermediate_size": 512, "vocab_size": 1000, "max_position_embeddings": 128,
 "torch_dtype": "bfloat16", "quantization_config": QUANT}`

// tinyMoE is a one-layer Qwen3-MoE: hidden 256, 2 experts of intermediate
// 256, router quantizable (qwen3_moe.py:167-173).
const tinyMoE = `{"model_type": "qwen3_moe", "hidden_size": 256, "num_hidden_layers": 1, "num_attention_heads": 4,
 "num_key_value_heads": 2, "head_dim": 64, "intermediate_size": 512, "moe_intermediate_size": 256, "num_experts": 2,
 "num_experts_per_tok": 1, "vocab_size": 1000, "max_position_embeddings": 128, "torch_dtype": "bfloat16",
 "quantization_config": QUANT}`

// layerItems is layer 0's items of a under sh, by name without the
// layer's prefix.
func layerItems(t *testing.T, a *Arch, sh Sharding, prefix string) map[string]uint64 {
	t.Helper()
	got := map[string]uint64{}
	for _, it := range Weights(a, sh) {
		if rest, ok := strings.CutPrefix(it.Name, prefix); ok {
			got[rest] += it.Bytes
		}
	}
	return got
}

func parseWith(t *testing.T, doc, quant string) *Arch {
	t.Helper()
	a, err := ParseConfig("tiny.json", []byte(strings.Replace(doc, "QUANT", quant, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestQuantizedLinearLayouts checks one decoder layer's tensors, byte for
// byte, in each scheme vLLM loads, against lists computed by hand (bf16
// model: 2 bytes an unquantized weight). The norms are 256 x 2 = 512 bytes
// each in every case.
func TestQuantizedLinearLayouts(t *testing.T) {
	norms := map[string]uint64{"input_layernorm.weight": 512, "post_attention_layernorm.weight": 512}
	with := func(m map[string]uint64) map[string]uint64 {
		for k, v := range norms {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name  string
		quant string
		tp    uint64
		want  map[string]uint64
	}{
		{
			// Devstral's fp8: per tensor, static activations
			// (fp8.py:294-416): one byte a weight, one fp32 weight scale
			// and one fp32 input scale per layer.
			name: "fp8 per tensor, static", tp: 1,
			quant: `{"quant_method": "fp8", "activation_scheme": "static", "weight_block_size": null, "modules_to_not_convert": ["lm_head"]}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.weight": 256 * 512, "self_attn.qkv_proj.weight_scale": 4, "self_attn.qkv_proj.input_scale": 4,
				"self_attn.o_proj.weight": 256 * 256, "self_attn.o_proj.weight_scale": 4, "self_attn.o_proj.input_scale": 4,
				"mlp.gate_up_proj.weight": 256 * 1024, "mlp.gate_up_proj.weight_scale": 4, "mlp.gate_up_proj.input_scale": 4,
				"mlp.down_proj.weight": 512 * 256, "mlp.down_proj.weight_scale": 4, "mlp.down_proj.input_scale": 4,
			}),
		},
		{
			// Qwen3-FP8's block fp8: [ceil(n/128), ceil(k/128)] fp32
			// weight_scale_inv; down_proj listed (exact name) stays bf16:
			// 512 x 256 x 2. At TP2: qkv 256 x 256 (2 + 2x1 heads), o 128 x
			// 256, gate_up 256 x 512, down 256 x 256 (bf16 x 2).
			name: "fp8 block, one module listed", tp: 2,
			quant: `{"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128],
 "modules_to_not_convert": ["model.layers.0.mlp.down_proj"]}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.weight": 256 * 256, "self_attn.qkv_proj.weight_scale_inv": 2 * 2 * 4,
				"self_attn.o_proj.weight": 128 * 256, "self_attn.o_proj.weight_scale_inv": 2 * 1 * 4,
				"mlp.gate_up_proj.weight": 256 * 512, "mlp.gate_up_proj.weight_scale_inv": 4 * 2 * 4,
				"mlp.down_proj.weight": 256 * 256 * 2,
			}),
		},
		{
			// Maverick-FP8's compressed-tensors W8A8 fp8, weights per
			// channel, dynamic per-token activations: an fp32 scale per
			// output row. q, k and v listed exactly leave qkv_proj bf16;
			// the "re:" entry ignores o_proj.
			name: "compressed-tensors fp8 per channel", tp: 1,
			quant: `{"quant_method": "compressed-tensors", "format": "float-quantized",
 "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": {"dynamic": true, "num_bits": 8, "strategy": "token", "symmetric": true, "type": "float"},
   "weights": {"dynamic": false, "num_bits": 8, "strategy": "channel", "symmetric": true, "type": "float"}}},
 "ignore": ["model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.k_proj", "model.layers.0.self_attn.v_proj", "re:.*o_proj$", "lm_head"]}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.weight": 256 * 512 * 2,
				"self_attn.o_proj.weight":   256 * 256 * 2,
				"mlp.gate_up_proj.weight":   256 * 1024, "mlp.gate_up_proj.weight_scale": 1024 * 4,
				"mlp.down_proj.weight": 512 * 256, "mlp.down_proj.weight_scale": 256 * 4,
			}),
		},
		{
			// compressed-tensors W8A8 int8 (compressed_tensors_w8a8_int8.py):
			// int8 weights, fp32 scales per output channel.
			name: "compressed-tensors int8 per channel", tp: 1,
			quant: `{"quant_method": "compressed-tensors", "format": "int-quantized",
 "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": {"dynamic": true, "num_bits": 8, "strategy": "token", "symmetric": true, "type": "int"},
   "weights": {"dynamic": false, "num_bits": 8, "strategy": "channel", "symmetric": true, "type": "int"}}},
 "ignore": ["lm_head"]}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.weight": 256 * 512, "self_attn.qkv_proj.weight_scale": 512 * 4,
				"self_attn.o_proj.weight": 256 * 256, "self_attn.o_proj.weight_scale": 256 * 4,
				"mlp.gate_up_proj.weight": 256 * 1024, "mlp.gate_up_proj.weight_scale": 1024 * 4,
				"mlp.down_proj.weight": 512 * 256, "mlp.down_proj.weight_scale": 256 * 4,
			}),
		},
		{
			// Kimi-K2.5's W4A16 pack-quantized, symmetric, group 128 here:
			// weight_packed [n, k x 4 / 32] int32, weight_scale [n, k/128]
			// bf16, weight_shape int64[2] (16 bytes).
			name: "compressed-tensors W4A16 per group", tp: 1,
			quant: `{"quant_method": "compressed-tensors", "format": "pack-quantized",
 "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": null,
   "weights": {"actorder": null, "dynamic": false, "group_size": 128, "num_bits": 4, "strategy": "group", "symmetric": true, "type": "int"}}},
 "ignore": ["lm_head"]}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.weight_packed": 512 * 32 * 4, "self_attn.qkv_proj.weight_scale": 512 * 2 * 2, "self_attn.qkv_proj.weight_shape": 16,
				"self_attn.o_proj.weight_packed": 256 * 32 * 4, "self_attn.o_proj.weight_scale": 256 * 2 * 2, "self_attn.o_proj.weight_shape": 16,
				"mlp.gate_up_proj.weight_packed": 1024 * 32 * 4, "mlp.gate_up_proj.weight_scale": 1024 * 2 * 2, "mlp.gate_up_proj.weight_shape": 16,
				"mlp.down_proj.weight_packed": 256 * 64 * 4, "mlp.down_proj.weight_scale": 256 * 4 * 2, "mlp.down_proj.weight_shape": 16,
			}),
		},
		{
			// Per channel and asymmetric: one scale per output row and zero
			// points [n x 4 / 32, 1] int32.
			name: "compressed-tensors W4A16 per channel, asymmetric", tp: 1,
			quant: `{"quant_method": "compressed-tensors", "format": "pack-quantized",
 "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "strategy": "channel", "symmetric": false, "type": "int"}}}}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.weight_packed": 512 * 32 * 4, "self_attn.qkv_proj.weight_scale": 512 * 2, "self_attn.qkv_proj.weight_zero_point": 64 * 4, "self_attn.qkv_proj.weight_shape": 16,
				"self_attn.o_proj.weight_packed": 256 * 32 * 4, "self_attn.o_proj.weight_scale": 256 * 2, "self_attn.o_proj.weight_zero_point": 32 * 4, "self_attn.o_proj.weight_shape": 16,
				"mlp.gate_up_proj.weight_packed": 1024 * 32 * 4, "mlp.gate_up_proj.weight_scale": 1024 * 2, "mlp.gate_up_proj.weight_zero_point": 128 * 4, "mlp.gate_up_proj.weight_shape": 16,
				"mlp.down_proj.weight_packed": 256 * 64 * 4, "mlp.down_proj.weight_scale": 256 * 2, "mlp.down_proj.weight_zero_point": 32 * 4, "mlp.down_proj.weight_shape": 16,
			}),
		},
		{
			// compressed-tensors NVFP4 W4A4 (DeepSeek-V4-Flash-NVFP4's
			// group_1): weight [n, k/2] uint8, weight_scale [n, k/16] fp8,
			// and four fp32 scalars after loading (input and weight global
			// scales, alpha, the input scale's inverse).
			name: "compressed-tensors NVFP4", tp: 1,
			quant: `{"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
 "config_groups": {"group_1": {"targets": ["Linear"], "format": "nvfp4-pack-quantized",
   "input_activations": {"dynamic": "local", "group_size": 16, "num_bits": 4, "strategy": "tensor_group", "symmetric": true, "type": "float"},
   "weights": {"dynamic": false, "group_size": 16, "num_bits": 4, "strategy": "tensor_group", "symmetric": true, "type": "float"}}}, "ignore": ["lm_head"]}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.weight": 512 * 128, "self_attn.qkv_proj.weight_scale": 512 * 16, "self_attn.qkv_proj.global_scales": 16,
				"self_attn.o_proj.weight": 256 * 128, "self_attn.o_proj.weight_scale": 256 * 16, "self_attn.o_proj.global_scales": 16,
				"mlp.gate_up_proj.weight": 1024 * 128, "mlp.gate_up_proj.weight_scale": 1024 * 16, "mlp.gate_up_proj.global_scales": 16,
				"mlp.down_proj.weight": 256 * 256, "mlp.down_proj.weight_scale": 256 * 32, "mlp.down_proj.global_scales": 16,
			}),
		},
		{
			// bitsandbytes NF4 with double quantization, undone at load: half
			// a byte a weight, an fp32 absmax per 64 weights, and a 16-entry
			// fp32 code per checkpoint shard (3 for qkv, 2 for gate_up).
			name: "bitsandbytes nf4", tp: 1,
			quant: `{"_load_in_4bit": true, "_load_in_8bit": false, "bnb_4bit_compute_dtype": "bfloat16", "bnb_4bit_quant_storage": "uint8",
 "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true, "llm_int8_skip_modules": null, "load_in_4bit": true,
 "load_in_8bit": false, "quant_method": "bitsandbytes"}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.weight": 256 * 512 / 2, "self_attn.qkv_proj.weight.absmax": 256 * 512 / 64 * 4, "self_attn.qkv_proj.weight.quant_map": 3 * 64,
				"self_attn.o_proj.weight": 256 * 256 / 2, "self_attn.o_proj.weight.absmax": 256 * 256 / 64 * 4, "self_attn.o_proj.weight.quant_map": 64,
				"mlp.gate_up_proj.weight": 256 * 1024 / 2, "mlp.gate_up_proj.weight.absmax": 256 * 1024 / 64 * 4, "mlp.gate_up_proj.weight.quant_map": 2 * 64,
				"mlp.down_proj.weight": 512 * 256 / 2, "mlp.down_proj.weight.absmax": 512 * 256 / 64 * 4, "mlp.down_proj.weight.quant_map": 64,
			}),
		},
		{
			// The 8-bit checkpoint's config (seanses2-local CodeLlama): one
			// int8 a weight, its row scales in host memory; the MLP listed
			// by a component (llm_int8_skip_modules "mlp") stays bf16.
			name: "bitsandbytes 8-bit, mlp skipped", tp: 1,
			quant: `{"bnb_4bit_compute_dtype": "float32", "bnb_4bit_quant_type": "fp4", "bnb_4bit_use_double_quant": false,
 "llm_int8_enable_fp32_cpu_offload": false, "llm_int8_has_fp16_weight": false, "llm_int8_skip_modules": ["mlp"],
 "llm_int8_threshold": 6.0, "load_in_4bit": false, "load_in_8bit": true, "quant_method": "bitsandbytes"}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.weight": 256 * 512, "self_attn.o_proj.weight": 256 * 256,
				"mlp.gate_up_proj.weight": 256 * 1024 * 2, "mlp.down_proj.weight": 512 * 256 * 2,
			}),
		},
		{
			// GPTQ 4-bit, group 128, no act-order (auto_gptq.py:326-453):
			// qweight [k/8, n] int32, g_idx [k] int32, scales [k/128, n]
			// bf16, qzeros [k/128, n/8] int32.
			name: "gptq", tp: 1,
			quant: `{"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": false, "sym": true}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.qweight": 32 * 512 * 4, "self_attn.qkv_proj.g_idx": 256 * 4, "self_attn.qkv_proj.scales": 2 * 512 * 2, "self_attn.qkv_proj.qzeros": 2 * 64 * 4,
				"self_attn.o_proj.qweight": 32 * 256 * 4, "self_attn.o_proj.g_idx": 256 * 4, "self_attn.o_proj.scales": 2 * 256 * 2, "self_attn.o_proj.qzeros": 2 * 32 * 4,
				"mlp.gate_up_proj.qweight": 32 * 1024 * 4, "mlp.gate_up_proj.g_idx": 256 * 4, "mlp.gate_up_proj.scales": 2 * 1024 * 2, "mlp.gate_up_proj.qzeros": 2 * 128 * 4,
				"mlp.down_proj.qweight": 64 * 256 * 4, "mlp.down_proj.g_idx": 512 * 4, "mlp.down_proj.scales": 4 * 256 * 2, "mlp.down_proj.qzeros": 4 * 32 * 4,
			}),
		},
		{
			// GPTQ with act-order at TP2: a row-parallel layer keeps every
			// group's scales (marlin_repeat_scales_on_all_ranks): o_proj
			// 128 x 256 keeps 256/128 = 2 groups, down_proj 256 x 256 keeps
			// 512/128 = 4. TP2 shapes: qkv 256 x 256, gate_up 256 x 512.
			name: "gptq act-order at TP2", tp: 2,
			quant: `{"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": true, "sym": true}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.qweight": 32 * 256 * 4, "self_attn.qkv_proj.g_idx": 256 * 4, "self_attn.qkv_proj.scales": 2 * 256 * 2, "self_attn.qkv_proj.qzeros": 2 * 32 * 4,
				"self_attn.o_proj.qweight": 16 * 256 * 4, "self_attn.o_proj.g_idx": 128 * 4, "self_attn.o_proj.scales": 2 * 256 * 2, "self_attn.o_proj.qzeros": 2 * 32 * 4,
				"mlp.gate_up_proj.qweight": 32 * 512 * 4, "mlp.gate_up_proj.g_idx": 256 * 4, "mlp.gate_up_proj.scales": 2 * 512 * 2, "mlp.gate_up_proj.qzeros": 2 * 64 * 4,
				"mlp.down_proj.qweight": 32 * 256 * 4, "mlp.down_proj.g_idx": 256 * 4, "mlp.down_proj.scales": 4 * 256 * 2, "mlp.down_proj.qzeros": 4 * 32 * 4,
			}),
		},
		{
			// ModelOpt NVFP4 read as config.json's (quant_algo NVFP4 W4A4,
			// group 16): as compressed-tensors' NVFP4 after loading
			// (modelopt.py:1109-1215).
			name: "modelopt nvfp4", tp: 1,
			quant: `{"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": ["lm_head"]}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.weight": 512 * 128, "self_attn.qkv_proj.weight_scale": 512 * 16, "self_attn.qkv_proj.global_scales": 16,
				"self_attn.o_proj.weight": 256 * 128, "self_attn.o_proj.weight_scale": 256 * 16, "self_attn.o_proj.global_scales": 16,
				"mlp.gate_up_proj.weight": 1024 * 128, "mlp.gate_up_proj.weight_scale": 1024 * 16, "mlp.gate_up_proj.global_scales": 16,
				"mlp.down_proj.weight": 256 * 256, "mlp.down_proj.weight_scale": 256 * 32, "mlp.down_proj.global_scales": 16,
			}),
		},
		{
			// ModelOpt FP8 per channel (FP8_PER_CHANNEL_PER_TOKEN,
			// modelopt.py:550-609): an fp32 scale per output row.
			name: "modelopt fp8 per channel", tp: 1,
			quant: `{"quant_method": "modelopt", "quant_algo": "FP8_PER_CHANNEL_PER_TOKEN"}`,
			want: with(map[string]uint64{
				"self_attn.qkv_proj.weight": 256 * 512, "self_attn.qkv_proj.weight_scale": 512 * 4,
				"self_attn.o_proj.weight": 256 * 256, "self_attn.o_proj.weight_scale": 256 * 4,
				"mlp.gate_up_proj.weight": 256 * 1024, "mlp.gate_up_proj.weight_scale": 1024 * 4,
				"mlp.down_proj.weight": 512 * 256, "mlp.down_proj.weight_scale": 256 * 4,
			}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := parseWith(t, tinyLlama, tt.quant)
			got := layerItems(t, a, Whole(a, tt.tp, 2, a.Quant), "model.layers.0.")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want by hand +got):\n%s", diff)
			}
		})
	}
}

// TestLMHeadQuantization: ModelOpt quantizes the head unless excluded
// (modelopt.py:203-208); fp8 never does; compressed-tensors only when a
// target names it. Head 1024 (1000 padded to 64) x 256.
func TestLMHeadQuantization(t *testing.T) {
	tests := []struct {
		name, quant string
		want        map[string]uint64
	}{
		{"modelopt nvfp4 head", `{"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}`,
			map[string]uint64{"weight": 1024 * 128, "weight_scale": 1024 * 16, "global_scales": 16}},
		{"modelopt head excluded", `{"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": ["lm_head"]}`,
			map[string]uint64{"weight": 1024 * 256 * 2}},
		{"fp8 never", `{"quant_method": "fp8", "activation_scheme": "dynamic"}`, map[string]uint64{"weight": 1024 * 256 * 2}},
		{"compressed-tensors by name", `{"quant_method": "compressed-tensors", "config_groups": {"g": {"targets": ["lm_head"],
 "weights": {"num_bits": 8, "strategy": "channel", "type": "float"}, "input_activations": {"num_bits": 8, "type": "float", "dynamic": true}}}}`,
			map[string]uint64{"weight": 1024 * 256, "weight_scale": 1024 * 4}},
		{"compressed-tensors by class: not a Linear", `{"quant_method": "compressed-tensors", "config_groups": {"g": {"targets": ["Linear"],
 "weights": {"num_bits": 8, "strategy": "channel", "type": "float"}, "input_activations": {"num_bits": 8, "type": "float", "dynamic": true}}}}`,
			map[string]uint64{"weight": 1024 * 256 * 2}},
	}
	for _, tt := range tests {
		a := parseWith(t, tinyLlama, tt.quant)
		if diff := cmp.Diff(tt.want, layerItems(t, a, Whole(a, 1, 2, a.Quant), "lm_head.")); diff != "" {
			t.Errorf("%s (-want by hand +got):\n%s", tt.name, diff)
		}
	}
}

// TestNVFP4LinearLayouts sizes one MLP's NVFP4 linears (hidden 256,
// intermediate 48) as vLLM's kernels keep them after loading. gate_up is
// n 96 x k 256, down n 256 x k 48. Checkpoint (Marlin) layout: weights
// [n, k/2], scales [n, k/16]: gate_up 96*128 and 96*16, down 256*24 and
// 256*3. Blackwell's CUTLASS/FlashInfer (swizzle_blockscale,
// nvfp4_utils.py:13-53): scales [round_up(n,128), round_up(k/16,4)], so
// gate_up [128, 16] and down [256, 4]; pad_nvfp4_weight_for_cutlass
// (:64-98) pads the weight to 32 rows and 32 inputs: gate_up 96 x 256
// already is, down's k 48 -> 64, [256, 32]. W4A4 keeps four fp32 scalars
// (input and weight global scales, alpha, the input's inverse), W4A16 the
// weight's one, and W4A16 runs on Marlin whatever the device.
func TestNVFP4LinearLayouts(t *testing.T) {
	doc := strings.Replace(tinyLlama, `"intermediate_size": 512`, `"intermediate_size": 48`, 1)
	blackwell := NVFP4Kernel{LinearSwizzle: true, LinearWeightPad: true}
	tests := []struct {
		name, quant string
		kern        NVFP4Kernel
		want        map[string]uint64
	}{
		{"W4A4, checkpoint layout (Marlin)", `{"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}`, NVFP4Kernel{},
			map[string]uint64{"gate_up_proj.weight": 96 * 128, "gate_up_proj.weight_scale": 96 * 16, "gate_up_proj.global_scales": 16,
				"down_proj.weight": 256 * 24, "down_proj.weight_scale": 256 * 3, "down_proj.global_scales": 16}},
		{"W4A4, scales swizzled only (before 0.16.0)", `{"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}`, NVFP4Kernel{LinearSwizzle: true},
			map[string]uint64{"gate_up_proj.weight": 96 * 128, "gate_up_proj.weight_scale": 128 * 16, "gate_up_proj.global_scales": 16,
				"down_proj.weight": 256 * 24, "down_proj.weight_scale": 256 * 4, "down_proj.global_scales": 16}},
		{"W4A4, Blackwell", `{"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}`, blackwell,
			map[string]uint64{"gate_up_proj.weight": 96 * 128, "gate_up_proj.weight_scale": 128 * 16, "gate_up_proj.global_scales": 16,
				"down_proj.weight": 256 * 32, "down_proj.weight_scale": 256 * 4, "down_proj.global_scales": 16}},
		{"W4A16 on Blackwell: Marlin", `{"quant_method": "modelopt", "quant_algo": "W4A16_NVFP4", "group_size": 16}`, blackwell,
			map[string]uint64{"gate_up_proj.weight": 96 * 128, "gate_up_proj.weight_scale": 96 * 16, "gate_up_proj.global_scales": 4,
				"down_proj.weight": 256 * 24, "down_proj.weight_scale": 256 * 3, "down_proj.global_scales": 4}},
	}
	for _, tt := range tests {
		a := parseWith(t, doc, tt.quant)
		sh := Whole(a, 1, 2, a.Quant)
		sh.NVFP4 = tt.kern
		if diff := cmp.Diff(tt.want, layerItems(t, a, sh, "model.layers.0.mlp.")); diff != "" {
			t.Errorf("%s (-want by hand +got):\n%s", tt.name, diff)
		}
	}
}

// TestNVFP4ExpertLayouts sizes one NVFP4 MoE layer (2 experts, hidden
// 272, intermediate 48, router excluded: bf16 [2, 272]) as vLLM's MoE
// kernels keep it. Checkpoint (Marlin) layout per expert: w13 [96, 136]
// with scales [96, 17], w2 [272, 24] with scales [272, 3]. CUTLASS
// (12.x, 11.0) swizzles each expert's scales to whole 128 x 4 tiles
// (flashinfer_fp4_moe.py:417-435): w13 [128, 20], w2 [384, 4]. FlashInfer
// TRTLLM (10.x) rounds the hidden size to 256, 272 -> 512
// (flashinfer_utils.py:253-290), and at main the gated intermediate to
// 64, 48 -> 64 (16 before #46880: 48 stays): w13 [128, 256] with scales
// [128, 32], w2 [512, 32] with scales [512, 4].
func TestNVFP4ExpertLayouts(t *testing.T) {
	doc := strings.NewReplacer(`"hidden_size": 256`, `"hidden_size": 272`, `"moe_intermediate_size": 256`, `"moe_intermediate_size": 48`).Replace(tinyMoE)
	quant := `{"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": ["model.layers.0.mlp.gate", "lm_head"]}`
	experts := func(w13, w13s, w2, w2s uint64) map[string]uint64 {
		return map[string]uint64{"gate.weight": 2 * 272 * 2, "experts.w13_weight": 2 * w13, "experts.w13_weight_scale": 2 * w13s,
			"experts.w2_weight": 2 * w2, "experts.w2_weight_scale": 2 * w2s, "experts.global_scales": 2 * 16}
	}
	tests := []struct {
		name  string
		quant string
		kern  NVFP4Kernel
		want  map[string]uint64
	}{
		{"checkpoint layout (Marlin)", quant, NVFP4Kernel{}, experts(96*136, 96*17, 272*24, 272*3)},
		{"CUTLASS: scales swizzled", quant, NVFP4Kernel{ExpertSwizzle: true}, experts(96*136, 128*20, 272*24, 384*4)},
		{"TRTLLM at main", quant, NVFP4Kernel{ExpertHiddenMultiple: 256, ExpertGatedMultiple: 64, ExpertUngatedMultiple: 128},
			experts(128*256, 128*32, 512*32, 512*4)},
		{"TRTLLM before #46880", quant, NVFP4Kernel{ExpertHiddenMultiple: 256, ExpertGatedMultiple: 16, ExpertUngatedMultiple: 16},
			experts(96*256, 96*32, 512*24, 512*3)},
		{"W4A16: Marlin whatever the kernel", `{"quant_method": "modelopt", "quant_algo": "W4A16_NVFP4", "group_size": 16, "ignore": ["model.layers.0.mlp.gate", "lm_head"]}`,
			NVFP4Kernel{ExpertSwizzle: true, ExpertHiddenMultiple: 256, ExpertGatedMultiple: 64}, experts(96*136, 96*17, 272*24, 272*3)},
	}
	for _, tt := range tests {
		a := parseWith(t, doc, tt.quant)
		sh := Whole(a, 1, 2, a.Quant)
		sh.NVFP4 = tt.kern
		if diff := cmp.Diff(tt.want, layerItems(t, a, sh, "model.layers.0.mlp.")); diff != "" {
			t.Errorf("%s (-want by hand +got):\n%s", tt.name, diff)
		}
	}
}

// TestQuantizedExpertLayouts checks the fused experts of one MoE layer, 2
// experts of hidden 256 and intermediate 256: w13 [2, 512, 256], w2 [2,
// 256, 256]. Qwen3-MoE's router [2, 256] takes the quantization config.
func TestQuantizedExpertLayouts(t *testing.T) {
	tests := []struct {
		name, quant string
		want        map[string]uint64
	}{
		{
			// Qwen3-30B-A3B-FP8's block fp8 listing the router: w13 scales
			// [2, 2 x ceil(256/128), ceil(256/128)] and w2 [2, 2, 2] fp32.
			name:  "fp8 block",
			quant: `{"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128], "modules_to_not_convert": ["model.layers.0.mlp.gate"]}`,
			want: map[string]uint64{"gate.weight": 2 * 256 * 2,
				"experts.w13_weight": 2 * 512 * 256, "experts.w13_weight_scale_inv": 2 * 4 * 2 * 4,
				"experts.w2_weight": 2 * 256 * 256, "experts.w2_weight_scale_inv": 2 * 2 * 2 * 4},
		},
		{
			// fp8 per tensor: the router is not listed, so it is fp8 too
			// (qwen3_moe.py:167-173); experts one fp32 scale each.
			name:  "fp8 per tensor, router quantized",
			quant: `{"quant_method": "fp8", "activation_scheme": "dynamic"}`,
			want: map[string]uint64{"gate.weight": 2 * 256, "gate.weight_scale": 4,
				"experts.w13_weight": 2 * 512 * 256, "experts.w13_weight_scale": 2 * 4,
				"experts.w2_weight": 2 * 256 * 256, "experts.w2_weight_scale": 2 * 4},
		},
		{
			// compressed-tensors W4A16 group 32 (Kimi-K2.5's): the experts
			// match "Linear" through RoutedExperts; the router is ignored.
			// w13_weight_packed [2, 256/8, 512] int32, scales [2, 256/32,
			// 512] bf16, weight_shape [2, 2] bf16 per w13 and w2.
			name: "compressed-tensors W4A16",
			quant: `{"quant_method": "compressed-tensors", "format": "pack-quantized", "ignore": ["re:.*mlp\\.gate$"],
 "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": null,
   "weights": {"group_size": 32, "num_bits": 4, "strategy": "group", "symmetric": true, "type": "int"}}}}`,
			want: map[string]uint64{"gate.weight": 2 * 256 * 2,
				"experts.w13_weight_packed": 2 * 32 * 512 * 4, "experts.w2_weight_packed": 2 * 32 * 256 * 4,
				"experts.w13_weight_scale": 2 * 8 * 512 * 2, "experts.w2_weight_scale": 2 * 8 * 256 * 2,
				"experts.weight_shape": 2 * 4 * 2},
		},
		{
			// ModelOpt NVFP4 with the router excluded (Qwen3-235B-NVFP4's
			// list): weights two to a byte, fp8 scales per 16, and per
			// expert four fp32 global scales.
			name:  "modelopt nvfp4",
			quant: `{"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": ["model.layers.0.mlp.gate", "lm_head"]}`,
			want: map[string]uint64{"gate.weight": 2 * 256 * 2,
				"experts.w13_weight": 2 * 512 * 128, "experts.w2_weight": 2 * 256 * 128,
				"experts.w13_weight_scale": 2 * 512 * 16, "experts.w2_weight_scale": 2 * 256 * 16, "experts.global_scales": 2 * 16},
		},
		{
			// bitsandbytes NF4 experts (bitsandbytes.py:514-581): half a
			// byte a weight and an fp32 absmax per 64; the router is
			// LinearBase, NF4 too, with its code.
			name:  "bitsandbytes nf4",
			quant: `{"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true}`,
			want: map[string]uint64{"gate.weight": 2 * 256 / 2, "gate.weight.absmax": 2 * 256 / 64 * 4, "gate.weight.quant_map": 64,
				"experts.w13_weight": 2 * 512 * 256 / 2, "experts.w2_weight": 2 * 256 * 256 / 2,
				"experts.w13_weight.absmax": 2 * 512 * 256 / 64 * 4, "experts.w2_weight.absmax": 2 * 256 * 256 / 64 * 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := parseWith(t, tinyMoE, tt.quant)
			got := layerItems(t, a, Whole(a, 1, 2, a.Quant), "model.layers.0.mlp.")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want by hand +got):\n%s", diff)
			}
		})
	}
}

// TestMXFP4Experts checks one gpt-oss-20b layer's experts (32 of hidden
// 2880 and intermediate 2880) under each MXFP4 kernel
// (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py:640-694):
// weights two to a byte, e8m0 scales one per 32, biases.
func TestMXFP4Experts(t *testing.T) {
	a := loadShipped(t)["openai__gpt-oss-20b"]
	tests := []struct {
		name   string
		kernel MXFP4Kernel
		want   map[string]uint64
	}{
		{
			// Triton without the Hopper layouts (ROCm's strided one with its
			// own rounding aside): 2880 is a multiple of 64, nothing rounds;
			// float32 biases. w13 32 x 5760 x 1440, scales 32 x 5760 x 90,
			// w2 32 x 2880 x 1440, scales 32 x 2880 x 90: 423,014,400 B.
			name: "triton", kernel: mxfp4Triton,
			want: map[string]uint64{"w13_weight": 32 * 5760 * 1440, "w13_weight_scale": 32 * 5760 * 90, "w2_weight": 32 * 2880 * 1440,
				"w2_weight_scale": 32 * 2880 * 90, "w13_bias": 32 * 5760 * 4, "w2_bias": 32 * 2880 * 4},
		},
		{
			// Triton on Hopper: nothing rounds, but the Hopper layouts pad
			// each expert's matrices. w13 (N 5760 gate and up rows, K 2880
			// hidden): values [round_up(1440, 64) = 1472, round_up(5760,
			// 256) = 5888] bytes, scales [5888, round_up(90, 4) = 92]; w2
			// (N 2880 hidden, K 2880 intermediate): values [1472,
			// round_up(2880, 256) = 3072], scales [3072, 92]. 32 experts:
			// 448,430,080 B of weights and scales, 25,415,680 (6.0%) over the
			// checkpoint's 423,014,400.
			name: "triton hopper", kernel: mxfp4Hopper,
			want: map[string]uint64{"w13_weight": 32 * 1472 * 5888, "w13_weight_scale": 32 * 5888 * 92, "w2_weight": 32 * 1472 * 3072,
				"w2_weight_scale": 32 * 3072 * 92, "w13_bias": 32 * 5760 * 4, "w2_bias": 32 * 2880 * 4},
		},
		{
			// Triton on Hopper before vLLM freed the checkpoint's scales:
			// the swizzled scales above plus the checkpoint's [5760, 90]
			// and [2880, 90] a expert.
			name: "triton hopper, scales kept", kernel: MXFP4Kernel{IntermediateMultiple: 64, HiddenMultiple: 1, BiasFloat32: true, HopperLayout: true, KeepsScales: true},
			want: map[string]uint64{"w13_weight": 32 * 1472 * 5888, "w13_weight_scale": 32 * (5888*92 + 5760*90), "w2_weight": 32 * 1472 * 3072,
				"w2_weight_scale": 32 * (3072*92 + 2880*90), "w13_bias": 32 * 5760 * 4, "w2_bias": 32 * 2880 * 4},
		},
		{
			// Marlin: intermediate to 2944 (23 x 128), hidden to 3072 (12 x
			// 256), biases in bf16: 461,242,368 B of weights and scales.
			name: "marlin", kernel: mxfp4Marlin,
			want: map[string]uint64{"w13_weight": 32 * 5888 * 1536, "w13_weight_scale": 32 * 5888 * 96, "w2_weight": 32 * 3072 * 1472,
				"w2_weight_scale": 32 * 3072 * 92, "w13_bias": 32 * 5888 * 2, "w2_bias": 32 * 3072 * 2},
		},
		{
			// The checkpoint's layout: no rounding, bf16 biases.
			name: "checkpoint",
			want: map[string]uint64{"w13_weight": 32 * 5760 * 1440, "w13_weight_scale": 32 * 5760 * 90, "w2_weight": 32 * 2880 * 1440,
				"w2_weight_scale": 32 * 2880 * 90, "w13_bias": 32 * 5760 * 2, "w2_bias": 32 * 2880 * 2},
		},
	}
	for _, tt := range tests {
		sh := Whole(a, 1, 2, a.Quant)
		sh.MXFP4 = tt.kernel
		got := layerItems(t, a, sh, "model.layers.0.mlp.experts.")
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want by hand +got):\n%s", tt.name, diff)
		}
	}
	// Every linear layer of the MXFP4 checkpoint stays bf16: qkv_proj 2880
	// x (64 + 2 x 8) x 64 x 2 plus its bias (64 + 16) x 64 x 2.
	sh := Whole(a, 1, 2, a.Quant)
	got := layerItems(t, a, sh, "model.layers.0.attn.qkv_proj.")
	if diff := cmp.Diff(map[string]uint64{"weight": 2880 * 5120 * 2, "bias": 5120 * 2}, got); diff != "" {
		t.Errorf("qkv_proj (-want +got):\n%s", diff)
	}
}

// TestIgnoreListRules checks each method's matching of its list of
// unquantized modules on the real configs' lists: which layer-3 modules
// (and the head) stay unquantized.
func TestIgnoreListRules(t *testing.T) {
	archs := loadShipped(t)
	unquantized := func(a *Arch, modules ...string) map[string]bool {
		q := a.Quant.compiled(a)
		out := map[string]bool{}
		for _, m := range modules {
			k := linearMod
			switch {
			case m == "lm_head":
				k = headMod
			case strings.HasSuffix(m, ".experts"):
				k = expertsMod
			}
			out[m] = q.schemeFor(m, k).Format == Unquantized
		}
		return out
	}
	tests := []struct {
		name    string
		a       *Arch
		modules []string
		want    []bool
	}{
		// fp8, exact: Qwen3-30B-A3B-FP8 lists every mlp.gate.
		{"qwen3 fp8", archs["Qwen__Qwen3-30B-A3B-FP8"], []string{"model.layers.3.mlp.gate", "model.layers.3.self_attn.qkv_proj", "model.layers.3.mlp.experts", "lm_head"},
			[]bool{true, false, false, true}},
		// compressed-tensors: Kimi-K2.5's regexes leave attention, shared
		// experts and dense MLPs bf16; the routed experts are W4A16.
		{"kimi-k2.5 ct", archs["moonshotai__Kimi-K2.5"], []string{"model.layers.3.self_attn.fused_qkv_a_proj", "model.layers.3.mlp.shared_experts.gate_up_proj",
			"model.layers.0.mlp.gate_up_proj", "model.layers.3.mlp.experts", "lm_head"},
			[]bool{true, true, true, false, true}},
		// compressed-tensors: Maverick-FP8 lists the language model's
		// attention projections (language_model.model.layers..., renamed),
		// shared experts and dense MLPs; only the routed experts are fp8.
		{"maverick ct", archs["meta-llama__Llama-4-Maverick-17B-128E-Instruct-FP8"], []string{"model.layers.3.self_attn.qkv_proj", "model.layers.3.feed_forward.shared_expert.gate_up_proj",
			"model.layers.3.feed_forward.experts", "model.layers.2.feed_forward.gate_up_proj"},
			[]bool{true, true, false, true}},
		// mxfp4: every linear layer unquantized, the experts not.
		{"gpt-oss mxfp4", archs["openai__gpt-oss-20b"], []string{"model.layers.3.attn.qkv_proj", "model.layers.3.mlp.experts"}, []bool{true, false}},
		// ModelOpt mixed: the delta net's projections FP8, in_proj_ba
		// absent from quantized_layers, the head W4A16 NVFP4.
		{"qwen3.6 modelopt mixed", archs["nvidia__Qwen3.6-35B-A3B-NVFP4"], []string{"model.layers.0.linear_attn.in_proj_qkvz", "model.layers.0.linear_attn.in_proj_ba",
			"model.layers.3.self_attn.qkv_proj", "model.layers.3.mlp.experts", "model.layers.3.mlp.shared_expert.gate_up_proj", "lm_head"},
			[]bool{false, true, false, false, false, false}},
		// ModelOpt from hf_quant_config.json: Nemotron's list, renamed
		// from backbone.; substring matching does not confuse layer 4 with
		// 41.
		{"nemotron modelopt", loadWithQuantFile(t, "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"), []string{"model.layers.4.mixer.in_proj", "model.layers.5.mixer.qkv_proj",
			"model.layers.2.mixer.in_proj", "model.layers.1.mixer.experts", "model.layers.41.mixer.in_proj", "model.layers.40.mixer.in_proj", "lm_head"},
			[]bool{true, true, false, false, true, false, true}},
	}
	for _, tt := range tests {
		want := map[string]bool{}
		for i, m := range tt.modules {
			want[m] = tt.want[i]
		}
		if diff := cmp.Diff(want, unquantized(tt.a, tt.modules...)); diff != "" {
			t.Errorf("%s: unquantized (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestMatchModes checks each matching mode on lists written for it.
func TestMatchModes(t *testing.T) {
	tests := []struct {
		mode    matchMode
		list    []string
		module  string
		shards  []string
		skipped bool
	}{
		{exactMatch, []string{"model.layers.0.mlp.gate"}, "model.layers.0.mlp.gate", nil, true},
		{exactMatch, []string{"model.layers.0.mlp.gate"}, "model.layers.0.mlp.gate_up_proj", []string{"model.layers.0.mlp.gate_proj", "model.layers.0.mlp.up_proj"}, false},
		{exactMatch, []string{"model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.k_proj", "model.layers.0.self_attn.v_proj"},
			"model.layers.0.self_attn.qkv_proj", []string{"model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.k_proj", "model.layers.0.self_attn.v_proj"}, true},
		// experts: the name is part of a listed entry naming experts.
		{exactMatch, []string{"model.layers.0.mlp.experts.0.gate_proj"}, "model.layers.0.mlp.experts", nil, true},
		{exactMatch, []string{"gate"}, "model.layers.0.mlp.gate", nil, false},
		{substringMatch, []string{"visual"}, "visual.blocks.0.attn.qkv", nil, true},
		{substringMatch, []string{"mlp.down"}, "model.layers.0.mlp.down_proj", nil, true},
		{componentMatch, []string{"lm_head"}, "lm_head", nil, true},
		{componentMatch, []string{"mlp"}, "model.layers.0.mlp.down_proj", nil, true},
		{componentMatch, []string{"model.layers.0"}, "model.layers.0.mlp.down_proj", nil, true},
		{componentMatch, []string{"down"}, "model.layers.0.mlp.down_proj", nil, false},
		{modeloptMatch, []string{"model.layers.*.mlp.gate"}, "model.layers.7.mlp.gate", nil, true},
		{modeloptMatch, []string{"lm_head"}, "lm_head", nil, true},
		{modeloptMatch, []string{"model.layers.4.mixer.in_proj"}, "model.layers.41.mixer.in_proj", nil, false},
	}
	for _, tt := range tests {
		m := compileMatcher(tt.list, tt.mode)
		if got := m.skips(tt.module, tt.shards); got != tt.skipped {
			t.Errorf("mode %d %v: %s skipped = %v, want %v", tt.mode, tt.list, tt.module, got, tt.skipped)
		}
	}
	ct, err := compileCTIgnore([]string{"lm_head", `re:.*\.self_attn\.q_proj$`, "re:visual"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want bool
	}{
		{"lm_head", true}, {"model.layers.1.self_attn.q_proj", true}, {"model.layers.1.self_attn.q_proj_x", false},
		{"visual.blocks.0", true}, {"model.visual", false}, // re.match anchors at the start
	} {
		if got := ct.skipsCT(c.name, nil); got != c.want {
			t.Errorf("compressed-tensors ignore %s = %v, want %v", c.name, got, c.want)
		}
	}
}

// BenchmarkWeightsQwen3FP8 lists Qwen3-30B-A3B-FP8's weights, whose fp8
// ignore list names every layer's router (issue #13: the list is matched
// once per module name, then memoized).
func BenchmarkWeightsQwen3FP8(b *testing.B) {
	a := loadShipped(b)["Qwen__Qwen3-30B-A3B-FP8"]
	sh := Whole(a, 1, 2, a.Quant)
	for b.Loop() {
		if len(Weights(a, sh)) == 0 {
			b.Fatal("no weights")
		}
	}
}

func ExampleWeights() {
	a, err := ParseConfig("tiny.json", []byte(strings.Replace(tinyLlama, "QUANT", `{"quant_method": "fp8", "activation_scheme": "dynamic"}`, 1)))
	if err != nil {
		panic(err)
	}
	for _, it := range Weights(a, Whole(a, 1, 2, a.Quant)) {
		if strings.HasPrefix(it.Name, "model.layers.0.self_attn") {
			fmt.Println(it.Name, it.Bytes)
		}
	}
	// Output:
	// model.layers.0.self_attn.qkv_proj.weight 131072
	// model.layers.0.self_attn.qkv_proj.weight_scale 4
	// model.layers.0.self_attn.o_proj.weight 65536
	// model.layers.0.self_attn.o_proj.weight_scale 4
}

// TestOnlineFP8: --quantization fp8 on an unquantized checkpoint is fp8
// per tensor with dynamic activations, the same as a hand-made Quant of
// method fp8; Online refuses the methods that need a quantized checkpoint.
func TestOnlineFP8(t *testing.T) {
	a := parseWith(t, strings.Replace(tinyLlama, `, "quantization_config": QUANT`, "", 1), "")
	q, err := Online("fp8")
	if err != nil {
		t.Fatal(err)
	}
	got := layerItems(t, a, Whole(a, 1, 2, q), "model.layers.0.")
	lit := layerItems(t, a, Whole(a, 1, 2, Quant{Method: "fp8", Bits: 8}), "model.layers.0.")
	if diff := cmp.Diff(lit, got); diff != "" {
		t.Errorf("(-literal +Online):\n%s", diff)
	}
	// qkv_proj 256 x 512 fp8 and one fp32 scale.
	if got["self_attn.qkv_proj.weight"] != 256*512 || got["self_attn.qkv_proj.weight_scale"] != 4 {
		t.Errorf("qkv_proj = %d + %d B, want 131072 + 4", got["self_attn.qkv_proj.weight"], got["self_attn.qkv_proj.weight_scale"])
	}
	if _, err := Online("awq"); err == nil {
		t.Error("Online(awq) = nil error, want a refusal")
	}
}

// TestQuantSummaries: the method, width and KV dtype each real config's
// quantization reads as.
func TestQuantSummaries(t *testing.T) {
	archs := loadShipped(t)
	type sum struct {
		Method, Algo, KV string
		Bits             uint64
	}
	tests := map[string]sum{
		"nvidia__Qwen3.6-35B-A3B-NVFP4":                      {"modelopt", "MIXED_PRECISION", "", 4}, // FP8 attention, NVFP4 experts: the narrowest 4
		"meta-llama__Llama-4-Maverick-17B-128E-Instruct-FP8": {"compressed-tensors", "", "", 8},
		"moonshotai__Kimi-K2.5":                              {"compressed-tensors", "", "", 4},
		"openai__gpt-oss-20b":                                {"mxfp4", "", "", 4},
		"seanses2-local__CodeLlama-7b-hf-bnb-8bit":           {"bitsandbytes", "", "", 8},
		"Qwen__Qwen2.5-7B-Instruct-GPTQ-Int4":                {"gptq", "", "", 4},
		"mistralai__Devstral-Small-2-24B-Instruct-2512":      {"fp8", "", "", 8},
	}
	for name, want := range tests {
		q := archs[name].Quant
		if diff := cmp.Diff(want, sum{q.Method, q.Algo, q.KVCacheDtype, q.Bits}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// The MXFP4 kernels' roundings the tests size with: vLLM's Triton, Marlin
// and TRTLLM kernels (membudget/engine/vllm holds them, with their source).
var (
	mxfp4Triton = MXFP4Kernel{IntermediateMultiple: 64, HiddenMultiple: 1, BiasFloat32: true}
	mxfp4Marlin = MXFP4Kernel{IntermediateMultiple: 128, HiddenMultiple: 256}
	mxfp4TRTLLM = MXFP4Kernel{IntermediateMultiple: 128, HiddenMultiple: 256, BiasFloat32: true}
	mxfp4Hopper = MXFP4Kernel{IntermediateMultiple: 64, HiddenMultiple: 1, BiasFloat32: true, HopperLayout: true}
)

// TestNVFP4KernelsLeaveAlignedCheckpoints: nvidia/Qwen3.6-35B-A3B-NVFP4
// (observed rows 188, 202, 208) is ModelOpt mixed precision whose NVFP4
// modules (the experts, the shared experts, the head) are all
// W4A16_NVFP4: Marlin's on every device, so neither Blackwell layout adds
// a byte to it and those rows' weights are what they were. Its sizes
// (hidden 2048, expert intermediate 512) are whole tiles of either kernel
// as well, so the totals alone would not notice W4A16 taken for W4A4: the
// W4A4NVFP4 check pins that.
func TestNVFP4KernelsLeaveAlignedCheckpoints(t *testing.T) {
	a := loadShipped(t)["nvidia__Qwen3.6-35B-A3B-NVFP4"]
	if a.Quant.W4A4NVFP4() {
		t.Error("W4A4NVFP4 true for a checkpoint whose NVFP4 modules are all W4A16_NVFP4")
	}
	total := func(k NVFP4Kernel) uint64 {
		sh := Whole(a, 1, 2, a.Quant)
		sh.NVFP4 = k
		var s uint64
		for _, it := range RankWeights(a, sh) {
			s += it.Bytes
		}
		return s
	}
	base := total(NVFP4Kernel{})
	for name, k := range map[string]NVFP4Kernel{
		"CUTLASS (12.x)": {LinearSwizzle: true, LinearWeightPad: true, ExpertSwizzle: true},
		"TRTLLM (10.x)":  {LinearSwizzle: true, LinearWeightPad: true, ExpertHiddenMultiple: 256, ExpertGatedMultiple: 64, ExpertUngatedMultiple: 128},
	} {
		if got := total(k); got != base {
			t.Errorf("%s: %d B of weights, want the checkpoint layout's %d", name, got, base)
		}
	}
}

// TestW4A4NVFP4: only a checkpoint with an NVFP4 layer that has a static
// activation scale (W4A4) follows the engine's NVFP4 kernels: ModelOpt's
// NVFP4, not its W4A16_NVFP4 (Marlin everywhere), and no fp8 or AWQ
// checkpoint, nor an unquantized one.
func TestW4A4NVFP4(t *testing.T) {
	tests := []struct {
		name, quant string
		want        bool
	}{
		{"modelopt NVFP4", `{"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}`, true},
		{"modelopt W4A16_NVFP4", `{"quant_method": "modelopt", "quant_algo": "W4A16_NVFP4", "group_size": 16}`, false},
		{"modelopt FP8", `{"quant_method": "modelopt", "quant_algo": "FP8"}`, false},
		{"fp8 blocks", `{"quant_method": "fp8", "weight_block_size": [128, 128]}`, false},
		{"awq", `{"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true}`, false},
		// The config-group and per-layer lookups, not only the default
		// scheme: a compressed-tensors NVFP4 group (W4A4: its input
		// activations 4-bit floats, as DeepSeek-V4-Flash-NVFP4's group_1),
		// and ModelOpt mixed precision with one NVFP4 layer (W4A4), or one
		// W4A16_NVFP4 layer (Marlin: false).
		{"compressed-tensors NVFP4 group", `{"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
 "config_groups": {"group_1": {"targets": ["Linear"], "format": "nvfp4-pack-quantized",
   "input_activations": {"dynamic": "local", "group_size": 16, "num_bits": 4, "strategy": "tensor_group", "symmetric": true, "type": "float"},
   "weights": {"dynamic": false, "group_size": 16, "num_bits": 4, "strategy": "tensor_group", "symmetric": true, "type": "float"}}}, "ignore": ["lm_head"]}`, true},
		{"modelopt mixed, one NVFP4 layer", `{"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION", "quantized_layers": {"model.layers.0.mlp.down_proj": {"quant_algo": "NVFP4", "group_size": 16}}}`, true},
		{"modelopt mixed, one W4A16_NVFP4 layer", `{"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION", "quantized_layers": {"model.layers.0.mlp.down_proj": {"quant_algo": "W4A16_NVFP4", "group_size": 16}}}`, false},
	}
	got, want := map[string]bool{}, map[string]bool{}
	for _, tt := range tests {
		got[tt.name], want[tt.name] = parseWith(t, tinyLlama, tt.quant).Quant.W4A4NVFP4(), tt.want
	}
	got["unquantized"], want["unquantized"] = Quant{}.W4A4NVFP4(), false
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("W4A4NVFP4 (-want +got):\n%s", diff)
	}
}
