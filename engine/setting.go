package engine

import (
	"fmt"
	"strconv"
)

// SettingError is a serve setting the engine (or the device) refuses: Flag
// is the engine's flag without its dashes, or the environment variable
// where Env says so, Value the value as given or resolved, Reason why it
// is refused. Every engine's Size returns one for every refusal of a
// setting, so that a command can name the flag to change.
type SettingError struct {
	Flag, Value, Reason string
	// Env says Flag names an environment variable
	// (VLLM_USE_V2_MODEL_RUNNER), set where the engine reads its
	// environment settings ([RefuseEnv]), not a flag.
	Env bool
}

// Error returns "--flag value: reason", or "NAME=value: reason" for an
// environment variable, as a launch line sets it.
func (e *SettingError) Error() string {
	if e.Env {
		return fmt.Sprintf("%s=%s: %s", e.Flag, e.Value, e.Reason)
	}
	if e.Value == "" {
		return fmt.Sprintf("--%s: %s", e.Flag, e.Reason)
	}
	return fmt.Sprintf("--%s %s: %s", e.Flag, e.Value, e.Reason)
}

// Refuse returns the *SettingError of flag at value, its reason formatted
// as fmt.Sprintf does.
func Refuse(flag string, value any, format string, args ...any) *SettingError {
	return &SettingError{Flag: flag, Value: fmt.Sprint(value), Reason: fmt.Sprintf(format, args...)}
}

// RefuseEnv returns the *SettingError of environment variable name at
// value, its reason formatted as fmt.Sprintf does.
func RefuseEnv(name string, value any, format string, args ...any) *SettingError {
	e := Refuse(name, value, format, args...)
	e.Env = true
	return e
}

// Switch is a boolean setting that can also be left to the engine's
// default.
type Switch int

// The states of a [Switch].
const (
	Default Switch = iota
	On
	Off
)

// SwitchFlag is one side of a --x / --no-x pair of flags: given, it sets
// the switch to To. It takes no value.
type SwitchFlag struct {
	V  *Switch
	To Switch
}

// String returns "": a switch has no default to print.
func (f *SwitchFlag) String() string { return "" }

// IsBoolFlag reports true: the flag package takes it without a value.
func (f *SwitchFlag) IsBoolFlag() bool { return true }

// Set sets the switch; only the flag package's "true" is accepted.
func (f *SwitchFlag) Set(s string) error {
	if b, err := strconv.ParseBool(s); err != nil || !b {
		return fmt.Errorf("takes no value, got %q", s)
	}
	*f.V = f.To
	return nil
}

// Aliases are the other names an engine registers its flags under, by the
// flag's own name ("tensor-parallel-size": {"tp"}).
type Aliases map[string][]string

// Given reports whether flag, or one of its aliases, is among given (the
// flags given, by the names given).
func (a Aliases) Given(given map[string]bool, flag string) bool {
	if given[flag] {
		return true
	}
	for _, alias := range a[flag] {
		if given[alias] {
			return true
		}
	}
	return false
}
