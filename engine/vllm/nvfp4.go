package vllm

import (
	"fmt"

	"membudget/budget"
	"membudget/model"
)

// The releases at which vLLM's layout of NVFP4 weights changed (see
// [nvfp4Kernel]).
var (
	// nvfp4WeightPadSince: pad_nvfp4_weight_for_cutlass pads W4A4 linear
	// weights to 32 rows and 32 inputs for the CUTLASS kernels (#31099,
	// merged 2026-01-26; 0.16.0, released 2026-02-25, is the first
	// release surely after it).
	nvfp4WeightPadSince = Version{0, 16, 0}
	// nvfp4TRTLLMHiddenSince: align_trtllm_fp4_moe_hidden_dim_for_fi pads
	// the experts' hidden size to 256 for FlashInfer TRTLLM (#39510,
	// merged 2026-04-14; whether 0.20.0 holds it is not read, so from
	// 0.21.0, the first release surely after it).
	nvfp4TRTLLMHiddenSince = Version{0, 21, 0}
	// nvfp4TRTLLMGated64Since: the gated intermediate is padded to 64 (128
	// ungated) instead of 16, so that FlashInfer's block-scale shuffle
	// sees whole 128-row tiles (#46880, merged 2026-07-15; 0.27.0 is the
	// first release surely after it).
	nvfp4TRTLLMGated64Since = Version{0, 27, 0}
	// nvfp4TRTLLMDefaultSince: the NVFP4 MoE oracle tries FlashInfer
	// TRTLLM first on 10.x (#32414, "Oracle Select FP8+NVFP4 Kernels In
	// Priority", merged 2026-01-21); before it, vLLM's CUTLASS experts
	// unless VLLM_USE_FLASHINFER_MOE_FP4 was set (oracle/nvfp4.py:89-93 at
	// 9f6dcb71a). 0.16.0, released 2026-02-25, is the first release surely
	// after it; whether 0.15's branch holds it is not read.
	nvfp4TRTLLMDefaultSince = Version{0, 16, 0}
)

// nvfp4Kernel returns how the serve's vLLM lays out W4A4 NVFP4 weights and
// block scales on device d once loaded ([model.NVFP4Kernel]); W4A16 layers
// run on Marlin everywhere and the model keeps their checkpoint layout.
// vLLM replaces the loaded tensors with the kernel's (the linear kernels'
// process_weights_after_loading assigns layer.weight_scale and
// layer.weight anew; the MoE method's replace_parameter), so the padded
// sizes are what its "Model loading took" counts. At d18bb7b:
//   - linear layers: init_nvfp4_linear_kernel
//     (vllm/model_executor/kernels/linear/__init__.py:1007-1100) takes the
//     first supported of _POSSIBLE_NVFP4_KERNELS (:525-538): FlashInfer
//     CuteDSL on the 10.x family, FlashInfer CUTLASS from 10.0 where
//     CUTLASS FP4 is built (cutlass_scaled_mm_supports_fp4, csrc/
//     libtorch_stable/quantization/fp4/nvfp4_scaled_mm_entry.cu:71-87:
//     capability 10.0 to 12.x), so 11.0 and 12.x, then Marlin from 7.5
//     (marlin_utils_fp4.py:34-35: Turing, Ampere, Ada, Hopper). CuteDSL
//     and CUTLASS swizzle the block scales into whole 128 x 4 tiles and
//     pad the weight to 32 (kernels/linear/nvfp4/flashinfer.py, cutlass.py;
//     quantization/utils/nvfp4_utils.py:13-98). Marlin repacks the weight
//     and scales in the checkpoint's bytes, padded only where a size is
//     not a multiple of its tiles (marlin_padded_nk), which is not sized;
//   - fused experts: select_nvfp4_moe_backend
//     (fused_moe/oracle/nvfp4.py:166-298) tries FlashInfer TRTLLM and
//     CuteDSL (10.x family only, experts/trtllm_nvfp4_moe.py:205-212,
//     flashinfer_cutedsl_moe.py:75-81), FlashInfer CUTLASS (9.0, 10.x,
//     12.x, NVFP4 from 10.0: experts/flashinfer_cutlass_moe.py:135-188),
//     vLLM's CUTLASS (10.x, 11.x, 12.x, cutlass_moe.py:707-713), then
//     Marlin. TRTLLM keeps the scales in the weights' shape after
//     rounding the hidden size to 256 and the intermediate to 64 gated,
//     128 ungated (quantization/utils/flashinfer_fp4_moe.py:385-416,
//     flashinfer_utils.py:198-290); the CUTLASS kernels swizzle each
//     expert's scales as the linear ones (flashinfer_fp4_moe.py:417-435).
//
// ROCm runs NVFP4 by emulation in the checkpoint's layout.
func nvfp4Kernel(d budget.Device, p Profile) model.NVFP4Kernel {
	si := d.Silicon
	if si.Vendor != budget.NVIDIA {
		return model.NVFP4Kernel{}
	}
	k := model.NVFP4Kernel{LinearSwizzle: true, LinearWeightPad: p.Release.AtLeast(nvfp4WeightPadSince)}
	switch {
	case si.Major == 10:
		k.ExpertGatedMultiple, k.ExpertUngatedMultiple = 16, 16
		if p.Release.AtLeast(nvfp4TRTLLMGated64Since) {
			k.ExpertGatedMultiple, k.ExpertUngatedMultiple = 64, 128
		}
		if p.Release.AtLeast(nvfp4TRTLLMHiddenSince) {
			k.ExpertHiddenMultiple = 256
		}
		return k
	case si.Major == 11 || si.Major == 12:
		// Ungated experts' intermediate is padded to the scales' 128 rows
		// (flashinfer_fp4_moe.py:422-433: w13 rows, w2 columns and w2
		// scales); gated ones are refused (checkNVFP4Experts).
		k.ExpertSwizzle, k.ExpertUngatedMultiple = true, 128
		return k
	}
	return model.NVFP4Kernel{} // Marlin
}

