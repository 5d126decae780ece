package vllm

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"membudget/internal/jsonw/jsonwtest"
)

// TestServeJSONAppendsAsEncodingJSON: a serve section with every field
// drawn, its features present or not, is written as encoding/json writes
// it.
func TestServeJSONAppendsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		var s serveJSON
		jsonwtest.Fill(t, reflect.ValueOf(&s).Elem(), "serve")
		jsonwtest.Same(t, s)
	})
}
