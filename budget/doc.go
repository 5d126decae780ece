// Package budget is membudget's engine-neutral core: a device class (the
// tables of kernels/<class>/HARDWARE.toml: the device's silicon and memory,
// the driver's terms beside the budget), the budget of a fraction of the
// device's memory, the two conditions of fits, the compiled O(stages)
// footprint evaluator ([Plan]) and the verified inverse queries that run over
// it ([MaxSequences], [MaxLength], [Verified]), in saturating uint64
// arithmetic.
//
// It knows no engine and no model: an engine package (membudget/engine/vllm)
// turns an architecture, serve settings and a class into the plain
// coefficients of a Plan — fixed terms, a paged pool of page groups (which
// also holds per-sequence state), which terms the engine charges beside the
// budget, one stage per pipeline stage — and the budget it sizes against.
//
// What fits means, for s sequences of t tokens on one stage:
//
//	ledger(s, t) <= budget
//	budget + driver + beside + (unified ? host : 0) <= device memory
//	budget <= the class's util_ceiling of device memory
//
// The first is the engine's own rule; the second is the one engines leave
// unchecked (the driver's share, measured before the engine's snapshot, and
// whatever the engine allocates after sizing its cache, must fit in what the
// budget leaves); the third says a budget above the largest the class is
// known to run at does not fit, though the engine would try it and the
// second may hold (above the evidence, within the arithmetic).
package budget
