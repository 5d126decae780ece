// Package jsonwtest checks a [jsonw.Appender] against encoding/json on
// values drawn by rapid: every exported field filled by reflection, so a
// field added to a type without its append is found.
package jsonwtest

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"

	"pgregory.net/rapid"

	"membudget/internal/jsonw"
)

// Text draws strings that reach every branch of the JSON string escape:
// quotes, backslashes, control characters, HTML's three, U+2028/2029,
// invalid UTF-8 and plain text.
func Text() *rapid.Generator[string] {
	pieces := []string{"", "a", "vllm serve", `"`, `\`, "\n", "\t", "\r", "\b", "\f", "\x00", "\x1f", "\x7f",
		"<", ">", "&", "\u2028", "\u2029", "é", "日本", "\xff", "\xe2\x80", "🙂", "--max-model-len 32768"}
	return rapid.Custom(func(t *rapid.T) string {
		n := rapid.IntRange(0, 6).Draw(t, "pieces")
		var b []byte
		for range n {
			b = append(b, rapid.SampledFrom(pieces).Draw(t, "piece")...)
		}
		return string(b)
	})
}

// Float draws finite floats at every exponent encoding/json changes form
// at, zero of both signs included.
func Float() *rapid.Generator[float64] {
	return rapid.OneOf(
		rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 0.9, 0.85, 1e-6, 1e-7, 9.999999e-7, 1e21, 9.99e20, 1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, -2.5}),
		rapid.Float64().Filter(func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }),
	)
}

// Fill sets every settable exported field of v, recursively, from t's
// draws: pointers, slices and maps nil, empty or filled, so omitempty and
// null are both reached. An interface field is left as it is (the caller
// fills it with a value of the type it holds).
func Fill(t *rapid.T, v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(Text().Draw(t, path))
	case reflect.Bool:
		v.SetBool(rapid.Bool().Draw(t, path))
	case reflect.Uint, reflect.Uint64, reflect.Uint32, reflect.Uint16, reflect.Uint8:
		v.SetUint(rapid.OneOf(rapid.Uint64Range(0, 3), rapid.Uint64()).Draw(t, path) & maxUint(v.Type().Bits()))
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(rapid.Int64Range(-1<<(v.Type().Bits()-1), 1<<(v.Type().Bits()-1)-1).Draw(t, path))
	case reflect.Float64:
		v.SetFloat(Float().Draw(t, path))
	case reflect.Pointer:
		if rapid.Bool().Draw(t, path+" set") {
			p := reflect.New(v.Type().Elem())
			Fill(t, p.Elem(), path)
			v.Set(p)
		}
	case reflect.Slice:
		switch rapid.IntRange(0, 2).Draw(t, path+" form") {
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		case 2:
			n := rapid.IntRange(1, 3).Draw(t, path+" len")
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := range n {
				Fill(t, s.Index(i), path+"[]")
			}
			v.Set(s)
		}
	case reflect.Map:
		switch rapid.IntRange(0, 2).Draw(t, path+" form") {
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
		case 2:
			m := reflect.MakeMap(v.Type())
			for range rapid.IntRange(1, 5).Draw(t, path+" len") {
				k := reflect.New(v.Type().Key()).Elem()
				Fill(t, k, path+" key")
				e := reflect.New(v.Type().Elem()).Elem()
				Fill(t, e, path+" value")
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				Fill(t, f, path+"."+v.Type().Field(i).Name)
			}
		}
	case reflect.Interface:
	default:
		t.Fatalf("%s: jsonwtest cannot fill a %s", path, v.Type())
	}
}

func maxUint(bits int) uint64 {
	if bits >= 64 {
		return math.MaxUint64
	}
	return 1<<bits - 1
}

// Same fails t unless v's [jsonw.Appender] writes what encoding/json's
// Encoder writes for v (less its newline).
func Same(t *rapid.T, v jsonw.Appender) {
	var want bytes.Buffer
	werr := json.NewEncoder(&want).Encode(v)
	got, gerr := v.AppendJSON(nil)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("encoding/json error %v, AppendJSON error %v", werr, gerr)
	}
	if werr != nil {
		return
	}
	if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(w, got) {
		t.Fatalf("AppendJSON differs from encoding/json:\nwant %s\ngot  %s", w, got)
	}
}
