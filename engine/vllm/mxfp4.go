package vllm

import (
	"membudget/budget"
	"membudget/model"
)

// The MXFP4 MoE kernels vLLM runs gpt-oss's experts with, as they lay the
// experts out (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py at
// d18bb7b: mxfp4_round_up_hidden_size_and_intermediate_size, :640-694,
// rounds the sizes; convert_gpt_oss_weight_to_mxfp4_moe_kernel_format,
// :697-1270, converts the biases and swizzles):
//   - Triton (OpenAI's triton_kernels) rounds the intermediate to 64,
//     converts the biases to float32 and swizzles the weights and scales;
//     on Hopper into the padded Hopper layouts (_swizzle_mxfp4,
//     quantization/utils/mxfp4_utils.py; see model.MXFP4Kernel.MatrixBytes);
//   - Marlin rounds the intermediate to 128 and the hidden size to 256 and
//     keeps the biases in the model dtype (marlin_utils_fp4.py:672-683);
//   - FlashInfer's TRTLLM kernels round as Marlin does with float32
//     biases (:80-94 of the conversion);
//   - FlashInfer's CUTLASS kernels round both sizes to 128 and keep the
//     biases in bfloat16, the scales interleaved in their own shape
//     (:917-961 of the conversion);
//   - on ROCm, Triton rounds both sizes to 256 (the is_rocm branch of the
//     round-up) with float32 biases and no value swizzle (StridedLayout).
var (
	MXFP4Triton     = model.MXFP4Kernel{IntermediateMultiple: 64, HiddenMultiple: 1, BiasFloat32: true, HopperLayout: true}
	MXFP4Marlin     = model.MXFP4Kernel{IntermediateMultiple: 128, HiddenMultiple: 256}
	MXFP4TRTLLM     = model.MXFP4Kernel{IntermediateMultiple: 128, HiddenMultiple: 256, BiasFloat32: true}
	MXFP4CUTLASS    = model.MXFP4Kernel{IntermediateMultiple: 128, HiddenMultiple: 128}
	MXFP4ROCmTriton = model.MXFP4Kernel{IntermediateMultiple: 256, HiddenMultiple: 256, BiasFloat32: true}
)

// The releases at which Triton's layout of gpt-oss's experts on Hopper
// changed (see [mxfp4Kernel]).
var (
	mxfp4HopperSwizzle = Version{0, 11, 1} // torch 2.9.0 (#24994): the Hopper layouts
	mxfp4ScalesFreed   = Version{0, 24, 0} // the checkpoint's scales freed (#46549)
)

// mxfp4Kernel returns the kernel vLLM picks for gpt-oss's MXFP4 experts on
// d. vLLM tries _get_priority_backends_for_gpt_oss
// (oracle/mxfp4.py:314-334) in order and takes the first whose
// is_supported_config accepts the device, with vLLM's default image
// (FlashInfer installed, AITER off):
//   - FlashInfer TRTLLM on the SM100 family, 10.x
//     (experts/trtllm_mxfp4_moe.py:120-122);
//   - Triton on 9.0 <= capability < 11.0 (experts/
//     gpt_oss_triton_kernels_moe.py:36-57), so Hopper, and on ROCm's gfx9
//     (MI200, MI300) and gfx1x;
//   - FlashInfer CUTLASS: its bf16 variant only on 9.0, where Triton comes
//     first, and its mxfp8-activation variant on 10.0 and later but SM110
//     (experts/flashinfer_cutlass_moe.py:135-188), which leaves SM120
//     (flashinfer-python is one of vLLM's CUDA requirements,
//     requirements/cuda.txt);
//   - Marlin everywhere else from 7.5 (experts/marlin_moe.py:605-607):
//     Ampere, Ada, Jetson Thor (SM110). vLLM refuses MXFP4 below 8.0
//     before a kernel is picked (checkQuantCapability).
//
// Triton on Hopper changed twice before main, as p's release says:
//   - _swizzle_mxfp4 keeps the strided layouts on Hopper under torch older
//     than 2.8.1 (quantization/utils/mxfp4_utils.py since vLLM #22421), and
//     vLLM pinned torch 2.8.0 until #24994 (2.9.0, merged 2025-10-21, after
//     0.11.0): through 0.11.0 nothing is padded;
//   - the checkpoint's scales stayed allocated beside the swizzled copy
//     (quantization/mxfp4.py at 845adb3 deletes the weights only) until
//     #46549 ("Free unused MXFP4 scales in OAI Triton Backend", merged
//     2026-06-24, after 0.23.0 and a week before 0.24.0).
func mxfp4Kernel(d budget.Device, p Profile) model.MXFP4Kernel {
	si := d.Silicon
	switch {
	case si.Vendor == budget.AMD:
		return MXFP4ROCmTriton
	case si.Major == 10:
		return MXFP4TRTLLM
	case si.AtLeast(9, 0) && !si.AtLeast(11, 0):
		k := MXFP4Triton
		k.HopperLayout = p.Release.AtLeast(mxfp4HopperSwizzle)
		k.KeepsScales = p.Release.Less(mxfp4ScalesFreed)
		return k
	case si.Major == 12:
		return MXFP4CUTLASS
	}
	return MXFP4Marlin
}
