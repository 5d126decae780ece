package vllm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget"
	"membudget/budget"
	"membudget/engine"
	"membudget/engine/enginetest"
	"membudget/engine/vllm"
	"membudget/model/hub"
)

// loadShipped loads one shipped model as the commands load --model.
func loadShipped(t testing.TB, name string) *hub.Loaded {
	t.Helper()
	r := hub.Resolver{Offline: true, CacheDir: t.TempDir(), Shipped: membudget.ModelConfig, ShippedIDs: membudget.ModelNames(),
		ShippedQuantConfig: membudget.ModelQuantConfig}
	m, err := r.Load(context.Background(), name)
	if err != nil {
		t.Fatalf("shipped model %s: %v", name, err)
	}
	return m
}

// sizeShipped sizes a shipped model on a shipped class with vLLM's flags
// as a user types them.
func sizeShipped(t testing.TB, name, class string, args ...string) (engine.Sizing, error) {
	t.Helper()
	c, err := membudget.Kernels().Load(class)
	if err != nil {
		t.Fatal(err)
	}
	return enginetest.Size(vllm.Engine{}, loadShipped(t, name), c, args)
}

// TestShortfallNamesTheFailedCondition: each condition of fits is named
// with its own numbers. Above the class's util_ceiling both margins are
// positive, and the verdict used to read "0.00 GiB over device memory
// beside the budget" (issue 20).
func TestShortfallNamesTheFailedCondition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		model  string
		class  string
		args   []string
		seqs   uint64
		tokens uint64
		failed budget.Condition
		want   string
	}{
		{
			// h100-sxm-80g: 85,018,542,080 B, util_ceiling 0.95.
			// budget ceil(0.96 x 85018542080) = 81,617,800,397 B = 76.01 GiB;
			// ceiling ceil(0.95 x 85018542080) = 80,767,614,976 B = 75.22 GiB;
			// 850,185,421 B above it = 0.79 GiB.
			name: "util 0.96 on an H100", model: "meta-llama/Llama-3.1-8B-Instruct", class: "h100-sxm-80g", args: []string{"--gpu-memory-utilization", "0.96", "--max-model-len", "8192"},
			seqs: 1, tokens: 8192, failed: budget.OverUtilCeiling,
			want: "the util budget 76.01 GiB is 0.79 GiB above the class's util_ceiling 0.95 (75.22 GiB of device memory 79.18 GiB, the largest budget h100-sxm-80g is known to run at): --gpu-memory-utilization 0.95 or less",
		},
		{
			// 70B in bf16 on one 80 GB device: the weights alone exceed
			// the util budget.
			name: "70B on one H100", model: "meta-llama/Llama-3.1-70B-Instruct", class: "h100-sxm-80g", args: []string{"--max-model-len", "8192"},
			seqs: 1, tokens: 8192, failed: budget.OverBudget, want: "over the util budget",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sz, err := sizeShipped(t, tt.model, tt.class, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			fp := sz.Plan().Evaluate(tt.seqs, tt.tokens)
			if diff := cmp.Diff(tt.failed, fp.Failed); diff != "" {
				t.Fatalf("failed condition (-want +got):\n%s", diff)
			}
			got := sz.Section().Shortfall(fp)
			if !strings.Contains(got, tt.want) {
				t.Errorf("shortfall %q, want it to contain %q", got, tt.want)
			}
		})
	}
}
