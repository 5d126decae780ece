package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJudgeDBOStops: micro-batching with an all-to-all backend vLLM's
// check does not take stops vLLM at startup (vllm/config/vllm.py:
// 1682-1694 at main d18bb7b), from 0.24.0, the first release with that
// list; the line is told so, not told membudget does not model it.
func TestJudgeDBOStops(t *testing.T) {
	const quote = `: "Microbatching currently only supports the deepep_low_latency, deepep_high_throughput, and nixl_ep all2all backends" (vllm/config/vllm.py:1682-1694 at main d18bb7b); give one of them`
	ep := []string{"--data-parallel-size", "2", "--enable-expert-parallel"}
	cases := []struct {
		name string
		args []string
		want string
	}{
		// No --all2all-backend: ParallelConfig's default,
		// allgather_reducescatter (parallel.py:188), which the check refuses.
		{"the default backend", append([]string{"--enable-dbo"}, ep...),
			"--enable-dbo: vLLM stops at startup with --all2all-backend allgather_reducescatter (the default)" + quote},
		{"the default named", append([]string{"--enable-dbo", "--all2all-backend", "allgather_reducescatter"}, ep...),
			"--enable-dbo: vLLM stops at startup with --all2all-backend allgather_reducescatter" + quote},
		// pplx was removed: vLLM takes it as allgather_reducescatter
		// (parallel.py:467-473) before the check.
		{"a removed backend", []string{"--enable-dbo", "--all2all-backend=pplx"},
			"--enable-dbo: vLLM stops at startup with --all2all-backend pplx (taken as allgather_reducescatter)" + quote},
		{"a backend of its own buffers, not in the list", []string{"--all2all-backend", "mori_low_latency", "--enable-dbo"},
			"--enable-dbo: vLLM stops at startup with --all2all-backend mori_low_latency" + quote},
		// The last --all2all-backend is the one argparse keeps.
		{"the last backend given", []string{"--all2all-backend", "deepep_low_latency", "--all2all-backend", "flashinfer_all2allv", "--enable-dbo"},
			"--enable-dbo: vLLM stops at startup with --all2all-backend flashinfer_all2allv" + quote},
		// use_ubatching is also ubatch_size > 1 (parallel.py:554-555).
		{"--ubatch-size 2", []string{"--ubatch-size", "2"},
			"--ubatch-size: vLLM stops at startup with --all2all-backend allgather_reducescatter (the default)" + quote},
		{"0.24.0, the first release with nixl_ep in the list", []string{"--vllm-version", "0.24.0", "--enable-dbo"},
			"--enable-dbo: vLLM stops at startup with --all2all-backend allgather_reducescatter (the default)" + quote},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, judgeLine(tc.args)); diff != "" {
				t.Errorf("Judge(%q) (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

// TestJudgeDBORefuses: micro-batching over a backend vLLM takes (or on a
// release before 0.24.0, whose check membudget has not read) is refused by
// name with what it adds: the split profile at the prefill threshold, the
// workspaces a micro-batch, the decode graphs at the decode threshold
// (none named for deepep_high_throughput, whose graphs vLLM turns off
// under DP, vllm/config/compilation.py:1232-1248), and the all-to-all
// buffers not doubled. Off or neutral, the flags pass.
func TestJudgeDBORefuses(t *testing.T) {
	const main = "vLLM main at commit d18bb7b (2026-08-14)"
	const tail = "; membudget refuses it rather than size a serve vLLM would contradict"
	// The clauses of the refusal, as dboWhat writes them.
	split := func(threshold string) string {
		return "--enable-dbo: dual-batch overlap's second micro-batch: a profile run of max_num_batched_tokens >= " + threshold + " is split in two halves"
	}
	const workspaces = "; a second fused-MoE workspace, one a micro-batch (gpu_worker.py:406-407, workspace.py:38-44, 119-179), and each thread's cuBLAS workspaces on the compute and communication streams (gpu_ubatch_wrapper.py:236-242), allocated at the first split run, in the profile or else in the graph capture's warmups after the KV cache"
	graphs := func(threshold string) string {
		return "; the uniform-decode FULL CUDA graphs of " + threshold + " tokens or more captured as two micro-batches in the shared pool"
	}
	const buffers = "; the all-to-all buffers are not doubled (one deep_ep.Buffer a GPU, a dispatch handle a micro-batch: fused_moe/prepare_finalize/deepep_ht.py:65-68, deepep_ll.py:100-103): not modelled for "
	cases := []struct {
		name string
		args []string
		// want are the refusal's clauses in order; absent, the clauses it
		// must not hold; none: the line passes.
		want, absent []string
	}{
		// The production line of vLLM's docs/design/dbo.md: the thresholds'
		// defaults, 512 and 32 (parallel.py:221, 216).
		{"deepep_low_latency", []string{"--data-parallel-size", "2", "--enable-expert-parallel", "--enable-dbo", "--all2all-backend", "deepep_low_latency"},
			[]string{split("512 (--dbo-prefill-token-threshold's default)"), workspaces, graphs("32 (--dbo-decode-token-threshold's default)"), buffers + main + tail}, nil},
		{"the thresholds given", []string{"--enable-dbo", "--all2all-backend", "nixl_ep", "--dbo-prefill-token-threshold", "2048", "--dbo-decode-token-threshold=64"},
			[]string{split("2048 (--dbo-prefill-token-threshold)"), graphs("64 (--dbo-decode-token-threshold)"), buffers + main + tail}, nil},
		// A threshold vLLM would not take (ge=0, parallel.py:216-221) is not
		// printed as given: the default is named.
		{"a threshold not a count", []string{"--enable-dbo", "--all2all-backend", "nixl_ep", "--dbo-prefill-token-threshold", "-3"},
			[]string{split("512 (--dbo-prefill-token-threshold's default)")}, nil},
		{"deepep_high_throughput: no graph clause", []string{"--enable-dbo", "--all2all-backend", "deepep_high_throughput"},
			[]string{split("512 (--dbo-prefill-token-threshold's default)"), workspaces, buffers + main + tail}, []string{"CUDA graphs"}},
		// Before 0.24.0 the check's list is not read: refused, whatever the
		// backend.
		{"0.23.0, the default backend", []string{"--vllm-version", "0.23.0", "--enable-dbo"},
			[]string{split("512 (--dbo-prefill-token-threshold's default)"), workspaces, buffers + "vLLM 0.23.0" + tail}, []string{"#39226"}},
		// PR #39226 (2026-04-23) is surely in 0.20.2 (v0.20.2rc1 of
		// 05-02), not surely in 0.20.0: there the two workspaces grow
		// together.
		{"0.20.2, workspaces apart", []string{"--vllm-version", "0.20.2", "--enable-dbo", "--all2all-backend", "deepep_low_latency"},
			[]string{split("512 (--dbo-prefill-token-threshold's default)"), workspaces + "; the uniform-decode"}, []string{"#39226"}},
		{"0.20.0, workspaces grown together", []string{"--vllm-version", "0.20.0", "--enable-dbo", "--all2all-backend", "deepep_low_latency"},
			[]string{split("512 (--dbo-prefill-token-threshold's default)"), workspaces + " (before PR #39226 of 2026-04-23, which this release may predate, one growth grew both workspaces, so even an unsplit profile held two); the uniform-decode"}, nil},
		// Before 0.14.0 no workspace manager (PR #27532): the cuBLAS
		// workspaces alone.
		{"0.11.0, no workspace manager", []string{"--vllm-version", "0.11.0", "--enable-dbo", "--all2all-backend", "deepep_low_latency"},
			[]string{split("512 (--dbo-prefill-token-threshold's default)"), "gpu_ubatch_wrapper.py:305-341); each thread's cuBLAS workspaces"}, []string{"fused-MoE workspace", "#39226"}},
		// --ubatch-size without --enable-dbo: num_ubatches is the size
		// (parallel.py:557-559), three parts, three threads, decode graphs
		// in three; the workspace manager keeps one slot, 2 under
		// --enable-dbo alone (gpu_worker.py:406-407).
		{"--ubatch-size 3 over deepep_low_latency", []string{"--ubatch-size=3", "--all2all-backend", "deepep_low_latency"},
			[]string{"--ubatch-size: micro-batching in 3 (--ubatch-size): a profile run of max_num_batched_tokens >= 512 (--dbo-prefill-token-threshold's default) is split in 3 parts run on 3 threads",
				"; a fused-MoE workspace manager of one slot, as without --enable-dbo (gpu_worker.py:406-407), which the later micro-batches' ids index past (workspace.py:128-129), and each thread's cuBLAS workspaces",
				"; the uniform-decode FULL CUDA graphs of 32 (--dbo-decode-token-threshold's default) tokens or more captured as 3 micro-batches in the shared pool"},
			[]string{"dual-batch overlap", "second fused-MoE workspace"}},
		{"--ubatch-size 2 alone, 0.20.0", []string{"--vllm-version", "0.20.0", "--ubatch-size", "2", "--all2all-backend", "deepep_low_latency"},
			[]string{"--ubatch-size: micro-batching in 2 (--ubatch-size)", "a fused-MoE workspace manager of one slot", "captured as 2 micro-batches"},
			[]string{"#39226", "second fused-MoE workspace"}},
		// --enable-dbo wins: num_ubatches 2 whatever --ubatch-size says.
		{"--enable-dbo with --ubatch-size 4", []string{"--enable-dbo", "--ubatch-size", "4", "--all2all-backend", "deepep_low_latency"},
			[]string{split("512 (--dbo-prefill-token-threshold's default)"), workspaces, graphs("32 (--dbo-decode-token-threshold's default)")}, []string{"micro-batching in"}},
		{"switched off", []string{"--no-enable-dbo"}, nil, nil},
		{"=false", []string{"--enable-dbo=false"}, nil, nil},
		// ubatch_size 0 (the default) and 1 do not micro-batch
		// (parallel.py:554-555).
		{"--ubatch-size 1", []string{"--ubatch-size", "1"}, nil, nil},
		{"--ubatch-size 0", []string{"--ubatch-size", "0"}, nil, nil},
		{"the thresholds alone", []string{"--dbo-decode-token-threshold", "8", "--dbo-prefill-token-threshold", "64"}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := judgeLine(tc.args)
			if tc.want == nil {
				if got != "" {
					t.Errorf("Judge(%q) = %q, want it to pass", tc.args, got)
				}
				return
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("Judge(%q):\n%s\nwant, in order, %q", tc.args, got, w)
				}
				rest = rest[i+len(w):]
			}
			if !strings.HasPrefix(got, tc.want[0]) {
				t.Errorf("Judge(%q) = %q, want it to start %q", tc.args, got, tc.want[0])
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("Judge(%q) = %q, want no %q", tc.args, got, a)
				}
			}
		})
	}
}

