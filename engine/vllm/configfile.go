package vllm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"membudget/engine"
	"membudget/model/hub"
)

// maxConfigBytes bounds a --config file membudget reads: a file of flags
// is a few hundred bytes; one larger than this is not one.
const maxConfigBytes = 1 << 20

// configKey is a key of a --config file: a flag's name, dashes or
// underscores.
var configKey = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// loadConfigFile reads vLLM's --config file at path as vLLM's
// FlexibleArgumentParser.load_config_file does (vllm/utils/argparse_utils.py
// at main), into the flags it stands for: true is --key, false --no-key
// where the flag has that form (else nothing), a list --key item..., a
// mapping --key JSON, any other value --key value. membudget reads a
// strict subset of YAML, flat key: value lines, with a list or mapping
// only in flow form ([a, b], a JSON object); anything else is an error
// naming the file and line, never a guess.
func loadConfigFile(path string) ([]string, error) {
	if ext := path[strings.LastIndex(path, ".")+1:]; ext != "yaml" && ext != "yml" {
		return nil, fmt.Errorf("--config %s: vLLM reads only a .yaml or .yml file", path)
	}
	data, err := hub.ReadRegularFile(path, maxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	var out []string
	seen := map[string]bool{}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, " \t\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		bad := func(why string) error {
			return fmt.Errorf("--config %s line %d: %s; membudget reads flat key: value lines only (give the flags on the line)", path, n+1, why)
		}
		if line[0] == ' ' || line[0] == '\t' {
			return nil, bad("an indented (nested) entry")
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || !configKey.MatchString(key) || value != "" && value[0] != ' ' {
			return nil, bad("not key: value")
		}
		if seen[key] {
			return nil, bad("key " + key + " given twice")
		}
		seen[key] = true
		args, err := configArgs(key, strings.TrimSpace(value))
		if err != nil {
			return nil, bad(err.Error())
		}
		out = append(out, args...)
	}
	return out, nil
}

// configArgs is one key: value of a --config file as the flags vLLM makes
// of it (see loadConfigFile).
func configArgs(key, value string) ([]string, error) {
	flag := "--" + key
	switch {
	case value == "":
		return nil, fmt.Errorf("%s has no value (a nested block, or null)", key)
	case strings.HasPrefix(value, "{"):
		if !json.Valid([]byte(value)) {
			return nil, fmt.Errorf("%s: a mapping that is not JSON", key)
		}
		return []string{flag, value}, nil
	case strings.HasPrefix(value, "["):
		items, err := flowList(value)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", key, err)
		}
		if len(items) == 0 {
			return nil, nil
		}
		return append([]string{flag}, items...), nil
	}
	s, err := scalar(value)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", key, err)
	}
	if s.quoted {
		return []string{flag, s.text}, nil
	}
	// PyYAML's booleans (YAML 1.1), and its null.
	switch strings.ToLower(s.text) {
	case "true", "yes", "on":
		return []string{flag}, nil
	case "false", "no", "off":
		if fl, _, ok := lookupFlag(strings.ReplaceAll(key, "_", "-")); ok && fl.neg {
			return []string{"--no-" + key}, nil
		}
		return nil, nil
	case "null", "~":
		return nil, fmt.Errorf("%s is null", key)
	}
	return []string{flag, s.text}, nil
}

// yamlScalar is one scalar of the subset: its text, and whether it was
// quoted (a quoted true is a string).
type yamlScalar struct {
	text   string
	quoted bool
}

// scalar reads one scalar: 'single' (a quote doubled for one), "double" (without
// escapes), or plain (a trailing " # comment" taken off), which must not
// begin with one of YAML's indicators or hold ": ".
func scalar(v string) (yamlScalar, error) {
	switch v[0] {
	case '\'':
		if len(v) < 2 || v[len(v)-1] != '\'' {
			return yamlScalar{}, fmt.Errorf("an unclosed quote")
		}
		inner := v[1 : len(v)-1]
		if strings.Contains(strings.ReplaceAll(inner, "''", ""), "'") {
			return yamlScalar{}, fmt.Errorf("text after a closing quote")
		}
		return yamlScalar{strings.ReplaceAll(inner, "''", "'"), true}, nil
	case '"':
		if len(v) < 2 || v[len(v)-1] != '"' || strings.ContainsAny(v[1:len(v)-1], "\"\\") {
			return yamlScalar{}, fmt.Errorf("a double-quoted value with escapes or text after its quote")
		}
		return yamlScalar{v[1 : len(v)-1], true}, nil
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	if strings.ContainsAny(v[:1], "[]{}#&*!|>%@`,") || strings.HasPrefix(v, "- ") || strings.Contains(v, ": ") {
		return yamlScalar{}, fmt.Errorf("%q is not a plain value", v)
	}
	return yamlScalar{text: v}, nil
}

// flowList reads [a, b, 'c'] into its items' texts.
func flowList(v string) ([]string, error) {
	if !strings.HasSuffix(v, "]") || strings.ContainsAny(v[1:len(v)-1], "[]{}") {
		return nil, fmt.Errorf("a list other than [a, b]")
	}
	inner := strings.TrimSpace(v[1 : len(v)-1])
	if inner == "" {
		return nil, nil
	}
	var items []string
	for _, part := range strings.Split(inner, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("an empty list item")
		}
		s, err := scalar(part)
		if err != nil {
			return nil, err
		}
		items = append(items, s.text)
	}
	return items, nil
}

// spliceConfig replaces a --config FILE in args (the command's arguments,
// respelled) with the flags the file stands for, where vLLM puts them
// (vllm/utils/argparse_utils.py _pull_args_from_config): after `vllm serve
// MODEL`, after the API server's module, else before the other flags, so
// that a flag given on the line overrides the file's. A file it cannot
// read leaves --config for [flagServe.Judge] to refuse, naming why.
func spliceConfig(args []string) []string {
	at, path := -1, ""
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--config="); ok {
			at, path = i, v
			break
		}
		if a == "--config" && i+1 < len(args) {
			at, path = i, args[i+1]
			break
		}
	}
	if at < 0 {
		return args
	}
	fromFile, err := loadConfigFile(path)
	if err != nil {
		return args
	}
	width := 2
	if strings.HasPrefix(args[at], "--config=") {
		width = 1
	}
	insert := 0
	for i := range args[:at] {
		if args[i] == "vllm" && i+1 < at && args[i+1] == "serve" {
			insert = i + 2
			if insert < at && !strings.HasPrefix(args[insert], "-") {
				insert++
			}
			break
		}
		if module, n := engine.PythonModule(args[i:]); module == apiServerModule {
			insert = i + n
			break
		}
	}
	out := make([]string, 0, len(args)+len(fromFile))
	out = append(out, args[:insert]...)
	out = append(out, fromFile...)
	out = append(out, args[insert:at]...)
	return append(out, args[at+width:]...)
}
