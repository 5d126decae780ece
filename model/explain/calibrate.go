package explain

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/model/logs"
)

// Calibration is a class file made from a log's device figures.
type Calibration struct {
	// Name is the class's name (its directory under --kernels).
	Name  string
	Class budget.Class
	// TOML is the class file, which [budget.ParseClass] reads back as
	// Class.
	TOML string
	// Derived are the keys set from the log; Copied those copied from
	// Base, the class the log's device was matched to.
	Derived, Copied []string
	Base            string
}

// CalibrateError is a class that cannot be calibrated or written; Flag
// names the flag the error is about.
type CalibrateError struct {
	Flag   string
	Reason string
	Err    error
}

// Error returns why the class cannot be calibrated, naming the flag.
func (e *CalibrateError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Flag, e.Reason, e.Err)
	}
	return e.Flag + ": " + e.Reason
}

// Unwrap returns the cause.
func (e *CalibrateError) Unwrap() error { return e.Err }

// driverGranule is what the driver's fixed share is rounded up to: the
// shipped classes round their measured context to 64 MiB
// (kernels/h100-sxm-80g/HARDWARE.toml, driver_fixed_bytes).
const driverGranule = 64 << 20

// freeAtStartup are the formats whose free memory is measured before vLLM
// (or SGLang) allocates anything: total minus free is what the CUDA
// context, and anything else on the device, already holds.
var freeAtStartup = []logs.Format{logs.FormatFreeOnDevice, logs.FormatV1Requested, logs.FormatMemorySnapshot, logs.FormatV1EarlyProfile, logs.FormatSGLangLoadWeightBegin}

