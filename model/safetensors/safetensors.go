package safetensors

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"membudget/internal/untrusted"
)

// PrefixBytes is the length of the header-length prefix, a little-endian
// uint64 (safetensors README, "Format").
const PrefixBytes = 8

// MaxHeaderBytes is the largest header length the reference reader accepts
// (safetensors/src/tensor.rs, MAX_HEADER_SIZE = 100_000_000); a longer one
// is refused before anything is allocated for it.
const MaxHeaderBytes = 100_000_000

// minHeaderBytes is the shortest header that can be a JSON object: "{}".
const minHeaderBytes = 2

// metadataKey is the one key of the header that is not a tensor.
const metadataKey = "__metadata__"

// Tensor is one entry of a safetensors header. Begin and End are byte
// offsets into the data buffer that follows the header (End is one past the
// last byte), as the header's data_offsets give them.
type Tensor struct {
	Name  string
	Dtype string
	Shape []uint64
	Begin uint64
	End   uint64
}

// Bytes returns the size of the tensor's data, End - Begin.
func (t Tensor) Bytes() uint64 { return t.End - t.Begin }

// Header is a parsed and checked safetensors header.
type Header struct {
	// File is the name errors and messages use for the file.
	File string
	// HeaderBytes is N, the length of the JSON header (padding included).
	HeaderBytes uint64
	// DataBytes is the length of the data buffer: the End of the last tensor.
	DataBytes uint64
	// Tensors are in data-offset order, which is file order.
	Tensors []Tensor
	// Metadata is the "__metadata__" map, nil when the header has none.
	Metadata map[string]string
}

// FileBytes returns the size of the whole file the header describes:
// PrefixBytes + HeaderBytes + DataBytes (ParseHeader has checked that this
// does not overflow).
func (h *Header) FileBytes() uint64 { return PrefixBytes + h.HeaderBytes + h.DataBytes }

// HeaderError is a defect in a safetensors header. File names the file;
// Tensor names the tensor when the defect is in one entry.
type HeaderError struct {
	File   string
	Tensor string
	Detail string
}

// Error returns "file: detail", or "file: tensor "name": detail".
func (e *HeaderError) Error() string {
	if e.Tensor == "" {
		return e.File + ": " + e.Detail
	}
	return fmt.Sprintf("%s: tensor %s: %s", e.File, untrusted.Quote(e.Tensor), e.Detail)
}

func headerErr(file, tensor, format string, args ...any) error {
	return &HeaderError{File: file, Tensor: tensor, Detail: fmt.Sprintf(format, args...)}
}

// dtypeBits is the width of one element of each dtype the format defines
// (safetensors/src/tensor.rs, Dtype::bitsize). F4 and the F6 types pack
// several elements into a byte.
var dtypeBits = map[string]uint64{
	"BOOL":        8,
	"F4":          4,
	"F6_E2M3":     6,
	"F6_E3M2":     6,
	"U8":          8,
	"I8":          8,
	"F8_E5M2":     8,
	"F8_E4M3":     8,
	"F8_E8M0":     8,
	"F8_E4M3FNUZ": 8,
	"F8_E5M2FNUZ": 8,
	"I16":         16,
	"U16":         16,
	"F16":         16,
	"BF16":        16,
	"I32":         32,
	"U32":         32,
	"F32":         32,
	"C64":         64,
	"F64":         64,
	"I64":         64,
	"U64":         64,
}

// DtypeBits returns the width in bits of one element of a safetensors dtype
// ("BF16" -> 16, "F4" -> 4), and false for a dtype the format does not
// define. Names are case-sensitive, as in the format.
func DtypeBits(dtype string) (uint64, bool) {
	b, ok := dtypeBits[dtype]
	return b, ok
}

// knownDtypes lists the dtypes for error messages, sorted.
func knownDtypes() string {
	names := make([]string, 0, len(dtypeBits))
	for k := range dtypeBits {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, " ")
}

// HeaderLength returns N, the header length that a safetensors file's first
// PrefixBytes bytes announce, after checking it against MaxHeaderBytes, so
// that a caller reads or fetches exactly N more bytes.
func HeaderLength(file string, prefix []byte) (uint64, error) {
	if len(prefix) < PrefixBytes {
		return 0, headerErr(file, "", "truncated: %d bytes where the 8-byte header length should be", len(prefix))
	}
	n := binary.LittleEndian.Uint64(prefix)
	if n > MaxHeaderBytes {
		return 0, headerErr(file, "", "header length %d exceeds the format's limit of %d bytes", n, MaxHeaderBytes)
	}
	if n < minHeaderBytes {
		return 0, headerErr(file, "", "header length %d is too short for a JSON object", n)
	}
	return n, nil
}

