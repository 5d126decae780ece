package explain

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/model/logs"
)

func source(t *testing.T, text string) *Source {
	t.Helper()
	src, err := Read(strings.NewReader(text), "test.log", false)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func class(t *testing.T, name, device, vendor, cc string, mem uint64) budget.Class {
	t.Helper()
	si, err := budget.ParseSilicon(vendor, cc)
	if err != nil {
		t.Fatal(err)
	}
	return budget.Class{Name: name, Device: budget.Device{Name: device, Silicon: si, MemoryBytes: mem, Interconnect: budget.NVLink},
		Memory: budget.DriverTerms{DriverFixedBytes: 512 << 20, DriverBudgetPerMille: 2, UtilCeiling: 0.95}}
}

// TestChooseClass: a total within the log's rounding matches; among several
// the one the log names wins; none matching makes a class of the total from
// the nearest of the log's vendor; no total names --class.
func TestChooseClass(t *testing.T) {
	// 79.18 GiB = 85018877624 B; the log's rounding is 5368710 B.
	classes := []budget.Class{
		class(t, "h100", "NVIDIA H100 80GB HBM3", "nvidia", "9.0", 85018542080), // 335544 B away: matches
		class(t, "h100-twin", "NVIDIA H100 PCIe", "nvidia", "9.0", 85018542080), // the same total
		class(t, "a100", "NVIDIA A100-SXM4-80GB", "nvidia", "8.0", 85094039552), // 79.25 GiB: too far
		class(t, "mi", "AMD Instinct MI300X", "amd", "gfx942", 85094039552),
	}
	free := "INFO Free memory on device (78.66/%s GiB) on startup.\n"
	cases := []struct {
		name, log string
		want      ClassChoice
	}{
		{"two match, by name", strings.Replace(free, "%s", "79.18", 1),
			ClassChoice{How: ClassMatched, Matched: []string{"h100", "h100-twin"}}},
		{"two match, the named one", strings.Replace(free, "%s", "79.18", 1) + "INFO device NVIDIA H100 PCIe ready\n",
			ClassChoice{How: ClassMatched, Matched: []string{"h100-twin", "h100"}, Named: []string{"h100-twin"}}},
		// 79.30 GiB: 0.05 GiB above a100's 79.25, nearer than h100's 79.18.
		{"none matches", strings.Replace(free, "%s", "79.30", 1),
			ClassChoice{How: ClassSynthesized, Base: "a100"}},
		{"none matches, ROCm", "INFO Automatically detected platform rocm.\n" + strings.Replace(free, "%s", "79.30", 1),
			ClassChoice{How: ClassSynthesized, Base: "mi", Vendor: "amd"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ChooseClass(source(t, tc.log), classes)
			if err != nil {
				t.Fatal(err)
			}
			got.Class, got.Total, got.Note = budget.Class{}, nil, ""
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// A synthesized class has the logged total and the base's silicon:
	// round(79.30 x 1073741824) = round(85147726643.2) = 85147726643 B.
	got, err := ChooseClass(source(t, strings.Replace(free, "%s", "79.30", 1)), classes)
	if err != nil {
		t.Fatal(err)
	}
	if got.Class.Device.MemoryBytes != 85147726643 || got.Class.Device.Silicon.String() != "8.0" || got.Class.Name != "a100@79.30GiB" {
		t.Errorf("synthesized %+v", got.Class)
	}
	if DefaultClassName(got) != "a100-79.30gib" {
		t.Errorf("default name %q", DefaultClassName(got))
	}
	_, err = ChooseClass(source(t, "INFO Available KV cache memory: 1.00 GiB\n"), classes)
	var me *MissingError
	if !errors.As(err, &me) || me.Flag != "--class" {
		t.Errorf("no total: %v, want a *MissingError naming --class", err)
	}
}

// TestPick: repeated figures that agree within their rounding are one;
// figures that differ take rank 0's and say so.
func TestPick(t *testing.T) {
	fig := func(v int64, places uint8, process string, line int) logs.Figure {
		return logs.Figure{Kind: logs.KindKVCacheMemory, Value: logs.Decimal{Units: v, Places: places}, RoundedTo: max(places, 2), Unit: logs.UnitGiB, Process: process, Line: line}
	}
	cases := []struct {
		name     string
		figs     []logs.Figure
		wantLine int
		noted    bool
	}{
		{"one", []logs.Figure{fig(1193, 2, "", 1)}, 1, false},
		// 14.9888 and 14.99 agree within 0.00005 + 0.005.
		{"rounding only", []logs.Figure{fig(149888, 4, "", 1), fig(1499, 2, "", 2)}, 1, false},
		{"TP0 wins", []logs.Figure{fig(6379, 2, "Worker_TP1", 1), fig(6376, 2, "Worker_TP0", 2)}, 2, true},
		{"the driver wins on V0", []logs.Figure{fig(1195, 2, "VllmWorkerProcess", 1), fig(1193, 2, "", 2)}, 2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, note := pick(tc.figs)
			if got.Line != tc.wantLine || (note != "") != tc.noted {
				t.Errorf("line %d, note %q; want line %d, noted %t", got.Line, note, tc.wantLine, tc.noted)
			}
		})
	}
}

// TestRead refuses what is not a log.
func TestRead(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "the log is empty"},
		{"binary", "\x00\x01\x02ELF", "binary"},
		{"mostly invalid UTF-8", strings.Repeat("\xff\xfe", 100), "binary"},
		{"prose", "hello\nworld\n", "no line of a vLLM or SGLang startup log"},
	} {
		_, err := Read(strings.NewReader(tc.in), "x", false)
		var re *ReadError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a *ReadError saying %q", tc.name, err, tc.want)
		}
	}
}