// Calibrate makes a class named name for the log's device: memory_bytes from
// the logged total; driver_fixed_bytes from the memory held before the
// engine's snapshot when the log shows it at one tensor-parallel rank (tp
// is the serve's); util_ceiling raised to the logged util when the log shows
// the engine running above base's ceiling; everything else copied from
// base, each marked an estimate in the provenance, which names the log and
// the lines used. The class is checked as the loader checks it.
func Calibrate(src *Source, base budget.Class, name string, tp uint64) (Calibration, error) {
	l := src.Log
	if err := budget.CheckClassName(name); err != nil {
		return Calibration{}, &CalibrateError{Flag: "--calibrate-name", Reason: fmt.Sprintf("%q is not a class name", name), Err: err}
	}
	total, ok := l.First(logs.KindDeviceTotal)
	if !ok {
		if base.Memory.Unified && tp == 1 {
			if u, line, ok := ranAt(src); ok {
				return calibrateHost(src, base, name, u, line)
			}
		}
		return Calibration{}, &CalibrateError{Flag: "--calibrate", Reason: "the log does not state the device's total memory (total_gpu_memory, \"Free memory on device (F/T GiB)\"): nothing to calibrate from" +
			" (on a unified-memory class, a log that started at one GPU with its util stated calibrates the host's share from the util)"}
	}
	totalBytes, ok := total.Bytes()
	if !ok || totalBytes < budget.MinMemoryBytes || totalBytes > budget.MaxMemoryBytes {
		return Calibration{}, &CalibrateError{Flag: "--calibrate", Reason: fmt.Sprintf("the log's device total %q (line %d) is not an accelerator's memory (1 GiB to 2 TiB)", total.Text, total.Line)}
	}
	c, cal, from, estimate := calibrationOf(src, base, name)
	c.Device.MemoryBytes = uint64(totalBytes)

	// memory_bytes.
	prov := &c.Provenance
	if total.Unit == logs.UnitBytes {
		prov.MemoryBytes = fmt.Sprintf("%d B: the device total %s logged on line %d (%q), exact.", totalBytes, from, total.Line, total.Text)
	} else {
		prov.MemoryBytes = fmt.Sprintf("%s %s = %d B: the device total %s logged on line %d (%q); the log's rounding leaves +-%d B (+-%s).",
			total.Value, unitWord(total.Unit), totalBytes, from, total.Line, total.Text, total.Tolerance(), gib(uint64(total.Tolerance())))
	}
	cal.Derived = append(cal.Derived, "memory_bytes")

	// driver_fixed_bytes: total - free at startup, at one rank.
	held, heldNote := heldAtStartup(src, total, totalBytes)
	switch {
	case held < 0:
		prov.DriverFixedBytes = estimate + heldNote
		cal.Copied = append(cal.Copied, "driver_fixed_bytes")
	case tp > 1:
		prov.DriverFixedBytes = fmt.Sprintf("%s; the log runs %d tensor-parallel ranks, whose snapshot also holds NCCL's buffers (%s), so it does not measure the context alone.", estimate, tp, heldNote)
		cal.Copied = append(cal.Copied, "driver_fixed_bytes")
	case uint64(held) > budget.MaxDriverFixedBytes:
		prov.DriverFixedBytes = fmt.Sprintf("%s; the device held %s at startup (%s), more than any driver's share: other processes were on it.", estimate, gib(uint64(held)), heldNote)
		cal.Copied = append(cal.Copied, "driver_fixed_bytes")
	default:
		c.Memory.DriverFixedBytes = budget.RoundUp(uint64(held), driverGranule)
		prov.DriverFixedBytes = fmt.Sprintf("%d B (%s): what the device held before the engine's first allocation, %s, with the log's rounding, rounded up to the next 64 MiB as the shipped classes round it: the CUDA context and anything else on the device at the time.",
			c.Memory.DriverFixedBytes, gib(c.Memory.DriverFixedBytes), heldNote)
		cal.Derived = append(cal.Derived, "driver_fixed_bytes")
	}

	// The rest from the base class.
	prov.ComputeCapability = fmt.Sprintf("%s (and the vendor %s and device name %q) %s", base.Device.Silicon, base.Device.Silicon.Vendor, base.Device.Name, estimate)
	if named := namedClasses(src.Text, []budget.Class{base}); len(named) > 0 {
		prov.ComputeCapability = fmt.Sprintf("%s (vendor %s): class %s's, whose device name %q %s prints.", base.Device.Silicon, base.Device.Silicon.Vendor, base.Name, base.Device.Name, from)
	} else {
		cal.Copied = append(cal.Copied, "compute_capability")
	}
	copyUnlogged(prov, base, estimate, &cal)

	// util_ceiling: the base's, or the util the log ran at when higher.
	c.Memory.UtilCeiling = base.Memory.UtilCeiling
	prov.UtilCeiling = fmt.Sprintf("%s, %s.", formatUtil(base.Memory.UtilCeiling), estimate)
	ceilingFrom := "copied"
	if u, line, ok := ranAt(src); ok && u > base.Memory.UtilCeiling {
		c.Memory.UtilCeiling = u
		prov.UtilCeiling = fmt.Sprintf("%s: the --gpu-memory-utilization %s ran at (line %d), above class %s's %s.", formatUtil(u), from, line, base.Name, formatUtil(base.Memory.UtilCeiling))
		ceilingFrom = "derived"
	}
	parsed, text, lowered, err := loadLowered(c, src, name, fmt.Sprintf("device total on line %d", total.Line), func(next float64) string {
		return fmt.Sprintf("%s: the largest hundredth at which the budget, the driver's fixed share and its per-mille share fit in memory_bytes (class %s's ceiling, or the util %s ran at, did not).", formatUtil(next), base.Name, from)
	})
	if err != nil {
		return Calibration{}, err
	}
	if lowered {
		ceilingFrom = "derived"
	}
	if ceilingFrom == "derived" {
		cal.Derived = append(cal.Derived, "util_ceiling")
	} else {
		cal.Copied = append(cal.Copied, "util_ceiling")
	}
	cal.Class, cal.TOML = parsed, text
	return cal, nil
}

