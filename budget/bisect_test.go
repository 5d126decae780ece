package budget

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stepAt returns a monotone predicate true for x <= last, counting calls.
func stepAt(last uint64, calls *int) func(uint64) (bool, error) {
	return func(x uint64) (bool, error) {
		*calls++
		return x <= last, nil
	}
}

func TestLargestFitting(t *testing.T) {
	const max = math.MaxUint64
	type result struct {
		X  uint64
		OK bool
	}
	tests := []struct {
		name     string
		lo, hi   uint64
		last     uint64 // fits(x) == x <= last
		want     result
		maxCalls int
	}{
		{"lo == hi fits", 5, 5, 5, result{5, true}, 2},
		{"lo == hi does not fit", 5, 5, 4, result{0, false}, 1},
		{"nothing fits", 1, 100, 0, result{0, false}, 1},
		{"everything fits", 1, 100, 1000, result{100, true}, 2},
		{"step at lo", 1, 100, 1, result{1, true}, 2 + 7},
		{"step just below hi", 1, 100, 99, result{99, true}, 2 + 7},
		{"step in the middle", 0, 1 << 20, 12345, result{12345, true}, 2 + 20},
		{"hi == MaxUint64, step near top", 0, max, max - 1, result{max - 1, true}, 2 + 64},
		{"hi == MaxUint64, everything fits", 0, max, max, result{max, true}, 2},
		{"lo == MaxUint64", max, max, max, result{max, true}, 2},
		{"full range, step at 0", 0, max, 0, result{0, true}, 2 + 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			x, ok, err := LargestFitting(tt.lo, tt.hi, stepAt(tt.last, &calls))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, result{x, ok}); diff != "" {
				t.Errorf("LargestFitting(%d, %d) (-want +got):\n%s", tt.lo, tt.hi, diff)
			}
			if calls > tt.maxCalls {
				t.Errorf("%d evaluations, want at most %d", calls, tt.maxCalls)
			}
		})
	}
}

func TestLargestFittingEmptyRange(t *testing.T) {
	calls := 0
	_, ok, err := LargestFitting(2, 1, stepAt(10, &calls))
	if !errors.Is(err, ErrEmptyRange) || ok || calls != 0 {
		t.Errorf("LargestFitting(2, 1) = ok %v, err %v after %d calls; want ErrEmptyRange before any call", ok, err, calls)
	}
	if diff := cmp.Diff("empty range: 2 to 1", errString(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLargestFittingPassesEvaluatorErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, failAt := range []uint64{0, 100, 50, 25, 37} {
		fits := func(x uint64) (bool, error) {
			if x == failAt {
				return false, boom
			}
			return x <= 40, nil
		}
		x, ok, err := LargestFitting(0, 100, fits)
		if !errors.Is(err, boom) || ok || x != 0 {
			t.Errorf("fail at %d: got (%d, %v, %v), want (0, false, boom)", failAt, x, ok, err)
		}
	}
}
