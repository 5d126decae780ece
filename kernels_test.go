package membudget_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget"
	"membudget/budget"
	"membudget/internal/observed"
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
		// more classes people rent (issue 21)
		"a10": false, "h100-nvl": false, "a40": false, "rtx-6000-ada": false, "rtx-3090-ti": false,
		"rtx-5080": false, "rtx-5070-ti": false, "jetson-thor": false, "mi250": false, "rtx-a6000": false,
		"rtx-5000-ada": false,
	}
	// The integrated GPUs: vLLM reads their free memory from the host
	// (vllm/platforms/cuda.py is_integrated_gpu).
	unified := map[string]bool{"jetson-agx-orin-64g": true, "jetson-agx-orin-32g": true, "gb10": true, "jetson-thor": true}
	// How each class's GPUs reach each other in one node: the SXM boards
	// and NVL racks by NVLink, AMD's platforms by Infinity Fabric, the
	// data-centre PCIe cards with peer access, GeForce cards without it,
	// single-GPU devices with no peer (each reason is the file's
	// provenance). A class added without an entry here still must name one
	// and open its provenance with it.
	interconnect := map[string]budget.Interconnect{
		"a100-40g": budget.NVLink, "a100-80g": budget.NVLink, "b200": budget.NVLink, "b300": budget.NVLink,
		"gb200": budget.NVLink, "gb300": budget.NVLink, "gh200": budget.NVLink, "h100-sxm-80g": budget.NVLink,
		"h20": budget.NVLink, "h200": budget.NVLink, "h200-nvl": budget.NVLink, "v100-32g": budget.NVLink,
		"mi300x": budget.XGMI, "mi325x": budget.XGMI, "mi355x": budget.XGMI,
		"a10g": budget.PCIeP2P, "h100-pcie-80g": budget.PCIeP2P, "l20": budget.PCIeP2P, "l4": budget.PCIeP2P,
		"l40": budget.PCIeP2P, "l40s": budget.PCIeP2P, "rtx-pro-6000": budget.PCIeP2P, "tesla-t4": budget.PCIeP2P,
		"rtx-3090": budget.PCIe, "rtx-4080": budget.PCIe, "rtx-4090": budget.PCIe, "rtx-4090-48g": budget.PCIe, "rtx-5090": budget.PCIe,
		"gb10": budget.NoPeer, "jetson-agx-orin-32g": budget.NoPeer, "jetson-agx-orin-64g": budget.NoPeer,
		// The rented classes of issue 21: H100 NVL's bridged pairs charge
		// the NVLink terms; A40 and RTX A6000 default to PCIe without a
		// bridge.
		"h100-nvl": budget.NVLink, "mi250": budget.XGMI,
		"a10": budget.PCIeP2P, "a40": budget.PCIeP2P, "rtx-6000-ada": budget.PCIeP2P, "rtx-a6000": budget.PCIeP2P,
		"rtx-3090-ti": budget.PCIe, "rtx-5080": budget.PCIe, "rtx-5070-ti": budget.PCIe,
		"jetson-thor": budget.NoPeer,
		// The RTX 5000 Ada has no NVLink connector; the professional
		// driver grants peer access, as on the RTX 6000 Ada.
		"rtx-5000-ada": budget.PCIeP2P,
	}
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
		// vLLM's startup check at TP 1 (request_memory): the request at the
		// ceiling is within what the snapshot reads free, the device less
		// what is held before it.
		if free := c.Device.MemoryBytes - c.Memory.DriverFixedBytes; b > free {
			t.Errorf("%s: vLLM refuses its own ceiling %v: it requests %d B of %d B free at startup", c.Name, c.Memory.UtilCeiling, b, free)
		}
		if need := b + c.Memory.Bytes(b, 0); need > c.Device.MemoryBytes {
			t.Errorf("%s: budget + driver = %d > memory_bytes %d at the ceiling", c.Name, need, c.Device.MemoryBytes)
		}
		if c.Memory.Unified != unified[c.Name] {
			t.Errorf("%s: unified = %v, want %v", c.Name, c.Memory.Unified, unified[c.Name])
		}
		if want, ok := interconnect[c.Name]; ok && c.Device.Interconnect != want {
			t.Errorf("%s: interconnect = %q, want %q", c.Name, c.Device.Interconnect, want)
		}
		if !strings.HasPrefix(c.Provenance.Interconnect, string(c.Device.Interconnect)+": ") {
			t.Errorf("%s: the interconnect's provenance does not open with its value %q: %q", c.Name, c.Device.Interconnect, c.Provenance.Interconnect)
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

// TestObservedClassCeilings pins the util_ceiling of the classes whose
// ceiling is the highest util a startup log in corpus/observed/vllm.csv
// shows on the device: the rows named map to the class through gpus.csv,
// each started (it logs its KV cache), and the ceiling is the highest util
// among them. It pins the class's compute capability to the public print
// its provenance quotes beside it.
func TestObservedClassCeilings(t *testing.T) {
	tables, err := observed.Read("corpus/observed")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]observed.Row{}
	for _, r := range tables.Rows {
		rows[r["id"]] = r
	}
	tests := []struct {
		class   string
		rows    []string
		want    float64
		silicon string
	}{
		// Rows 302 and 303: vLLM 0.28.0 on one RTX 5000 Ada at
		// --gpu-memory-utilization 0.97, both logging 'GPU KV cache size';
		// a public torch print reads 'RTX 5000 Ada Generation (33.8 GB
		// VRAM, CC 8.9)'.
		{"rtx-5000-ada", []string{"302", "303"}, 0.97, "8.9"},
		// Row 104: vLLM 0.10.2 on a Jetson AGX Thor at
		// --gpu-memory-utilization 0.85, logging 'GPU KV cache size:
		// 702,800 tokens', no log above it found; ollama logs 'NVIDIA
		// Thor, compute capability 11.0' (ollama/ollama#12283).
		{"jetson-thor", []string{"104"}, 0.85, "11.0"},
	}
	for _, tt := range tests {
		c, err := membudget.Kernels().Load(tt.class)
		if err != nil {
			t.Fatal(err)
		}
		var highest float64
		for _, id := range tt.rows {
			r, ok := rows[id]
			if !ok {
				t.Errorf("%s: row %s is not in vllm.csv", tt.class, id)
				continue
			}
			if g, ok := tables.GPUOf(r["gpu_model"]); !ok || g.Class != tt.class {
				t.Errorf("%s: row %s's GPU %q maps to class %q, want %q", tt.class, id, r["gpu_model"], g.Class, tt.class)
			}
			if !strings.Contains(r["quote"], "GPU KV cache size") {
				t.Errorf("%s: row %s's quote shows no KV cache, so no start", tt.class, id)
			}
			u, ok := r.Num("gpu_mem_util")
			if !ok {
				t.Errorf("%s: row %s states no util", tt.class, id)
			}
			highest = max(highest, u)
		}
		if highest != tt.want {
			t.Errorf("%s: rows %v start at most at util %v, want %v", tt.class, tt.rows, highest, tt.want)
		}
		if got := c.Device.Silicon.String(); got != tt.silicon {
			t.Errorf("%s: compute_capability %s, want %s", tt.class, got, tt.silicon)
		}
		if c.Memory.UtilCeiling != tt.want {
			t.Errorf("%s: util_ceiling %v, want %v (rows %v)", tt.class, c.Memory.UtilCeiling, tt.want, tt.rows)
		}
	}
}

