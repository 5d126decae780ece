package vllm

import (
	"membudget/engine"
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
	"inc": "inc",
}

// quantizations is vLLM's --quantization: its names read as given, and
// fp8 applied online to an unquantized checkpoint, one scale per tensor.
var quantizations = engine.Quantizations{
	Methods: QuantizationMethods,
	Unknown: "want one of",
	Online: func(method string) (model.Quant, bool) {
		return model.Quant{Method: "fp8", Bits: 8}, method == "fp8"
	},
}

// quantizationNames lists QuantizationMethods' names, sorted, for messages.
func quantizationNames() string { return quantizations.Names() }

// resolveQuant applies vLLM's --quantization to the checkpoint's own
// quantization (see [engine.Quantizations.Resolve]).
func resolveQuant(a *model.Arch, flag string) (model.Quant, error) {
	if a.Quant.Method == "inc" {
		// INCConfig.override_quantization_method claims an auto-round
		// checkpoint whatever --quantization says (inc/inc.py:253-261,
		// user_quant unread), and _verify_quantization then sets the
		// method to its answer (vllm/config/model.py:1255-1275); the flag
		// takes any string (engine/arg_utils.py:553).
		return a.Quant, nil
	}
	return quantizations.Resolve(a, flag)
}

// pluginName is the package outside vLLM the serve needs to start: the
// vllm-bnb-plugin for a bitsandbytes checkpoint under a release that moved
// bitsandbytes out of tree (see [Profile.BnBPlugin]); "" for none.
func (r *Resolved) pluginName() string {
	if r.Profile.BnBPlugin && r.Quant.Method == "bitsandbytes" {
		return "vllm-bnb-plugin"
	}
	return ""
}

// plugin says which package outside vLLM the serve needs and why; "" for
// none.
func (r *Resolved) plugin() string {
	if r.pluginName() == "" {
		return ""
	}
	return "bitsandbytes is out of vLLM's tree since 0.28.0 (vLLM PR #43529): this serve starts only with the vllm-bnb-plugin package installed, which loads the weights as the in-tree method did."
}
