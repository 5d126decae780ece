package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

const gib = 1 << 30

// gibString renders bytes as GiB with two decimals, as vLLM's logs do.
func gibString(b uint64) string {
	return fmt.Sprintf("%.2f GiB", float64(b)/gib)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	ab, inBatch := w.(*answerBuffer)
	if !inBatch {
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	// One line per answer in batch, counted so that batch knows its
	// answer without parsing it.
	if err := enc.Encode(v); err != nil {
		return err
	}
	ab.values++
	return nil
}

// answerBuffer is the stdout batch gives each request: writeJSON writes
// its JSON on one line there and counts it.
type answerBuffer struct {
	bytes.Buffer
	values int
}
