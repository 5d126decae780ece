package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMXFP4KernelRounding: a kernel rounds a rank's expert intermediate
// and the hidden size up to its multiples, and leaves them at 0 or 1.
// gpt-oss-120b (hidden 2880, intermediate 2880): FlashInfer's 256 makes
// the hidden size 12 x 256 = 3072 (2880 / 256 = 11.25) and TP 4's 720
// intermediate 3 x 256 = 768; triton_kernels' 64 makes 720 12 x 64 = 768
// too and leaves 2880 = 45 x 64; 2880 / 3 = 960 is 15 x 64 already.
func TestMXFP4KernelRounding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		k                     MXFP4Kernel
		inter, hidden         uint64
		wantInter, wantHidden uint64
	}{
		{"no multiple", MXFP4Kernel{}, 720, 2880, 720, 2880},
		{"multiples of 1", MXFP4Kernel{IntermediateMultiple: 1, HiddenMultiple: 1}, 720, 2880, 720, 2880},
		{"256 and 256", MXFP4Kernel{IntermediateMultiple: 256, HiddenMultiple: 256}, 720, 2880, 768, 3072},
		{"64 and 64", MXFP4Kernel{IntermediateMultiple: 64, HiddenMultiple: 64}, 720, 2880, 768, 2880},
		{"already a multiple", MXFP4Kernel{IntermediateMultiple: 64}, 960, 2880, 960, 2880},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := [2]uint64{tt.k.Intermediate(tt.inter), tt.k.Hidden(tt.hidden)}
			if diff := cmp.Diff([2]uint64{tt.wantInter, tt.wantHidden}, got); diff != "" {
				t.Errorf("(intermediate, hidden) (-want +got):\n%s", diff)
			}
		})
	}
}