// ReadHeader reads and checks the header of the size-byte safetensors file
// r. It reads the 8-byte length and then exactly that many bytes, never the
// data; a length over MaxHeaderBytes or past the end of the file is refused
// before anything is allocated for it.
func ReadHeader(file string, r io.ReaderAt, size int64) (*Header, error) {
	if size < PrefixBytes {
		return nil, headerErr(file, "", "truncated: the file has %d bytes, fewer than the 8-byte header length", size)
	}
	var prefix [PrefixBytes]byte
	if err := readFull(r, prefix[:], 0); err != nil {
		return nil, headerErr(file, "", "reading the header length: %v", err)
	}
	n, err := HeaderLength(file, prefix[:])
	if err != nil {
		return nil, err
	}
	if n > uint64(size)-PrefixBytes {
		return nil, headerErr(file, "", "truncated: the %d-byte header runs past the end of the %d-byte file", n, size)
	}
	buf := make([]byte, n)
	if err := readFull(r, buf, PrefixBytes); err != nil {
		return nil, headerErr(file, "", "reading the %d-byte header: %v", n, err)
	}
	return ParseHeader(file, buf, uint64(size))
}

// readFull fills buf from r at off; io.ReaderAt may return io.EOF together
// with a full read, which is success.
func readFull(r io.ReaderAt, buf []byte, off int64) error {
	n, err := r.ReadAt(buf, off)
	if n == len(buf) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return fmt.Errorf("truncated: got %d of %d bytes", n, len(buf))
	}
	return err
}

// ParseHeader parses and checks the N header bytes of a safetensors file
// (without the 8-byte length). fileSize is the size of the whole file, or 0
// when it is unknown: then the tensors are still checked against each other
// (in offset order they cover the data buffer without overlap or gap) but
// not against the end of the file.
//
// Bounds: a header over MaxHeaderBytes (the format's own limit) is refused
// unread; parsing one holds a few copies of it at most (a 99 MB header
// string peaks at about 430 MB), and its errors quote at most 256 bytes of
// any string in it, escaped (see [untrusted.Quote]).
func ParseHeader(file string, header []byte, fileSize uint64) (*Header, error) {
	if len(header) > MaxHeaderBytes {
		return nil, headerErr(file, "", "header length %d exceeds the format's limit of %d bytes", len(header), MaxHeaderBytes)
	}
	if len(header) == 0 || header[0] != '{' {
		return nil, headerErr(file, "", "the header does not begin with '{' (not a safetensors file?)")
	}
	if !utf8.Valid(header) {
		return nil, headerErr(file, "", "the header is not valid UTF-8")
	}
	h := &Header{File: file, HeaderBytes: uint64(len(header))}
	dec := json.NewDecoder(bytes.NewReader(header))
	err := eachKey(dec, func(key string) error {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return headerErr(file, "", "the header is not valid JSON at byte %d: %v", dec.InputOffset(), err)
		}
		if key == metadataKey {
			m, err := parseMetadata(file, raw)
			h.Metadata = m
			return err
		}
		t, err := parseTensor(file, key, raw)
		if err != nil {
			return err
		}
		h.Tensors = append(h.Tensors, t)
		return nil
	})
	if err != nil {
		var he *HeaderError
		var syntax *json.SyntaxError
		switch {
		case errors.As(err, &he):
			return nil, err
		case errors.As(err, &syntax), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil, headerErr(file, "", "the header is not valid JSON at byte %d: %v", dec.InputOffset(), err)
		}
		return nil, headerErr(file, "", "%v", err)
	}
	if rest := header[dec.InputOffset():]; len(bytes.TrimLeft(rest, " \t\r\n")) != 0 {
		return nil, headerErr(file, "", "the header has more than one JSON value (byte %d)", dec.InputOffset())
	}
	if err := h.layout(fileSize); err != nil {
		return nil, err
	}
	return h, nil
}

