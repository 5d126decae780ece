// Package pyfloat reads a number as Python's float() reads a string, the
// parser vLLM's and SGLang's argparse flags use for their float options
// (type=float): --gpu-memory-utilization, --mem-fraction-static. Go's
// strconv.ParseFloat reads other forms (hexadecimal 0x1p-1) and refuses
// some of Python's (surrounding whitespace), so a value the engine refuses
// at launch could be sized, or one it takes refused.
package pyfloat

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxBytes bounds the text Parse reads: a float's digits, its sign and
// exponent fit many times over.
const MaxBytes = 256

// ErrSyntax is wrapped by Parse's error for text float() refuses.
var ErrSyntax = errors.New("not a number Python's float() reads")

// Parse returns the value of s as Python's float(s) gives it, following
// the grammar of the float() documentation (Python 3.12, "Built-in
// Functions", float):
//
//	floatvalue  ::= [sign] (floatnumber | infinity | nan)
//	floatnumber ::= number [exponent]
//	number      ::= [digitpart] "." digitpart | digitpart ["."]
//	exponent    ::= ("e" | "E") [sign] digitpart
//	digitpart   ::= digit (["_"] digit)*
//	infinity    ::= "Infinity" | "inf"  (any case)
//	nan         ::= "nan"               (any case)
//
// with leading and trailing whitespace allowed (ASCII whitespace here).
// A digit is an ASCII digit: Python also takes other Unicode decimal
// digits (U+0665), which Parse refuses, an error rather than a guess. So
// 1_0.5 is 10.5, " 0.5 " is 0.5, "inf" and "NaN" are their values (for
// the caller's range check to refuse), and 0x1p-1, 1__0, _1, 1_, "." and
// "" are errors. Text over MaxBytes is refused unread.
func Parse(s string) (float64, error) {
	if len(s) > MaxBytes {
		return 0, fmt.Errorf("%w: %d bytes, more than %d", ErrSyntax, len(s), MaxBytes)
	}
	t := strings.Trim(s, " \t\n\r\f\v")
	body := strings.TrimLeft(t, "+-")
	if len(t)-len(body) > 1 {
		return 0, ErrSyntax
	}
	neg := strings.HasPrefix(t, "-")
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if neg {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	mant, exp, hasExp := strings.Cut(body, "e")
	if !hasExp {
		mant, exp, hasExp = strings.Cut(body, "E")
	}
	intPart, frac, hasDot := strings.Cut(mant, ".")
	switch {
	case !hasDot && !digitPart(intPart):
		return 0, ErrSyntax
	case hasDot && !(intPart == "" || digitPart(intPart)):
		return 0, ErrSyntax
	case hasDot && !(frac == "" && intPart != "" || digitPart(frac)):
		return 0, ErrSyntax
	}
	if hasExp {
		if !digitPart(strings.TrimLeft(exp, "+-")) || len(exp)-len(strings.TrimLeft(exp, "+-")) > 1 {
			return 0, ErrSyntax
		}
	}
	// The text is now decimal digits, one dot, one exponent and
	// underscores between digits: strconv reads it once they are gone.
	v, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
	var ne *strconv.NumError
	if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
		return v, nil // Python's float() gives inf (or 0) too
	}
	if err != nil {
		return 0, ErrSyntax
	}
	return v, nil
}

// digitPart reports whether s is digit (["_"] digit)*, in ASCII digits.
func digitPart(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '_' && i > 0 && i < len(s)-1 && s[i-1] != '_' && s[i+1] >= '0' && s[i+1] <= '9':
		default:
			return false
		}
	}
	return true
}
