package check

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"membudget/engine"
)

// word is one shell word once quotes are removed and variables expanded;
// unknown names a variable, a command substitution or a glob the script
// leaves to run time, which membudget cannot read.
type word struct {
	text    string
	line    int
	unknown string
}

// shellCommand is one simple command of a script, and the line it begins on.
type shellCommand struct {
	words []word
	line  int
}

// shellScanner splits a POSIX shell script into simple commands, as far as a
// launch line needs: quotes, backslashes, comments, line continuations, the
// separators ; & && || | and newlines, and $NAME / ${NAME} from the
// assignments the script made before. What it does not follow (command
// substitution, ${NAME:-default}, positional parameters) leaves the word
// unknown rather than guessed.
type shellScanner struct {
	src  []rune
	pos  int
	line int
	vars map[string]string
}

func newShellScanner(src string, line int, vars map[string]string) *shellScanner {
	return &shellScanner{src: []rune(src), line: line, vars: vars}
}

func (s *shellScanner) peek(off int) rune {
	if s.pos+off < len(s.src) {
		return s.src[s.pos+off]
	}
	return 0
}

func (s *shellScanner) advance() rune {
	r := s.src[s.pos]
	s.pos++
	if r == '\n' {
		s.line++
	}
	return r
}

// next returns the next command that has a word; ok is false at the end.
func (s *shellScanner) next() (c shellCommand, ok bool) {
	for s.pos < len(s.src) {
		r := s.peek(0)
		switch {
		case r == '\\' && s.peek(1) == '\n':
			s.advance()
			s.advance()
		case r == ' ' || r == '\t' || r == '\r':
			s.advance()
		case r == '#':
			for s.pos < len(s.src) && s.peek(0) != '\n' {
				s.advance()
			}
		case r == '\n' || r == ';' || r == '&' || r == '|' || r == '(' || r == ')':
			s.advance()
			if len(c.words) > 0 {
				return c, true
			}
		default:
			w := s.word()
			if len(c.words) == 0 {
				c.line = w.line
			}
			c.words = append(c.words, w)
		}
	}
	return c, len(c.words) > 0
}

// word reads one word at s.pos.
func (s *shellScanner) word() word {
	w := word{line: s.line}
	var b strings.Builder
	unknown := func(what string) {
		if w.unknown == "" {
			w.unknown = what
		}
	}
	for s.pos < len(s.src) {
		r := s.peek(0)
		switch {
		case r == '\\' && s.peek(1) == '\n':
			s.advance()
			s.advance()
			continue
		case strings.ContainsRune(" \t\r\n;&|()", r):
			w.text = b.String()
			return w
		case r == '\\':
			s.advance()
			if s.pos < len(s.src) {
				b.WriteRune(s.advance())
			}
		case r == '\'':
			s.advance()
			for s.pos < len(s.src) && s.peek(0) != '\'' {
				b.WriteRune(s.advance())
			}
			if s.pos < len(s.src) {
				s.advance()
			}
		case r == '"':
			s.advance()
			for s.pos < len(s.src) && s.peek(0) != '"' {
				switch c := s.peek(0); {
				case c == '\\' && strings.ContainsRune("$`\"\\\n", s.peek(1)):
					s.advance()
					if n := s.advance(); n != '\n' {
						b.WriteRune(n)
					}
				default:
					s.expand(&b, unknown)
				}
			}
			if s.pos < len(s.src) {
				s.advance()
			}
		default:
			s.expand(&b, unknown)
		}
	}
	w.text = b.String()
	return w
}

// expand writes the rune at s's position into b as the shell reads it
// outside single quotes: a $ expanded, a command substitution named as
// unknown (and kept), anything else as it is.
func (s *shellScanner) expand(b *strings.Builder, unknown func(string)) {
	switch s.peek(0) {
	case '$':
		s.dollar(b, unknown)
	case '`':
		unknown("a command substitution `...`")
		b.WriteRune(s.advance())
	default:
		b.WriteRune(s.advance())
	}
}