// layout checks that the tensors, in offset order, cover the data buffer
// from 0 without overlap or gap, and that the buffer ends where the file
// does; it sorts h.Tensors and sets h.DataBytes.
func (h *Header) layout(fileSize uint64) error {
	slices.SortFunc(h.Tensors, func(a, b Tensor) int {
		return cmp.Or(cmp.Compare(a.Begin, b.Begin), cmp.Compare(a.End, b.End), strings.Compare(a.Name, b.Name))
	})
	var end uint64
	for i, t := range h.Tensors {
		switch {
		case t.Begin < end:
			p := h.Tensors[i-1]
			return headerErr(h.File, t.Name, "data_offsets [%d, %d] overlap those of tensor %q [%d, %d]", t.Begin, t.End, p.Name, p.Begin, p.End)
		case t.Begin > end:
			return headerErr(h.File, t.Name, "data_offsets [%d, %d] leave bytes [%d, %d) of the data buffer to no tensor", t.Begin, t.End, end, t.Begin)
		}
		end = t.End
	}
	h.DataBytes = end
	if end > math.MaxUint64-PrefixBytes-h.HeaderBytes {
		return headerErr(h.File, "", "the data buffer of %d bytes does not fit a uint64 file size", end)
	}
	if fileSize == 0 {
		return nil
	}
	switch total := h.FileBytes(); {
	case total > fileSize:
		return headerErr(h.File, "", "the tensors' data ends at byte %d (8 + %d header + %d data), past the end of the %d-byte file", total, h.HeaderBytes, end, fileSize)
	case total < fileSize:
		return headerErr(h.File, "", "the file has %d bytes after the last tensor's data (it ends at byte %d of %d), which belong to no tensor", fileSize-total, total, fileSize)
	}
	return nil
}

// eachKey walks one JSON object from dec, calling fn after each key with the
// value next in dec, and refuses a key seen twice (the format disallows
// duplicates; encoding/json would keep the last silently).
func eachKey(dec *json.Decoder, fn func(key string) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("want a JSON object, got %s", untrusted.Quote(fmt.Sprint(tok)))
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("want an object key, got %s", untrusted.Quote(fmt.Sprint(tok)))
		}
		if seen[key] {
			return fmt.Errorf("duplicate key %s", untrusted.Quote(key))
		}
		seen[key] = true
		if err := fn(key); err != nil {
			return err
		}
	}
	_, err = dec.Token() // the closing '}'
	return err
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// excerpt shortens a JSON value for an error message, escaped.
func excerpt(raw json.RawMessage) string {
	const max = 48
	s := string(bytes.TrimSpace(raw))
	if len(s) > max {
		return untrusted.Text(s[:max]) + "..."
	}
	return untrusted.Text(s)
}

// wantObject refuses a value that is not a JSON object from its first
// byte, quoting an excerpt of its text: decoding a 99 MB string only to
// say it is not an object would hold it twice more.
func wantObject(raw json.RawMessage) error {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("want a JSON object, got %s", excerpt(raw))
	}
	return nil
}

func parseMetadata(file string, raw json.RawMessage) (map[string]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	if err := wantObject(raw); err != nil {
		return nil, headerErr(file, "", "%s: the format allows only a map of strings: %v", metadataKey, err)
	}
	m := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	err := eachKey(dec, func(key string) error {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		var s string
		if isNull(v) || json.Unmarshal(v, &s) != nil {
			return fmt.Errorf("value of %s is %s, not a string", untrusted.Quote(key), excerpt(v))
		}
		m[key] = s
		return nil
	})
	if err != nil {
		return nil, headerErr(file, "", "%s: the format allows only a map of strings: %v", metadataKey, err)
	}
	return m, nil
}

// parseTensor reads one tensor entry and checks it alone: a known dtype, and
// data_offsets that span exactly the shape's bytes. Keys other than the
// three the format defines are ignored, as the reference reader does.
func parseTensor(file, name string, raw json.RawMessage) (Tensor, error) {
	t := Tensor{Name: name}
	if err := wantObject(raw); err != nil {
		return t, headerErr(file, name, "%v", err)
	}
	var haveDtype, haveShape, haveOffsets bool
	dec := json.NewDecoder(bytes.NewReader(raw))
	err := eachKey(dec, func(key string) error {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		switch key {
		case "dtype":
			if isNull(v) || json.Unmarshal(v, &t.Dtype) != nil {
				return fmt.Errorf("dtype is %s, not a string", excerpt(v))
			}
			haveDtype = true
		case "shape":
			if isNull(v) || json.Unmarshal(v, &t.Shape) != nil {
				return fmt.Errorf("shape is %s, not a list of non-negative integers", excerpt(v))
			}
			if t.Shape == nil {
				t.Shape = []uint64{}
			}
			haveShape = true
		case "data_offsets":
			var off []uint64
			if isNull(v) || json.Unmarshal(v, &off) != nil || len(off) != 2 {
				return fmt.Errorf("data_offsets is %s, not [BEGIN, END] in non-negative integers", excerpt(v))
			}
			t.Begin, t.End = off[0], off[1]
			haveOffsets = true
		}
		return nil
	})
	if err != nil {
		return Tensor{}, headerErr(file, name, "%v", err)
	}
	switch {
	case !haveDtype:
		return Tensor{}, headerErr(file, name, "no dtype")
	case !haveShape:
		return Tensor{}, headerErr(file, name, "no shape")
	case !haveOffsets:
		return Tensor{}, headerErr(file, name, "no data_offsets")
	}
	want, err := spanBytes(t.Dtype, t.Shape)
	if err != nil {
		return Tensor{}, headerErr(file, name, "%v", err)
	}
	if t.End < t.Begin {
		return Tensor{}, headerErr(file, name, "data_offsets [%d, %d] end before they begin", t.Begin, t.End)
	}
	if t.Bytes() != want {
		return Tensor{}, headerErr(file, name, "data_offsets [%d, %d] span %d bytes, but shape %s of %s holds %d",
			t.Begin, t.End, t.Bytes(), shapeString(t.Shape), t.Dtype, want)
	}
	return t, nil
}

