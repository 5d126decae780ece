package budget

import (
	"errors"
	"fmt"
)

// ErrEmptyRange is wrapped by LargestFitting's error when lo > hi.
var ErrEmptyRange = errors.New("empty range")

// LargestFitting returns the largest x in [lo, hi] with fits(x), by bisection.
// ok is false when lo does not fit; an empty range (lo > hi) is an error
// wrapping ErrEmptyRange; an error from fits is returned as it is, never
// swallowed. fits must be monotone: true up to some x, false after. It
// evaluates fits at most ceil(log2(hi-lo+1)) + 2 times.
func LargestFitting(lo, hi uint64, fits func(uint64) (bool, error)) (x uint64, ok bool, err error) {
	if lo > hi {
		return 0, false, fmt.Errorf("%w: %d to %d", ErrEmptyRange, lo, hi)
	}
	if f, err := fits(lo); err != nil || !f {
		return 0, false, err
	}
	switch f, err := fits(hi); {
	case err != nil:
		return 0, false, err
	case f:
		return hi, true, nil
	}
	// Invariant: fits(good) and !fits(bad), good < bad. The midpoint is
	// computed from the gap so that it cannot overflow near MaxUint64.
	good, bad := lo, hi
	for bad-good > 1 {
		mid := good + (bad-good)/2
		f, err := fits(mid)
		if err != nil {
			return 0, false, err
		}
		if f {
			good = mid
		} else {
			bad = mid
		}
	}
	return good, true, nil
}