// checkNVFP4Experts refuses W4A4 NVFP4 experts that vLLM's CUTLASS MoE
// kernels cannot lay out on a rank of st (its parallel sizes filled in,
// [Resolved.rankSharding]): gated experts whose gate and up
// rows are not whole 128-row tiles of the swizzled scales, for which
// prepare_nvfp4_moe_layer_for_fi_or_cutlass raises NotImplementedError
// ("Intermediate size padding for w1 and w3 ... is not currently
// supported", quantization/utils/flashinfer_fp4_moe.py:422-430 at d18bb7b,
// since #31692; an assertion before it, modelopt.py at 9f6dcb71a^).
func checkNVFP4Experts(a *model.Arch, st model.Sharding, r *Resolved) error {
	if !st.NVFP4.ExpertSwizzle {
		return nil
	}
	rows, gated, ok := model.NVFP4ExpertRows(a, st)
	if !ok || !gated || rows%128 == 0 {
		return nil
	}
	// Expert parallelism keeps each expert's intermediate whole, so it is
	// a way out only where the whole intermediate fills the tiles.
	way := "choose a tensor-parallel size leaving a multiple of 64 intermediate a rank, or --enable-expert-parallel"
	if a.MoEIntermediate%64 != 0 {
		way = fmt.Sprintf("the model's intermediate, %d, is not a multiple of 64, so no tensor-parallel size or expert parallelism avoids it; size it on a device whose vLLM runs these experts on Marlin or FlashInfer TRTLLM", a.MoEIntermediate)
	}
	return settingErr("tensor-parallel-size", r.TensorParallelSize, "vLLM's CUTLASS NVFP4 MoE kernels on this device pad the experts' block scales to 128-row tiles but not gated weights: %d gate and up rows a rank (intermediate %d) are not a multiple of 128, and vLLM raises NotImplementedError loading them (quantization/utils/flashinfer_fp4_moe.py prepare_nvfp4_moe_layer_for_fi_or_cutlass); %s", rows, rows/2, way)
}

// checkNVFP4ExpertBackend refuses W4A4 NVFP4 experts of st (filled in as
// for [checkNVFP4Experts]) on a 10.x device under a release before
// [nvfp4TRTLLMDefaultSince]: which MoE kernel vLLM
// runs them with there, and so how it pads them (FlashInfer TRTLLM's
// rounding or CUTLASS's swizzled scale tiles, which refuse some gated
// sizes), is not settled for those releases.
func checkNVFP4ExpertBackend(a *model.Arch, d budget.Device, st model.Sharding, r *Resolved) error {
	if d.Silicon.Vendor != budget.NVIDIA || d.Silicon.Major != 10 || r.Profile.Release.AtLeast(nvfp4TRTLLMDefaultSince) {
		return nil
	}
	if _, _, ok := model.NVFP4ExpertRows(a, st); !ok {
		return nil
	}
	return settingErr("vllm-version", r.Profile.Name, "W4A4 NVFP4 experts on compute capability 10.x under %s: vLLM chose FlashInfer TRTLLM for them first from PR #32414 (merged 2026-01-21, surely in 0.16.0) and its CUTLASS experts before it (unless VLLM_USE_FLASHINFER_MOE_FP4 was set), which lay the experts out otherwise; which one this release runs is not read, so membudget refuses it rather than size a layout vLLM may not use; --vllm-version 0.16.0 or later is sized", r.Profile.Describes)
}
