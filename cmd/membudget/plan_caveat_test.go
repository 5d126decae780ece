package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
)

// TestCaveatNotes: each caveat the printed deployments carry is noted
// once, naming them by their place in the list (1-based, as the launch
// lines number them), in the order the caveats first appear; none
// without a caveat.
func TestCaveatNotes(t *testing.T) {
	a, b := "SGLang starts, but A", "SGLang starts, but B"
	for _, tt := range []struct {
		name  string
		shown []engine.Deployment
		want  []string
	}{
		{"none", []engine.Deployment{{}, {}}, []string{}},
		{"empty", nil, []string{}},
		// The 2nd alone: "deployment 2".
		{"one", []engine.Deployment{{}, {Caveat: a}, {}}, []string{"deployment 2: " + a}},
		// 1st and 3rd share a, the 2nd has b: a first, the places joined.
		{"two", []engine.Deployment{{Caveat: a}, {Caveat: b}, {Caveat: a}}, []string{"deployments 1, 3: " + a, "deployment 2: " + b}},
	} {
		if diff := cmp.Diff(tt.want, caveatNotes(tt.shown)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