// TestCalibrate: the class loads back; the driver's share is derived only
// at one rank from a free figure that is not a refusal's.
func TestCalibrate(t *testing.T) {
	base := class(t, "h100", "NVIDIA H100 80GB HBM3", "nvidia", "9.0", 85018542080)
	base.Provenance = budget.Provenance{MemoryBytes: "a", ComputeCapability: "b", DriverFixedBytes: "c", DriverBudgetPerMille: "d", Unified: "e", UtilCeiling: "f", Interconnect: "g"}
	started := "INFO non-default args: {'model': 'm', 'gpu_memory_utilization': 0.97}\n" +
		"INFO Free memory on device (78.68/79.19 GiB) on startup. Desired GPU memory utilization is (0.97, 76.81 GiB).\n" +
		"INFO GPU KV cache size: 100,000 tokens\n"
	// 79.19 - 78.68 = 0.51 GiB, + 0.01 GiB of rounding = 0.52 GiB = 532.48
	// MiB, rounded up to 576 MiB: the h100-sxm-80g class's own figure.
	cal, err := Calibrate(source(t, started), base, "my-h100", 1)
	if err != nil {
		t.Fatal(err)
	}
	if cal.Class.Memory.DriverFixedBytes != 576<<20 || cal.Class.Device.MemoryBytes != 85029615043 || cal.Class.Memory.UtilCeiling != 0.97 {
		t.Errorf("class %+v", cal.Class)
	}
	if diff := cmp.Diff([]string{"memory_bytes", "driver_fixed_bytes", "util_ceiling"}, cal.Derived); diff != "" {
		t.Errorf("derived (-want +got):\n%s", diff)
	}
	if _, err := budget.ParseClass("my-h100", "x", cal.TOML); err != nil {
		t.Errorf("the class file does not load: %v\n%s", err, cal.TOML)
	}
	// At TP2 the snapshot holds NCCL's buffers too: copied.
	cal, err = Calibrate(source(t, started), base, "my-h100", 2)
	if err != nil || cal.Class.Memory.DriverFixedBytes != base.Memory.DriverFixedBytes {
		t.Errorf("TP2: %v, driver fixed %d", err, cal.Class.Memory.DriverFixedBytes)
	}
	// The refusal's free memory is other processes': copied, and the util
	// is not raised (vLLM did not run at it).
	refused := "ERROR ValueError: Free memory on device cuda:0 (10.2/79.19 GiB) on startup is less than desired GPU memory utilization (0.97, 76.81 GiB).\n"
	cal, err = Calibrate(source(t, refused), base, "my-h100", 1)
	if err != nil || cal.Class.Memory.DriverFixedBytes != base.Memory.DriverFixedBytes || cal.Class.Memory.UtilCeiling != 0.95 {
		t.Errorf("refusal: %v, %+v", err, cal.Class.Memory)
	}
	if _, err := Calibrate(source(t, started), base, "Bad Name", 1); err == nil || !strings.Contains(err.Error(), "--calibrate-name") {
		t.Errorf("a bad name: %v", err)
	}
}

