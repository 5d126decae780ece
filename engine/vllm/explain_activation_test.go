package vllm

import "testing"

// TestGraphsInLoggedActivation: the activation figure an explanation picks
// holds the CUDA-graph estimate only where it is vLLM PR #49208's "Actual
// usage is … consumed memory …" line and no line of the profile's own
// states the activation (the lines below are written as vLLM main d18bb7b
// prints them; the 0.26.1-on repr keeps its "torch peak memory increase").
func TestGraphsInLoggedActivation(t *testing.T) {
	t.Parallel()
	const (
		consumedForm = "INFO [gpu_worker.py:790] Free memory on device (14.55/15.92 GiB) on startup. Desired GPU memory utilization is (0.8, 12.74 GiB). Actual usage is 1.24 GiB for consumed memory (weights + non-torch), 1.42 GiB for peak activation, and 0.29 GiB for CUDAGraph memory.\n"
		oldForm      = "INFO [gpu_worker.py:790] Free memory on device (14.55/15.92 GiB) on startup. Desired GPU memory utilization is (0.8, 12.74 GiB). Actual usage is 1.12 GiB for weight, 1.11 GiB for peak activation, 0.12 GiB for non-torch memory, and 0.29 GiB for CUDAGraph memory.\n"
		repr         = "DEBUG [gpu_worker.py:549] Memory profiling takes 4.02 seconds. Total non KV cache memory: 2.35GiB; torch peak memory increase: 1.11GiB; total consumed (from mem_get_info): 1.24GiB; weights memory: 1.12GiB.\n"
	)
	cases := []struct {
		name, log string
		want      bool
	}{
		{"the #49208 line alone", consumedForm, true},
		{"beside the profile's repr", repr + consumedForm, false},
		{"the #21489 line", oldForm, false},
		{"no activation figure", "INFO [gpu_worker.py:790] Free memory on device (14.55/15.92 GiB) on startup.\n", false},
	}
	for _, c := range cases {
		if got := graphsInLoggedActivation(logSource(t, c.log).Log); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
