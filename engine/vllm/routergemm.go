package vllm

import (
	"membudget/budget"
)

// routerGEMMSince is the first release whose nemotron_h router is
// GateLinear with force_fp32_compute (PR #35121, merged 2026-02-27, two
// days after 0.16.0 was released on 2026-02-25): before, nemotron_h.py
// built it as a ReplicatedLinear with params_dtype float32 on every
// device (since PR #25863, which added its MoE). PR #34582 (merged
// 2026-02-16) dropped the float32 and PR #34808 (2026-02-19) restored it;
// whether 0.16.0's branch was cut inside those three days was not read, so
// 0.16 keeps the float32 router of the releases before and after it.
var routerGEMMSince = v0_17_0

// routerGEMM says the serve's vLLM runs its specialized router GEMMs on
// device d, so that a router built with force_fp32_compute keeps its
// weight in the model dtype ([model.Sharding.RouterGEMM]): CUDA compute
// capability exactly 9.0 or any 10.x (GateLinear.__init__,
// vllm/model_executor/layers/fused_moe/router/gate_linear.py:59-68 at
// d18bb7b, is_device_capability((9, 0)) and
// is_device_capability_family(100), which compares major*10+minor // 10,
// vllm/platforms/interface.py:481-493). Elsewhere (Ampere, Ada, Thor at
// 11.0, consumer Blackwell at 12.x, ROCm) the weight is float32.
func routerGEMM(d budget.Device, p Profile) bool {
	si := d.Silicon
	if si.Vendor != budget.NVIDIA || p.Release.Less(routerGEMMSince) {
		return false
	}
	return si.Major == 9 && si.Minor == 0 || si.Major == 10
}
