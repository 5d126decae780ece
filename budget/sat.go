package budget

import "math/bits"

// SatAdd returns a+b, or math.MaxUint64 when the sum would wrap.
func SatAdd(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return ^uint64(0)
	}
	return s
}

// SatMul returns a*b, or math.MaxUint64 when the product would wrap.
func SatMul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return ^uint64(0)
	}
	return lo
}

// SatSub returns a-b, or 0 when b > a.
func SatSub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

// CeilDiv returns ceil(a/b) for b > 0 without overflow; CeilDiv(a, 0) is 0 so
// that no input panics (callers validate b before relying on the result).
func CeilDiv(a, b uint64) uint64 {
	if b == 0 {
		return 0
	}
	if b&(b-1) == 0 {
		// Block sizes are powers of two: a shift, not a division, on the
		// evaluator's hot path.
		q := a >> bits.TrailingZeros64(b)
		if a&(b-1) != 0 {
			q++
		}
		return q
	}
	q := a / b
	if q*b != a {
		q++
	}
	return q
}

// RoundUp returns a rounded up to a multiple of m, or math.MaxUint64 when that
// multiple does not fit in a uint64; RoundUp(a, 0) is a.
func RoundUp(a, m uint64) uint64 {
	if m == 0 {
		return a
	}
	return SatMul(CeilDiv(a, m), m)
}
