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
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func jsonUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
