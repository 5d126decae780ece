package membudget_test

import (
	"testing"

	"membudget"
	"membudget/budget"
)

// TestShippedClasses loads every class in kernels/ and checks what a class
// must hold: it parses strictly, it can run at its own util ceiling with the
// driver's share beside the budget, and the unified-memory devices are
// marked unified while the discrete ones are not.
func TestShippedClasses(t *testing.T) {
	classes, err := membudget.Kernels().LoadAll()
	if err != nil {
		t.Fatal(err)
	}
	required := map[string]bool{
		"a100-40g": false, "a100-80g": false, "h100-sxm-80g": false, "h100-pcie-80g": false,
		"h200": false, "l4": false, "l40s": false, "a10g": false, "mi300x": false,
		"rtx-3090": false, "rtx-4090": false, "jetson-agx-orin-64g": false, "gb10": false,
		// the silicon of 2025-26
		"b200": false, "b300": false, "gb200": false, "gb300": false, "h20": false, "h200-nvl": false,
		"gh200": false, "mi325x": false, "mi355x": false, "rtx-5090": false, "rtx-pro-6000": false,
		"l20": false, "rtx-4080": false, "rtx-4090-48g": false, "jetson-agx-orin-32g": false,
	}
	// The integrated GPUs: vLLM reads their free memory from the host
	// (vllm/platforms/cuda.py is_integrated_gpu).
	unified := map[string]bool{"jetson-agx-orin-64g": true, "jetson-agx-orin-32g": true, "gb10": true}
	for _, c := range classes {
		if _, ok := required[c.Name]; ok {
			required[c.Name] = true
		}
		b, err := c.UtilBudget(c.Memory.UtilCeiling, budget.Ceil)
		if err != nil {
			t.Errorf("%s: budget at its own ceiling: %v", c.Name, err)
			continue
		}
		if b >= c.Device.MemoryBytes {
			t.Errorf("%s: budget %d at ceiling %v is not below memory_bytes %d", c.Name, b, c.Memory.UtilCeiling, c.Device.MemoryBytes)
		}
		if need := b + c.Memory.Bytes(b, 0); need > c.Device.MemoryBytes {
			t.Errorf("%s: budget + driver = %d > memory_bytes %d at the ceiling", c.Name, need, c.Device.MemoryBytes)
		}
		if c.Memory.Unified != unified[c.Name] {
			t.Errorf("%s: unified = %v, want %v", c.Name, c.Memory.Unified, unified[c.Name])
		}
		if c.Device.MemoryBytes < 8<<30 || c.Device.MemoryBytes > 1<<40 {
			t.Errorf("%s: memory_bytes %d is not a plausible accelerator size", c.Name, c.Device.MemoryBytes)
		}
	}
	for name, seen := range required {
		if !seen {
			t.Errorf("class %s is not shipped", name)
		}
	}
	if len(classes) < len(required) {
		t.Errorf("%d classes shipped, want at least %d", len(classes), len(required))
	}
}
