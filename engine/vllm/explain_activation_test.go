package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/logs"
)

// TestActivationWithGraphsKind: vLLM PR #49208's "Actual usage is … GiB for
// consumed memory …" line logs its "peak activation" with the CUDA-graph
// estimate added; the log reader gives it its own kind, so that the
// profile's own "torch peak memory increase" stays the activation peak and
// each is predicted by its own rule (the lines as vLLM main d18bb7b prints
// them; the 0.26.1-on repr keeps its clause). The #21489 line's figure is
// the activation peak alone.
func TestActivationWithGraphsKind(t *testing.T) {
	t.Parallel()
	const (
		consumedForm = "INFO [gpu_worker.py:790] Free memory on device (14.55/15.92 GiB) on startup. Desired GPU memory utilization is (0.8, 12.74 GiB). Actual usage is 1.24 GiB for consumed memory (weights + non-torch), 1.42 GiB for peak activation, and 0.29 GiB for CUDAGraph memory.\n"
		oldForm      = "INFO [gpu_worker.py:790] Free memory on device (14.55/15.92 GiB) on startup. Desired GPU memory utilization is (0.8, 12.74 GiB). Actual usage is 1.12 GiB for weight, 1.11 GiB for peak activation, 0.12 GiB for non-torch memory, and 0.29 GiB for CUDAGraph memory.\n"
		repr         = "DEBUG [gpu_worker.py:549] Memory profiling takes 4.02 seconds. Total non KV cache memory: 2.35GiB; torch peak memory increase: 1.11GiB; total consumed (from mem_get_info): 1.24GiB; weights memory: 1.12GiB.\n"
	)
	type kinds struct{ Peak, WithGraphs string }
	for _, c := range []struct {
		name, log string
		want      kinds
	}{
		{"the #49208 line alone", consumedForm, kinds{"", "1.42"}},
		{"beside the profile's repr", repr + consumedForm, kinds{"1.11", "1.42"}},
		{"the #21489 line", oldForm, kinds{"1.11", ""}},
	} {
		l := logSource(t, c.log).Log
		var got kinds
		if f, ok := l.First(logs.KindActivationPeak); ok {
			got.Peak = f.Value.String()
		}
		if f, ok := l.First(logs.KindActivationWithGraphs); ok {
			got.WithGraphs = f.Value.String()
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	// The prediction, by hand: a 1 GiB peak and a 0.25 GiB estimate give
	// 1.25 GiB where the release charges the estimate, 1 GiB where not.
	p := Predicted{ActivationPeakBytes: 1 << 30, GraphBytes: 1 << 28}
	type pred struct{ Bytes uint64 }
	for _, charged := range []bool{true, false} {
		p.GraphsCharged = charged
		want := pred{1 << 30}
		if charged {
			want = pred{1<<30 + 1<<28}
		}
		got := vllmPredictions(p, Resolved{})["activation_with_graphs"]
		if diff := cmp.Diff(want, pred{got.Bytes}); diff != "" || !got.OK {
			t.Errorf("charged %v (-want +got):\n%s (ok %v)", charged, diff, got.OK)
		}
	}
}
