package engine

// Arity is how many values one of a server's flags takes, as its argparse
// reads them: both engines membudget sizes parse their command lines with
// Python's argparse, and their flag tables share these words.
type Arity uint8

const (
	// NoValue is a switch (store_true, store_false, or argparse's
	// BooleanOptionalAction; SGLang's DeprecatedAction, nargs 0).
	NoValue Arity = iota
	// OneValue is one value.
	OneValue
	// ManyValues is argparse's nargs="+" or "*": every argument up to the
	// next flag.
	ManyValues
	// OptValue is argparse's nargs="?": a value when one follows.
	OptValue
)

// FlagKind is what membudget does with one of a server's flags: each row
// of an engine's flag table is one of three kinds.
type FlagKind uint8

const (
	// Modelled flags are registered by the engine's [Serve] and sized (or
	// refused by its resolve step with a [*SettingError] where a value is
	// not sized).
	Modelled FlagKind = iota
	// Ignored flags do not change memory: they are listed as ignored.
	Ignored
	// Refused flags change memory in ways membudget does not model: they
	// are refused by name, with what they would add.
	Refused
)
