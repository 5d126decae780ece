package properties

import (
	"membudget/budget"
	"membudget/engine/vllm"
	"membudget/model"
)

// dsv4Divides reports whether vLLM loads DeepSeek-V4 a at tensor
// parallelism tp where membudget sizes it (engine/vllm/kvdsv4.go): tp
// divides its output groups and its experts, leaves FlashMLA at most 128
// heads a rank, and, with its MXFP4 experts divided by tp, leaves each
// rank whole 256s of their intermediate. Any other model passes.
func dsv4Divides(a *model.Arch, tp uint64, ep bool) bool {
	v := a.DeepSeekV4
	return v == nil || v.OGroups%tp == 0 && a.Experts%tp == 0 && a.Heads/tp <= 128 &&
		(ep || !v.ExpertFP4 || (a.MoEIntermediate/tp)%256 == 0)
}

// dsv4Serve sets what membudget sizes DeepSeek-V4 under: an fp8 KV cache
// (FlashMLA's fp8_ds_mla), its block of 256, one pipeline stage, and no
// sequence-parallel MoE (expert parallelism over more than one tensor and
// data-parallel rank); the refusals of the rest are tested in
// engine/vllm.
func dsv4Serve(a *model.Arch, s *vllm.Serve) {
	if a.DeepSeekV4 == nil {
		return
	}
	s.KVCacheDtype, s.PipelineParallelSize = "fp8", 1
	if s.BlockSize != 0 {
		s.BlockSize = 256
	}
	if s.EnableExpertParallel && s.TensorParallelSize > 1 {
		s.DataParallelSize = 1
	}
}

// dsv4Silicon is the device DeepSeek-V4 is drawn on: its FlashMLA path
// runs on CUDA 9.x and 10.x, Hopper where si is neither.
func dsv4Silicon(a *model.Arch, si budget.Silicon) budget.Silicon {
	if a.DeepSeekV4 != nil && (si.Vendor != budget.NVIDIA || si.Major != 9 && si.Major != 10) {
		return budget.Silicon{Vendor: budget.NVIDIA, Major: 9}
	}
	return si
}
