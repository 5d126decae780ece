package sglang

import (
	"flag"

	"membudget/engine"
)

// RegisterFor registers SGLang's modelled flags, and of the table's others
// (flagtable.go) only the ones args name (see [engine.ArgsRegisterer]).
func (f *flagServe) RegisterFor(fs *flag.FlagSet, model *string, args []string) {
	f.register(fs, model)
	f.registerTable(fs, engine.NamedFlags(args))
}
