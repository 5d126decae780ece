package budget

// The PyTorch CUDA caching allocator's rounding rules, the constants of
// c10/cuda/CUDACachingAllocator.cpp (pytorch/pytorch, unchanged from 1.x to
// 2.x): every request is rounded up to a multiple of kMinBlockSize; requests
// of at most kSmallSize come from kSmallBuffer segments (the small pool);
// requests below kMinLargeAlloc come from kLargeBuffer segments; larger ones
// get a segment of their own, rounded up to kRoundLarge.
const (
	AllocMinBlock   = 512      // kMinBlockSize
	AllocSmallSize  = 1 << 20  // kSmallSize: the largest small request
	AllocSmallSeg   = 2 << 20  // kSmallBuffer
	AllocLargeSeg   = 20 << 20 // kLargeBuffer
	AllocMinLarge   = 10 << 20 // kMinLargeAlloc
	AllocRoundLarge = 2 << 20  // kRoundLarge
)

// Pools is what a set of allocations occupies in the caching allocator, in
// the three kinds of segment its rules give: the rounded request bytes in
// the small pool and in the 20 MiB-segment pool, the rounded segments of the
// large requests, and the requested bytes themselves. The model packs each
// pool's requests into as few segments as their sum needs: a lower bound on
// what the allocator reserves, with no fragmentation between segments.
type Pools struct {
	Small     uint64 // sum of rounded requests <= AllocSmallSize
	Mid       uint64 // sum of rounded requests < AllocMinLarge
	Large     uint64 // sum of segments of the larger requests
	Requested uint64 // sum of the requests
}

// Add returns p with n requests of size bytes each added; a request of 0
// bytes allocates nothing, as in PyTorch.
func (p Pools) Add(size, n uint64) Pools {
	if size == 0 || n == 0 {
		return p
	}
	p.Requested = SatAdd(p.Requested, SatMul(size, n))
	switch rounded := RoundUp(size, AllocMinBlock); {
	case size <= AllocSmallSize:
		p.Small = SatAdd(p.Small, SatMul(rounded, n))
	case size < AllocMinLarge:
		p.Mid = SatAdd(p.Mid, SatMul(rounded, n))
	default:
		p.Large = SatAdd(p.Large, SatMul(RoundUp(size, AllocRoundLarge), n))
	}
	return p
}

// Reserved is the bytes of segments the pools occupy.
func (p Pools) Reserved() uint64 {
	return SatAdd(SatAdd(RoundUp(p.Small, AllocSmallSeg), RoundUp(p.Mid, AllocLargeSeg)), p.Large)
}

// Slack is what the segments hold beyond the requests: the chunk slack that
// the driver's share carries.
func (p Pools) Slack() uint64 {
	return SatSub(p.Reserved(), p.Requested)
}
