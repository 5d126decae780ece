package safetensors

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	gocmp "github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// genTensors draws a list of tensors with unique names and shapes whose bit
// count is whole bytes (a sub-byte dtype gets a last dimension that is a
// multiple of 8).
func genTensors(t *rapid.T) []Tensor {
	dtypes := make([]string, 0, len(dtypeBits))
	for d := range dtypeBits {
		dtypes = append(dtypes, d)
	}
	slices.Sort(dtypes)
	n := rapid.IntRange(0, 12).Draw(t, "n")
	out := make([]Tensor, 0, n)
	for i := range n {
		dtype := rapid.SampledFrom(dtypes).Draw(t, "dtype")
		shape := rapid.SliceOfN(rapid.Uint64Range(0, 40), 0, 4).Draw(t, "shape")
		if dtypeBits[dtype]%8 != 0 {
			shape = append(shape, 8*rapid.Uint64Range(0, 5).Draw(t, "last"))
		}
		name := fmt.Sprintf("model.layers.%d.%s", i, rapid.StringMatching(`[a-z_.]{0,12}`).Draw(t, "suffix"))
		out = append(out, Tensor{Name: name, Dtype: dtype, Shape: shape})
	}
	return out
}

func byOffset(a, b Tensor) int {
	return cmp.Or(cmp.Compare(a.Begin, b.Begin), cmp.Compare(a.End, b.End), strings.Compare(a.Name, b.Name))
}

// propEncodeThenParseReturnsTheTensors: what Encode writes, ParseHeader and
// ReadHeader read back, tensor for tensor, with the spans Encode laid out.
func propEncodeThenParseReturnsTheTensors(t *rapid.T) {
	tensors := genTensors(t)
	header, data, err := Encode(tensors, map[string]string{"format": "pt"})
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	var want []Tensor
	var off uint64
	for _, tn := range tensors {
		n, _ := spanBytes(tn.Dtype, tn.Shape)
		want = append(want, Tensor{Name: tn.Name, Dtype: tn.Dtype, Shape: tn.Shape, Begin: off, End: off + n})
		off += n
	}
	slices.SortFunc(want, byOffset)
	file := append(header, make([]byte, data)...)
	got, err := ReadHeader("p.safetensors", bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatalf("ReadHeader of an encoded file: %v", err)
	}
	if diff := gocmp.Diff(want, got.Tensors, emptyShapes); diff != "" || got.FileBytes() != uint64(len(file)) {
		t.Fatalf("read back (-want +got):\n%s\nfile bytes %d of %d", diff, got.FileBytes(), len(file))
	}
}

// emptyShapes treats a nil and an empty shape as equal (both are a scalar).
var emptyShapes = gocmp.Comparer(func(a, b []uint64) bool { return slices.Equal(a, b) })

func TestEncodeThenParseReturnsTheTensors(t *testing.T) {
	rapid.Check(t, propEncodeThenParseReturnsTheTensors)
}

// FuzzParseHeader checks that ParseHeader never panics, fails only with a
// *HeaderError whose message holds no control character and quotes at
// most a few hundred bytes of the header, and that what it accepts tiles the data buffer exactly, ends
// where the file ends, and survives a re-encoding unchanged.
func FuzzParseHeader(f *testing.F) {
	f.Add([]byte(llamaDown), uint64(0))
	f.Add([]byte(`{"__metadata__":{"format":"pt"},"a":{"dtype":"F4","shape":[2,4],"data_offsets":[0,4]}}`), uint64(0))
	f.Fuzz(func(t *testing.T, header []byte, fileSize uint64) {
		h, err := ParseHeader("fuzz.safetensors", header, fileSize)
		if err != nil {
			var he *HeaderError
			if !errors.As(err, &he) {
				t.Fatalf("error %v is a %T, not a *HeaderError", err, err)
			}
			// The message's own text is under 300 bytes; an untrusted
			// string in it is at most 256 bytes, escaped to at most 4x.
			if msg := err.Error(); strings.ContainsFunc(msg, unicode.IsControl) || len(msg) > 2048 {
				t.Fatalf("error of %d bytes, escaped and bounded? %.300q", len(msg), msg)
			}
			return
		}
		var end uint64
		for _, tn := range h.Tensors {
			n, serr := spanBytes(tn.Dtype, tn.Shape)
			if tn.Begin != end || serr != nil || tn.Bytes() != n {
				t.Fatalf("tensor %q [%d, %d] does not continue at %d with its %d bytes (%v)", tn.Name, tn.Begin, tn.End, end, n, serr)
			}
			end = tn.End
		}
		if end != h.DataBytes || (fileSize != 0 && h.FileBytes() != fileSize) {
			t.Fatalf("data ends at %d, DataBytes %d, file bytes %d of %d", end, h.DataBytes, h.FileBytes(), fileSize)
		}
		again, data, err := Encode(h.Tensors, h.Metadata)
		if err != nil {
			t.Fatalf("Encode of a parsed header: %v", err)
		}
		back, err := ParseHeader("fuzz.safetensors", again[PrefixBytes:], 0)
		if err != nil || data != h.DataBytes {
			t.Fatalf("re-encoded header: %v (data %d, want %d)", err, data, h.DataBytes)
		}
		if diff := gocmp.Diff(h.Tensors, back.Tensors, emptyShapes); diff != "" {
			t.Fatalf("re-encoded tensors (-parsed +again):\n%s", diff)
		}
	})
}
