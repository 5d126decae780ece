package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// prefixed returns header with its 8-byte little-endian length in front.
func prefixed(header string) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(out, header...)
}

// llamaDown is Llama-3.1-8B's down_proj: hidden 4096, intermediate 14336,
// BF16 (meta-llama/Llama-3.1-8B-Instruct config.json). Its data is
// 4096 x 14336 x 2 bytes = 58,720,256 x 2 = 117,440,512 bytes.
const llamaDown = `{"model.layers.0.mlp.down_proj.weight":{"dtype":"BF16","shape":[4096,14336],"data_offsets":[0,117440512]}}`

func TestParseHeader(t *testing.T) {
	withMeta := `{"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},"a":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]}}  `
	// DeepSeek-V3's fp8 weight and its block scale: q_b_proj is
	// [24576, 1536] F8_E4M3 = 24576 x 1536 x 1 = 37,748,736 bytes; its
	// weight_scale_inv has one F32 per 128 x 128 block: [24576/128, 1536/128]
	// = [192, 12], 192 x 12 x 4 = 9,216 bytes, from 37,748,736 to 37,757,952.
	fp8 := `{"q_b_proj.weight":{"dtype":"F8_E4M3","shape":[24576,1536],"data_offsets":[0,37748736]},` +
		`"q_b_proj.weight_scale_inv":{"dtype":"F32","shape":[192,12],"data_offsets":[37748736,37757952]}}`
	// An MXFP4 weight packs two F4 elements per byte: [2880, 5760] F4 is
	// 2880 x 5760 / 2 = 8,294,400 bytes.
	f4 := `{"w":{"dtype":"F4","shape":[2880,5760],"data_offsets":[0,8294400]}}`
	// An empty tensor holds no bytes but keeps its place; a scalar ([]) holds
	// one element: F32 = 4 bytes.
	empty := `{"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]},"e":{"dtype":"BF16","shape":[0,4096],"data_offsets":[4,4]},"t":{"dtype":"U8","shape":[3],"data_offsets":[4,7]}}`
	tests := []struct {
		name     string
		header   string
		fileSize uint64 // 0: unknown
		want     *Header
		wantErr  string // a substring of the error; "" for success
	}{
		{
			name: "a BF16 weight of Llama-3.1-8B, file size exact", header: llamaDown,
			fileSize: 8 + uint64(len(llamaDown)) + 117440512,
			want: &Header{HeaderBytes: uint64(len(llamaDown)), DataBytes: 117440512, Tensors: []Tensor{
				{Name: "model.layers.0.mlp.down_proj.weight", Dtype: "BF16", Shape: []uint64{4096, 14336}, Begin: 0, End: 117440512},
			}},
		},
		{
			name: "file size unknown: only internal checks", header: llamaDown, fileSize: 0,
			want: &Header{HeaderBytes: uint64(len(llamaDown)), DataBytes: 117440512, Tensors: []Tensor{
				{Name: "model.layers.0.mlp.down_proj.weight", Dtype: "BF16", Shape: []uint64{4096, 14336}, Begin: 0, End: 117440512},
			}},
		},
		{
			name: "the file is one byte short of the data", header: llamaDown,
			fileSize: 8 + uint64(len(llamaDown)) + 117440512 - 1, wantErr: "past the end of the",
		},
		{
			name: "the file has a byte after the data", header: llamaDown,
			fileSize: 8 + uint64(len(llamaDown)) + 117440512 + 1, wantErr: "has 1 bytes after the last tensor's data",
		},
		{
			name: "metadata kept, tensors sorted by offset, trailing spaces allowed", header: withMeta,
			fileSize: 8 + uint64(len(withMeta)) + 16,
			want: &Header{HeaderBytes: uint64(len(withMeta)), DataBytes: 16, Metadata: map[string]string{"format": "pt"}, Tensors: []Tensor{
				{Name: "a", Dtype: "F16", Shape: []uint64{2, 2}, Begin: 0, End: 8},
				{Name: "b", Dtype: "F32", Shape: []uint64{2}, Begin: 8, End: 16},
			}},
		},
		{
			name: "fp8 weight and its block scale", header: fp8,
			want: &Header{HeaderBytes: uint64(len(fp8)), DataBytes: 37757952, Tensors: []Tensor{
				{Name: "q_b_proj.weight", Dtype: "F8_E4M3", Shape: []uint64{24576, 1536}, Begin: 0, End: 37748736},
				{Name: "q_b_proj.weight_scale_inv", Dtype: "F32", Shape: []uint64{192, 12}, Begin: 37748736, End: 37757952},
			}},
		},
		{
			name: "F4 packs two elements per byte", header: f4,
			want: &Header{HeaderBytes: uint64(len(f4)), DataBytes: 8294400, Tensors: []Tensor{
				{Name: "w", Dtype: "F4", Shape: []uint64{2880, 5760}, Begin: 0, End: 8294400},
			}},
		},
		{
			name: "scalar and empty tensors", header: empty, fileSize: 8 + uint64(len(empty)) + 7,
			want: &Header{HeaderBytes: uint64(len(empty)), DataBytes: 7, Tensors: []Tensor{
				{Name: "s", Dtype: "F32", Shape: []uint64{}, Begin: 0, End: 4},
				{Name: "e", Dtype: "BF16", Shape: []uint64{0, 4096}, Begin: 4, End: 4},
				{Name: "t", Dtype: "U8", Shape: []uint64{3}, Begin: 4, End: 7},
			}},
		},
		{
			name: "no tensors at all", header: "{}", fileSize: 10,
			want: &Header{HeaderBytes: 2},
		},
		{
			name:    "overlapping offsets",
			header:  `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`,
			wantErr: `tensor "b": data_offsets [4, 12] overlap those of tensor "a" [0, 8]`,
		},
		{
			name:    "a gap between tensors",
			header:  `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}}`,
			wantErr: `tensor "b": data_offsets [12, 20] leave bytes [8, 12) of the data buffer to no tensor`,
		},
		{
			name:    "the data does not start at 0",
			header:  `{"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`,
			wantErr: `leave bytes [0, 4)`,
		},
		{
			// 3 F16 elements are 3 x 2 = 6 bytes, not 4.
			name:    "span does not match the shape",
			header:  `{"a":{"dtype":"F16","shape":[3],"data_offsets":[0,4]}}`,
			wantErr: `tensor "a": data_offsets [0, 4] span 4 bytes, but shape [3] of F16 holds 6`,
		},
		{
			name:    "end before begin",
			header:  `{"a":{"dtype":"U8","shape":[0],"data_offsets":[4,0]}}`,
			wantErr: `end before they begin`,
		},
		{
			name:    "unknown dtype",
			header:  `{"a":{"dtype":"F12","shape":[1],"data_offsets":[0,2]}}`,
			wantErr: `tensor "a": unknown dtype "F12"`,
		},
		{
			name:    "dtype names are case-sensitive",
			header:  `{"a":{"dtype":"bf16","shape":[1],"data_offsets":[0,2]}}`,
			wantErr: `unknown dtype "bf16"`,
		},
		{
			// 3 F4 elements are 12 bits: not whole bytes.
			name:    "F4 with an odd element count",
			header:  `{"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}}`,
			wantErr: `is 12 bits, not whole bytes`,
		},
		{
			name:    "shape overflows uint64",
			header:  `{"a":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`,
			wantErr: `more elements than a uint64 counts`,
		},
		{
			name:    "negative dimension",
			header:  `{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}}`,
			wantErr: `shape is [-1], not a list of non-negative integers`,
		},
		{
			name:    "null shape",
			header:  `{"a":{"dtype":"U8","shape":null,"data_offsets":[0,0]}}`,
			wantErr: `shape is null`,
		},
		{
			name:    "three offsets",
			header:  `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}}`,
			wantErr: `data_offsets is [0,1,2], not [BEGIN, END]`,
		},
		{
			name:    "missing shape",
			header:  `{"a":{"dtype":"U8","data_offsets":[0,1]}}`,
			wantErr: `tensor "a": no shape`,
		},
		{
			name:    "a tensor that is not an object",
			header:  `{"a":5}`,
			wantErr: `tensor "a": want a JSON object`,
		},
		{
			name:    "duplicate tensor names",
			header:  `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`,
			wantErr: `duplicate key "a"`,
		},
		{
			name:    "metadata with a non-string value",
			header:  `{"__metadata__":{"format":1}}`,
			wantErr: `__metadata__: the format allows only a map of strings: value of "format" is 1, not a string`,
		},
		{
			name:    "truncated JSON",
			header:  `{"a":{"dtype":"U8","shape":[1],"data_of`,
			wantErr: `not valid JSON`,
		},
		{
			name:    "not JSON",
			header:  `{not json}`,
			wantErr: `not valid JSON`,
		},
		{
			name:    "does not begin with a brace",
			header:  ` {}`,
			wantErr: `does not begin with '{'`,
		},
		{
			name:    "a second value after the object",
			header:  `{} {}`,
			wantErr: `more than one JSON value`,
		},
		{
			name:    "not UTF-8",
			header:  "{\"\xff\":{}}",
			wantErr: `not valid UTF-8`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseHeader("model-00001-of-00004.safetensors", []byte(tc.header), tc.fileSize)
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("ParseHeader = %+v, want an error containing %q", got, tc.wantErr)
				}
				var he *HeaderError
				if !errors.As(err, &he) || he.File != "model-00001-of-00004.safetensors" {
					t.Errorf("error %v (%T) is not a *HeaderError naming the file", err, err)
				}
				if !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %q does not contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseHeader: %v", err)
			}
			tc.want.File = "model-00001-of-00004.safetensors"
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseHeader (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHeaderLength(t *testing.T) {
	tests := []struct {
		name    string
		prefix  []byte
		want    uint64
		wantErr string
	}{
		{"the limit itself", binary.LittleEndian.AppendUint64(nil, 100_000_000), 100_000_000, ""},
		{"one over the limit", binary.LittleEndian.AppendUint64(nil, 100_000_001), 0, "exceeds the format's limit of 100000000 bytes"},
		{"the top bit set", binary.LittleEndian.AppendUint64(nil, 1<<63), 0, "exceeds the format's limit"},
		{"zero", make([]byte, 8), 0, "too short for a JSON object"},
		{"seven bytes", make([]byte, 7), 0, "truncated: 7 bytes"},
		// 0x0102 little-endian is bytes 02 01: 258.
		{"little-endian", []byte{0x02, 0x01, 0, 0, 0, 0, 0, 0}, 258, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HeaderLength("x.safetensors", tc.prefix)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("HeaderLength = %d, %v; want an error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("HeaderLength = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

// hugeFile is a ReaderAt of a file of Size bytes whose first bytes are Head
// and the rest zeros; it allocates nothing for the rest.
type hugeFile struct {
	Head []byte
	Size int64
}

func (h hugeFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= h.Size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && off+int64(n) < h.Size {
		if i := off + int64(n); i < int64(len(h.Head)) {
			p[n] = h.Head[i]
		} else {
			p[n] = 0
		}
		n++
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

type failingReader struct{}

func (failingReader) ReadAt([]byte, int64) (int, error) { return 0, errors.New("input/output error") }

func TestReadHeader(t *testing.T) {
	valid := prefixed(llamaDown)
	tests := []struct {
		name    string
		r       io.ReaderAt
		size    int64
		want    int // tensors
		wantErr string
	}{
		// 8 + header + 117,440,512 data bytes, served without allocating them.
		{"the whole file", hugeFile{valid, int64(len(valid)) + 117440512}, int64(len(valid)) + 117440512, 1, ""},
		{"shorter than the length prefix", bytes.NewReader(valid[:5]), 5, 0, "the file has 5 bytes, fewer than the 8-byte header length"},
		{"header runs past the end", bytes.NewReader(valid[:40]), 40, 0, "runs past the end of the 40-byte file"},
		{"data missing", bytes.NewReader(valid), int64(len(valid)), 0, "past the end of the"},
		{"the reader lies about its size", bytes.NewReader(valid[:40]), int64(len(valid)) + 117440512, 0, "truncated: got 32 of"},
		{"the reader fails", failingReader{}, 1000, 0, "input/output error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ReadHeader("model.safetensors", tc.r, tc.size)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ReadHeader = %+v, %v; want an error containing %q", h, err, tc.wantErr)
				}
				if !strings.HasPrefix(err.Error(), "model.safetensors: ") {
					t.Errorf("error %q does not name the file", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Tensors) != tc.want || h.FileBytes() != uint64(tc.size) {
				t.Errorf("got %d tensors, %d file bytes; want %d, %d", len(h.Tensors), h.FileBytes(), tc.want, tc.size)
			}
		})
	}
}

// A header length just over the limit, in a file that claims to be a
// terabyte, is refused before the 100 MB buffer is allocated.
func TestReadHeaderRefusesHugeLengthWithoutAllocating(t *testing.T) {
	f := hugeFile{Head: binary.LittleEndian.AppendUint64(nil, 100_000_001), Size: 1 << 40}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadHeader("model.safetensors", f, f.Size)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "exceeds the format's limit") {
		t.Fatalf("err = %v, want the limit refused", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("allocated %d bytes while refusing the header", grew)
	}
}

func TestDtypeBits(t *testing.T) {
	// Widths from the safetensors spec (Dtype::bitsize in safetensors/src/tensor.rs).
	want := map[string]uint64{
		"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8,
		"F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8,
		"I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32,
		"C64": 64, "F64": 64, "I64": 64, "U64": 64,
	}
	got := map[string]uint64{}
	for name := range want {
		if b, ok := DtypeBits(name); ok {
			got[name] = b
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DtypeBits (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "bf16", "F8", "FP8", "INT4"} {
		if b, ok := DtypeBits(bad); ok {
			t.Errorf("DtypeBits(%q) = %d, true; want unknown", bad, b)
		}
	}
}

func TestEncode(t *testing.T) {
	tensors := []Tensor{
		{Name: "b", Dtype: "F32", Shape: []uint64{2}},     // 2 x 4 = 8 bytes: [0, 8]
		{Name: "a", Dtype: "BF16", Shape: []uint64{3, 1}}, // 3 x 2 = 6 bytes: [8, 14]
	}
	header, data, err := Encode(tensors, map[string]string{"format": "pt"})
	if err != nil {
		t.Fatal(err)
	}
	json := `{"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"BF16","shape":[3,1],"data_offsets":[8,14]}}`
	// Padded with spaces to a multiple of 8 bytes, as the reference writer does.
	padded := json + strings.Repeat(" ", (8-len(json)%8)%8)
	if diff := cmp.Diff(string(prefixed(padded)), string(header)); diff != "" {
		t.Errorf("Encode header (-want +got):\n%s", diff)
	}
	if data != 14 {
		t.Errorf("data bytes = %d, want 14", data)
	}
	if _, _, err := Encode([]Tensor{{Name: "a", Dtype: "U8"}, {Name: "a", Dtype: "U8"}}, nil); err == nil {
		t.Error("Encode accepted a repeated name")
	}
	if _, _, err := Encode([]Tensor{{Name: "a", Dtype: "Q4"}}, nil); err == nil {
		t.Error("Encode accepted an unknown dtype")
	}
}

func ExampleParseHeader() {
	header := `{"lm_head.weight":{"dtype":"BF16","shape":[128256,4096],"data_offsets":[0,1050673152]}}`
	h, err := ParseHeader("model-00004-of-00004.safetensors", []byte(header), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range h.Tensors {
		fmt.Println(t.Name, t.Dtype, t.Shape, t.Bytes())
	}
	// Output: lm_head.weight BF16 [128256 4096] 1050673152
}
