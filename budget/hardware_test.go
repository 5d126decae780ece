package budget

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const validFile = `[device]
name = "Test GPU"
vendor = "nvidia"
compute_capability = "9.0"
memory_bytes = 85899345920
interconnect = "nvlink"

[memory]
driver_fixed_bytes = 536870912
driver_budget_per_mille = 2
unified = false
util_ceiling = 0.95

[provenance]
memory_bytes = "a"
compute_capability = "cc"
driver_fixed_bytes = "b"
driver_budget_per_mille = "c"
unified = "d"
util_ceiling = "e"
interconnect = "f"
`

// edit returns validFile with one line replaced (old must occur once).
func edit(t *testing.T, old, new string) string {
	t.Helper()
	if strings.Count(validFile, old) != 1 {
		t.Fatalf("edit: %q occurs %d times in validFile", old, strings.Count(validFile, old))
	}
	return strings.Replace(validFile, old, new, 1)
}

func TestParseClassValid(t *testing.T) {
	got, err := ParseClass("test", ClassPath("test"), validFile)
	if err != nil {
		t.Fatal(err)
	}
	want := Class{
		Name:       "test",
		Device:     Device{Name: "Test GPU", Silicon: Silicon{Vendor: NVIDIA, Major: 9, Minor: 0}, MemoryBytes: 80 << 30, Interconnect: NVLink},
		Memory:     DriverTerms{DriverFixedBytes: 512 << 20, DriverBudgetPerMille: 2, Unified: false, UtilCeiling: 0.95},
		Provenance: Provenance{MemoryBytes: "a", ComputeCapability: "cc", DriverFixedBytes: "b", DriverBudgetPerMille: "c", Unified: "d", UtilCeiling: "e", Interconnect: "f"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseClass (-want +got):\n%s", diff)
	}
}

// withSM returns validFile with sm_count = count in [device] and its
// provenance why.
func withSM(t *testing.T, count, why string) string {
	t.Helper()
	doc := strings.Replace(validFile, "interconnect = \"nvlink\"\n", "interconnect = \"nvlink\"\nsm_count = "+count+"\n", 1)
	return strings.Replace(doc, "interconnect = \"f\"\n", "interconnect = \"f\"\nsm_count = "+why+"\n", 1)
}

// withReached returns validFile made unified (util_reached is a unified
// class's) with util_reached = util in [memory] and its provenance why.
func withReached(t *testing.T, util, why string) string {
	t.Helper()
	doc := strings.Replace(unified(t), "util_ceiling = 0.95\n", "util_ceiling = 0.95\nutil_reached = "+util+"\n", 1)
	return strings.Replace(doc, "interconnect = \"f\"\n", "interconnect = \"f\"\nutil_reached = "+why+"\n", 1)
}

// unified returns validFile with unified = true.
func unified(t *testing.T) string {
	t.Helper()
	return edit(t, "unified = false\n", "unified = true\n")
}

func TestParseClassUtilReached(t *testing.T) {
	// The optional key read through, with its provenance.
	got, err := ParseClass("test", ClassPath("test"), withReached(t, "0.97", `"row 1"`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([2]any{0.97, "row 1"}, [2]any{got.Memory.UtilReached, got.Provenance.UtilReached}); diff != "" {
		t.Errorf("util_reached (-want +got):\n%s", diff)
	}
	// At the ceiling itself it is allowed (it says nothing more), and the
	// loader's room check stays on util_ceiling: util_reached 1.0 is a
	// util a lighter host reached, not one the class's own terms run at.
	for _, u := range []string{"0.95", "1.0"} {
		if _, err := ParseClass("test", ClassPath("test"), withReached(t, u, `"row 1"`)); err != nil {
			t.Errorf("util_reached %s: %v", u, err)
		}
	}
	// Left out: 0, and no provenance asked for.
	got, err = ParseClass("test", ClassPath("test"), validFile)
	if err != nil || got.Memory.UtilReached != 0 {
		t.Errorf("without util_reached: UtilReached %v, err %v; want 0, nil", got.Memory.UtilReached, err)
	}
}

func TestParseClassUtilReachedErrors(t *testing.T) {
	p := ClassPath("test")
	tests := []struct{ name, doc, want string }{
		{"below the ceiling", withReached(t, "0.9", `"row 1"`),
			p + " [memory]: util_reached: must be in [util_ceiling, 1] = [0.95, 1], got 0.9"},
		{"above 1", withReached(t, "1.5", `"row 1"`),
			p + " [memory]: util_reached: must be in [util_ceiling, 1] = [0.95, 1], got 1.5"},
		{"zero given", withReached(t, "0", `"row 1"`),
			p + " [memory]: util_reached: must be in [util_ceiling, 1] = [0.95, 1], got 0"},
		{"nan", withReached(t, "nan", `"row 1"`),
			p + " [memory]: util_reached: must be in [util_ceiling, 1] = [0.95, 1], got NaN"},
		{"without provenance", strings.Replace(unified(t), "util_ceiling = 0.95\n", "util_ceiling = 0.95\nutil_reached = 0.97\n", 1),
			p + " [provenance]: util_reached: missing: [memory] gives util_reached, so its provenance must say which log reached it"},
		{"provenance without the util", edit(t, "interconnect = \"f\"\n", "interconnect = \"f\"\nutil_reached = \"row 1\"\n"),
			p + " [memory]: util_reached: missing: [provenance] explains a util_reached that [memory] does not give"},
		{"empty provenance", withReached(t, "0.97", `""`),
			p + " [provenance]: util_reached: must say where the number comes from"},
		// A discrete class: vLLM's check reads the device's free memory,
		// which no lighter host changes.
		{"on a discrete class", strings.Replace(withReached(t, "0.97", `"row 1"`), "unified = true\n", "unified = false\n", 1),
			p + " [memory]: util_reached: only a unified-memory class (unified = true) gives one: it is a util a lighter host started at, and on a discrete device vLLM's startup check reads the device's free memory, not the host's; a start above util_ceiling there raises util_ceiling"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseClass("test", p, tt.doc)
			if diff := cmp.Diff(tt.want, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReachedHeldBytes(t *testing.T) {
	// GB10's total 130664103936 B at 0.95: ceil(124130898739.2) =
	// 124130898740 B requested, so the host held at most 130664103936 -
	// 124130898740 = 6533205196 B (6.08 GiB) at the snapshot.
	d := DriverTerms{UtilCeiling: 0.83, UtilReached: 0.95}
	if got := d.ReachedHeldBytes(130664103936); got != 6533205196 {
		t.Errorf("ReachedHeldBytes = %d, want 6533205196", got)
	}
	// Not given: 0.
	if got := (DriverTerms{UtilCeiling: 0.83}).ReachedHeldBytes(130664103936); got != 0 {
		t.Errorf("ReachedHeldBytes without util_reached = %d, want 0", got)
	}
}

// TestWithinReached: a util up to util_reached and no further is within
// it; none is without one (0, even a util of 0).
func TestWithinReached(t *testing.T) {
	d := DriverTerms{UtilCeiling: 0.83, UtilReached: 0.95}
	tests := []struct {
		d    DriverTerms
		util float64
		want bool
	}{
		{d, 0.83, true},
		{d, 0.95, true}, // the util reached itself
		{d, 0.96, false},
		{DriverTerms{UtilCeiling: 0.83}, 0.5, false},
		{DriverTerms{UtilCeiling: 0.83}, 0, false},
	}
	for _, tt := range tests {
		if got := tt.d.WithinReached(tt.util); got != tt.want {
			t.Errorf("UtilReached %v: WithinReached(%v) = %v, want %v", tt.d.UtilReached, tt.util, got, tt.want)
		}
	}
}

func TestParseClassSMCount(t *testing.T) {
	// The optional key read through: 132 SMs, with its provenance.
	got, err := ParseClass("test", ClassPath("test"), withSM(t, "132", `"g"`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([2]any{uint64(132), "g"}, [2]any{got.Device.SMCount, got.Provenance.SMCount}); diff != "" {
		t.Errorf("sm_count (-want +got):\n%s", diff)
	}
	// Left out: 0, and no provenance asked for.
	got, err = ParseClass("test", ClassPath("test"), validFile)
	if err != nil || got.Device.SMCount != 0 {
		t.Errorf("without sm_count: SMCount %d, err %v; want 0, nil", got.Device.SMCount, err)
	}
}

func TestParseClassErrors(t *testing.T) {
	const p = "kernels/test/HARDWARE.toml"
	tests := []struct {
		name   string
		doc    string
		reason string
		want   string
	}{
		{"missing memory table", strings.Split(validFile, "[memory]")[0] + "[provenance]" + strings.Split(validFile, "[provenance]")[1],
			"a class without [memory] has no driver terms",
			p + " [memory]: the class declares no [memory] table"},
		{"missing device table", "[memory]" + strings.SplitN(validFile, "[memory]", 2)[1], "",
			p + " [device]: the class declares no [device] table"},
		{"keys outside any table", strings.SplitN(validFile, "[memory]\n", 2)[1], "the four terms belong in [memory]",
			p + ": driver_fixed_bytes: unknown key or table; the file holds [device], [memory] and [provenance]\n" +
				p + ": driver_budget_per_mille: unknown key or table; the file holds [device], [memory] and [provenance]\n" +
				p + ": unified: unknown key or table; the file holds [device], [memory] and [provenance]\n" +
				p + ": util_ceiling: unknown key or table; the file holds [device], [memory] and [provenance]\n" +
				p + " [device]: the class declares no [device] table\n" +
				p + " [memory]: the class declares no [memory] table"},
		{"missing driver_fixed_bytes", edit(t, "driver_fixed_bytes = 536870912\n", ""), "every key is required",
			p + " [memory]: driver_fixed_bytes: missing (every key is required; there is no default)"},
		{"missing driver_budget_per_mille", edit(t, "driver_budget_per_mille = 2\n", ""), "",
			p + " [memory]: driver_budget_per_mille: missing (every key is required; there is no default)"},
		{"missing unified", edit(t, "unified = false\n", ""), "",
			p + " [memory]: unified: missing (every key is required; there is no default)"},
		{"missing util_ceiling", edit(t, "util_ceiling = 0.95\n", ""), "",
			p + " [memory]: util_ceiling: missing (every key is required; there is no default)"},
		{"missing memory_bytes", edit(t, "memory_bytes = 85899345920\n", ""), "",
			p + " [device]: memory_bytes: missing (every key is required; there is no default)"},
		{"missing device name", edit(t, "name = \"Test GPU\"\n", ""), "",
			p + " [device]: name: missing (every key is required; there is no default)"},
		{"missing provenance key", edit(t, "unified = \"d\"\n", ""), "every number has a provenance",
			p + " [provenance]: unified: missing (every key is required; there is no default)"},
		{"unknown memory key", edit(t, "unified = false\n", "unified = false\nswap_bytes = 1\n"), "",
			p + " [memory]: swap_bytes: unknown key; [memory] holds exactly driver_fixed_bytes, driver_budget_per_mille, unified, util_ceiling (and optionally util_reached)"},
		{"unknown device key", edit(t, "name = \"Test GPU\"\n", "name = \"Test GPU\"\nsm = 90\n"), "",
			p + " [device]: sm: unknown key; [device] holds exactly name, vendor, compute_capability, memory_bytes, interconnect (and optionally sm_count)"},
		{"unknown provenance key", edit(t, "unified = \"d\"\n", "unified = \"d\"\nnote = \"x\"\n"), "",
			p + " [provenance]: note: unknown key; [provenance] holds exactly memory_bytes, compute_capability, driver_fixed_bytes, driver_budget_per_mille, unified, util_ceiling, interconnect (and optionally sm_count, util_reached)"},
		{"unknown table", validFile + "[extra]\nx = 1\n", "",
			p + ": extra: unknown key or table; the file holds [device], [memory] and [provenance]"},
		{"upper-case key", edit(t, "driver_fixed_bytes = 536870912", "DRIVER_FIXED_BYTES = 536870912"),
			"the decoder matches tags case-insensitively; we do not",
			p + " [memory]: DRIVER_FIXED_BYTES: unknown key; [memory] holds exactly driver_fixed_bytes, driver_budget_per_mille, unified, util_ceiling (and optionally util_reached)\n" +
				p + " [memory]: driver_fixed_bytes: missing (every key is required; there is no default)"},
		{"nested key", edit(t, "unified = false\n", "unified = false\nx.y = 1\n"), "",
			p + " [memory]: x: unknown key; [memory] holds exactly driver_fixed_bytes, driver_budget_per_mille, unified, util_ceiling (and optionally util_reached)"},
		{"per mille above 1000", edit(t, "driver_budget_per_mille = 2", "driver_budget_per_mille = 1001"), "",
			p + " [memory]: driver_budget_per_mille: must be at most 1000, got 1001"},
		{"util ceiling zero", edit(t, "util_ceiling = 0.95", "util_ceiling = 0.0"), "",
			p + " [memory]: util_ceiling: must be in (0, 1], got 0"},
		{"util ceiling above one", edit(t, "util_ceiling = 0.95", "util_ceiling = 1.01"), "",
			p + " [memory]: util_ceiling: must be in (0, 1], got 1.01"},
		{"util ceiling nan", edit(t, "util_ceiling = 0.95", "util_ceiling = nan"), "",
			p + " [memory]: util_ceiling: must be in (0, 1], got NaN"},
		{"util ceiling negative", edit(t, "util_ceiling = 0.95", "util_ceiling = -0.5"), "",
			p + " [memory]: util_ceiling: must be in (0, 1], got -0.5"},
		{"negative bytes", edit(t, "driver_fixed_bytes = 536870912", "driver_fixed_bytes = -1"),
			"the decoder would wrap -1 into MaxUint64",
			p + " [memory]: driver_fixed_bytes: must be a non-negative integer, got -1 (line 9, column 22)"},
		{"fractional bytes", edit(t, "driver_fixed_bytes = 536870912", "driver_fixed_bytes = 1.5"), "",
			p + " [memory]: driver_fixed_bytes: must be a non-negative integer, got 1.5 (line 9, column 22)"},
		{"string bytes", edit(t, "memory_bytes = 85899345920", `memory_bytes = "80GiB"`), "",
			p + ` [device]: memory_bytes: must be a non-negative integer, got the string "80GiB" (line 5, column 17)`},
		{"string bool", edit(t, "unified = false", `unified = "no"`), "",
			p + ` [memory]: unified: must be true or false, got the string "no" (line 11, column 12)`},
		{"string fraction", edit(t, "util_ceiling = 0.95", `util_ceiling = "0.95"`), "",
			p + ` [memory]: util_ceiling: must be a number, got the string "0.95" (line 12, column 17)`},
		{"number as name", edit(t, `name = "Test GPU"`, `name = 3`), "",
			p + ` [device]: name: must be a string, got 3 (line 2, column 8)`},
		{"table as value", "memory = 3\n" + strings.Split(validFile, "[memory]")[0] + "[provenance]" + strings.Split(validFile, "[provenance]")[1],
			"a plain decode error, still named",
			p + `: line 1 (last key "memory"): type mismatch for budget.memoryTable: expected table but found int64`},
		{"malformed toml", edit(t, "unified = false", "unified = "), "",
			p + " [memory]: unified: expected value but found '\\n' instead (line 11, column 11)"},
		{"empty name", edit(t, `name = "Test GPU"`, `name = " "`), "",
			p + " [device]: name: must not be empty"},
		{"zero memory", edit(t, "memory_bytes = 85899345920", "memory_bytes = 0"), "",
			p + " [device]: memory_bytes: 0 bytes is not an accelerator's memory (want 1073741824 to 2199023255552: 1 GiB to 2 TiB)"},
		{"memory no device has", edit(t, "memory_bytes = 85899345920", "memory_bytes = 9223372036854775807"), "2^63-1 bytes is 8 EiB",
			p + " [device]: memory_bytes: 9223372036854775807 bytes is not an accelerator's memory (want 1073741824 to 2199023255552: 1 GiB to 2 TiB)"},
		{"memory just under 1 GiB", edit(t, "memory_bytes = 85899345920", "memory_bytes = 1073741823"), "",
			p + " [device]: memory_bytes: 1073741823 bytes is not an accelerator's memory (want 1073741824 to 2199023255552: 1 GiB to 2 TiB)"},
		{"driver share no driver has", edit(t, "driver_fixed_bytes = 536870912", "driver_fixed_bytes = 34359738369"), "32 GiB + 1",
			p + " [memory]: driver_fixed_bytes: 34359738369 bytes is beyond any driver's share (at most 34359738368: 32 GiB)"},
		{"unknown vendor", edit(t, `vendor = "nvidia"`, `vendor = "NVIDIA"`), "vendors are lower case, like class names",
			p + ` [device]: vendor: "NVIDIA": want nvidia or amd`},
		{"capability not a version", edit(t, `compute_capability = "9.0"`, `compute_capability = "sm90"`), "",
			p + ` [device]: compute_capability: "sm90": want NVIDIA's major.minor, such as 9.0`},
		{"capability of no GPU", edit(t, `compute_capability = "9.0"`, `compute_capability = "20.0"`), "",
			p + ` [device]: compute_capability: "20.0": no NVIDIA GPU has that major version (want 3 to 15)`},
		{"amd capability as a number", edit(t, `vendor = "nvidia"`+"\n"+`compute_capability = "9.0"`, `vendor = "amd"`+"\n"+`compute_capability = "9.4"`), "",
			p + ` [device]: compute_capability: "9.4": want AMD's gfx target, such as gfx942`},
		{"missing compute capability", edit(t, "compute_capability = \"9.0\"\n", ""), "",
			p + " [device]: compute_capability: missing (every key is required; there is no default)"},
		{"missing interconnect", edit(t, "interconnect = \"nvlink\"\n", ""), "a class that exists as SXM and PCIe must say which",
			p + " [device]: interconnect: missing (every key is required; there is no default)"},
		{"unknown interconnect", edit(t, `interconnect = "nvlink"`, `interconnect = "NVLink"`), "spelled exactly, like vendors",
			p + ` [device]: interconnect: want one of nvlink, xgmi, pcie-p2p, pcie or none, got "NVLink"`},
		{"interconnect as a bool", edit(t, `interconnect = "nvlink"`, `interconnect = true`), "",
			p + ` [device]: interconnect: must be a string, got true (line 6, column 16)`},
		{"missing interconnect provenance", edit(t, "interconnect = \"f\"\n", ""), "",
			p + " [provenance]: interconnect: missing (every key is required; there is no default)"},
		{"empty provenance", edit(t, `util_ceiling = "e"`, `util_ceiling = ""`), "",
			p + " [provenance]: util_ceiling: must say where the number comes from"},
		{"sm_count without provenance", edit(t, "interconnect = \"nvlink\"\n", "interconnect = \"nvlink\"\nsm_count = 132\n"), "every number has a provenance",
			p + " [provenance]: sm_count: missing: [device] gives sm_count, so its provenance must say where it comes from"},
		{"sm_count provenance without the count", edit(t, "interconnect = \"f\"\n", "interconnect = \"f\"\nsm_count = \"g\"\n"), "",
			p + " [device]: sm_count: missing: [provenance] explains an sm_count that [device] does not give"},
		{"sm_count zero", withSM(t, "0", `"g"`), "no device runs without an SM",
			p + " [device]: sm_count: 0 is not a device's SM count (want 1 to 4096)"},
		{"sm_count past the bound", withSM(t, "4097", `"g"`), "MaxSMCount is 4096",
			p + " [device]: sm_count: 4097 is not a device's SM count (want 1 to 4096)"},
		{"sm_count negative", withSM(t, "-1", `"g"`), "",
			p + " [device]: sm_count: must be a non-negative integer, got -1 (line 7, column 12)"},
		{"sm_count empty provenance", withSM(t, "132", `""`), "",
			p + " [provenance]: sm_count: must say where the number comes from"},
		{"ceiling leaves no room", edit(t, "util_ceiling = 0.95", "util_ceiling = 1.0"), "the class must run at its own ceiling: 536870912 + 85899345920/1000*2 = 708669602",
			p + " [memory]: util_ceiling: 1 leaves no room for the driver: budget 85899345920 + driver 708669602 = 86608015522 bytes > memory_bytes 85899345920"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseClass("test", p, tt.doc)
			if err == nil {
				t.Fatalf("ParseClass = %+v, want error %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(Class{}, got); diff != "" {
				t.Errorf("a failed parse returns the zero Class (-want +got):\n%s", diff)
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Errorf("error %T does not unwrap to *FileError", err)
			}
		})
	}
}

func TestParseDriverTermsSeedRules(t *testing.T) {
	got, err := ParseDriverTerms("h", "[memory]\ndriver_fixed_bytes = 1\ndriver_budget_per_mille = 1000\nunified = true\nutil_ceiling = 1\n")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(DriverTerms{DriverFixedBytes: 1, DriverBudgetPerMille: 1000, Unified: true, UtilCeiling: 1}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, err = ParseDriverTerms("h", "[device]\nname = \"x\"\n")
	if diff := cmp.Diff("kernels/h/HARDWARE.toml [memory]: the class declares no [memory] table", errString(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// util_reached, optional, in [util_ceiling, 1] where given: 0 given is
	// refused as ParseClass refuses it, not read as "not given".
	const seed = "[memory]\ndriver_fixed_bytes = 1\ndriver_budget_per_mille = 2\nunified = true\nutil_ceiling = 0.83\n"
	got, err = ParseDriverTerms("h", seed+"util_reached = 0.95\n")
	if err != nil || got.UtilReached != 0.95 {
		t.Errorf("util_reached 0.95: %+v, %v; want 0.95 read", got, err)
	}
	for _, tt := range []struct{ util, want string }{
		{"0", "kernels/h/HARDWARE.toml [memory]: util_reached: must be in [util_ceiling, 1] = [0.83, 1], got 0"},
		{"0.5", "kernels/h/HARDWARE.toml [memory]: util_reached: must be in [util_ceiling, 1] = [0.83, 1], got 0.5"},
	} {
		_, err := ParseDriverTerms("h", seed+"util_reached = "+tt.util+"\n")
		if diff := cmp.Diff(tt.want, errString(err)); diff != "" {
			t.Errorf("util_reached %s (-want +got):\n%s", tt.util, diff)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
