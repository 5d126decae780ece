package main

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

// TestClassSMCount: a class's sm_count shows in the SMS column and as
// "sm_count" where the class gives it; a class without one (sm_count is
// optional) shows "-" and has no key, rather than a count of 0 that reads
// as a device without SMs.
func TestClassSMCount(t *testing.T) {
	tests := []struct {
		name   string
		sms    uint64
		column string
		json   map[string]any // the sm_count key, absent when nil
	}{
		// The H100 SXM's 132 SMs (kernels/h100-sxm-80g).
		{"given", 132, "132", map[string]any{"sm_count": float64(132)}},
		{"not given", 0, "-", nil},
	}
	for _, tt := range tests {
		c := budget.Class{Name: "x", Device: budget.Device{Name: "X", SMCount: tt.sms}}
		if got := smCountString(c.Device.SMCount); got != tt.column {
			t.Errorf("%s: column %q, want %q", tt.name, got, tt.column)
		}
		b, err := json.Marshal(classOf(c))
		if err != nil {
			t.Fatal(err)
		}
		var all map[string]any
		if err := json.Unmarshal(b, &all); err != nil {
			t.Fatal(err)
		}
		got := map[string]any{}
		if v, ok := all["sm_count"]; ok {
			got["sm_count"] = v
		}
		want := tt.json
		if want == nil {
			want = map[string]any{}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: sm_count in JSON (-want +got):\n%s", tt.name, diff)
		}
	}
}
