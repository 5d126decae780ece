package main

import (
	"bytes"
	"encoding/json"
	"io"

	"membudget/engine"
)

// gibString renders bytes as GiB with two decimals, as the engines' logs
// do.
func gibString(b uint64) string { return engine.GiB(b) }

// bytesString renders bytes as GiB and exactly.
func bytesString(b uint64) string { return engine.GiBAndBytes(b) }

// writeJSON writes v as JSON: indented for a person, or, in a batch, on
// one line, counted so that batch knows its answer without parsing it.
func (a *app) writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	if !a.compact {
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	if a.written != nil {
		*a.written++
	}
	return nil
}

// object is a JSON object whose fields are written in their order: an
// engine's fields sit among the command's own.
type object []engine.Field

// MarshalJSON writes the fields in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
