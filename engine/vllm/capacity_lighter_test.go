package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/explain"
	"membudget/model/logs"
)

// TestStartsCheckLighterHost: a log that got past vLLM's startup check
// ("GPU KV cache size" is logged after it) where membudget refuses only at
// that check on a unified class agrees on a lighter host, and says what
// the log's host held at most: GB10 at 0.95 (row 331's line) requests
// 124130898740 B (115.61 GiB), so that host held at most 6533205196 B
// (6.08 GiB), where the class's holds 20937965568 B (19.50 GiB). A refusal
// at a later check, or on a discrete class, still disagrees.
func TestStartsCheckLighterHost(t *testing.T) {
	l, err := logs.ParseQuote("(EngineCore pid=153) INFO 05-05 08:52:25 [kv_cache_utils.py:1337] GPU KV cache size: 623,040 tokens")
	if err != nil {
		t.Fatal(err)
	}
	gb10 := Capacity{Requested: 124130898740, FreeAtStartup: 130664103936 - 20937965568, DeviceBytes: 130664103936, Unified: true, Util: 0.95,
		HostBound: 6533205196, OverFree: true, StartsOnLighterHost: true, UtilReached: 0.95, ReachedHeld: 6533205196}
	later := gb10
	later.StartsOnLighterHost = false // e.g. one request of max_model_len does not fit either
	for _, tt := range []struct {
		name string
		c    Capacity
		want explain.StartsCheck
	}{
		{"lighter host", gb10, explain.StartsCheck{Logged: true, Line: 1, Evidence: "\"GPU KV cache size\", logged after the startup check", Agree: true,
			Host: "on the class's host (19.50 GiB held at vLLM's snapshot) vLLM refuses util 0.95; the log's host passed the request of 115.61 GiB, so it held at most 6.08 GiB there, and every other check passes (within the class's util_reached 0.95)"}},
		{"refused later too", later, explain.StartsCheck{Logged: true, Line: 1, Evidence: "\"GPU KV cache size\", logged after the startup check"}},
	} {
		got := startsCheck(l, Predicted{Capacity: tt.c})
		if got == nil {
			t.Fatalf("%s: no starts check", tt.name)
		}
		if diff := cmp.Diff(tt.want, *got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if s := lighterHostStart(Capacity{DeviceBytes: 100 << 30, FreeAtStartup: 90 << 30, Requested: 95 << 30, HostBound: 5 << 30, Util: 0.95}); strings.Contains(s, "util_reached") {
		t.Errorf("without util_reached the line names it: %q", s)
	}
}

// TestBudgetLighterHost: `membudget budget` on GB10 says the same as the
// capacity: at 0.9 vLLM requests ceil(130664103936 x 0.9) = 117597693543 B
// (109.52 GiB), refused on the class's host (102.19 GiB free), and a host
// holding at most 130664103936 - 117597693543 = 13066410393 B (12.17 GiB)
// passes it, within util_reached 0.95.
func TestBudgetLighterHost(t *testing.T) {
	c := kernelClass(t, "gb10")
	res, err := (&budgetQuery{version: "main", util: 0.9}).Budget(c)
	if err != nil {
		t.Fatal(err)
	}
	out := res.JSON.(budgetJSON)
	if diff := cmp.Diff([3]any{true, uint64(13066410393), 0.95}, [3]any{out.RefusedAtStartup, out.HostBoundBytes, out.UtilReached}); diff != "" {
		t.Errorf("refused, host bound, util_reached (-want +got):\n%s", diff)
	}
	text := strings.Join(res.Text, "\n")
	if want := "vLLM starts util 0.9 where the host holds at most 12.17 GiB at its snapshot"; !strings.Contains(text, want) || res.Fits {
		t.Errorf("fits %v, text %q; want no fit and %q", res.Fits, text, want)
	}
}