// TestBuildServeWarnsDBO: a log whose engine ran with enable_dbo is
// explained with a warning that its micro-batching is left out; False is
// no warning.
func TestBuildServeWarnsDBO(t *testing.T) {
	const warning = "the log's enable_dbo (line 1) uses dual-batch overlap (a second micro-batch's activations, workspaces and CUDA graphs), which membudget does not model: its predictions leave that memory out"
	cases := []struct {
		log  string
		want []string
	}{
		{"INFO non-default args: {'model': 'm', 'data_parallel_size': 2, 'enable_expert_parallel': True, 'enable_dbo': True}\n", []string{warning}},
		{"INFO non-default args: {'model': 'm', 'enable_dbo': False}\n", nil},
		// ubatch_size above 1 micro-batches (parallel.py:554-555); 1 does not.
		{"INFO non-default args: {'model': 'm', 'ubatch_size': 3}\n", []string{"the log's ubatch_size (line 1) uses micro-batching (--ubatch-size: every micro-batch's activations, cuBLAS workspaces and CUDA graphs), which membudget does not model: its predictions leave that memory out"}},
		{"INFO non-default args: {'model': 'm', 'ubatch_size': 1}\n", nil},
	}
	for _, tc := range cases {
		got, err := buildServe(logSource(t, tc.log).Log, Serve{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got.Warnings); diff != "" {
			t.Errorf("%q: warnings (-want +got):\n%s", tc.log, diff)
		}
	}
}
