package engine

import (
	"fmt"
	"strings"
)

// SplitEnv takes the leading NAME=value assignments off a pasted line, as
// a shell reads them before the command.
func SplitEnv(args []string) (env, rest []string) {
	i := 0
	for i < len(args) && IsEnvAssignment(args[i]) {
		i++
	}
	return args[:i], args[i:]
}

// IsEnvAssignment reports whether s is a shell's NAME=value prefix: a
// name of letters, digits and underscores, not starting with a digit.
func IsEnvAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// IsPython reports whether s names a Python interpreter: python, python3
// or python3.N, by path or not.
func IsPython(s string) bool {
	base := s[strings.LastIndex(s, "/")+1:]
	return base == "python" || base == "python3" || strings.HasPrefix(base, "python3.")
}

// TakeRevision takes --revision (and --revision=R) out of the flags of a
// pasted launch line, named line in messages, for the command to resolve
// the model at it once the model is known; a --revision without a value,
// or two that differ, is an error.
func TakeRevision(args []string, line string) (rest []string, revision string, err error) {
	for i := 0; i < len(args); i++ {
		value, ok := strings.CutPrefix(args[i], "--revision=")
		switch {
		case ok:
		case args[i] != "--revision":
			rest = append(rest, args[i])
			continue
		case i+1 == len(args) || strings.HasPrefix(args[i+1], "-"):
			return nil, "", fmt.Errorf("--revision in %s needs a value: a branch, tag or commit", line)
		default:
			i++
			value = args[i]
		}
		if revision != "" && value != revision {
			return nil, "", fmt.Errorf("%s gives --revision twice: %s and %s", line, revision, value)
		}
		revision = value
	}
	return rest, revision, nil
}

// SplitIgnored takes out of a launch line's flags those that do not change
// memory: ignored holds each flag name with whether it takes a value, and
// canon turns a flag's name as typed into the engine's spelling. What is
// kept keeps its order; what is ignored is returned as given, with its
// value.
func SplitIgnored(args []string, ignored map[string]bool, canon func(string) string) (kept, dropped []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takesValue, skip := ignored[canon(name)]
		if !strings.HasPrefix(a, "-") || name == "" || !skip {
			kept = append(kept, a)
			continue
		}
		if takesValue && !hasValue && i+1 < len(args) {
			dropped = append(dropped, a+" "+args[i+1])
			i++
			continue
		}
		dropped = append(dropped, a)
	}
	return kept, dropped
}
