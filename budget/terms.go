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
	// UtilReached is the largest util a public log shows a device of this
	// class starting at on a host lighter than DriverFixedBytes assumes
	// (memory.util_reached, optional: 0 when the class does not say). It
	// moves no verdict: a util above UtilCeiling still does not fit, since
	// the class's own host refuses it; reports name it beside the ceiling,
	// with the most the host held there ([DriverTerms.ReachedHeldBytes]).
	UtilReached float64
}

// WithinReached says util is at most the class's UtilReached: a device of
// the class started at it on a lighter host. False where the class gives
// no util_reached.
func (d DriverTerms) WithinReached(util float64) bool {
	return d.UtilReached > 0 && util <= d.UtilReached
}

// ReachedHeldBytes is the most the host (with the driver) held at the
// engine's startup snapshot on the device that started at UtilReached:
// deviceBytes - ceil(deviceBytes x UtilReached), since vLLM requests that
// much and refuses to start when its snapshot reads less free
// (request_memory, vllm/v1/worker/utils.py). 0 when the class gives no
// util_reached.
func (d DriverTerms) ReachedHeldBytes(deviceBytes uint64) uint64 {
	if d.UtilReached == 0 {
		return 0
	}
	b, err := UtilBudget(deviceBytes, d.UtilReached, Ceil)
	if err != nil {
		return 0
	}
	return SatSub(deviceBytes, b)
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

// UtilError is a --gpu-memory-utilization no device can run at; Bound says
// which bound it broke.
type UtilError struct {
	Util  float64
	Bound string
}

// Error returns the util and why it is refused.
func (e *UtilError) Error() string {
	return fmt.Sprintf("gpu_memory_utilization %v: %s", e.Util, e.Bound)
}

// Rounding says how a fraction of device memory becomes whole bytes.
type Rounding int

// The roundings engines use for their budget.
const (
	Truncate Rounding = iota // uint64(float64(device) * util): the seed's, and vLLM's before its ceil
	Ceil                     // ceil(float64(device) * util)
)

// UtilBudget is the budget float64(deviceBytes)*util, rounded as r says. A
// util that is NaN, infinite, <= 0 or above 1 is a *[UtilError]; a util
// above a class's util_ceiling is not an error here but a condition of fits
// (see [OverUtilCeiling]).
func UtilBudget(deviceBytes uint64, util float64, r Rounding) (uint64, error) {
	switch {
	case math.IsNaN(util):
		return 0, &UtilError{util, "is not a number"}
	case math.IsInf(util, 0):
		return 0, &UtilError{util, "is infinite"}
	case util <= 0:
		return 0, &UtilError{util, "must be above 0"}
	case util > 1:
		return 0, &UtilError{util, "must be at most 1"}
	}
	p := float64(deviceBytes) * util
	if r == Ceil {
		p = math.Ceil(p)
	}
	// util is in (0, 1], so the product is below 2^64 and the conversion is
	// defined, except that float64(MaxUint64) rounds up to 2^64: that one
	// case saturates.
	if p >= 1<<64 {
		return math.MaxUint64, nil
	}
	return uint64(p), nil
}

// CeilingBytes is the largest budget a class with these terms runs at on
// deviceBytes of memory: its util_ceiling of the device, rounded up so that
// a budget of either rounding at exactly the ceiling is within it.
func (d DriverTerms) CeilingBytes(deviceBytes uint64) uint64 {
	b, err := UtilBudget(deviceBytes, d.UtilCeiling, Ceil)
	if err != nil {
		return 0
	}
	return b
}
