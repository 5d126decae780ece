// Package torchalloc models what PyTorch's CUDA caching allocator reserves
// for a set of allocations: its rounding and segment rules, the constants of
// c10/cuda/CUDACachingAllocator.cpp (pytorch/pytorch, unchanged from 1.x to
// 2.x). Engines built on PyTorch (vLLM, SGLang) share it.
package torchalloc

import "membudget/budget"

// The PyTorch CUDA caching allocator's rounding rules, the constants of
// c10/cuda/CUDACachingAllocator.cpp (pytorch/pytorch, unchanged from 1.x to
// 2.x): every request is rounded up to a multiple of kMinBlockSize; requests
// of at most kSmallSize come from kSmallBuffer segments (the small pool);
// requests below kMinLargeAlloc come from kLargeBuffer segments; larger ones
// get a segment of their own, rounded up to kRoundLarge.
const (
	MinBlock     = 512      // kMinBlockSize
	SmallSize    = 1 << 20  // kSmallSize: the largest small request
	SmallSegment = 2 << 20  // kSmallBuffer
	LargeSegment = 20 << 20 // kLargeBuffer
	MinLarge     = 10 << 20 // kMinLargeAlloc
	RoundLarge   = 2 << 20  // kRoundLarge
)

// Pools is what a set of allocations occupies in the caching allocator, in
// the three kinds of segment its rules give: the rounded request bytes in
// the small pool and in the 20 MiB-segment pool, the rounded segments of the
// large requests, and the requested bytes themselves. The model packs each
// pool's requests into as few segments as their sum needs: a lower bound on
// what the allocator reserves, with no fragmentation between segments.
type Pools struct {
	Small     uint64 // sum of rounded requests <= SmallSize
	Mid       uint64 // sum of rounded requests < MinLarge
	Large     uint64 // sum of segments of the larger requests
	Requested uint64 // sum of the requests
}

// Add returns p with n requests of size bytes each added; a request of 0
// bytes allocates nothing, as in PyTorch.
func (p Pools) Add(size, n uint64) Pools {
	if size == 0 || n == 0 {
		return p
	}
	p.Requested = budget.SatAdd(p.Requested, budget.SatMul(size, n))
	switch rounded := budget.RoundUp(size, MinBlock); {
	case size <= SmallSize:
		p.Small = budget.SatAdd(p.Small, budget.SatMul(rounded, n))
	case size < MinLarge:
		p.Mid = budget.SatAdd(p.Mid, budget.SatMul(rounded, n))
	default:
		p.Large = budget.SatAdd(p.Large, budget.SatMul(budget.RoundUp(size, RoundLarge), n))
	}
	return p
}

// Reserved is the bytes of segments the pools occupy.
func (p Pools) Reserved() uint64 {
	return budget.SatAdd(budget.SatAdd(budget.RoundUp(p.Small, SmallSegment), budget.RoundUp(p.Mid, LargeSegment)), p.Large)
}

// Slack is what the segments hold beyond the requests: the chunk slack that
// the driver's share carries.
func (p Pools) Slack() uint64 {
	return budget.SatSub(p.Reserved(), p.Requested)
}
