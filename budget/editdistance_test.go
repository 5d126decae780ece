package budget

import "testing"

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "ab", 2},
		// kitten -> sitten -> sittin -> sitting.
		{"kitten", "sitting", 3},
		{"tp", "pp", 1},
		// A swap of neighbours is one edit (Levenshtein would count 2).
		{"tp", "pt", 1},
	}
	for _, tc := range cases {
		if got := EditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