// TestCalibrateHost: a GB10 log that states no device total but started at
// util 0.95 on one GPU (row 331's lines) calibrates the host's share, by
// hand: vLLM requested ceil(130664103936 x 0.95) = 124130898740 B, so the
// host held at most 130664103936 - 124130898740 = 6533205196 B. At 0.95
// the budget, that share and 2 per mille of the budget (124130898740/1000
// x 2 = 248261796 B) come to 130912365732 B, over the 130664103936 B: the
// ceiling falls to 0.94 (122824257700 + 6533205196 + 245648514 =
// 129603111410 B, within). A discrete class, a log at TP 2, or one whose
// util is not stated still refuses for want of a total.
func TestCalibrateHost(t *testing.T) {
	base := class(t, "gb10", "NVIDIA GB10", "nvidia", "12.1", 130664103936)
	base.Memory = budget.DriverTerms{DriverFixedBytes: 20937965568, DriverBudgetPerMille: 2, Unified: true, UtilCeiling: 0.83, UtilReached: 0.95}
	base.Provenance = budget.Provenance{MemoryBytes: "a", ComputeCapability: "b", DriverFixedBytes: "c", DriverBudgetPerMille: "d", Unified: "e", UtilCeiling: "f", Interconnect: "g", UtilReached: "h"}
	started := "INFO non-default args: {'model': 'm', 'gpu_memory_utilization': 0.95}\n" +
		"INFO GPU KV cache size: 623,040 tokens\n"
	cal, err := Calibrate(source(t, started), base, "my-spark", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := budget.DriverTerms{DriverFixedBytes: 6533205196, DriverBudgetPerMille: 2, Unified: true, UtilCeiling: 0.94}
	if diff := cmp.Diff(want, cal.Class.Memory); diff != "" {
		t.Errorf("memory (-want +got):\n%s", diff)
	}
	if cal.Class.Device.MemoryBytes != 130664103936 || cal.Class.Provenance.UtilReached != "" {
		t.Errorf("memory_bytes %d, util_reached provenance %q", cal.Class.Device.MemoryBytes, cal.Class.Provenance.UtilReached)
	}
	if diff := cmp.Diff([]string{"driver_fixed_bytes", "util_ceiling"}, cal.Derived); diff != "" {
		t.Errorf("derived (-want +got):\n%s", diff)
	}
	if _, err := budget.ParseClass("my-spark", "x", cal.TOML); err != nil {
		t.Errorf("the class file does not load: %v\n%s", err, cal.TOML)
	}
	// At util 0.6 the log bounds the host's share at 130664103936 -
	// ceil(130664103936 x 0.6 = 78398462361.6) = 52265641574 B (48.68
	// GiB), beyond budget.MaxDriverFixedBytes' 32 GiB: refused as saying
	// nothing of the host, not by lowering a ceiling that cannot help.
	low := "INFO non-default args: {'model': 'm', 'gpu_memory_utilization': 0.6}\n" +
		"INFO GPU KV cache size: 623,040 tokens\n"
	_, err = Calibrate(source(t, low), base, "my-spark", 1)
	if want := "--calibrate: the util 0.6 the startup log test.log ran at (line 1) bounds the host's share at 52265641574 B (48.68 GiB) only, more than any host holds (at most 34359738368 B, 32 GiB): it says nothing of this host, and the log states no device total to calibrate from"; err == nil || err.Error() != want {
		t.Errorf("util 0.6:\n got %v\nwant %s", err, want)
	}
	discrete := base
	discrete.Memory.Unified = false
	noUtil := "INFO GPU KV cache size: 623,040 tokens\n"
	for _, tt := range []struct {
		name string
		base budget.Class
		log  string
		tp   uint64
	}{
		{"discrete", discrete, started, 1},
		{"tp 2", base, started, 2},
		{"no util", base, noUtil, 1},
	} {
		if _, err := Calibrate(source(t, tt.log), tt.base, "my-spark", tt.tp); err == nil || !strings.Contains(err.Error(), "does not state the device's total memory") {
			t.Errorf("%s: %v, want the missing total named", tt.name, err)
		}
	}
}

func TestTOMLString(t *testing.T) {
	got := tomlString("C:\\logs\\\"a\"\tb\x01")
	want := `"C:\\logs\\\"a\"\tb\u0001"`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestLargestGap: the term with the largest difference in bytes explains
// the gap; a KV gap no term accounts for is named itself; graphs beside
// the budget are said not to change the available KV memory.
func TestLargestGap(t *testing.T) {
	mem := func(id string, diff, tol int64) Row {
		lb, pb := int64(10<<30), uint64(10<<30+diff)
		return Row{Figure: id, Label: id, Unit: "bytes", LoggedBytes: &lb, PredictedBytes: &pb, DifferenceBytes: &diff, ToleranceBytes: &tol,
			IsPredicted: true, Within: abs64(diff) <= tol}
	}
	const gib = 1 << 30
	cases := []struct {
		name       string
		rows       []Row
		beside     string
		want, says string
	}{
		{"a charged term", []Row{mem("weights", gib/100, gib/20), mem("activation_peak", -gib/2, gib/10), mem("available_kv_memory", gib/2, gib/10)}, "",
			"activation_peak", "the available KV memory is off by +0.50 GiB"},
		{"no term accounts", []Row{mem("weights", gib/100, gib/20), mem("available_kv_memory", 3*gib, gib/10)}, "",
			"available_kv_memory", "no logged term accounts for it (the largest, weights, differs by +0.01 GiB)"},
		// Issue 20: a V0 log shows the torch peak (weights + activation)
		// but not the activation alone; its gap, larger than every logged
		// term's, explains the available KV memory's, not --class.
		{"a sum of terms", []Row{mem("weights", gib/100, gib/20), mem("non_torch", gib/50, gib/10), mem("torch_peak", gib/2, gib/10), mem("available_kv_memory", -gib/2, gib/10)}, "",
			"torch_peak", "the available KV memory is off by -0.50 GiB"},
		{"graphs beside", []Row{mem("cuda_graph", gib, gib/10), mem("non_torch", gib/20, gib/10), mem("available_kv_memory", -gib/20, gib/10)}, "vLLM 0.7.2",
			"cuda_graph", "of the terms charged to the budget, non_torch differs most: +0.05 GiB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := largestGap(tc.rows, tc.beside)
			if g == nil || g.Figure != tc.want || !strings.Contains(g.Sentence, tc.says) {
				t.Errorf("gap %+v; want %s saying %q", g, tc.want, tc.says)
			}
		})
	}
}
