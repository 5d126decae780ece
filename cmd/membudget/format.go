package main

import (
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