// calibrateHost makes a class of the host a log ran on when the log states
// no device total but shows vLLM started at util u on one GPU of a
// unified-memory class: vLLM requested ceil(total x u) there and refuses
// to start when its snapshot reads less free (request_memory,
// vllm/v1/worker/utils.py), and on unified memory that free memory is the
// host's MemAvailable, so the host held at most total - ceil(total x u).
// The class takes that bound as driver_fixed_bytes (the most the log
// allows: a host that held less is sized as holding it) and u as its
// ceiling, lowered by hundredths as Calibrate lowers it; memory_bytes and
// the rest are base's (the class --class named), marked estimates.
func calibrateHost(src *Source, base budget.Class, name string, u float64, line int) (Calibration, error) {
	c, cal, from, estimate := calibrationOf(src, base, name)
	total := base.Device.MemoryBytes
	req, err := budget.UtilBudget(total, u, budget.Ceil)
	if err != nil {
		return Calibration{}, &CalibrateError{Flag: "--calibrate", Reason: fmt.Sprintf("the util %v %s ran at (line %d)", u, from, line), Err: err}
	}
	held := budget.SatSub(total, req)
	if held > budget.MaxDriverFixedBytes {
		// A low util bounds the host's share above any host's: the class
		// would not load at any ceiling, so say what the log lacks.
		return Calibration{}, &CalibrateError{Flag: "--calibrate", Reason: fmt.Sprintf("the util %s %s ran at (line %d) bounds the host's share at %d B (%s) only, more than any host holds (at most %d B, 32 GiB): it says nothing of this host, and the log states no device total to calibrate from",
			formatUtil(u), from, line, held, gib(held), uint64(budget.MaxDriverFixedBytes))}
	}
	prov := &c.Provenance
	prov.MemoryBytes = fmt.Sprintf("%d B, %s's total (%s): the log states no device total.", total, base.Name, estimate)
	c.Memory.DriverFixedBytes = held
	prov.DriverFixedBytes = fmt.Sprintf("%d B (%s): at most what the host held at vLLM's startup snapshot. The log %s started at --gpu-memory-utilization %s (line %d) on one GPU, so the snapshot read at least ceil(%d x %s) = %d B free, which on this unified-memory device is the host's MemAvailable, and the host held at most %d - %d = %d B; taken as held, the most the log allows.",
		held, gib(held), src.Name, formatUtil(u), line, total, formatUtil(u), req, total, req, held)
	prov.ComputeCapability = fmt.Sprintf("%s (and the vendor %s and device name %q) %s", base.Device.Silicon, base.Device.Silicon.Vendor, base.Device.Name, estimate)
	cal.Derived = append(cal.Derived, "driver_fixed_bytes")
	cal.Copied = append(cal.Copied, "memory_bytes", "compute_capability")
	copyUnlogged(prov, base, estimate, &cal)
	c.Memory.UtilCeiling = u
	prov.UtilCeiling = fmt.Sprintf("%s: the --gpu-memory-utilization %s ran at (line %d).", formatUtil(u), from, line)
	p, text, _, err := loadLowered(c, src, name, fmt.Sprintf("no device total: the host's share from the util on line %d", line), func(next float64) string {
		return fmt.Sprintf("%s: the largest hundredth at which the budget, the driver's fixed share and its per-mille share fit in memory_bytes (the util %s ran at, %s on line %d, did not: the per-mille share is charged beside a host share that already fills the rest).", formatUtil(next), from, formatUtil(u), line)
	})
	if err != nil {
		return Calibration{}, err
	}
	cal.Class, cal.TOML = p, text
	cal.Derived = append(cal.Derived, "util_ceiling")
	return cal, nil
}

// calibrationOf starts the class name of the log src from base, for
// Calibrate and calibrateHost alike: base renamed, without its
// util_reached (the base class's evidence of other hosts, which a class of
// this log's device does not carry); the calibration naming both; and the
// provenance phrases of what the log gives (from) and of what it copies
// from base (estimate).
func calibrationOf(src *Source, base budget.Class, name string) (c budget.Class, cal Calibration, from, estimate string) {
	c = base
	c.Name = name
	c.Memory.UtilReached, c.Provenance.UtilReached = 0, ""
	cal = Calibration{Name: name, Base: base.Name}
	from = fmt.Sprintf("the startup log %s", src.Name)
	estimate = fmt.Sprintf("copied from class %s, an estimate: %s does not show it", base.Name, src.Name)
	return c, cal, from, estimate
}

