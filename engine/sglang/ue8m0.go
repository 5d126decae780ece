package sglang

import (
	"fmt"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// DeepGEMM's UE8M0 scales. SGLang turns DeepGEMM on when the device is
// SM90 or later, deep_gemm imports and SGLANG_ENABLE_JIT_DEEPGEMM holds
// (EnvBool(True); deep_gemm_wrapper/configurer.py:8-19, environ.py:273 at
// v0.5.6.post2 and .post3, :311 at v0.5.7, :331 at v0.5.8 and .post1, :352
// at v0.5.9 and .post1). deep_gemm is importable in a default install: the
// sgl-kernel wheel each release pins (python/pyproject.toml: 0.3.19 at
// v0.5.6.post2, 0.3.20 at v0.5.7, 0.3.21 at v0.5.8 and v0.5.9) installs
// DeepGEMM's Python API as the deep_gemm package (sgl-kernel/CMakeLists.txt:
// 564-578 at v0.5.6.post2). On Blackwell (is_blackwell, [10, 12], at
// v0.5.6.post2; is_blackwell_supported from v0.5.7, which takes SM11x from
// v0.5.9) DEEPGEMM_SCALE_UE8M0 follows (configurer.py:24-25), the auto
// fp8 GEMM backend is DeepGEMM's (_dispatch_auto_backend, fp8_utils.py:
// 244-262), and Fp8LinearMethod.process_weights_after_loading re-quantizes
// every block-fp8 linear (should_deepgemm_weight_requant_ue8m0, fp8.py:367
// at v0.5.6.post2 and .post3, :375 at v0.5.7, :395 at v0.5.8 and .post1,
// :434 at v0.5.9 and .post1; model_loader/utils.py:125-131): requant_
// weight_ue8m0 asserts weight_block_size [128, 128] and swaps the float32
// scales [ceil(N/128), ceil(K/128)] for packed UE8M0 int32 of one row per
// output row, TMA-aligned: align(N, 4) x align(ceil(K/128), 4) bytes
// (fp8_utils.py:668-690, 725-737 at v0.5.6.post2; :663, :720 at v0.5.8;
// :857, :914 at v0.5.9), some 32 times as large. membudget does not size
// that layout: it refuses those serves by name unless
// SGLANG_ENABLE_JIT_DEEPGEMM is false, when the scales stay as loaded
// (FlashInfer's block-fp8 GEMM is picked next and keeps them,
// fp8_utils.py:248-249) and the serve is sized as before. v0.4.9.post2
// reads another variable (SGL_ENABLE_JIT_DEEPGEMM) and decides UE8M0 by
// the deep_gemm its sgl-kernel ships (configurer.py:21-31 there), which
// membudget has not read: its block-fp8 serves on Blackwell are refused.

// JITDeepGEMMEnv is the environment variable that turns DeepGEMM off
// (environ.py:273 at v0.5.6.post2).
const JITDeepGEMMEnv = "SGLANG_ENABLE_JIT_DEEPGEMM"

// ue8m0Block is the only weight_block_size requant_weight_ue8m0 accepts
// (fp8_utils.py:674 at v0.5.6.post2).
const ue8m0Block = 128

// checkUE8M0 refuses, naming --model, a block-fp8 checkpoint on Blackwell
// whose linears SGLang re-quantizes to DeepGEMM's UE8M0 scales (see
// above), unless JITDeepGEMM is [engine.Off].
func (r *Resolved) checkUE8M0(a *model.Arch, c budget.Class) error {
	if !ue8m0Requant(r.Quant, r.Profile, c.Device.Silicon) {
		return nil
	}
	if r.Profile.Name == profile049post2.Name {
		return settingErr("model", a.Source, "%s on %s: whether DeepGEMM re-quantizes block-fp8 weights to UE8M0 scales at load depends on the deep_gemm its sgl-kernel ships (deep_gemm_wrapper/configurer.py), which membudget has not read; membudget refuses it rather than size scales SGLang may lay out otherwise", r.Profile.Describes, c.Device.Name)
	}
	if r.JITDeepGEMM == engine.Off {
		return nil
	}
	block := fmt.Sprintf("[%d, %d]", r.Quant.BlockN, r.Quant.BlockK)
	if r.Quant.BlockN != ue8m0Block || r.Quant.BlockK != ue8m0Block {
		return settingErr("model", a.Source, "%s does not start a block-fp8 checkpoint of weight_block_size %s on %s with DeepGEMM on: requant_weight_ue8m0 asserts [128, 128] (layers/quantization/fp8_utils.py); %s=0 in the environment turns DeepGEMM off", r.Profile.Describes, block, c.Device.Name, JITDeepGEMMEnv)
	}
	return settingErr("model", a.Source, "%s re-quantizes this block-fp8 checkpoint's linears for DeepGEMM on %s (on by default: the deep_gemm package comes with sgl-kernel): each linear's float32 scales [ceil(N/128), ceil(K/128)] become packed UE8M0 int32 of align(N, 4) x align(ceil(K/128), 4) bytes, some 32 times as large (layers/quantization/fp8.py process_weights_after_loading, fp8_utils.py requant_weight_ue8m0, transform_scale_ue8m0), which membudget does not size; %s=0 in the environment turns DeepGEMM off and keeps the scales as loaded, which membudget sizes", r.Profile.Describes, c.Device.Name, JITDeepGEMMEnv)
}

// ue8m0Requant says profile p's SGLang with DeepGEMM on re-quantizes the
// scales of block-fp8 weights q on silicon si (see above): a serve of them
// is then refused unless DeepGEMM is off, and under v0.4.9.post2 always.
func ue8m0Requant(q model.Quant, p Profile, si budget.Silicon) bool {
	return q.Method == "fp8" && q.BlockN != 0 && q.BlockK != 0 && blackwellSupported(p, si)
}

// jitDeepGEMM reads SGLANG_ENABLE_JIT_DEEPGEMM as SGLang's EnvBool does
// (environ.py:98-105, 23-38 at v0.5.6.post2): true, 1, yes, y and their
// false counterparts, any case; anything else warns and keeps the default,
// true. warn is set for such a value.
func (f *flagServe) jitDeepGEMM(p Profile) (s engine.Switch, warn string) {
	// The words whatever p's EnvBoolWords: only releases with EnvBool read
	// this variable (v0.4.9.post2's is refused in checkUE8M0).
	s, e, known := f.envSwitch(JITDeepGEMMEnv, true)
	if known {
		return s, ""
	}
	return engine.Default, fmt.Sprintf("%s=%q (%s): %s warns and keeps its default, true", JITDeepGEMMEnv, e.Value, e.From, p.Describes)
}
