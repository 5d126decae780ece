package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecodeRequest checks that the fast decoding of a request line answers
// exactly as the strict token-by-token one: the same request, or the same
// error.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"command":"max-seqs","model":"m","length":4096}`,
		`{"a":1,"a":2}`,
		`{"a":1,"\u0061":2}`,
		`{"a":{"a":1},"b":[1,{"c":"}"}]}`,
		`{"a":1} {"b":2}`,
		`{"a":1}   `,
		`[1,2]`,
		`null`,
		`{"a":1.5e3,"b":-0,"c":true,"d":null}`,
		`{"a":"\ud800"}`,
		"{\"a\":\"\xff\"}",
		`{"a":1,}`,
		`{"a":[],"b":["x", "y"],"c":false,"d":-0.5E+2,"e":"é"}`,
		`{"a":01}`,
		`{"a":-}`,
		` { "a" : truex } `,
		`{"a":[1]}`,
		`{}`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, gotErr := decodeRequest(line)
		want, wantErr := decodeRequestStrictly(line)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%q: error %v, strictly %v", line, gotErr, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: (-strictly +fast)\n%s", line, diff)
		}
	})
}
