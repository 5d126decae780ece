// Package jsonw appends JSON values to a byte slice, byte for byte as
// encoding/json's Marshal and Encoder (HTML escaping on) write them, for
// the answers a batch writes thousands of a second: a type on that path
// implements [Appender] beside its struct tags, and its test holds the two
// equal on generated values (see [membudget/internal/jsonw/jsonwtest]).
//
// Only what those types use is here: strings, unsigned and signed
// integers, float64, booleans, string slices and maps, and any other value
// through encoding/json itself ([Any]).
package jsonw

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Appender is a value that appends its own JSON encoding to b, equal to
// what encoding/json's Marshal returns for it. An error means Marshal
// fails on the value too (a float that is not finite): a caller then
// encodes it with encoding/json, for its error.
type Appender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// Any appends v: through its [Appender] when it has one and it succeeds,
// else as encoding/json marshals it (with Marshal's error).
func Any(b []byte, v any) ([]byte, error) {
	if a, ok := v.(Appender); ok {
		if out, err := a.AppendJSON(b); err == nil {
			return out, nil
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, out...), nil
}

// Key appends the object key k, its colon, and the comma before it unless
// first.
func Key(b []byte, k string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = String(b, k)
	return append(b, ':')
}

// Uint appends n.
func Uint(b []byte, n uint64) []byte { return strconv.AppendUint(b, n, 10) }

// Int appends n.
func Int(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// Bool appends v.
func Bool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// Float appends f as encoding/json writes a float64: the shortest decimal
// that reads back as f, in exponent form below 1e-6 and from 1e21 (the
// ECMAScript rule encoding/json documents), with the exponent's leading
// zero dropped. A NaN or an infinity is an error, as it is to Marshal.
func Float(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 is written 1e-7.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hex = "0123456789abcdef"

// plain is the ASCII bytes a string holds as they are: printable, and
// neither a quote, a backslash nor one of HTML's '<', '>' and '&'.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// String appends s quoted: '"' and '\\' escaped, the control characters
// as \b \f \n \r \t or \u00XX, '<' '>' '&' as \u003c \u003e \u0026 (the
// Encoder's default HTML escaping), U+2028 and U+2029 escaped, and each
// byte of invalid UTF-8 as \ufffd.
func String(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Strings appends ss as an array, null when ss is nil.
func Strings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = String(b, s)
	}
	return append(b, ']')
}

// StringMap appends m as an object with its keys in order, as
// encoding/json sorts a map's string keys; null when m is nil.
func StringMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, 16)
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		b = Key(b, k, i == 0)
		b = String(b, m[k])
	}
	return append(b, '}')
}