// TestRentedClassMemory pins the memory_bytes of the classes issue 21 added
// to the public figure each provenance quotes, converted by hand (GiB x
// 2^30, MiB x 2^20, KB x 2^10, GB x 10^9; a figure printed with two
// decimals rounded to the nearest byte), and checks the provenance quotes it.
func TestRentedClassMemory(t *testing.T) {
	classes, err := membudget.Kernels().LoadAll()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]budget.Class{}
	for _, c := range classes {
		byName[c.Name] = c
	}
	tests := []struct {
		class, quoted string
		want          uint64
	}{
		// vLLM's total_gpu_memory (22.07GiB) on an OCI card of the A10 class, row 38 of
		// corpus/observed/vllm.csv: 22.07 x 2^30 = 23,697,482,055.68.
		{"a10", "22.07 GiB", 23697482056},
		// The A10G takes the A10's figure (the same row 38), converted the
		// same way; it held 22600 MiB = 23,697,817,600 B, 0.32 MiB above.
		{"a10g", "22.07 GiB", 23697482056},
		// PyTorch: 'total capacity of 93.00 GiB' (ali-vilab/VACE#56).
		{"h100-nvl", "93.00 GiB", 93 << 30},
		// PyTorch: 'total capacity of 44.42 GiB' on an A40:
		// 44.42 x 2^30 = 47,695,611,822.08.
		{"a40", "44.42 GiB", 47695611822},
		// torch: get_device_properties and mem_get_info both return
		// 50,865,307,648 B (unslothai/unsloth-zoo#1053), an exact byte
		// count: no conversion. Below the 48622 MiB (48622 x 2^20 =
		// 50,983,862,272 B) of an older stack's print, and the 47.5 x 2^30 =
		// 51,002,736,640 B the class held before.
		{"rtx-6000-ada", "50,865,307,648 bytes", 50865307648},
		// torch: 23.55 GiB = 25,286,619,955.2.
		{"rtx-3090-ti", "23.55 GB", 25286619955},
		// PyTorch under vLLM: 15.48 GiB = 16,621,523,435.52 (vllm#14452).
		{"rtx-5080", "15.48 GiB", 16621523436},
		// torch: 15.47 GiB = 16,610,786,017.28.
		{"rtx-5070-ti", "15.47 GiB", 16610786017},
		// torch: total_memory=30622MB, whole MiB rounded down:
		// 30622 x 2^20 = 32,109,494,272 (the class held 32,109,690,880,
		// 30622.1875 MiB, which no source prints).
		{"jetson-agx-orin-32g", "30622 MiB", 30622 << 20},
		// PyTorch: 'total capacity of 44.42 GiB' on an L20, below the 44.53
		// GiB of other L20 reports: 44.42 x 2^30 = 47,695,611,822.08, the
		// a40 class's bytes.
		{"l20", "44.42 GiB", 47695611822},
		// CUDA via llama.cpp: 125771 MiB.
		{"jetson-thor", "125771 MiB", 125771 << 20},
		// rocminfo: a gfx90a pool of 67092480 KB.
		{"mi250", "67092480 KB", 67092480 << 10},
		// torch: 47.40 GiB = 50,895,362,457.6.
		{"rtx-a6000", "47.40 GB", 50895362458},
		// torch: 33.8 GB in 10^9 bytes (33.8 GiB, 36.3 x 10^9 B, would
		// exceed the card's 32760 MiB = 34,351,349,760 B that nvidia-smi
		// shows): 33.8 x 10^9 = 33,800,000,000.
		{"rtx-5000-ada", "33.8 GB", 33800000000},
	}
	for _, tt := range tests {
		c, ok := byName[tt.class]
		if !ok {
			t.Errorf("class %s is not shipped", tt.class)
			continue
		}
		if c.Device.MemoryBytes != tt.want {
			t.Errorf("%s: memory_bytes %d, want %d (%s)", tt.class, c.Device.MemoryBytes, tt.want, tt.quoted)
		}
		if !strings.Contains(c.Provenance.MemoryBytes, tt.quoted) {
			t.Errorf("%s: the memory_bytes provenance does not quote %q: %s", tt.class, tt.quoted, c.Provenance.MemoryBytes)
		}
	}
}

