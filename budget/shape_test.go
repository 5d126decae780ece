package budget

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The hostile class files of issue 19 (defect 1), generated at 64 KiB, the
// file limit: before checkShape each took BurntSushi/toml 38-63 s and
// 9-12 GB before its error. Now each is refused at the bound it breaks,
// on its first line, before the decoder runs.
func TestClassFileBoundedBeforeTheDecoder(t *testing.T) {
	t.Parallel()
	const p = "kernels/x/HARDWARE.toml"
	fill := func(head, unit, tail string) string {
		n := (MaxClassFileBytes - len(head) - len(tail)) / len(unit)
		return head + strings.Repeat(unit, n) + tail
	}
	for _, c := range []struct {
		name string
		doc  string
		want *FileError
	}{
		// 32,765 key parts on one line: the 9th dot, at column 18 ("z"
		// then ".a" eight times is 17 bytes), comes before the line bound.
		{"a dotted key of 32,000 parts", fill("z", ".a", " = 1\n"),
			&FileError{Path: p, Line: 1, Col: 18, Detail: "more than 8 dots outside strings on a line; a class file's keys have at most two parts"}},
		// "x = " then "{a=" over and over: the braces are at columns 5,
		// 8, 11, 14, and the 5th at 17.
		{"21,000 nested inline tables", fill("x = ", "{a=", "}"),
			&FileError{Path: p, Line: 1, Col: 17, Detail: "brackets nested deeper than 4; a class file's tables are flat"}},
		{"a deep table header", fill("[memory", ".a", "]\n"),
			&FileError{Path: p, Line: 1, Col: 24, Detail: "more than 8 dots outside strings on a line; a class file's keys have at most two parts"}},
		{"nested arrays", fill("x = ", "[", ""),
			&FileError{Path: p, Line: 1, Col: 9, Detail: "brackets nested deeper than 4; a class file's tables are flat"}},
		{"one long line in a comment", fill("#", "y", "\n"),
			&FileError{Path: p, Line: 1, Col: MaxClassLineBytes + 1, Detail: "line longer than 4096 bytes; a class file's lines are short"}},
		// validFile's 21 lines, then [z] on line 22 and the string on 23.
		{"one long line in a string", fill(validFile+"[z]\n"+`s = "`, "y", "\"\n"),
			&FileError{Path: p, Line: 23, Col: MaxClassLineBytes + 1, Detail: "line longer than 4096 bytes; a class file's lines are short"}},
		// validFile's 394 bytes and 65,536 newlines: 65,930 bytes.
		{"over the file limit", validFile + strings.Repeat("\n", MaxClassFileBytes),
			&FileError{Path: p, Detail: "65930 bytes, over the 65536-byte limit for a class file"}},
	} {
		if len(c.doc) > MaxClassFileBytes && c.name != "over the file limit" {
			t.Fatalf("%s: fixture of %d bytes, over the limit", c.name, len(c.doc))
		}
		_, err := ParseClass("x", p, c.doc)
		var got *FileError
		if !errors.As(err, &got) {
			t.Fatalf("%s: error %v, want a *FileError", c.name, err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestClassFileAtTheBounds: a file at each bound is read; one past it is
// refused. The bounds hold outside strings and comments only: dots,
// brackets and braces inside them do not count.
func TestClassFileAtTheBounds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		doc  string
		ok   bool
	}{
		{"8 dots", "a.b.c.d.e.f.g.h = 1.5\n", true},
		{"9 dots", "a.b.c.d.e.f.g.h.i = 1.5\n", false},
		{"8 dots on each of two lines", "a.b.c.d.e.f.g.h = 1.5\na.b.c.d.e.f.g.i = 1.5\n", true},
		{"dots in strings and comments", `a = "` + strings.Repeat(".", 100) + `" # ` + strings.Repeat(".", 100) + "\nb = '" + strings.Repeat(".", 100) + "'\n", true},
		{"dots in a multi-line string", "a = \"\"\"\n" + strings.Repeat(".", 100) + "\\\"\"\"\n" + strings.Repeat(".", 100) + "\"\"\"\n", true},
		{"dots in a multi-line literal string", "a = '''\n" + strings.Repeat(".", 100) + "'''\n", true},
		{"an escaped quote does not end a string", `a = "\"` + strings.Repeat(".", 20) + `"` + "\n", true},
		{"depth 4", "a = [[[[1]]]]\n", true},
		{"depth 5", "a = [[[[[1]]]]]\n", false},
		{"depth 4 twice", "a = [[[[1]]]]\nb = {c={d={e=[1]}}}\n", true},
		{"brackets in strings", `a = "[[[[[[{{{{{{"` + "\n", true},
		{"a line of 4096 bytes", "a = \"" + strings.Repeat("x", MaxClassLineBytes-6) + "\"\n", true},
		{"a line of 4097 bytes", "a = \"" + strings.Repeat("x", MaxClassLineBytes-5) + "\"\n", false},
		{"a last line of 4096 bytes without its newline", "#" + strings.Repeat("x", MaxClassLineBytes-1), true},
	} {
		err := checkShape("f", c.doc)
		if (err == nil) != c.ok {
			t.Errorf("%s: checkShape = %v, want ok %v", c.name, err, c.ok)
		}
	}
	// The file limit: MaxClassFileBytes is read, one byte more refused.
	at := validFile + strings.Repeat("\n", MaxClassFileBytes-len(validFile))
	if _, err := ParseClass("x", "f", at); err != nil {
		t.Errorf("a file of %d bytes: %v", len(at), err)
	}
	if _, err := ParseClass("x", "f", at+"\n"); err == nil {
		t.Errorf("a file of %d bytes was read", len(at)+1)
	}
}

// TestClassFileStringsEscaped: a device name or key holding terminal
// escapes is quoted escaped in errors (issue 19, defect 2).
func TestClassFileStringsEscaped(t *testing.T) {
	t.Parallel()
	doc := validFile + "\"\\u001b[31mred\" = 1\n"
	_, err := ParseClass("x", "f", doc)
	if err == nil || strings.ContainsRune(err.Error(), 0x1b) || !strings.Contains(err.Error(), `\x1b[31mred`) {
		t.Errorf("error %q: want the key's ESC written \\x1b", err)
	}
}

// FuzzClassFile: any text up to the file limit is refused or read, in
// time linear in its size (the fuzzer's own deadline catches a hang); a
// file read keeps every bound: its keys have at most MaxClassDots+1 parts.
func FuzzClassFile(f *testing.F) {
	for _, s := range []string{
		validFile,
		"z" + strings.Repeat(".a", 100) + " = 1\n",
		"x = " + strings.Repeat("{a=", 100),
		"[memory" + strings.Repeat(".a", 50) + "]\n",
		"a = \"\"\"\n...\"\"\"\nb = '''[[['''\n# {{{{\n",
		"a = \"\\\"\" # \"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if len(doc) > MaxClassFileBytes+1 {
			return // the limit itself is tested above
		}
		_, md, err := decode("f", doc)
		if len(doc) > MaxClassFileBytes && err == nil {
			t.Fatalf("a file of %d bytes was read", len(doc))
		}
		if err != nil {
			return
		}
		for _, k := range md.Keys() {
			if len(k) > MaxClassDots+1 {
				t.Fatalf("key %v of %d parts read", k, len(k))
			}
		}
	})
}

// TestClassStringsMustBeText: a device name with a terminal escape, which
// classes and report print as they are, is refused naming the key (issue
// 19, defect 2: it was printed raw).
func TestClassStringsMustBeText(t *testing.T) {
	t.Parallel()
	_, err := ParseClass("x", "f", edit(t, `name = "Test GPU"`, `name = "\u001b[31mTest GPU"`))
	// Column 9: the decoder points at a string's first byte inside its
	// opening quote, which is column 8 ("name = " is 7 bytes).
	want := `f [device]: name: must be text without control or format characters, got "\x1b[31mTest GPU" (line 2, column 9)`
	if err == nil || err.Error() != want {
		t.Errorf("ParseClass: %v\nwant %s", err, want)
	}
}
