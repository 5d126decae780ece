package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
	"membudget/engines"
)

// TestWriteAdviceNamesTheServeAsGiven: a suggestion without flags is the
// serve as given at the bound it names (a smaller --max-num-seqs would not
// fit, engine/vllm's boundSeqs), and the report says so rather than print
// an empty change.
func TestWriteAdviceNamesTheServeAsGiven(t *testing.T) {
	eng := engines.Set().Default()
	adv := engine.Advice{Suggestions: []engine.Suggestion{
		{Flags: "", Why: "at most 1 sequence(s) of 1 tokens at a time with --max-num-seqs kept at 5", GPUs: 2},
		{Flags: "--kv-cache-dtype fp8", Why: "5 sequence(s) of 1 tokens fit", GPUs: 2, Holds: true},
	}}
	var out bytes.Buffer
	writeAdvice(&out, adv, eng, 2, 5, 1)
	want := "  to fit: the serve as given (at most 1 sequence(s) of 1 tokens at a time with --max-num-seqs kept at 5)\n" +
		"  to fit: --kv-cache-dtype fp8 (5 sequence(s) of 1 tokens fit)\n" +
		"  each checked by the same evaluator, at 5 sequence(s) of 1 tokens or at the bound it names, and " + eng.Title() + " starts it\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("advice (-want +got):\n%s", diff)
	}
}

// TestSuggestedChange: suggestedChange, which every printer of a
// suggestion calls (report, check's text, GitHub and JUnit forms), names an
// empty change as the serve as given rather than print nothing; only the
// report's printer is run end to end (above).
func TestSuggestedChange(t *testing.T) {
	for flags, want := range map[string]string{"": "the serve as given", "--max-num-seqs 8": "--max-num-seqs 8"} {
		if got := suggestedChange(flags); got != want {
			t.Errorf("suggestedChange(%q) = %q, want %q", flags, got, want)
		}
	}
}