// copyUnlogged sets the provenance of what no startup log shows and the
// class copies from base (per mille, unified, interconnect, the optional
// sm_count), each an estimate, and lists them copied in that order.
func copyUnlogged(prov *budget.Provenance, base budget.Class, estimate string, cal *Calibration) {
	prov.DriverBudgetPerMille = fmt.Sprintf("%d per mille, %s.", base.Memory.DriverBudgetPerMille, estimate)
	prov.Unified = fmt.Sprintf("%t, %s.", base.Memory.Unified, estimate)
	prov.Interconnect = fmt.Sprintf("%s, %s.", base.Device.Interconnect, estimate)
	cal.Copied = append(cal.Copied, "driver_budget_per_mille", "unified", "interconnect")
	if base.Device.SMCount > 0 {
		// The optional SM count: a startup log does not state it, and
		// without it the engines charge their per-SM buffers' bound.
		prov.SMCount = fmt.Sprintf("%d, %s.", base.Device.SMCount, estimate)
		cal.Copied = append(cal.Copied, "sm_count")
	}
}

// loadLowered renders c as a class file and checks it as the loader does,
// which requires the budget at the ceiling, with the driver's share, to
// fit in memory_bytes: it lowers util_ceiling by hundredths (not below
// 0.5) until the class loads, each lowered ceiling's provenance why(next).
// lowered says the ceiling moved.
func loadLowered(c budget.Class, src *Source, name, header string, why func(next float64) string) (parsed budget.Class, text string, lowered bool, err error) {
	for {
		text = classTOML(c, src, header)
		p, err := budget.ParseClass(name, name+"/HARDWARE.toml", text)
		if err == nil {
			return p, text, lowered, nil
		}
		next := math.Round(c.Memory.UtilCeiling*100)/100 - 0.01
		if next < 0.5 {
			return budget.Class{}, "", false, &CalibrateError{Flag: "--calibrate", Reason: "the calibrated class does not load", Err: err}
		}
		c.Memory.UtilCeiling, c.Provenance.UtilCeiling = next, why(next)
		lowered = true
	}
}

// heldAtStartup is total - free at the engine's startup, in bytes, with
// the rounding of both figures added; -1 when the log shows no such free
// figure, or only the refusal's (other processes were holding memory).
func heldAtStartup(src *Source, total logs.Figure, totalBytes int64) (int64, string) {
	for _, f := range src.Log.All(logs.KindDeviceFree) {
		if !slices.Contains(freeAtStartup, f.Format) {
			continue
		}
		if strings.Contains(src.lineOf(f.Line), "is less than desired") {
			continue
		}
		free, ok := f.Bytes()
		if !ok || free > totalBytes {
			continue
		}
		held := totalBytes - free + total.Tolerance() + f.Tolerance()
		return held, fmt.Sprintf("%s - %s = %s on lines %d and %d", total.Value, f.Value, gib(uint64(totalBytes-free)), total.Line, f.Line)
	}
	return -1, ""
}

// ranAt is the util the log shows the engine running at: the logged util
// of a log in which the KV cache was allocated and no startup error
// appears.
func ranAt(src *Source) (float64, int, bool) {
	l := src.Log
	for _, f := range l.Figures {
		if f.Format == logs.FormatV0MaxLenError || f.Format == logs.FormatV1MaxLenError || strings.Contains(src.lineOf(f.Line), "is less than desired") {
			return 0, 0, false
		}
	}
	_, blocks := l.First(logs.KindGPUBlocks)
	_, tokens := l.First(logs.KindKVCacheTokens)
	if !blocks && !tokens {
		return 0, 0, false
	}
	if st, ok := l.Setting("gpu_memory_utilization"); ok {
		if u, ok := st.Float(); ok && u > 0 && u <= 1 {
			return u, st.Line, true
		}
	}
	if f, ok := l.First(logs.KindUtilization); ok && f.Float64() > 0 && f.Float64() <= 1 {
		return f.Float64(), f.Line, true
	}
	return 0, 0, false
}

