package torchalloc

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPools(t *testing.T) {
	const mib = 1 << 20
	type req struct{ size, n uint64 }
	tests := []struct {
		name      string
		reqs      []req
		want      Pools
		reserved  uint64
		slack     uint64
		reasoning string
	}{
		{"nothing", nil, Pools{}, 0, 0, "no request, no segment"},
		{"zero-byte request", []req{{0, 5}}, Pools{}, 0, 0, "PyTorch allocates nothing for 0 bytes"},
		{"one small", []req{{100, 1}}, Pools{Small: 512, Requested: 100}, 2 * mib, 2*mib - 100, "rounded to 512 B, in one 2 MiB segment"},
		{"small pool fills two segments", []req{{mib, 3}}, Pools{Small: 3 * mib, Requested: 3 * mib}, 4 * mib, mib, "1 MiB is still small: 3 MiB in two 2 MiB segments"},
		{"mid pool", []req{{mib + 1, 1}}, Pools{Mid: mib + 512, Requested: mib + 1}, 20 * mib, 19*mib - 1, "above 1 MiB and below 10 MiB: a 20 MiB segment"},
		{"large rounds to 2 MiB", []req{{10 * mib, 1}, {11*mib + 1, 2}}, Pools{Large: 10*mib + 2*12*mib, Requested: 10*mib + 2*(11*mib+1)}, 34 * mib, 2*mib - 2, "10 MiB exactly; 11 MiB + 1 rounds to 12 MiB"},
		{"saturates", []req{{math.MaxUint64, 2}}, Pools{Large: math.MaxUint64, Requested: math.MaxUint64}, math.MaxUint64, 0, "MaxUint64 twice stays MaxUint64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Pools
			for _, r := range tt.reqs {
				p = p.Add(r.size, r.n)
			}
			if diff := cmp.Diff(tt.want, p); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.reasoning, diff)
			}
			if got := p.Reserved(); got != tt.reserved {
				t.Errorf("Reserved = %d, want %d (%s)", got, tt.reserved, tt.reasoning)
			}
			if got := p.Slack(); got != tt.slack {
				t.Errorf("Slack = %d, want %d (%s)", got, tt.slack, tt.reasoning)
			}
		})
	}
}
