package jsonw_test

import (
	"encoding/json"
	"math"
	"testing"

	"pgregory.net/rapid"

	"membudget/internal/jsonw"
	"membudget/internal/jsonw/jsonwtest"
)

func marshal(t interface{ Fatal(...any) }, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStringMatchesEncodingJSON: every string, drawn to reach each escape,
// is quoted as encoding/json quotes it.
func TestStringMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := jsonwtest.Text().Draw(t, "s")
		if got, want := string(jsonw.String(nil, s)), marshal(t, s); got != want {
			t.Fatalf("String(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

// FuzzString holds String to encoding/json on any bytes.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a&b>", "\u2028\u2029", "\xff\xfe", "\x00\x1f\x7f", `"\`, "\b\f\n\r\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(jsonw.String(nil, s)), marshal(t, s); got != want {
			t.Fatalf("String(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

// TestFloatMatchesEncodingJSON: every finite float is written as
// encoding/json writes a float64, and a NaN or an infinity is an error as
// it is to Marshal.
func TestFloatMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		f := jsonwtest.Float().Draw(t, "f")
		got, err := jsonw.Float(nil, f)
		if err != nil {
			t.Fatalf("Float(%v): %v", f, err)
		}
		if want := marshal(t, f); string(got) != want {
			t.Fatalf("Float(%v) = %s, encoding/json %s", f, got, want)
		}
	})
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := jsonw.Float(nil, f); err == nil {
			t.Errorf("Float(%v): no error", f)
		}
	}
}

// TestByHand pins the forms encoding/json is documented to write, worked
// out from its rules rather than from either encoder's output.
func TestByHand(t *testing.T) {
	t.Parallel()
	f := func(x float64) string { b, _ := jsonw.Float(nil, x); return string(b) }
	cases := []struct{ got, want string }{
		{f(0.9), "0.9"},
		{f(1e-7), "1e-7"},  // below 1e-6: exponent form, leading zero of -07 dropped
		{f(1e21), "1e+21"}, // from 1e21: exponent form
		{f(1e20), "100000000000000000000"},
		{f(math.Copysign(0, -1)), "-0"},
		{string(jsonw.String(nil, "<&>")), `"\u003c\u0026\u003e"`},
		{string(jsonw.String(nil, "a\u2028b")), `"a\u2028b"`},
		{string(jsonw.String(nil, "\xff")), `"\ufffd"`},
		{string(jsonw.String(nil, "\x01\n")), `"\u0001\n"`},
		{string(jsonw.Strings(nil, nil)), "null"},
		{string(jsonw.Strings(nil, []string{})), "[]"},
		{string(jsonw.StringMap(nil, map[string]string{"b": "2", "a": "1"})), `{"a":"1","b":"2"}`},
		{string(jsonw.StringMap(nil, nil)), "null"},
		{string(jsonw.Uint(nil, math.MaxUint64)), "18446744073709551615"},
		{string(jsonw.Int(nil, math.MinInt64)), "-9223372036854775808"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %s, want %s", i, c.got, c.want)
		}
	}
}

// TestMapAndSlicesMatchEncodingJSON: string maps and slices, nil, empty
// and filled.
func TestMapAndSlicesMatchEncodingJSON(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		var v struct {
			M map[string]string
			S []string
		}
		jsonwtest.Fill(t, reflectValue(&v), "v")
		if got, want := string(jsonw.StringMap(nil, v.M)), marshal(t, v.M); got != want {
			t.Fatalf("StringMap = %s, encoding/json %s", got, want)
		}
		if got, want := string(jsonw.Strings(nil, v.S)), marshal(t, v.S); got != want {
			t.Fatalf("Strings = %s, encoding/json %s", got, want)
		}
	})
}
