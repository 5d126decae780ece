package budget

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestBytes(t *testing.T) {
	const max = math.MaxUint64
	tests := []struct {
		name          string
		terms         DriverTerms
		budget, slack uint64
		want          uint64
		reason        string
	}{
		{"zero", DriverTerms{}, 0, 0, 0, ""},
		{"fixed only", DriverTerms{DriverFixedBytes: 7}, 1 << 40, 0, 7, "per mille 0 charges nothing"},
		{"divide first", DriverTerms{DriverBudgetPerMille: 1}, 1999, 0, 1, "1999/1000*1 = 1, not 1999*1/1000 rounded = 1.999"},
		{"divide first truncates small budgets to 0", DriverTerms{DriverBudgetPerMille: 1000}, 999, 0, 0, "999/1000 = 0"},
		{"per mille 1000", DriverTerms{DriverBudgetPerMille: 1000}, 123456789, 0, 123456000, "the whole budget, less what divide-first drops"},
		{"all terms", DriverTerms{DriverFixedBytes: 100, DriverBudgetPerMille: 2}, 80_000_000_000, 5, 100 + 160_000_000 + 5, ""},
		{"fixed saturates", DriverTerms{DriverFixedBytes: max}, 1000, 1, max, "MaxUint64 + anything stays MaxUint64"},
		{"slack saturates", DriverTerms{DriverFixedBytes: 1}, 0, max, max, ""},
		{"product at MaxUint64 budget", DriverTerms{DriverBudgetPerMille: 1000}, max, 0, max / 1000 * 1000, "18446744073709551615/1000*1000 does not wrap"},
		{"sum wraps without saturation", DriverTerms{DriverFixedBytes: max - 10, DriverBudgetPerMille: 1000}, max, 0, max, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.terms.Bytes(tt.budget, tt.slack); got != tt.want {
				t.Errorf("Bytes(%d, %d) = %d, want %d (%s)", tt.budget, tt.slack, got, tt.want, tt.reason)
			}
		})
	}
}

func TestSaturatingArithmetic(t *testing.T) {
	const max = math.MaxUint64
	tests := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"add", SatAdd(2, 3), 5},
		{"add at max", SatAdd(max, 0), max},
		{"add wraps", SatAdd(max, 1), max},
		{"add halves", SatAdd(max/2+1, max/2+1), max},
		{"mul", SatMul(1<<32, 1<<31), 1 << 63},
		{"mul wraps", SatMul(1<<32, 1<<32), max},
		{"mul max by one", SatMul(max, 1), max},
		{"mul zero", SatMul(max, 0), 0},
		{"sub", SatSub(5, 3), 2},
		{"sub floors", SatSub(3, 5), 0},
		{"ceildiv exact", CeilDiv(32, 16), 2},
		{"ceildiv up", CeilDiv(33, 16), 3},
		{"ceildiv max", CeilDiv(max, 2), 1 << 63},
		{"ceildiv by zero", CeilDiv(5, 0), 0},
		// Powers of two shift; the rest divide.
		{"ceildiv by one", CeilDiv(max, 1), max},
		{"ceildiv by 2^63", CeilDiv(max, 1<<63), 2},
		{"ceildiv odd exact", CeilDiv(21, 7), 3},
		{"ceildiv odd up", CeilDiv(22, 7), 4},
		{"ceildiv max by odd", CeilDiv(max, 3), max / 3},    // 2^64-1 = 3 x 6148914691236517205 exactly
		{"ceildiv max by 10", CeilDiv(max, 10), max/10 + 1}, // 18446744073709551615 / 10 leaves 5
		{"ceildiv zero by odd", CeilDiv(0, 2096), 0},        // Nemotron's hybrid block size
		{"ceildiv hybrid block", CeilDiv(131072, 2096), 63}, // 62 x 2096 = 129952 < 131072 <= 63 x 2096 = 132048
		{"roundup", RoundUp(3, 512), 512},
		{"roundup exact", RoundUp(1024, 512), 1024},
		{"roundup saturates", RoundUp(max, 512), max},
		{"roundup by zero", RoundUp(7, 0), 7},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

