package main

import (
	"bytes"
	"encoding/json"
	"io"

	"membudget/engine"
	"membudget/internal/jsonw"
)

// gibString renders bytes as GiB with two decimals, as the engines' logs
// do.
func gibString(b uint64) string { return engine.GiB(b) }

// writeJSON writes v as JSON: indented for a person, or, in a batch, on
// one line, counted so that batch knows its answer without parsing it.
func (a *app) writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	if !a.compact {
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	if err := writeCompact(w, enc, v); err != nil {
		return err
	}
	if a.written != nil {
		*a.written++
	}
	return nil
}

// writeCompact writes v on one line as enc would, through v's
// [jsonw.Appender] when it has one (a batch's answers: encoding/json's
// reflection was a third of a batch request's time), else through enc;
// an append that fails leaves the value, and its error, to enc. A writer
// with spare room (a batch's answer buffer, a bytes.Buffer) is appended
// to in place.
func writeCompact(w io.Writer, enc *json.Encoder, v any) error {
	a, ok := v.(jsonw.Appender)
	if !ok {
		return enc.Encode(v)
	}
	var b []byte
	if spare, ok := w.(interface{ AvailableBuffer() []byte }); ok {
		b = spare.AvailableBuffer()
	}
	b, err := a.AppendJSON(b)
	if err != nil {
		return enc.Encode(v)
	}
	_, err = w.Write(append(b, '\n'))
	return err
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
