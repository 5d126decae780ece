package budget

import (
	"fmt"
	"math"
)

// DriverTerms is what the driver holds beyond the allocation ledger, for one
// device class: the [memory] table of its HARDWARE.toml.
type DriverTerms struct {
	// DriverFixedBytes is the CUDA context, loaded modules, the local-memory
	// reservation and the graphs' executable objects, in bytes.
	DriverFixedBytes uint64
	// DriverBudgetPerMille is the driver's per-allocation bookkeeping, per
	// mille of the util budget (at most 1000).
	DriverBudgetPerMille uint64
	// Unified says host memory is the device's memory (a unified-memory SoC):
	// host caches compete for the same pool, outside the util budget.
	Unified bool
	// UtilCeiling is the largest --gpu-memory-utilization a serve of this
	// class may run at, in (0, 1].
	UtilCeiling float64
}

// Bytes is the driver's share under a util budget of budgetBytes, with
// chunkSlack bytes of small-allocation chunks: fixed + budget/1000*perMille +
// slack, dividing first as the seed does, saturating at math.MaxUint64.
func (d DriverTerms) Bytes(budgetBytes, chunkSlack uint64) uint64 {
	return SatAdd(SatAdd(d.DriverFixedBytes, d.PerMilleBytes(budgetBytes)), chunkSlack)
}

// PerMilleBytes is the per-mille term of Bytes: budget/1000*perMille,
// dividing first, saturating.
func (d DriverTerms) PerMilleBytes(budgetBytes uint64) uint64 {
	return SatMul(budgetBytes/1000, d.DriverBudgetPerMille)
}

// UtilError is a --gpu-memory-utilization that the class cannot run at; Bound
// says which bound it broke.
type UtilError struct {
	Util  float64
	Bound string
}

func (e *UtilError) Error() string {
	return fmt.Sprintf("gpu_memory_utilization %v: %s", e.Util, e.Bound)
}

// UtilBudget is the util budget float64(deviceBytes)*util, truncated as the
// engine computes it (vLLM: requested_memory = total_memory *
// gpu_memory_utilization). A util that is NaN, infinite, <= 0, above 1 or
// above the class's UtilCeiling is a *UtilError.
func (d DriverTerms) UtilBudget(deviceBytes uint64, util float64) (uint64, error) {
	switch {
	case math.IsNaN(util):
		return 0, &UtilError{util, "is not a number"}
	case math.IsInf(util, 0):
		return 0, &UtilError{util, "is infinite"}
	case util <= 0:
		return 0, &UtilError{util, "must be above 0"}
	case util > 1:
		return 0, &UtilError{util, "must be at most 1"}
	case util > d.UtilCeiling:
		return 0, &UtilError{util, fmt.Sprintf("is above the class's util_ceiling %v", d.UtilCeiling)}
	}
	return truncatedBudget(deviceBytes, util), nil
}

// truncatedBudget is the seed's util_budget: the product in float64,
// truncated toward zero. util is in (0, 1], so the product is below 2^64 and
// the conversion is defined, except that float64(MaxUint64) rounds up to 2^64:
// that one case saturates.
func truncatedBudget(deviceBytes uint64, util float64) uint64 {
	p := float64(deviceBytes) * util
	if p >= 1<<64 {
		return math.MaxUint64
	}
	return uint64(p)
}
