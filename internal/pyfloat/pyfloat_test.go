package pyfloat

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestParse: each case's want is what Python 3's float() gives (run by
// hand: python3 -c 'print(float("1_0.5"))'), or an error where it raises
// ValueError; U+0665 is the one form Python reads and Parse refuses.
func TestParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0.5", 0.5, true},
		{" 0.5 ", 0.5, true},
		{"0.5\n", 0.5, true},
		{"1_0.5", 10.5, true},
		{".5", 0.5, true},
		{"5.", 5, true},
		{"+.5", 0.5, true},
		{"-0.25", -0.25, true},
		{"1e5", 1e5, true},
		{"1E-1", 0.1, true},
		{"1e+0_1", 10, true},
		{"inf", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true},
		{"iNF", math.Inf(1), true},
		{"1e400", math.Inf(1), true},
		{"0x1p-1", 0, false}, // Go's ParseFloat reads 0.5
		{"0x_1p0", 0, false},
		{"1__0", 0, false},
		{"_1", 0, false},
		{"1_", 0, false},
		{"1_.5", 0, false},
		{"1._5", 0, false},
		{"1e_5", 0, false},
		{"1_e5", 0, false},
		{".", 0, false},
		{"", 0, false},
		{"e5", 0, false},
		{"+-1", 0, false},
		{"--1", 0, false},
		{"1e", 0, false},
		{"1e+-1", 0, false},
		{"Infinit", 0, false},
		{"0.5.1", 0, false},
		{"\u0665.5", 0, false}, // Python: 5.5; refused here
		{"1 0", 0, false},
	} {
		got, err := Parse(c.in)
		if (err == nil) != c.ok || c.ok && got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
		if err != nil && !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q): error %v does not wrap ErrSyntax", c.in, err)
		}
	}
	if v, err := Parse("nan"); err != nil || !math.IsNaN(v) {
		t.Errorf("Parse(nan) = %v, %v", v, err)
	}
}

// TestParseAtTheBound: MaxBytes of text is read, one byte more refused.
func TestParseAtTheBound(t *testing.T) {
	t.Parallel()
	at := "0." + strings.Repeat("1", MaxBytes-2)
	if _, err := Parse(at); err != nil {
		t.Errorf("%d bytes: %v", len(at), err)
	}
	if _, err := Parse(at + "1"); err == nil {
		t.Errorf("%d bytes read", len(at)+1)
	}
}

// FuzzParse: Parse never accepts what strconv reads differently once the
// underscores are gone, and whatever it accepts is a decimal form (no 0x).
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0.5", "1_0.5", "0x1p-1", " inf ", "1e5", "_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		for i := 0; i+1 < len(s); i++ {
			if s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
				t.Fatalf("Parse(%q) = %v: a hexadecimal form accepted", s, v)
			}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		if back := strconv.FormatFloat(v, 'g', -1, 64); back == "" {
			t.Fatalf("Parse(%q) = %v", s, v)
		}
	})
}
