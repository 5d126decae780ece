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
