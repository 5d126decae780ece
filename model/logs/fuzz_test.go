package logs

import (
	"bytes"
	"math"
	"math/big"
	"testing"
)

// FuzzParse feeds any bytes to Parse and ParseQuote: neither may fail (the
// input is under every cap), panic or hang, and what they report must hold
// together: signs only on the kinds that take them, roundings no finer than
// the digits shown, lines that exist, an era only with evidence for it and
// none against. Seeds in testdata/fuzz/FuzzParse: quotes of the observed
// table and a whole log.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		log, err := Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		checkLog(t, log)
		quoted, err := ParseQuote(string(data))
		if err != nil {
			t.Fatalf("ParseQuote: %v", err)
		}
		checkLog(t, quoted)
	})
}

func checkLog(t *testing.T, log *Log) {
	t.Helper()
	for _, fg := range log.Figures {
		if fg.Value.Units < 0 && !signedKinds[fg.Kind] {
			t.Fatalf("%s is negative: %+v", fg.Kind, fg)
		}
		if fg.Value.Places > maxPlaces || fg.RoundedTo < fg.Value.Places {
			t.Fatalf("rounding %d finer than the %d places shown: %+v", fg.RoundedTo, fg.Value.Places, fg)
		}
		if fg.Line < 1 || fg.Line > log.Lines || fg.Kind == "" || fg.Unit == "" || fg.Format == "" || fg.Text == "" {
			t.Fatalf("figure out of its log: %+v (lines %d)", fg, log.Lines)
		}
		per, memory := fg.Unit.Bytes()
		// Bytes fails only for what is not memory, or would not fit an
		// int64 (|value| x unit over 2^63 - 1, give or take the rounding).
		if _, ok := fg.Bytes(); ok != memory {
			exact := new(big.Rat).Mul(ratOf(fg.Value), new(big.Rat).SetInt64(per))
			limit := new(big.Rat).SetInt64(math.MaxInt64 - 1)
			if !memory || exact.Abs(exact).Cmp(limit) <= 0 {
				t.Fatalf("Bytes() ok=%v for a unit whose memory is %v: %+v", ok, memory, fg)
			}
		}
		if tol := fg.Tolerance(); tol < 0 || (memory && tol == 0) {
			t.Fatalf("tolerance %d: %+v", tol, fg)
		}
	}
	for _, s := range log.Settings {
		if s.Key == "" || s.Source == "" || s.Line < 1 || s.Line > log.Lines {
			t.Fatalf("setting out of its log: %+v", s)
		}
	}
	if log.Era != EraUnknown {
		if log.Engine == EngineUnknown {
			t.Fatalf("era %q without an engine", log.Era)
		}
		for _, e := range log.EraEvidence {
			if e.Era != log.Era {
				t.Fatalf("era %q with evidence for %q: %v", log.Era, e.Era, log.EraEvidence)
			}
		}
	}
	if len(log.Versions) > 0 && log.EngineVersion != log.Versions[0] {
		t.Fatalf("version %q is not the first of %v", log.EngineVersion, log.Versions)
	}
}
