package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget"
)

// TestEveryTableClassIsShipped: each row of the label tables names a class
// the binary ships, so that a selection never names a class that does not
// load.
func TestEveryTableClassIsShipped(t *testing.T) {
	t.Parallel()
	names, err := membudget.Kernels().Names()
	if err != nil {
		t.Fatal(err)
	}
	shipped := map[string]bool{}
	for _, n := range names {
		shipped[n] = true
	}
	for v, c := range gkeAccelerators {
		if !shipped[c] {
			t.Errorf("%s=%s: class %s is not shipped", LabelGKE, v, c)
		}
	}
	for v, c := range karpenterGPUs {
		if !shipped[c] {
			t.Errorf("%s=%s: class %s is not shipped", LabelKarpenter, v, c)
		}
	}
	for v, g := range instanceTypes {
		if !shipped[g.class] || g.perNode == 0 {
			t.Errorf("%s=%s: class %s (shipped %v), %d a node", LabelInstanceType, v, g.class, shipped[g.class], g.perNode)
		}
	}
}

// TestLabelClass pins rows of each table against the clouds' pages (cited
// beside the tables) and the product label's match of the classes' device
// names.
func TestLabelClass(t *testing.T) {
	t.Parallel()
	classes, err := membudget.Kernels().LoadAll()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		key, value string
		want       gpuOf
		found      bool
		err        bool
	}{
		// kernels/h100-sxm-80g names the device "NVIDIA H100 80GB HBM3",
		// which GPU feature discovery writes with hyphens.
		{LabelProduct, "NVIDIA-H100-80GB-HBM3", gpuOf{"h100-sxm-80g", 0}, true, false},
		{LabelProduct, "Tesla-T4", gpuOf{"tesla-t4", 0}, true, false},
		{LabelProduct, "NVIDIA-A100-SXM4-40GB", gpuOf{"a100-40g", 0}, true, false},
		{LabelGKE, "nvidia-tesla-a100", gpuOf{"a100-40g", 0}, true, false},
		{LabelGKE, "nvidia-h200-141gb", gpuOf{"h200", 0}, true, false},
		{LabelGKE, "nvidia-tesla-k80", gpuOf{}, true, true},
		// GCP's V100 is the 16 GB part: no class, so an error, not v100-32g.
		{LabelGKE, "nvidia-tesla-v100", gpuOf{}, true, true},
		{LabelKarpenter, "l40s", gpuOf{"l40s", 0}, true, false},
		{LabelKarpenter, "a100", gpuOf{}, true, true},
		// p4d.24xlarge: 8 A100 40 GB; g5.12xlarge: 4 A10G; g6.48xlarge: 8
		// L4; a2-megagpu-16g: 16 A100 40 GB; g2-standard-24: 2 L4.
		{LabelInstanceType, "p4d.24xlarge", gpuOf{"a100-40g", 8}, true, false},
		{LabelInstanceType, "g5.12xlarge", gpuOf{"a10g", 4}, true, false},
		{LabelInstanceType, "g5.2xlarge", gpuOf{"a10g", 1}, true, false},
		{LabelInstanceType, "g6.48xlarge", gpuOf{"l4", 8}, true, false},
		{LabelInstanceType, "a2-megagpu-16g", gpuOf{"a100-40g", 16}, true, false},
		{LabelInstanceType, "g2-standard-24", gpuOf{"l4", 2}, true, false},
		{LabelInstanceType, "Standard_ND96isr_H100_v5", gpuOf{"h100-sxm-80g", 8}, true, false},
		// A CPU instance names no GPU: not an error.
		{LabelInstanceType, "m5.large", gpuOf{}, false, false},
		{"kubernetes.io/os", "linux", gpuOf{}, false, false},
	}
	for _, tc := range cases {
		got, found, err := labelClass(tc.key, tc.value, classes)
		if (err != nil) != tc.err || found != tc.found {
			t.Errorf("%s=%s: found %v, err %v; want found %v, an error %v", tc.key, tc.value, found, err, tc.found, tc.err)
			continue
		}
		if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(gpuOf{})); diff != "" {
			t.Errorf("%s=%s (-want +got):\n%s", tc.key, tc.value, diff)
		}
	}
}
