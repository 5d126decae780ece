// Package engines is the set of inference servers the membudget command
// sizes, for a program that imports membudget. It lives apart from package
// membudget because the engines' tests import that package (for the
// shipped models and classes).
package engines

import (
	"sync"

	"membudget/engine"
	"membudget/engine/sglang"
	"membudget/engine/vllm"
)

// Set returns the engines membudget sizes, behind the seam of
// [engine.Engine], vLLM first (the default of every command). The set is
// made once and shared: it is read-only after [engine.NewSet], which
// registers every flag of every engine to learn whose each is (a batch or
// a server made a new one for each run).
func Set() *engine.Set { return set() }

var set = sync.OnceValue(func() *engine.Set {
	s, err := engine.NewSet(vllm.Engine{}, sglang.Engine{})
	if err != nil {
		panic(err) // two engines of the module's own, with distinct names
	}
	return s
})