func formatUtil(u float64) string {
	s := strconv.FormatFloat(u, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// classTOML renders c as a class file in the shipped files' layout.
func classTOML(c budget.Class, src *Source, from string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Device class %s: calibrated by `membudget explain --calibrate` from the startup log %s\n", c.Name, oneLine(src.Name))
	fmt.Fprintf(&b, "# (%s); keys whose provenance says \"an estimate\" are copied from another class.\n\n", from)
	fmt.Fprintf(&b, "[device]\nname = %s\nvendor = %s\ncompute_capability = %s\nmemory_bytes = %d\ninterconnect = %s\n",
		tomlString(c.Device.Name), tomlString(string(c.Device.Silicon.Vendor)), tomlString(c.Device.Silicon.String()), c.Device.MemoryBytes, tomlString(string(c.Device.Interconnect)))
	if c.Device.SMCount > 0 {
		fmt.Fprintf(&b, "sm_count = %d\n", c.Device.SMCount)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "[memory]\ndriver_fixed_bytes = %d\ndriver_budget_per_mille = %d\nunified = %t\nutil_ceiling = %s\n\n",
		c.Memory.DriverFixedBytes, c.Memory.DriverBudgetPerMille, c.Memory.Unified, formatUtil(c.Memory.UtilCeiling))
	p := c.Provenance
	fmt.Fprintf(&b, "[provenance]\nmemory_bytes = %s\ncompute_capability = %s\ndriver_fixed_bytes = %s\ndriver_budget_per_mille = %s\nunified = %s\nutil_ceiling = %s\ninterconnect = %s\n",
		tomlString(p.MemoryBytes), tomlString(p.ComputeCapability), tomlString(p.DriverFixedBytes), tomlString(p.DriverBudgetPerMille), tomlString(p.Unified), tomlString(p.UtilCeiling), tomlString(p.Interconnect))
	if c.Device.SMCount > 0 {
		fmt.Fprintf(&b, "sm_count = %s\n", tomlString(p.SMCount))
	}
	return b.String()
}

// oneLine keeps a name on one comment line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// tomlString quotes s as a TOML basic string: backslash, quote and control
// characters escaped (a Windows path's backslashes, a log name's quotes).
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// WriteClass writes cal to dir/<name>/HARDWARE.toml, where --kernels dir
// reads it. dir must be an existing directory; an existing class file is
// kept unless force is set. It returns the path written.
func WriteClass(dir string, cal Calibration, force bool) (string, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &CalibrateError{Flag: "--calibrate", Reason: fmt.Sprintf("%s: no such directory (create it, or name the --kernels directory to write to)", dir)}
	case err != nil:
		return "", &CalibrateError{Flag: "--calibrate", Reason: dir, Err: err}
	case !fi.IsDir():
		return "", &CalibrateError{Flag: "--calibrate", Reason: fmt.Sprintf("%s is not a directory", dir)}
	}
	if err := budget.CheckClassName(cal.Name); err != nil {
		return "", &CalibrateError{Flag: "--calibrate-name", Reason: fmt.Sprintf("%q is not a class name", cal.Name), Err: err}
	}
	sub := filepath.Join(dir, cal.Name)
	if err := os.Mkdir(sub, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", &CalibrateError{Flag: "--calibrate", Reason: "cannot create the class directory", Err: err}
	}
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		return "", &CalibrateError{Flag: "--calibrate", Reason: fmt.Sprintf("%s is not a directory", sub)}
	}
	path := filepath.Join(sub, "HARDWARE.toml")
	if _, err := os.Lstat(path); err == nil && !force {
		return "", &CalibrateError{Flag: "--calibrate", Reason: fmt.Sprintf("%s exists; pass --force to overwrite it", path)}
	}
	tmp, err := os.CreateTemp(sub, ".HARDWARE.toml.*")
	if err != nil {
		return "", &CalibrateError{Flag: "--calibrate", Reason: "cannot write the class file", Err: err}
	}
	_, werr := tmp.WriteString(cal.TOML)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", &CalibrateError{Flag: "--calibrate", Reason: "cannot write " + path, Err: werr}
	}
	return path, nil
}

// DefaultClassName is the name a calibrated class takes unless
// --calibrate-name gives one: the matched class's, or for a synthesized
// class its base's with the logged total ("h100-sxm-80g-79.19gib").
func DefaultClassName(ch ClassChoice) string {
	if ch.How != ClassSynthesized || ch.Total == nil {
		return ch.Class.Name
	}
	return strings.ToLower(fmt.Sprintf("%s-%s%s", ch.Base, ch.Total.Value, unitSymbol(ch.Total.Unit)))
}
