package engine

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"membudget/internal/jsonw/jsonwtest"
)

// TestFootprintJSONAppendsAsEncodingJSON: every field, drawn at its
// extremes and its omitted zero, is written as encoding/json writes it.
func TestFootprintJSONAppendsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		var j FootprintJSON
		jsonwtest.Fill(t, reflect.ValueOf(&j).Elem(), "footprint")
		jsonwtest.Same(t, j)
	})
}
