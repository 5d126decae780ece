package enginetest

import (
	"context"
	"testing"

	"membudget"
	"membudget/model/hub"
)

// Shipped loads every model shipped in corpus/models as the commands load
// --model (offline, with its hf_quant_config.json), by id.
func Shipped(t testing.TB) map[string]*hub.Loaded {
	t.Helper()
	r := hub.Resolver{Offline: true, CacheDir: t.TempDir(), Shipped: membudget.ModelConfig, ShippedIDs: membudget.ModelNames(),
		ShippedQuantConfig: membudget.ModelQuantConfig}
	out := map[string]*hub.Loaded{}
	for _, name := range membudget.ModelNames() {
		m, err := r.Load(context.Background(), name)
		if err != nil {
			t.Fatalf("shipped model %s: %v", name, err)
		}
		out[name] = m
	}
	if len(out) == 0 {
		t.Fatal("no shipped models")
	}
	return out
}

// Points are the (sequences, tokens) the suite compares plan and ledger
// at on a serve whose caps are seqs and length: the edges and a few
// between.
func Points(seqs, length uint64) [][2]uint64 {
	return [][2]uint64{{0, 0}, {1, 1}, {1, length}, {seqs, 1}, {seqs, length}, {max(seqs/2, 1), max(length/3, 1)}, {seqs + 1, length + 1}}
}