// spanBytes returns the bytes that a tensor of this dtype and shape holds:
// elements x bits / 8, refusing overflow and a bit count that is not whole
// bytes (the reference reader's MisalignedSlice).
func spanBytes(dtype string, shape []uint64) (uint64, error) {
	width, ok := dtypeBits[dtype]
	if !ok {
		return 0, fmt.Errorf("unknown dtype %s (the format defines %s)", untrusted.Quote(dtype), knownDtypes())
	}
	elements := uint64(1)
	if !slices.Contains(shape, 0) { // an empty tensor holds no bytes, whatever its other dimensions
		for _, d := range shape {
			hi, lo := bits.Mul64(elements, d)
			if hi != 0 {
				return 0, fmt.Errorf("shape %s has more elements than a uint64 counts", shapeString(shape))
			}
			elements = lo
		}
	} else {
		elements = 0
	}
	hi, nbits := bits.Mul64(elements, width)
	if hi != 0 {
		return 0, fmt.Errorf("shape %s of %s has more bits than a uint64 counts", shapeString(shape), untrusted.Text(dtype))
	}
	if nbits%8 != 0 {
		return 0, fmt.Errorf("shape %s of %s (%d bits each) is %d bits, not whole bytes", shapeString(shape), untrusted.Text(dtype), width, nbits)
	}
	return nbits / 8, nil
}

func shapeString(shape []uint64) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.FormatUint(d, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Encode returns the first bytes of a safetensors file holding tensors in
// the order given — the 8-byte length and the JSON header, padded with
// spaces to a multiple of 8 bytes as the reference writer pads it — and the
// length of the data buffer that must follow. Each tensor's Begin and End
// are ignored and laid out back to back from 0.
func Encode(tensors []Tensor, metadata map[string]string) ([]byte, uint64, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	if metadata != nil {
		keys := make([]string, 0, len(metadata))
		for k := range metadata {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteString(`"__metadata__":{`)
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(&b, k)
			b.WriteByte(':')
			writeJSONString(&b, metadata[k])
		}
		b.WriteByte('}')
	}
	seen := map[string]bool{}
	var end uint64
	for i, t := range tensors {
		if t.Name == metadataKey || seen[t.Name] {
			return nil, 0, fmt.Errorf("safetensors: tensor name %s is reserved or repeated", untrusted.Quote(t.Name))
		}
		seen[t.Name] = true
		n, err := spanBytes(t.Dtype, t.Shape)
		if err != nil {
			return nil, 0, fmt.Errorf("safetensors: tensor %s: %v", untrusted.Quote(t.Name), err)
		}
		if n > math.MaxUint64-end {
			return nil, 0, fmt.Errorf("safetensors: tensor %s: the data buffer overflows a uint64", untrusted.Quote(t.Name))
		}
		if i > 0 || metadata != nil {
			b.WriteByte(',')
		}
		writeJSONString(&b, t.Name)
		shape := t.Shape
		if shape == nil {
			shape = []uint64{}
		}
		fmt.Fprintf(&b, `:{"dtype":%q,"shape":%s,"data_offsets":[%d,%d]}`, t.Dtype, strings.ReplaceAll(shapeString(shape), " ", ""), end, end+n)
		end += n
	}
	b.WriteByte('}')
	for b.Len()%PrefixBytes != 0 {
		b.WriteByte(' ')
	}
	if b.Len() > MaxHeaderBytes {
		return nil, 0, fmt.Errorf("safetensors: header of %d bytes exceeds the format's limit of %d", b.Len(), MaxHeaderBytes)
	}
	out := make([]byte, PrefixBytes, PrefixBytes+b.Len())
	binary.LittleEndian.PutUint64(out, uint64(b.Len()))
	return append(out, b.Bytes()...), end, nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // a string always marshals
	b.Write(enc)
}
