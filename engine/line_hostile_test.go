package engine

import "testing"

func TestIsNegativeNumber(t *testing.T) {
	t.Parallel()
	// argparse's matcher: '^-\d+$|^-\d*\.\d+$'.
	for s, want := range map[string]bool{
		"-0": true, "-12": true, "-.5": true, "-1.5": true,
		"-": false, "--0": false, "-1.": false, "-x": false, "-1e5": false, "0": false, "--max-model-len": false, "-0.5.1": false,
	} {
		if got := IsNegativeNumber(s); got != want {
			t.Errorf("IsNegativeNumber(%q) = %v, want %v", s, got, want)
		}
	}
}
