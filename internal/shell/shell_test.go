package shell

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"},
		{"/models/llama_3@v1:x+y=z,50%", "/models/llama_3@v1:x+y=z,50%"},
		{"", "''"},                     // an empty word must still be a word
		{"my model", "'my model'"},     // a space splits words
		{"it's", `'it'\''s'`},          // a quote closes, is escaped, reopens
		{"$HOME/x", "'$HOME/x'"},       // no expansion
		{"a;rm -rf ~", "'a;rm -rf ~'"}, // no second command
		{"*?[]{}()<>|&!#`\\\"", "'*?[]{}()<>|&!#`\\\"'"},
		{"modèle", "'modèle'"},           // not ASCII: quoted
		{"line\nbreak", "'line\nbreak'"}, // a newline stays inside the quotes
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSplitReadsQuote: the words Quote writes, joined by blanks, split
// back into the same words.
func TestSplitReadsQuote(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		words := rapid.SliceOf(rapid.String()).Draw(t, "words")
		line := ""
		for i, w := range words {
			if i > 0 {
				line += " "
			}
			line += Quote(w)
		}
		got, err := Split(line)
		if err != nil {
			t.Fatalf("Split(%q): %v", line, err)
		}
		if len(words) == 0 {
			words = nil
		}
		if diff := cmp.Diff(words, got); diff != "" {
			t.Fatalf("Split(%q) (-want +got):\n%s", line, diff)
		}
	})
}

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`vllm serve m --pooler-config '{"seq_pooling_type": "LAST"}'`, []string{"vllm", "serve", "m", "--pooler-config", `{"seq_pooling_type": "LAST"}`}},
		{`a\ b  c`, []string{"a b", "c"}},
		{`''`, []string{""}},
	} {
		got, err := Split(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Split(%q) (-want +got):\n%s", c.in, diff)
		}
	}
	if _, err := Split("'open"); err == nil {
		t.Error("an unclosed quote split")
	}
}
