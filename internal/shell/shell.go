// Package shell writes words for the POSIX shell command lines membudget
// prints (`vllm serve`, SGLang's launch line, a --kernels directory), so
// that each can be pasted as it is.
package shell

import "strings"

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
