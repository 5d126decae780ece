package logs

import (
	"regexp"
	"strings"
)

// The settings lines are Python reprs: "key=value, ..." (VllmConfig.__str__,
// SGLang's ServerArgs dataclass repr) and "{'key': value, ...}" (a dict).
// Values nest (SpeculativeConfig(method='mtp', ...), {'image': 0}, [1, 2]),
// strings carry escapes (a Windows path is 'D:\\models\\m'), and public
// quotes elide parts with "...". The scanners below read the top-level pairs
// and skip what they do not understand; every step advances, so no input can
// make them loop.

// scanAssignments reads the top-level key=value pairs of s, stopping at a
// closing bracket that closes nothing in s (the end of "ServerArgs(...)").
func scanAssignments(s string, emit func(key, value string, lit Literal)) {
	keyOK := true // a key may start here: the start, or after a separator
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			i = skipString(s, i)
			keyOK = false
		case isOpener(c):
			i = skipBracket(s, i)
			keyOK = false
		case isCloser(c):
			return
		case keyOK && isIdentStart(c):
			j := i
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			if j < len(s) && s[j] == '=' && (j+1 == len(s) || s[j+1] != '=') {
				value, lit, next, runOn := parseValue(s, j+1)
				emit(s[i:j], value, lit)
				i = next
				// vLLM's engine line lacked a comma after one value
				// ("disable_custom_all_reduce=Falsequantization=None",
				// vllm/engine/llm_engine.py between #4326 and #4428, April
				// 2024): the next key starts right after it.
				keyOK = runOn
				continue
			}
			i = j
			keyOK = false
		default:
			keyOK = c == ' ' || c == ',' || c == '\t'
			i++
		}
	}
}

// scanDict reads the top-level 'key': value pairs of a Python dict whose
// opening brace precedes s, stopping at its closing brace.
func scanDict(s string, emit func(key, value string, lit Literal)) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := skipString(s, i)
			key := unquote(s[i:j])
			k := j
			for k < len(s) && s[k] == ' ' {
				k++
			}
			if k < len(s) && s[k] == ':' {
				value, lit, next, _ := parseValue(s, k+1)
				emit(key, value, lit)
				i = next
				continue
			}
			i = j
		case isOpener(c):
			i = skipBracket(s, i)
		case isCloser(c):
			return
		default:
			i++
		}
	}
}

// parseValue reads one value starting at s[i] (after spaces) and returns it,
// its literal kind, the index after it, and whether a key runs on right after
// it without a separator.
func parseValue(s string, i int) (value string, lit Literal, next int, runOn bool) {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i >= len(s) {
		return "", LiteralOther, i, false
	}
	c := s[i]
	switch {
	case c == '\'' || c == '"':
		j := skipString(s, i)
		return unquote(s[i:j]), LiteralString, j, false
	case isOpener(c):
		j := skipBracket(s, i)
		return s[i:j], LiteralOther, j, false
	}
	j := i
	for j < len(s) {
		b := s[j]
		if b == ' ' || b == ',' || b == '\t' || b == '=' || b == '\'' || b == '"' || isCloser(b) {
			break
		}
		if isOpener(b) { // a call: SpeculativeConfig(...), device(type='cuda')
			j = skipBracket(s, j)
			break
		}
		j++
	}
	tok := s[i:j]
	if j < len(s) && s[j] == '=' {
		for _, w := range []string{"True", "False", "None"} {
			if len(tok) > len(w) && strings.HasPrefix(tok, w) && isIdentStart(tok[len(w)]) {
				return w, literalOf(w), i + len(w), true
			}
		}
	}
	return tok, literalOf(tok), j, false
}

var pythonNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

func literalOf(tok string) Literal {
	switch {
	case tok == "True" || tok == "False":
		return LiteralBool
	case tok == "None":
		return LiteralNone
	case pythonNumber.MatchString(tok):
		return LiteralNumber
	}
	return LiteralOther
}

// skipString returns the index after the string literal that opens at s[i],
// or len(s) when it is not closed.
func skipString(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(s)
}

// skipBracket returns the index after the bracket that opens at s[i] closes,
// skipping strings inside, or len(s) when it does not close.
func skipBracket(s string, i int) int {
	depth := 0
	for j := i; j < len(s); {
		c := s[j]
		switch {
		case c == '\'' || c == '"':
			j = skipString(s, j)
			continue
		case isOpener(c):
			depth++
		case isCloser(c):
			depth--
			if depth == 0 {
				return j + 1
			}
		}
		j++
	}
	return len(s)
}

// unquote returns a Python string literal's contents: quotes removed, the
// escapes a repr writes (\\, \', \", \n, \t, \r) undone, others kept.
func unquote(lit string) string {
	if len(lit) == 0 {
		return lit
	}
	q := lit[0]
	body := lit[1:]
	if len(body) > 0 && body[len(body)-1] == q && !escapedAt(body, len(body)-1) {
		body = body[:len(body)-1]
	}
	if !strings.Contains(body, `\`) {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' || i+1 == len(body) {
			b.WriteByte(body[i])
			continue
		}
		i++
		switch body[i] {
		case '\\', '\'', '"':
			b.WriteByte(body[i])
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte('\\')
			b.WriteByte(body[i])
		}
	}
	return b.String()
}

// escapedAt reports whether s[i] is preceded by an odd run of backslashes.
func escapedAt(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

func isOpener(c byte) bool { return c == '(' || c == '[' || c == '{' }
func isCloser(c byte) bool { return c == ')' || c == ']' || c == '}' }
func isIdentStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}
func isIdentChar(c byte) bool { return isIdentStart(c) || ('0' <= c && c <= '9') }
