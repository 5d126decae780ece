package model

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// pythonConstants are the tokens Python's json module writes for floats
// JSON has no literal for (json.dumps, allow_nan=True): published Mamba2
// configs hold "time_step_limit": [0.0, Infinity].
var pythonConstants = []string{"-Infinity", "Infinity", "NaN"}

// fromPythonJSON returns data with Python's NaN, Infinity and -Infinity
// outside strings turned into the strings "NaN", "Infinity" and
// "-Infinity", so that a standard JSON decoder reads the file and a key that
// must be a size reports the value it got rather than failing the file.
// Text inside strings is left alone.
func fromPythonJSON(data []byte) []byte {
	if !bytes.Contains(data, []byte("Infinity")) && !bytes.Contains(data, []byte("NaN")) {
		return data
	}
	var out bytes.Buffer
	out.Grow(len(data) + 16)
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			out.WriteByte(c)
			continue
		}
		matched := false
		for _, k := range pythonConstants {
			if bytes.HasPrefix(data[i:], []byte(k)) && !identByte(data, i+len(k)) && (i == 0 || !identByte(data, i-1)) {
				out.WriteString(`"` + k + `"`)
				i += len(k) - 1
				matched = true
				break
			}
		}
		if !matched {
			out.WriteByte(c)
		}
	}
	return out.Bytes()
}

// identByte reports whether data[i] continues a bare word (so that a key
// of that spelling is not mistaken for a constant).
func identByte(data []byte, i int) bool {
	if i < 0 || i >= len(data) {
		return false
	}
	c := data[i]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// duplicateKey returns the path of the first key that appears twice in one
// object of a JSON document ("text_config.num_hidden_layers"), or "" when
// none does. Go's decoder would silently keep the last; Python's json.load
// does the same, so a config with a duplicate says one thing to its author
// and another to every tool: it is refused.
func duplicateKey(data []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return scanValue(dec, "")
}

func scanValue(dec *json.Decoder, path string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return "", nil
	}
	switch d {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return "", err
			}
			key, ok := kt.(string)
			if !ok {
				return "", fmt.Errorf("object key is not a string")
			}
			child := key
			if path != "" {
				child = path + "." + key
			}
			if seen[key] {
				return child, nil
			}
			seen[key] = true
			if dup, err := scanValue(dec, child); dup != "" || err != nil {
				return dup, err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if dup, err := scanValue(dec, fmt.Sprintf("%s[%d]", path, i)); dup != "" || err != nil {
				return dup, err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return "", err
}
