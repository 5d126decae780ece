package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"membudget/internal/jsonw"
	"membudget/model/hub"
)

// A model membudget has no family for is sized as a generic decoder (see
// model.ParseGeneric): every answer about it says so first, text and JSON,
// and --strict refuses it instead.

// strictFlag is --strict's usage, the same for every sizing command.
const strictFlag = "refuse a model whose model_type membudget has no family for, instead of sizing it as a generic decoder (weights from its checkpoint, KV from the standard keys)"

// refuseGeneric is --strict's refusal of m, nil when m is sized by its
// family.
func refuseGeneric(strict bool, m *hub.Loaded) error {
	if !strict || !m.Arch.Generic {
		return nil
	}
	return fmt.Errorf("--strict: --model %s: model_type %q is not a family membudget knows; without --strict it is sized as a generic decoder (weights from the checkpoint, KV from the standard keys)", m.Name, m.Arch.ModelType)
}

// writeNotice writes a model's notice (model.Arch.Notice) as the first
// line of a text answer; "" writes nothing.
func writeNotice(w io.Writer, n string) {
	if n != "" {
		fmt.Fprintln(w, n)
	}
}

// writeNoticed writes v as JSON with the notice n first: an object gains a
// first key "notice"; anything else is wrapped as {"notice": n, key: v}.
// Without a notice v is written as it is.
func (a *app) writeNoticed(w io.Writer, n, key string, v any) error {
	if n == "" {
		return a.writeJSON(w, v)
	}
	body, err := jsonw.Any(nil, v)
	if err != nil {
		return err
	}
	note, _ := json.Marshal(n)
	var b bytes.Buffer
	b.WriteString(`{"notice":`)
	b.Write(note)
	body = bytes.TrimSpace(body)
	switch {
	case bytes.Equal(body, []byte("{}")):
		b.WriteByte('}')
	case len(body) > 0 && body[0] == '{':
		b.WriteByte(',')
		b.Write(body[1:])
	default:
		k, _ := json.Marshal(key)
		b.WriteByte(',')
		b.Write(k)
		b.WriteByte(':')
		b.Write(body)
		b.WriteByte('}')
	}
	return a.writeJSON(w, json.RawMessage(b.Bytes()))
}