// TestAbsentDevices: every name the shipped catalog refuses as an absent
// device is a valid class name (else --class would refuse it as malformed
// before the reason is read) and no shipped class has it (a class added
// later must drop its note), and each of the devices issue 21 asked about
// that ship no class is refused by name with its reason.
func TestAbsentDevices(t *testing.T) {
	cat := membudget.Kernels()
	names, err := cat.Names()
	if err != nil {
		t.Fatal(err)
	}
	for name := range cat.Absent {
		if err := budget.CheckClassName(name); err != nil {
			t.Errorf("absent name %q: %v", name, err)
		}
		if slices.Contains(names, name) {
			t.Errorf("absent name %q is a shipped class", name)
		}
	}
	tests := []struct {
		name, device, why string
	}{
		// The vLLM Hardware Plugin for Intel Gaudi is its own engine path.
		{"gaudi3", "Intel Gaudi", "vllm-gaudi plugin"},
		{"Gaudi-3", "Intel Gaudi", "vllm-gaudi plugin"},
		// Strix Halo's GPU memory is the host's GTT setting.
		{"strix-halo", "Strix Halo", "GTT limit"},
		{"gfx1151", "Strix Halo", "reads free memory from HIP"},
	}
	for _, tt := range tests {
		_, err := cat.Load(tt.name)
		if !errors.Is(err, budget.ErrUnknownClass) {
			t.Errorf("Load(%q) = %v, want ErrUnknownClass", tt.name, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tt.device) || !strings.Contains(msg, tt.why) {
			t.Errorf("Load(%q) = %q, want it to name %q and %q", tt.name, msg, tt.device, tt.why)
		}
	}
}

// TestShippedSMCounts pins every shipped class's sm_count (vLLM's Triton
// top-k/top-p buffer is capped at it, engine/vllm tritonBufferRows) to its
// provenance: NVIDIA's CUDA cores / 128 a SM on Ampere GA10x, Ada, Hopper
// and Blackwell (64 on Turing's T4), the SMs of the architecture tables
// for A100 and V100, AMD's compute units; the full die where the enabled
// count is not published (a10g: GA102's 84; h20: GH100's 144; the B300,
// GB200 and GB300: Blackwell's 160).
func TestShippedSMCounts(t *testing.T) {
	want := map[string]uint64{
		"a10": 9216 / 128, "a100-40g": 108, "a100-80g": 108, "a10g": 84, "a40": 10752 / 128,
		"b200": 148, "b300": 160, "gb10": 6144 / 128, "gb200": 160, "gb300": 160,
		"gh200": 132, "h100-nvl": 16896 / 128, "h100-pcie-80g": 14592 / 128, "h100-sxm-80g": 16896 / 128, "h20": 144,
		"h200": 132, "h200-nvl": 132, "jetson-agx-orin-32g": 1792 / 128, "jetson-agx-orin-64g": 2048 / 128, "jetson-thor": 2560 / 128,
		"l20": 11776 / 128, "l4": 7424 / 128, "l40": 18176 / 128, "l40s": 18176 / 128,
		"mi250": 220 / 2, "mi300x": 304, "mi325x": 304, "mi355x": 256,
		"rtx-3090": 10496 / 128, "rtx-3090-ti": 10752 / 128, "rtx-4080": 9728 / 128, "rtx-4090": 16384 / 128, "rtx-4090-48g": 16384 / 128,
		"rtx-5000-ada": 12800 / 128, "rtx-5070-ti": 8960 / 128, "rtx-5080": 10752 / 128, "rtx-5090": 21760 / 128,
		"rtx-6000-ada": 18176 / 128, "rtx-a6000": 10752 / 128, "rtx-pro-6000": 24064 / 128,
		"tesla-t4": 2560 / 64, "v100-32g": 5120 / 64,
	}
	classes, err := membudget.Kernels().LoadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, c := range classes {
		got[c.Name] = c.Device.SMCount
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sm_count (-want +got):\n%s", diff)
	}
}
