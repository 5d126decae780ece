// Package engines is the set of inference servers the membudget command
// sizes, for a program that imports membudget. It lives apart from package
// membudget because the engines' tests import that package (for the
// shipped models and classes).
package engines

import (
	"membudget/engine"
	"membudget/engine/sglang"
	"membudget/engine/vllm"
)

// Set returns the engines membudget sizes, behind the seam of
// [engine.Engine], vLLM first (the default of every command).
func Set() *engine.Set {
	set, err := engine.NewSet(vllm.Engine{}, sglang.Engine{})
	if err != nil {
		panic(err) // two engines of the module's own, with distinct names
	}
	return set
}
