package model

import "membudget/budget"

// readMXFP4 reads gpt-oss's MXFP4 quantization_config.
func readMXFP4(qc jsonObject, a *Arch) Quant {
	if a.ModelType != "gpt_oss" {
		// mxfp4.py:121-138: the MXFP4 method vLLM sizes here is gpt-oss's.
		qc.fail("quant_method", "mxfp4 is supported for model_type gpt_oss only, not %q", a.ModelType)
		return Quant{}
	}
	q := Quant{Method: "mxfp4", Bits: 4, NotConvert: qc.strings("modules_to_not_convert")}
	// mxfp4.py:83-105: every linear layer stays unquantized; only the
	// fused experts are MXFP4.
	q.rules = &quantRules{method: "mxfp4", experts: Scheme{Format: MXFP4, Bits: 4}, ignore: &matcher{}}
	return q
}

// The Hopper layouts' alignments, from OpenAI's triton_kernels as vLLM's
// _swizzle_mxfp4 calls them on compute capability 9.0
// (vllm/model_executor/layers/quantization/utils/mxfp4_utils.py at vLLM
// d18bb7b, with triton_kernels/tensor_details/layout_details of
// triton-lang/triton at 000df03e and 14dd7a19):
//   - HopperMXValueLayout pads the packed weight, reduction axis first, to
//     [round_up(K/2, 64), round_up(N, 256)] bytes (_padded_shape with the
//     mx axis on the rows: align_m, align_k = 64, 256);
//   - HopperMXScaleLayout pads the scales' N to 2 x num_warps x 2 x 8 =
//     256 with the 8 warps vLLM swizzles with (SWIZZLE_ALIGN_M), and vLLM
//     pads their K/32 groups to a multiple of 4 first on SM90 (the patch
//     for vllm-project/vllm#47303 in _swizzle_mxfp4; triton's own
//     SWIZZLE_ALIGN_K of 2 then adds nothing).
const (
	hopperValueRowBytes = 64
	hopperValueCols     = 256
	hopperScaleRows     = 256
	hopperScaleGroups   = 4
)

// MatrixBytes returns what one expert's MXFP4 matrix of n output features
// and k reduction features (both already rounded as the kernel asks) takes
// under k: its e2m1 values two to a byte and its e8m0 scales one per 32
// features, padded as the Hopper layouts pad them where HopperLayout is set,
// and the checkpoint's unpadded scales beside them where KeepsScales is.
func (kn MXFP4Kernel) MatrixBytes(n, k uint64) (values, scales uint64) {
	values, scales = budget.SatMul(n, k/2), budget.SatMul(n, k/32)
	if kn.HopperLayout {
		values = budget.SatMul(budget.RoundUp(k/2, hopperValueRowBytes), budget.RoundUp(n, hopperValueCols))
		scales = budget.SatMul(budget.RoundUp(n, hopperScaleRows), budget.RoundUp(k/32, hopperScaleGroups))
	}
	if kn.KeepsScales {
		scales = budget.SatAdd(scales, budget.SatMul(n, k/32))
	}
	return values, scales
}
