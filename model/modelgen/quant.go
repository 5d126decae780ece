package modelgen

import "pgregory.net/rapid"

// quantKind is which quantization schemes a family takes.
type quantKind int

const (
	// quantDense: every scheme, bitsandbytes' 8-bit included.
	quantDense quantKind = iota
	// quantExperts: every scheme but bitsandbytes' 8-bit, which vLLM does
	// not take for experts (and the state families are kept to as today).
	quantExperts
	// quantMXFP4: gpt-oss's MXFP4, or none.
	quantMXFP4
)

// quantize draws a quantization_config the family takes into c, or none.
func quantize(t *rapid.T, c map[string]any, kind quantKind) {
	if q := drawQuant(t, kind); q != nil {
		c["quantization_config"] = q
	}
}

// drawQuant draws a quantization_config of kind, or nil: fp8 (per tensor, static, block), AWQ, GPTQ, bitsandbytes (NF4,
// and 8-bit without experts), AutoRound (without experts), compressed-tensors (fp8 per channel, int8,
// W4A16, NVFP4), ModelOpt (NVFP4, FP8) and gpt-oss's MXFP4.
func drawQuant(t *rapid.T, kind quantKind) map[string]any {
	schemes := []string{"", "", "fp8", "fp8-static", "fp8-block", "awq", "gptq", "bnb-nf4", "ct-fp8", "ct-int8", "ct-w4a16", "ct-nvfp4", "modelopt-nvfp4", "modelopt-fp8"}
	switch kind {
	case quantDense:
		// AutoRound (INC) is modelled for dense models only.
		schemes = append(schemes, "bnb-8bit", "autoround")
	case quantMXFP4:
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
	case "autoround":
		// AutoRound's export keys (intel/auto-round
		// auto_round/export/export_to_autoround/export.py @c6e0e72).
		packing := rapid.SampledFrom([]string{"auto_round:auto_gptq", "auto_round:auto_awq"}).Draw(t, "packing")
		return map[string]any{"quant_method": "auto-round", "packing_format": packing, "bits": 4, "sym": true, "data_type": "int",
			"group_size":   rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "group"),
			"extra_config": map[string]any{"lm_head": map[string]any{"bits": 16, "data_type": "float"}}}
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