// dollar expands $NAME or ${NAME} at s.pos into b from the script's
// assignments; anything else beginning with $ is left unknown.
func (s *shellScanner) dollar(b *strings.Builder, unknown func(string)) {
	s.advance() // $
	braced := s.peek(0) == '{'
	if braced {
		s.advance()
	}
	start := s.pos
	for s.pos < len(s.src) && isNameRune(s.peek(0), s.pos > start) {
		s.advance()
	}
	name := string(s.src[start:s.pos])
	switch {
	case name == "" && s.peek(0) == '(':
		unknown("a command substitution $(...)")
		b.WriteString("$")
		return
	case name == "":
		unknown("$" + string(s.peek(0)))
		b.WriteString("$")
		return
	case braced && s.peek(0) != '}':
		unknown("${" + name + "...}")
		for s.pos < len(s.src) && s.peek(0) != '}' {
			s.advance()
		}
	}
	if braced && s.pos < len(s.src) {
		s.advance() // }
	}
	v, ok := s.vars[name]
	if !ok {
		unknown("$" + name)
		b.WriteString("$" + name)
		return
	}
	b.WriteString(v)
}

func isNameRune(r rune, notFirst bool) bool {
	return r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || notFirst && r >= '0' && r <= '9'
}

// commandWords are the words before a launch line that a shell runs it
// under without changing it: wrappers, and the reserved words that may
// begin a command's line (then vllm serve ...).
var commandWords = []string{"exec", "nohup", "env", "time", "command", "then", "do", "else", "{", "!"}

// readScript finds the launch lines of a shell script: each command whose
// words, after the wrappers above and NAME=value assignments, begin one.
// The script's exported assignments before it are its environment.
func readScript(name, src string, o Options) []Server {
	vars := map[string]string{}
	exported := map[string]bool{}
	servers := scriptServers(name, src, 1, vars, exported, o, func(shellCommand) string { return "shell script" })
	sortServers(servers)
	return servers
}

// scriptServers reads src (its first line is line) with the variables
// vars, the exported ones named in exported, both updated as the script
// assigns them; where names each server found.
func scriptServers(file, src string, line int, vars map[string]string, exported map[string]bool, o Options, where func(shellCommand) string) []Server {
	var servers []Server
	sc := newShellScanner(src, line, vars)
	for {
		c, ok := sc.next()
		if !ok {
			return servers
		}
		words := c.words
		export := len(words) > 0 && words[0].text == "export"
		if export {
			words = words[1:]
		}
		for len(words) > 0 && slices.Contains(commandWords, words[0].text) {
			words = words[1:]
		}
		var assigned []word
		for len(words) > 0 && engine.IsEnvAssignment(words[0].text) {
			assigned = append(assigned, words[0])
			words = words[1:]
		}
		if len(words) == 0 || export {
			// A command of assignments sets the script's variables.
			for _, a := range assigned {
				k, v, _ := strings.Cut(a.text, "=")
				vars[k] = v
				if export {
					exported[k] = true
				}
			}
			if export {
				for _, w := range words {
					exported[w.text] = true
				}
			}
			continue
		}
		args := make([]string, 0, len(words))
		for _, w := range words {
			args = append(args, w.text)
		}
		args = Normalise(args)
		if !o.IsLine(args) {
			continue
		}
		// The environment: what the script exported, then what the
		// command assigns itself, which wins.
		env := map[string]string{}
		for k := range exported {
			if v, ok := vars[k]; ok {
				env[k] = v
			}
		}
		var unknown string
		for _, a := range assigned {
			k, v, _ := strings.Cut(a.text, "=")
			env[k] = v
			if unknown == "" && a.unknown != "" {
				unknown = a.unknown
			}
		}
		for _, w := range words {
			if unknown == "" && w.unknown != "" {
				unknown = w.unknown
			}
		}
		srv := Server{File: file, Line: c.line, Where: where(c), Args: append(envList(env), args...)}
		if unknown != "" {
			srv.Err = fmt.Sprintf("the launch line uses %s, which the file does not set: membudget reads launch lines as written", unknown)
		}
		servers = append(servers, srv)
	}
}

// envList returns env as NAME=value assignments, sorted by name.
func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// vllmModule is the Python module of vLLM's OpenAI-compatible server,
// which `vllm serve` runs (vllm/entrypoints/cli/serve.py at v0.10.0; the
// module's own __main__ is kept for the older launch line).
const vllmModule = "vllm.entrypoints.openai.api_server"

// Normalise turns the launch-line forms the engines' readers do not yet
// take into the form they do: `python -m vllm.entrypoints.openai.api_server
// FLAGS` becomes `vllm serve FLAGS` (the module takes the model as
// --model, which vllm serve also takes). NAME=value assignments before it
// are kept. Other lines are returned as they are.
func Normalise(args []string) []string {
	env, rest := engine.SplitEnv(args)
	if len(rest) >= 3 && engine.IsPython(rest[0]) && rest[1] == "-m" && rest[2] == vllmModule {
		out := append(slices.Clone(env), "vllm", "serve")
		return append(out, rest[3:]...)
	}
	return args
}