func TestUtilBudget(t *testing.T) {
	tests := []struct {
		name     string
		device   uint64
		util     float64
		rounding Rounding
		want     uint64
		reason   string
	}{
		{"h100 at 0.9", 85018542080, 0.9, Truncate, 76516687872, "85018542080*0.9 = 76516687872.0 in float64"},
		{"h100 at 0.9, ceil", 85018542080, 0.9, Ceil, 76516687872, "already whole: ceil changes nothing"},
		{"truncates", 10, 0.55, Truncate, 5, "5.5 truncates to 5"},
		{"ceils", 10, 0.55, Ceil, 6, "5.5 rounds up to 6"},
		{"h100 at 0.92, ceil", 85018542080, 0.92, Ceil, 78217058714, "85018542080*0.92 = 78217058713.6 rounds up"},
		{"h100 at 0.92, truncated", 85018542080, 0.92, Truncate, 78217058713, "and truncates down"},
		{"float rounding above 2^53", 1<<60 + 1, 0.5, Truncate, 1 << 59, "float64(2^60+1) rounds to 2^60 before the product"},
		{"max device", math.MaxUint64, 0.5, Truncate, 1 << 63, "float64(MaxUint64) is 2^64"},
		{"max device, whole", math.MaxUint64, 1, Ceil, math.MaxUint64, "2^64 saturates"},
		{"tiny util", 1000, 1e-9, Truncate, 0, ""},
		{"tiny util, ceil", 1000, 1e-9, Ceil, 1, "1e-6 rounds up to one byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := UtilBudget(tt.device, tt.util, tt.rounding)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("UtilBudget(%d, %v, %v) = %d, want %d (%s)", tt.device, tt.util, tt.rounding, got, tt.want, tt.reason)
			}
		})
	}
}

func TestUtilBudgetErrors(t *testing.T) {
	tests := []struct {
		util float64
		want string
	}{
		{math.NaN(), "gpu_memory_utilization NaN: is not a number"},
		{math.Inf(1), "gpu_memory_utilization +Inf: is infinite"},
		{math.Inf(-1), "gpu_memory_utilization -Inf: is infinite"},
		{0, "gpu_memory_utilization 0: must be above 0"},
		{-0.5, "gpu_memory_utilization -0.5: must be above 0"},
		{1.5, "gpu_memory_utilization 1.5: must be at most 1"},
	}
	for _, tt := range tests {
		got, err := UtilBudget(80<<30, tt.util, Truncate)
		if diff := cmp.Diff(tt.want, errString(err)); diff != "" {
			t.Errorf("UtilBudget(util=%v) error (-want +got):\n%s", tt.util, diff)
		}
		var ue *UtilError
		if !errors.As(err, &ue) || got != 0 {
			t.Errorf("UtilBudget(util=%v) = %d, %T; want 0 and a *UtilError", tt.util, got, err)
		}
	}
}

func TestCeilingBytes(t *testing.T) {
	// 85018542080 x 0.95 = 80767614976.0: whole, so both roundings of a
	// budget at exactly the ceiling equal it.
	d := DriverTerms{UtilCeiling: 0.95}
	if got := d.CeilingBytes(85018542080); got != 80767614976 {
		t.Errorf("CeilingBytes = %d, want 80767614976", got)
	}
	// 10 x 0.55 = 5.5: the ceiling rounds up to 6 so that a budget of 6
	// (ceil) at util 0.55 is within it, as is 5 (truncated).
	d = DriverTerms{UtilCeiling: 0.55}
	if got := d.CeilingBytes(10); got != 6 {
		t.Errorf("CeilingBytes = %d, want 6", got)
	}
}

// TestCeilDivMatchesBigInt: for any a and b > 0, CeilDiv is the exact
// ceiling of a/b, on both of its paths (shift and division).
func TestCeilDivMatchesBigInt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.Uint64().Draw(t, "a")
		b := rapid.OneOf(rapid.Uint64Range(1, math.MaxUint64), rapid.Map(rapid.IntRange(0, 63), func(k int) uint64 { return 1 << k })).Draw(t, "b")
		want := new(big.Int).Add(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b-1))
		want.Div(want, new(big.Int).SetUint64(b))
		if got := CeilDiv(a, b); !want.IsUint64() || got != want.Uint64() {
			t.Fatalf("CeilDiv(%d, %d) = %d, want %s", a, b, got, want)
		}
	})
}
