package main

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"membudget/internal/jsonw/jsonwtest"
)

// TestQueryAnswerAppendsAsEncodingJSON: an answer with every field drawn,
// its serve absent, a plain value or an engine's section, is written as
// encoding/json writes it.
func TestQueryAnswerAppendsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		var q queryAnswer
		jsonwtest.Fill(t, reflect.ValueOf(&q).Elem(), "answer")
		switch rapid.IntRange(0, 2).Draw(t, "serve") {
		case 1:
			q.Serve = map[string]string{"<k>": jsonwtest.Text().Draw(t, "serve value")}
		case 2:
			q.Serve = q.At
		}
		jsonwtest.Same(t, q)
	})
}
