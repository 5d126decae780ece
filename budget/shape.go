package budget

import "fmt"

// The bounds a class file's text is held to before the TOML decoder reads
// it. A class file is a handful of flat tables of short keys (the shipped
// ones: three tables, 14 keys, lines of at most 800 bytes, no inline table
// or array). BurntSushi/toml v1.6.0 spends time and memory that grow
// faster than the input on long dotted keys and deep nesting (its issue
// #496: a 64 KiB file of one 31,000-part key, or of 15,714 nested inline
// tables, took 38-63 s and 9-12 GB), so these are checked first, in one
// pass over at most [MaxClassFileBytes].
const (
	// MaxClassLineBytes bounds a line: the longest shipped line, a
	// provenance note, is 800 bytes.
	MaxClassLineBytes = 4096
	// MaxClassDepth bounds the nesting of brackets and braces outside
	// strings: a table header is one, [[array of tables]] two; a class
	// file needs no more.
	MaxClassDepth = 4
	// MaxClassDots bounds the dots outside strings on one line: a key has
	// at most two parts (memory.util_ceiling) and a value one decimal
	// point, so 8 leaves room and keeps every key short.
	MaxClassDots = 8
)

// checkShape returns a *FileError naming path and the line when doc breaks
// one of the bounds above. It reads TOML's strings (basic, literal and
// multi-line, with their escapes) and comments only far enough to skip
// them: what is inside a string or comment counts toward the line's length
// only. It never fails a file the decoder accepts within the bounds.
func checkShape(path, doc string) error {
	line, col, depth, dots := 1, 0, 0, 0
	fail := func(format string, args ...any) error {
		return &FileError{Path: path, Line: line, Col: col, Detail: fmt.Sprintf(format, args...)}
	}
	// advance moves past doc[i], keeping the line and column.
	i := 0
	advance := func() error {
		if doc[i] == '\n' {
			line, col, dots = line+1, 0, 0
		} else if col++; col > MaxClassLineBytes {
			return fail("line longer than %d bytes; a class file's lines are short", MaxClassLineBytes)
		}
		i++
		return nil
	}
	// skipTo advances past the next delim, honouring backslash escapes
	// when escapes is set; an unterminated string ends at the end of the
	// text (or of the line, when single), where the decoder will say why.
	skipTo := func(delim string, escapes, single bool) error {
		for i < len(doc) {
			switch {
			case single && doc[i] == '\n':
				return nil
			case escapes && doc[i] == '\\' && i+1 < len(doc):
				if err := advance(); err != nil {
					return err
				}
			case len(doc)-i >= len(delim) && doc[i:i+len(delim)] == delim:
				for range delim {
					if err := advance(); err != nil {
						return err
					}
				}
				return nil
			}
			if err := advance(); err != nil {
				return err
			}
		}
		return nil
	}
	for i < len(doc) {
		c := doc[i]
		var err error
		switch {
		case c == '#':
			err = skipTo("\n", false, true)
		case c == '"' && len(doc)-i >= 3 && doc[i:i+3] == `"""`:
			i, col = i+3, col+3
			err = skipTo(`"""`, true, false)
		case c == '\'' && len(doc)-i >= 3 && doc[i:i+3] == "'''":
			i, col = i+3, col+3
			err = skipTo("'''", false, false)
		case c == '"':
			err = advance()
			if err == nil {
				err = skipTo(`"`, true, true)
			}
		case c == '\'':
			err = advance()
			if err == nil {
				err = skipTo("'", false, true)
			}
		case c == '[' || c == '{':
			if depth++; depth > MaxClassDepth {
				col++
				return fail("brackets nested deeper than %d; a class file's tables are flat", MaxClassDepth)
			}
			err = advance()
		case c == ']' || c == '}':
			depth = max(depth-1, 0)
			err = advance()
		case c == '.':
			if dots++; dots > MaxClassDots {
				col++
				return fail("more than %d dots outside strings on a line; a class file's keys have at most two parts", MaxClassDots)
			}
			err = advance()
		default:
			err = advance()
		}
		if err != nil {
			return err
		}
	}
	return nil
}
