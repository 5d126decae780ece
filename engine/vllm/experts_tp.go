package vllm

import (
	"slices"

	"membudget/model"
)

// checkExpertsTP refuses a tensor-parallel size above the routed experts
// of a model whose vLLM MoE block raises for it while building its layers
// (model.Arch.TPWithinExperts cites where). The block compares the
// tensor-parallel world size with the config's expert count, not the
// expert-parallel size, so --enable-expert-parallel, which regroups the
// same ranks, does not lift it; a model with no MoE layer builds no such
// block and is not refused.
func checkExpertsTP(a *model.Arch, tp uint64) error {
	if a.TPWithinExperts == "" || tp <= a.Experts || !slices.ContainsFunc(a.Layers, func(l model.Layer) bool { return l.MoE }) {
		return nil
	}
	return settingErr("tensor-parallel-size", tp, "vLLM raises \"Tensor parallel size %d is greater than the number of experts %d.\" building the MoE layers of %s (%s)",
		tp, a.Experts, a.Source, a.TPWithinExperts)
}
