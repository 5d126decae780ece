package engines_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engines"
)

// TestSetIsTheCommands: vLLM, the default, then SGLang, as --engine lists
// them.
func TestSetIsTheCommands(t *testing.T) {
	t.Parallel()
	set := engines.Set()
	var got []string
	for _, e := range set.Engines() {
		got = append(got, e.Name())
	}
	if diff := cmp.Diff([]string{"vllm", "sglang"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if set.Default().Name() != "vllm" {
		t.Errorf("default %s, want vllm", set.Default().Name())
	}
}
