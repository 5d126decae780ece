package vllm

import (
	"reflect"
	"strings"
	"testing"

	"membudget/model"
)

// TestStageKeyHoldsEveryShardingField: the compiler keeps a stage's
// weights by stageKey, a copy of model.Sharding's fields (Quant, not
// comparable, as the --quantization name it is resolved from). A field
// added to Sharding and left out of the key would make two shardings of
// different weights share one cache entry: each of Sharding's fields but
// Quant must stand in the key under the same name, lower-cased first.
func TestStageKeyHoldsEveryShardingField(t *testing.T) {
	t.Parallel()
	key := map[string]bool{}
	kt := reflect.TypeFor[stageKey]()
	for i := range kt.NumField() {
		key[kt.Field(i).Name] = true
	}
	st := reflect.TypeFor[model.Sharding]()
	for i := range st.NumField() {
		name := st.Field(i).Name
		if name == "Quant" {
			if !key["quantization"] {
				t.Errorf("stageKey has no quantization for Sharding.Quant")
			}
			continue
		}
		// The rest lower their first letter; the acronyms lower whole.
		want := strings.ToLower(name[:1]) + name[1:]
		switch name {
		case "TP":
			want = "tp"
		case "MXFP4":
			want = "mxfp4"
		case "NVFP4":
			want = "nvfp4"
		}
		if !key[want] {
			t.Errorf("model.Sharding.%s is not in stageKey (as %s): the weights cache would share an entry across its values", name, want)
		}
	}
}
