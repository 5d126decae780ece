package sglang

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDPSizeKeepsRunningPerServer pins that --dp-size N (without DP
// attention, which is refused) leaves --max-running-requests whole on each
// of the N servers at every release: SGLang divides the given value by
// dp_size only under --enable-dp-attention (tp_worker.py:122-130 at
// v0.4.9.post2, :292-300 at v0.5.6.post2; model_runner.py:524-531 at
// v0.5.7, :558-565 at v0.5.8; at v0.5.9 and v0.5.10 ModelRunner.dp_size is
// dp_size only with DP attention and 1 without, model_runner.py:310 and
// :319, before model_runner.py:593-600 and model_runner_kv_cache_mixin.py:
// 849 divide by it). The DP controller launches each server with the same
// server_args on its own GPUs (launch_dp_schedulers,
// managers/data_parallel_controller.py:208-252 at v0.5.6.post2), so each
// sizes its pool, its req_to_token table and its graphs as one server of
// --dp-size 1.
func TestDPSizeKeepsRunningPerServer(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	for _, p := range Profiles() {
		// From v0.5.15 the default prefill graphs are refused (see
		// [Profile.BreakablePrefill]): the serve turns them off.
		off := p.BreakablePrefill
		one := ref(t, llama, Serve{MaxRunningRequests: 64, DisablePiecewiseCudaGraph: off}, h100, p)
		two := ref(t, llama, Serve{DPSize: 2, MaxRunningRequests: 64, DisablePiecewiseCudaGraph: off}, h100, p)
		c := two.Capacity()
		// 64 running and 64 rows on each server: v0.5.10 takes
		// min(64 // 1, the estimate >= 2048) = 64 rows and running; the
		// releases before give the table the 64 rows as given and run
		// min(64, 64). Each row is Llama 3.1's context 131072 + 4 int32,
		// and from v0.5.11 the table has one more row, slot 0 kept as
		// padding (ReqPadRow, #24243).
		tableRows := uint64(64)
		if p.ReqPadRow {
			tableRows++
		}
		if c.MaxRunningRequests != 64 || c.MaxNumReqs != 64 || besideItem(two, "req_to_token") != tableRows*(131072+4)*4 {
			t.Errorf("%s --dp-size 2 --max-running-requests 64: running %d, rows %d, req_to_token %d; want 64, 64, %d",
				p.Name, c.MaxRunningRequests, c.MaxNumReqs, besideItem(two, "req_to_token"), tableRows*(131072+4)*4)
		}
		if d := cmp.Diff(one.Capacity(), c); d != "" {
			t.Errorf("%s: --dp-size 2 sizes a server other than --dp-size 1 (-want +got):\n%s", p.Name, d)
		}
		if d := cmp.Diff(one.stages[0].beside, two.stages[0].beside); d != "" {
			t.Errorf("%s: --dp-size 2 charges other than --dp-size 1 beside the pool (-want +got):\n%s", p.Name, d)
		}
	}
}
