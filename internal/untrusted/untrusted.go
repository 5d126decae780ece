// Package untrusted prints strings that came from outside membudget (a
// file, the Hugging Face Hub, a startup log, a batch request) where a
// person or a script reads them: escaped, so that no terminal control
// sequence, bidirectional override or invalid UTF-8 reaches a terminal, and
// truncated, so that a 99 MB header string gives a message of a few hundred
// bytes.
//
// Every message that quotes such a string goes through [Text] or [Quote];
// the one function keeps the rule in one place.
package untrusted

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxBytes is the most bytes of an untrusted string a message quotes: a
// model id, a tensor name or a flag value is far shorter (the Hub's repo
// names are at most 96 characters), and a message stays one line a person
// can read.
const MaxBytes = 256

// Text returns s for a message: at most [MaxBytes] of it, cut at a rune
// boundary and followed by "…(N more bytes)" when longer, with every
// control character (C0, DEL, C1), every format character (the
// bidirectional overrides and isolates, zero-width marks), every other
// rune that is not graphic, and every byte that is not UTF-8 written as a
// Go escape (\x1b, \u202e, \xff). A backslash is kept as it is: Text is for
// reading, [Quote] for a value a reader must tell apart exactly.
func Text(s string) string {
	head, rest := cut(s)
	b := escape(head, "")
	if rest > 0 {
		fmt.Fprintf(b, "…(%d more bytes)", rest)
	}
	return b.String()
}

// Lines returns s for a terminal, escaped as [Text] escapes it except for
// newlines and tabs, which it keeps, and not cut: for a whole message of
// membudget's own (such as the joined findings of a class file), which
// may quote strings [Text] has already cut. Every byte of stderr goes
// through it (see [Writer]).
func Lines(s string) string {
	return escape(s, "\n\t").String()
}

// Clean reports whether s holds no rune [Text] would escape: text that
// may be printed as it is, once its length is bounded.
func Clean(s string) bool { return escape(s, "").Len() == len(s) }

// escape writes s with each rune that is not graphic (keep aside) escaped.
func escape(s, keep string) *strings.Builder {
	b := new(strings.Builder)
	b.Grow(len(s) + 16)
	head := s
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRuneInString(head[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(b, `\x%02x`, head[i])
		case r == ' ' || strings.ContainsRune(keep, r) || unicode.IsGraphic(r) && !unicode.Is(unicode.Cf, r):
			b.WriteString(head[i : i+size])
		case r < 0x80:
			fmt.Fprintf(b, `\x%02x`, r)
		case r > 0xffff:
			// A UTF-16 surrogate pair, as JSON writes one: an escape
			// inside a JSON string then reads back as the rune itself.
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
		i += size
	}
	return b
}

// Writer returns w with what is written escaped by [Lines]: stdout and
// stderr, where membudget's output quotes what came from outside. JSON
// stays valid and reads back the same: encoding/json already escapes C0
// controls, and Lines writes the other runes it escapes as JSON's \uXXXX
// (a surrogate pair above U+FFFF). A rune cut between two writes (a
// buffered writer's flush) is held until the next one completes it.
func Writer(w io.Writer) io.Writer { return &linesWriter{w: w} }

type linesWriter struct {
	w    io.Writer
	held []byte // the start of a rune the last write cut
}

func (l *linesWriter) Write(p []byte) (int, error) {
	b := append(l.held, p...)
	l.held = nil
	// Hold back a tail that starts a rune but does not finish it.
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if c := b[len(b)-i]; utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				l.held, b = append([]byte(nil), b[len(b)-i:]...), b[:len(b)-i]
			}
			break
		}
	}
	if _, err := io.WriteString(l.w, Lines(string(b))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Quote returns s for a message as a Go double-quoted string (strconv's
// quoting, which escapes every rune that is not printable and every byte
// that is not UTF-8), of at most [MaxBytes] of s, followed by "…(N more
// bytes)" when s is longer.
func Quote(s string) string {
	head, rest := cut(s)
	q := strconv.Quote(head)
	if rest > 0 {
		q += fmt.Sprintf("…(%d more bytes)", rest)
	}
	return q
}

// cut returns the first MaxBytes of s, shortened to a rune boundary when
// it would split a UTF-8 sequence, and how many bytes of s it left out.
func cut(s string) (string, int) {
	if len(s) <= MaxBytes {
		return s, 0
	}
	n := MaxBytes
	// Back up over continuation bytes, at most a rune's length, so that a
	// valid rune is not cut into bytes that Text would print as escapes.
	for i := 0; i < utf8.UTFMax-1 && n > 0 && !utf8.RuneStart(s[n]); i++ {
		n--
	}
	return s[:n], len(s) - n
}
