package explain

import "fmt"

// Where a setting came from.
const (
	FromFlag    = "flag"
	FromLogged  = "logged"
	FromDefault = "vLLM default"
)

// SettingFrom is where one setting of the serve came from: a flag, or a log
// line.
type SettingFrom struct {
	// Source is [FromFlag] or [FromLogged].
	Source string
	// Value is the value as given or logged.
	Value string
	// Key is the setting's name in the log ("max_model_len"); Detail the
	// kind of line ("engine config", "non-default args", a figure's line);
	// Line its line. Empty for a flag.
	Key    string
	Detail string
	Line   int
}

// Setting is one setting of the serve an explanation sized, as resolved,
// and where it came from.
type Setting struct {
	// Flag is vLLM's flag without its dashes.
	Flag  string `json:"flag"`
	Value string `json:"value"`
	// Source is "logged", "flag" or "vLLM default".
	Source string `json:"source"`
	// Detail is the log line's kind and the key it was read under, or the
	// default's reason.
	Detail string `json:"detail,omitempty"`
	Line   int    `json:"line,omitempty"`
}

// JoinNote joins two notes with "; ", either of which may be empty.
func JoinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// SettingOf returns flag's setting at its resolved value: as the flag gave
// it, as the log line in from gave it when given, else as the engine's
// default, which source names ("vLLM default") and detail explains.
func SettingOf(flag, value string, from SettingFrom, given bool, source, detail string) Setting {
	st := Setting{Flag: flag, Value: value}
	switch {
	case given && from.Source == FromFlag:
		st.Source = FromFlag
	case given:
		st.Source, st.Line = FromLogged, from.Line
		st.Detail = fmt.Sprintf("%s: %s=%s", from.Detail, from.Key, from.Value)
	default:
		st.Source, st.Detail = source, detail
	}
	return st
}
