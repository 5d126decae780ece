package model_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/model"
	"membudget/model/hub"
	"membudget/model/safetensors"
)

// TestHeaderFixturesFromDirectory: each full-size header fixture written
// as a checkpoint directory (config.json beside one safetensors file whose
// data is a sparse hole) and loaded as `--model <dir>` loads it: a family
// with checkpoint rules reads every tensor and its weights from the
// checkpoint are its weights from config, at TP1 and at TP2 where the heads
// divide; a family without
// rules says so and sizes from config.json.
func TestHeaderFixturesFromDirectory(t *testing.T) {
	for name, fixture := range model.HeaderFixtures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			config, ts := fixture()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644); err != nil {
				t.Fatal(err)
			}
			head, data, err := safetensors.Encode(ts, map[string]string{"format": "pt"})
			if err != nil {
				t.Fatal(err)
			}
			st := filepath.Join(dir, "model.safetensors")
			if err := os.WriteFile(st, head, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(st, int64(len(head))+int64(data)); err != nil {
				t.Fatal(err)
			}
			l, err := hub.Resolver{}.Load(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			a := l.Arch
			if a.Checkpoint == nil {
				// A family without rules: refused by name, sized from config.json.
				if !strings.Contains(l.NoCheckpoint, model.ErrNoCheckpointRules.Error()) ||
					!slices.ContainsFunc(l.Warnings, func(w string) bool { return strings.HasPrefix(w, "weights derived from config.json") }) {
					t.Errorf("no checkpoint: %q, warnings %q; want the rules refused by name", l.NoCheckpoint, l.Warnings)
				}
			} else if ok, why := model.UsesCheckpoint(a, model.Whole(a, 1, 2, a.Quant)); !ok || len(l.Notes.Unknown) > 0 || len(l.Warnings) > 0 {
				t.Errorf("checkpoint used %v (%s), unknown tensors %v, warnings %q", ok, why, l.Notes.Unknown, l.Warnings)
			}
			for _, tp := range []uint64{1, 2} {
				if a.Heads%tp != 0 {
					// The engines refuse it (engine/parallel.go), as vLLM does.
					continue
				}
				sh := model.Whole(a, tp, 2, a.Quant)
				if diff := cmp.Diff(sum(model.Weights(a, sh)), sum(model.RankWeights(a, sh))); diff != "" {
					t.Errorf("TP%d: (-config +as loaded):\n%s", tp, diff)
				}
			}
		})
	}
}

func sum(items []budget.Item) uint64 {
	var n uint64
	for _, it := range items {
		n += it.Bytes
	}
	return n
}
