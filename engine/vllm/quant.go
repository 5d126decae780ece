package vllm

import (
	"fmt"
	"slices"
	"strings"

	"membudget/model"
)

// QuantizationMethods maps the --quantization names vLLM takes whose
// layout membudget models (vllm/model_executor/layers/quantization/
// __init__.py QuantizationMethods) to the layout family of
// [model.QuantMethods].
var QuantizationMethods = map[string]string{
	"fp8": "fp8", "awq": "awq", "awq_marlin": "awq", "gptq": "gptq", "gptq_marlin": "gptq",
	"bitsandbytes": "bitsandbytes", "compressed-tensors": "compressed-tensors",
	"modelopt": "modelopt", "modelopt_fp4": "modelopt", "modelopt_mixed": "modelopt",
	"mxfp4": "mxfp4", "gpt_oss_mxfp4": "mxfp4",
}

// quantizationNames lists QuantizationMethods' names, sorted, for messages.
func quantizationNames() string {
	names := make([]string, 0, len(QuantizationMethods))
	for k := range QuantizationMethods {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// resolveQuant applies vLLM's --quantization to the checkpoint's own
// quantization: an empty flag takes the checkpoint's; fp8 on an unquantized
// checkpoint quantizes online, one scale per tensor; awq and gptq need a
// checkpoint quantized that way; a flag that disagrees with the checkpoint is
// an error, as in vLLM (ModelConfig._verify_quantization).
func resolveQuant(a *model.Arch, flag string) (model.Quant, error) {
	if flag == "" {
		return a.Quant, nil
	}
	method, ok := QuantizationMethods[flag]
	if !ok {
		names := make([]string, 0, len(QuantizationMethods))
		for k := range QuantizationMethods {
			names = append(names, k)
		}
		slices.Sort(names)
		return model.Quant{}, settingErr("quantization", fmt.Sprintf("%q", flag), "want one of %s", strings.Join(names, ", "))
	}
	switch {
	case a.Quant.Method == method:
		return a.Quant, nil
	case a.Quant.Method != "":
		return model.Quant{}, settingErr("quantization", fmt.Sprintf("%q", flag), "the checkpoint %s is quantized with %s", a.Source, a.Quant.Method)
	case method == "fp8":
		return model.Quant{Method: "fp8", Bits: 8}, nil
	}
	return model.Quant{}, settingErr("quantization", fmt.Sprintf("%q", flag), "needs a checkpoint quantized with %s (its config.json has no quantization_config)", method)
}
