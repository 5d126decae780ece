package vllm

import (
	"testing"

	"membudget"
)

// TestCaptureCeilingByDeviceAndRelease: main and 0.28.0 on capture CUDA
// graphs up to 1024 on data-centre Blackwell (compute capability 10.x, PR
// #49390), 512 elsewhere and before; the largest capture is
// min(2 x max_num_seqs, the ceiling).
func TestCaptureCeilingByDeviceAndRelease(t *testing.T) {
	cases := []struct {
		class, spec string
		seqs        uint64
		ceiling     uint64
		largest     uint64
	}{
		{"b200", "main", 1024, 1024, 1024},   // 2 x 1024 = 2048, capped at 1024
		{"b200", "main", 256, 1024, 512},     // 2 x 256 = 512, under the ceiling
		{"b300", "0.28.0", 1024, 1024, 1024}, // 10.3 is of the family 100
		{"b200", "0.27.1", 1024, 512, 512},   // before the change as read
		{"h100-sxm-80g", "main", 1024, 512, 512},
		{"rtx-5090", "main", 256, 512, 512}, // 12.0: consumer Blackwell keeps 512
	}
	for _, tc := range cases {
		c, err := membudget.Kernels().Load(tc.class)
		if err != nil {
			t.Fatal(err)
		}
		r := Resolved{Profile: mustProfile(tc.spec)}
		if err := r.resolveMemory(c, func(string, string) {}); err != nil {
			t.Fatalf("%s %s: %v", tc.class, tc.spec, err)
		}
		r.MaxNumSeqs = tc.seqs
		if r.CaptureCeiling != tc.ceiling || largestCapture(&r) != tc.largest {
			t.Errorf("%s under %s, %d seqs: ceiling %d, largest %d; want %d, %d", tc.class, tc.spec, tc.seqs, r.CaptureCeiling, largestCapture(&r), tc.ceiling, tc.largest)
		}
	}
	// A serve resolved elsewhere (no ceiling set) reads 512.
	if got := largestCapture(&Resolved{Serve: Serve{MaxNumSeqs: 1024}}); got != 512 {
		t.Errorf("unset ceiling: largest %d, want 512", got)
	}
}
