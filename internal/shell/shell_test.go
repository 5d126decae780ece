package shell

import "testing"

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
