package properties

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/model"
)

// genEdgeUint64 reaches the edges of uint64: 0, 1, MaxUint64 and its
// neighbours, powers of two and arbitrary values.
func genEdgeUint64() *rapid.Generator[uint64] {
	return rapid.OneOf(
		rapid.SampledFrom([]uint64{0, 1, 2, 999, 1000, 1001, math.MaxUint32, 1 << 32, math.MaxUint64 - 1, math.MaxUint64}),
		rapid.Custom(func(t *rapid.T) uint64 { return 1 << rapid.UintRange(0, 63).Draw(t, "pow") }),
		rapid.Uint64(),
	)
}

var maxU64 = new(big.Int).SetUint64(math.MaxUint64)

func saturate(x *big.Int) uint64 {
	if x.Cmp(maxU64) > 0 {
		return math.MaxUint64
	}
	return x.Uint64()
}

func propSaturatingArithmeticNeverWraps(t *rapid.T) {
	a, b := genEdgeUint64().Draw(t, "a"), genEdgeUint64().Draw(t, "b")
	ba, bb := new(big.Int).SetUint64(a), new(big.Int).SetUint64(b)
	if got, want := budget.SatAdd(a, b), saturate(new(big.Int).Add(ba, bb)); got != want {
		t.Fatalf("SatAdd(%d, %d) = %d, want %d", a, b, got, want)
	}
	if got, want := budget.SatMul(a, b), saturate(new(big.Int).Mul(ba, bb)); got != want {
		t.Fatalf("SatMul(%d, %d) = %d, want %d", a, b, got, want)
	}
	wantSub := uint64(0)
	if a >= b {
		wantSub = a - b
	}
	if got := budget.SatSub(a, b); got != wantSub {
		t.Fatalf("SatSub(%d, %d) = %d, want %d", a, b, got, wantSub)
	}
}

func propDriverBytesMatchesBigArithmetic(t *rapid.T) {
	d := budget.DriverTerms{
		DriverFixedBytes:     genEdgeUint64().Draw(t, "fixed"),
		DriverBudgetPerMille: rapid.Uint64Range(0, 1000).Draw(t, "per_mille"),
	}
	b, slack := genEdgeUint64().Draw(t, "budget"), genEdgeUint64().Draw(t, "slack")
	// fixed + (budget / 1000) * perMille + slack, dividing first, in big
	// integers, then saturated.
	x := new(big.Int).SetUint64(b / 1000)
	x.Mul(x, new(big.Int).SetUint64(d.DriverBudgetPerMille))
	x.Add(x, new(big.Int).SetUint64(d.DriverFixedBytes))
	x.Add(x, new(big.Int).SetUint64(slack))
	if got, want := d.Bytes(b, slack), saturate(x); got != want {
		t.Fatalf("Bytes(%d, %d) = %d, want %d", b, slack, got, want)
	}
}

func propDriverTermsRoundTrip(t *rapid.T) {
	want := budget.DriverTerms{
		DriverFixedBytes:     rapid.Uint64Range(0, math.MaxInt64).Draw(t, "fixed"), // TOML integers are int64
		DriverBudgetPerMille: rapid.Uint64Range(0, 1000).Draw(t, "per_mille"),
		Unified:              rapid.Bool().Draw(t, "unified"),
		UtilCeiling:          rapid.OneOf(rapid.Just(1.0), rapid.Float64Range(math.SmallestNonzeroFloat64, 1)).Draw(t, "ceiling"),
	}
	doc := fmt.Sprintf("[memory]\ndriver_fixed_bytes = %d\ndriver_budget_per_mille = %d\nunified = %v\nutil_ceiling = %s\n",
		want.DriverFixedBytes, want.DriverBudgetPerMille, want.Unified, strconv.FormatFloat(want.UtilCeiling, 'g', -1, 64))
	got, err := budget.ParseDriverTerms("gen", doc)
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s\n%s", diff, doc)
	}
}

// propParsesAreTotal: any bytes given to the HARDWARE.toml parse or the
// config.json parse give a value or an error; rapid fails the property on a
// panic.
func propParsesAreTotal(t *rapid.T) {
	data := rapid.OneOf(
		rapid.SliceOf(rapid.Byte()),
		rapid.Custom(func(t *rapid.T) []byte {
			return []byte(rapid.StringMatching(`(\[[a-z]+\]\n)?([a-z_]+ = (-?[0-9]+|"[a-z]*"|true|[0-9.e+-]+)\n){0,6}`).Draw(t, "toml"))
		}),
		rapid.Custom(func(t *rapid.T) []byte {
			return []byte(rapid.StringMatching(`\{("[a-z_]+": (-?[0-9.]+|"[a-z0-9_]*"|null|true|\[\]|\{\}),? ?){0,8}\}`).Draw(t, "json"))
		}),
	).Draw(t, "data")
	c, err := budget.ParseClass("gen", "gen/HARDWARE.toml", string(data))
	if err == nil && c.Name != "gen" {
		t.Fatalf("parsed class has name %q", c.Name)
	}
	a, err := model.ParseConfig("gen.json", data)
	if (err == nil) == (a == nil) {
		t.Fatalf("ParseConfig gave arch %v and error %v", a, err)
	}
}

func TestSaturatingArithmeticNeverWraps(t *testing.T) {
	rapid.Check(t, propSaturatingArithmeticNeverWraps)
}
func TestDriverBytesMatchesBigArithmetic(t *testing.T) {
	rapid.Check(t, propDriverBytesMatchesBigArithmetic)
}
func TestDriverTermsRoundTrip(t *testing.T) { rapid.Check(t, propDriverTermsRoundTrip) }
func TestParsesAreTotal(t *testing.T)       { rapid.Check(t, propParsesAreTotal) }
