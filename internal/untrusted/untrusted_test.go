package untrusted

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in, want string
	}{
		{"plain text is kept", "model.layers.0.mlp.weight", "model.layers.0.mlp.weight"},
		{"non-ASCII letters are kept", "Größe 模型", "Größe 模型"},
		// The header string: OSC set-title ended by BEL, then
		// erase-display.
		{"terminal escapes", "\x1b]0;pwned\x07\x1b[2J", `\x1b]0;pwned\x07\x1b[2J`},
		{"newline, tab, CR and DEL", "a\nb\tc\rd\x7f", `a\x0ab\x09c\x0dd\x7f`},
		{"C1 control (CSI as one rune)", "a\u009bb", `a\u009bb`},
		{"bidirectional override and zero-width joiner", "abc\u202edef\u200d", `abc\u202edef\u200d`},
		{"invalid UTF-8 bytes", "a\xff\xfeb", `a\xff\xfeb`},
		{"a backslash is kept", `a\b`, `a\b`},
	} {
		if diff := cmp.Diff(c.want, Text(c.in)); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestTextAtTheBound: MaxBytes are kept whole; one byte more is cut, the
// count of what was left out said; a rune across the bound is not split
// into escapes.
func TestTextAtTheBound(t *testing.T) {
	t.Parallel()
	at := strings.Repeat("a", MaxBytes)
	if got := Text(at); got != at {
		t.Errorf("%d bytes: cut to %q", MaxBytes, got)
	}
	if got, want := Text(at+"b"), at+"…(1 more bytes)"; got != want {
		t.Errorf("%d bytes: got %q, want %q", MaxBytes+1, got, want)
	}
	// 255 ASCII bytes then a 3-byte rune: byte 256 is its second byte, so
	// the cut backs up to 255 and leaves the rune's 3 bytes and "z" out.
	across := strings.Repeat("a", MaxBytes-1) + "模z"
	if got, want := Text(across), strings.Repeat("a", MaxBytes-1)+"…(4 more bytes)"; got != want {
		t.Errorf("a rune across the bound: got %q, want %q", got, want)
	}
	// 10 MiB of a tensor name: the message stays a few hundred bytes.
	huge := strings.Repeat("\x1b", 10<<20)
	if got := Text(huge); len(got) > 4*MaxBytes+32 || strings.ContainsRune(got, 0x1b) {
		t.Errorf("10 MiB of ESC: %d bytes, raw ESC %v", len(got), strings.ContainsRune(got, 0x1b))
	}
}

func TestQuote(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in, want string
	}{
		{"plain", "l4", `"l4"`},
		{"escapes and quotes", "a\"\x1b[31m", `"a\"\x1b[31m"`},
		{"bidi override", "\u202e", `"\u202e"`},
		{"cut", strings.Repeat("q", MaxBytes+2), `"` + strings.Repeat("q", MaxBytes) + `"…(2 more bytes)`},
	} {
		if diff := cmp.Diff(c.want, Quote(c.in)); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", c.name, diff)
		}
	}
}

// FuzzText: whatever the input, Text's output is valid UTF-8 holding no
// control or format character, and bounded.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "\x1b]0;x\x07", "a\u202eb", "\xff", strings.Repeat("模", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Text(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Text(%q) = %q: not UTF-8", s, got)
		}
		for _, r := range got {
			if r != '…' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x202e || r == 0x200d) {
				t.Fatalf("Text(%q) = %q holds %U", s, got, r)
			}
		}
		if len(got) > 4*MaxBytes+32 {
			t.Fatalf("Text of %d bytes is %d bytes", len(s), len(got))
		}
	})
}

func TestLinesAndWriter(t *testing.T) {
	t.Parallel()
	in := "membudget x: a\n\tb \x1b[2J\u202e\xff\n"
	want := "membudget x: a\n\tb \\x1b[2J\\u202e\\xff\n"
	if got := Lines(in); got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
	var b strings.Builder
	if n, err := Writer(&b).Write([]byte(in)); err != nil || n != len(in) || b.String() != want {
		t.Errorf("Writer wrote %q (%d, %v), want %q", b.String(), n, err, want)
	}
	long := strings.Repeat("y", 3*MaxBytes)
	if Lines(long) != long {
		t.Errorf("Lines cut a message")
	}
	if !Clean("NVIDIA H100 80GB HBM3 模") || Clean("a\x1b") || Clean("a\u202e") || Clean("\xff") {
		t.Errorf("Clean is wrong")
	}
}

// TestWriterKeepsRunesCutBetweenWrites: a rune a buffered writer cuts in
// two is written whole, not escaped as bytes; JSON through the writer
// reads back the same value, escapes and all.
func TestWriterKeepsRunesCutBetweenWrites(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	w := Writer(&b)
	s := "模型…"
	for i := 0; i < len(s); i++ {
		if _, err := w.Write([]byte{s[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if b.String() != s {
		t.Errorf("byte by byte: %q, want %q", b.String(), s)
	}
	b.Reset()
	in := []byte("{\"name\":\"a\u202eb\u0085c\U000e0001\"}\n")
	if _, err := w.Write(in); err != nil {
		t.Fatal(err)
	}
	var got, want map[string]string
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatalf("%q is not JSON: %v", b.String(), err)
	}
	if err := json.Unmarshal(in, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" || strings.ContainsRune(b.String(), 0x202e) {
		t.Errorf("JSON through the writer: %q (-want +got):\n%s", b.String(), diff)
	}
}
