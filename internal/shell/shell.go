// Package shell writes words for the POSIX shell command lines membudget
// prints (`vllm serve`, SGLang's launch line, a --kernels directory), so
// that each can be pasted as it is.
package shell

import (
	"errors"
	"strings"
)

// Quote returns s as one POSIX shell word: s itself when it is not empty
// and holds only ASCII letters, digits and -_./@:+=,% (the characters of a
// model id, a revision or a plain path), else s in single quotes, each
// single quote in it closed, escaped and reopened.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./@:+=,%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Split returns the words of a line as a POSIX shell splits it, for the
// lines Quote writes: blanks separate words, single quotes keep what they
// hold as it is, and a backslash outside them keeps the next character. An
// unclosed quote is an error.
func Split(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quoted, escaped := false, false, false
	for _, r := range line {
		switch {
		case escaped:
			w.WriteRune(r)
			escaped = false
		case quoted:
			if r == '\'' {
				quoted = false
			} else {
				w.WriteRune(r)
			}
		case r == '\'':
			quoted, inWord = true, true
		case r == '\\':
			escaped, inWord = true, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quoted || escaped {
		return nil, errors.New("unclosed quote or trailing backslash")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
