package budget

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"membudget/internal/untrusted"
)

// Device is the [device] table of a class's HARDWARE.toml.
type Device struct {
	// Name is the device's marketing name, as nvidia-smi or rocm-smi print it.
	Name string
	// Silicon is the vendor and compute capability: what engines choose
	// kernels by.
	Silicon Silicon
	// MemoryBytes is the total the driver reports (torch.cuda.mem_get_info's
	// total; vLLM logs it as total_gpu_memory), in bytes.
	MemoryBytes uint64
	// Interconnect is how the GPUs of one node reach each other: it decides
	// the collectives' buffers under tensor parallelism.
	Interconnect Interconnect
	// SMCount is the streaming multiprocessors (AMD: compute units) the
	// device runs, as torch's multi_processor_count reports them: engines
	// size per-SM buffers by it (vLLM's Triton top-k/top-p buffer). 0 when
	// the class does not say (sm_count is optional), and an engine then
	// charges its rule's bound without it.
	SMCount uint64
}

// MaxSMCount bounds a class's sm_count: the largest device of 2026 runs 304
// (MI300X and MI325X compute units; NVIDIA's largest, the RTX PRO 6000, 188
// SMs), and a count beyond 4096 is a typo, not a device.
const MaxSMCount = 4096

// Plausible bounds of a device's memory_bytes: no accelerator an engine
// serves on has less than 1 GiB or more than 2 TiB (the largest of 2026,
// MI355X and B300, have 288 GB).
const (
	MinMemoryBytes = 1 << 30
	MaxMemoryBytes = 2 << 40
)

// Provenance says where each number of a class file comes from, one sentence
// or more per number: the [provenance] table.
type Provenance struct {
	MemoryBytes          string
	ComputeCapability    string
	DriverFixedBytes     string
	DriverBudgetPerMille string
	Unified              string
	UtilCeiling          string
	Interconnect         string
	// SMCount is empty when the class gives no sm_count.
	SMCount string
	// UtilReached is empty when the class gives no util_reached.
	UtilReached string
}

// Class is one device class: its name and the three tables of its
// HARDWARE.toml.
type Class struct {
	Name       string
	Device     Device
	Memory     DriverTerms
	Provenance Provenance
}

// FileError is one finding in a class file. Path is the file as the user
// knows it (kernels/<class>/HARDWARE.toml for a shipped class), Table and Key
// the TOML key it is about (empty when about the whole file or table), Line
// and Col the position where the decoder gives one (0 otherwise).
type FileError struct {
	Path   string
	Table  string
	Key    string
	Line   int
	Col    int
	Detail string
}

// Error returns the finding with the file, the key and the position.
func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Table != "" {
		fmt.Fprintf(&b, " [%s]", untrusted.Text(e.Table))
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(untrusted.Text(e.Key)) // a key of the file's own
		b.WriteString(": ")
	}
	b.WriteString(e.Detail)
	if e.Line > 0 {
		fmt.Fprintf(&b, " (line %d, column %d)", e.Line, e.Col)
	}
	return b.String()
}

// ClassPath is the path of a shipped class's file, as errors name it.
func ClassPath(class string) string {
	return "kernels/" + class + "/HARDWARE.toml"
}

// The leaf types below reject what BurntSushi/toml would otherwise accept
// silently (a negative integer wraps into a uint64, a float truncates); their
// errors come back from the decoder as a toml.ParseError with a position.

type byteCount uint64

func (c *byteCount) UnmarshalTOML(v any) error {
	n, ok := v.(int64)
	if !ok || n < 0 {
		return fmt.Errorf("must be a non-negative integer, got %s", describe(v))
	}
	*c = byteCount(n)
	return nil
}

type flag bool

func (f *flag) UnmarshalTOML(v any) error {
	b, ok := v.(bool)
	if !ok {
		return fmt.Errorf("must be true or false, got %s", describe(v))
	}
	*f = flag(b)
	return nil
}

type fraction float64

func (f *fraction) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case float64:
		*f = fraction(x)
	case int64:
		*f = fraction(x)
	default:
		return fmt.Errorf("must be a number, got %s", describe(v))
	}
	return nil
}

type text string

func (s *text) UnmarshalTOML(v any) error {
	x, ok := v.(string)
	if !ok {
		return fmt.Errorf("must be a string, got %s", describe(v))
	}
	// A class's strings are printed as they are (classes, report): one
	// that would drive a terminal, or would be cut, is refused here.
	if !untrusted.Clean(x) {
		return fmt.Errorf("must be text without control or format characters, got %s", untrusted.Quote(x))
	}
	*s = text(x)
	return nil
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return "the string " + untrusted.Quote(x)
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "an array"
	default:
		return fmt.Sprintf("%v", x)
	}
}

type deviceTable struct {
	Name              text      `toml:"name"`
	Vendor            text      `toml:"vendor"`
	ComputeCapability text      `toml:"compute_capability"`
	MemoryBytes       byteCount `toml:"memory_bytes"`
	Interconnect      text      `toml:"interconnect"`
	SMCount           byteCount `toml:"sm_count"` // a count, not bytes: the same non-negative integer check
}

type memoryTable struct {
	DriverFixedBytes     byteCount `toml:"driver_fixed_bytes"`
	DriverBudgetPerMille byteCount `toml:"driver_budget_per_mille"`
	Unified              flag      `toml:"unified"`
	UtilCeiling          fraction  `toml:"util_ceiling"`
	UtilReached          fraction  `toml:"util_reached"`
}

type provenanceTable struct {
	MemoryBytes          text `toml:"memory_bytes"`
	ComputeCapability    text `toml:"compute_capability"`
	DriverFixedBytes     text `toml:"driver_fixed_bytes"`
	DriverBudgetPerMille text `toml:"driver_budget_per_mille"`
	Unified              text `toml:"unified"`
	UtilCeiling          text `toml:"util_ceiling"`
	Interconnect         text `toml:"interconnect"`
	SMCount              text `toml:"sm_count"`
	UtilReached          text `toml:"util_reached"`
}

type hardwareFile struct {
	Device     deviceTable     `toml:"device"`
	Memory     memoryTable     `toml:"memory"`
	Provenance provenanceTable `toml:"provenance"`
}

// schema lists, per table, the exact keys a file may hold: all of them are
// required. Keys are compared case-sensitively because the decoder matches
// struct tags case-insensitively.
var schema = map[string][]string{
	"device":     {"name", "vendor", "compute_capability", "memory_bytes", "interconnect"},
	"memory":     {"driver_fixed_bytes", "driver_budget_per_mille", "unified", "util_ceiling"},
	"provenance": {"memory_bytes", "compute_capability", "driver_fixed_bytes", "driver_budget_per_mille", "unified", "util_ceiling", "interconnect"},
}

// optional lists, per table, the keys a file may hold or leave out. sm_count
// came after the first classes were written: a user's class without it still
// reads, and the engines charge their per-SM buffers' bound instead.
// util_reached is evidence only some classes have (a log of the device
// starting above its ceiling on a lighter host): without it, nothing is
// said beside the ceiling.
var optional = map[string][]string{
	"device":     {"sm_count"},
	"memory":     {"util_reached"},
	"provenance": {"sm_count", "util_reached"},
}

var tableOrder = []string{"device", "memory", "provenance"}

// ParseDriverTerms reads the [memory] table of class's HARDWARE.toml text,
// with the seed's rules: all four keys required, no other key but the
// optional util_reached, per mille at most 1000, util_ceiling in (0, 1],
// util_reached in [util_ceiling, 1] and on a unified class alone. Other
// tables are not checked.
func ParseDriverTerms(class, hardwareTOML string) (DriverTerms, error) {
	f, md, err := decode(ClassPath(class), hardwareTOML)
	if err != nil {
		return DriverTerms{}, err
	}
	if err := checkTable(ClassPath(class), md, "memory", true); err != nil {
		return DriverTerms{}, err
	}
	return memoryTerms(ClassPath(class), f.Memory, md.IsDefined("memory", "util_reached"))
}

// ParseClass reads a whole class file strictly: [device], [memory] and
// [provenance], every key required and no other key or table. path names the
// file in errors. Beyond the seed's rules it checks that the class can run at
// its own util_ceiling: the budget there plus the driver's fixed and
// per-mille share fit in memory_bytes.
func ParseClass(name, path, hardwareTOML string) (Class, error) {
	f, md, err := decode(path, hardwareTOML)
	if err != nil {
		return Class{}, err
	}
	var errs []error
	for _, k := range md.Keys() {
		// A dotted key also lists its implicit parent tables: report the
		// outermost unknown name once.
		if _, ok := schema[k[0]]; !ok && len(k) == 1 {
			errs = append(errs, &FileError{Path: path, Key: k.String(), Detail: "unknown key or table; the file holds [device], [memory] and [provenance]"})
		}
	}
	for _, t := range tableOrder {
		if err := checkTable(path, md, t, true); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return Class{}, errors.Join(errs...)
	}
	terms, err := memoryTerms(path, f.Memory, md.IsDefined("memory", "util_reached"))
	if err != nil {
		return Class{}, err
	}
	silicon, err := ParseSilicon(string(f.Device.Vendor), string(f.Device.ComputeCapability))
	if err != nil {
		errs = append(errs, &FileError{Path: path, Table: "device", Key: err.(*SiliconError).Key, Detail: err.Error()})
	}
	link, err := ParseInterconnect(string(f.Device.Interconnect))
	if err != nil {
		errs = append(errs, &FileError{Path: path, Table: "device", Key: "interconnect", Detail: err.Error()})
	}
	c := Class{
		Name:   name,
		Device: Device{Name: string(f.Device.Name), Silicon: silicon, MemoryBytes: uint64(f.Device.MemoryBytes), Interconnect: link, SMCount: uint64(f.Device.SMCount)},
		Memory: terms,
		Provenance: Provenance{
			MemoryBytes:          string(f.Provenance.MemoryBytes),
			ComputeCapability:    string(f.Provenance.ComputeCapability),
			DriverFixedBytes:     string(f.Provenance.DriverFixedBytes),
			DriverBudgetPerMille: string(f.Provenance.DriverBudgetPerMille),
			Unified:              string(f.Provenance.Unified),
			UtilCeiling:          string(f.Provenance.UtilCeiling),
			Interconnect:         string(f.Provenance.Interconnect),
			SMCount:              string(f.Provenance.SMCount),
			UtilReached:          string(f.Provenance.UtilReached),
		},
	}
	if strings.TrimSpace(c.Device.Name) == "" {
		errs = append(errs, &FileError{Path: path, Table: "device", Key: "name", Detail: "must not be empty"})
	}
	if m := c.Device.MemoryBytes; m < MinMemoryBytes || m > MaxMemoryBytes {
		errs = append(errs, &FileError{Path: path, Table: "device", Key: "memory_bytes",
			Detail: fmt.Sprintf("%d bytes is not an accelerator's memory (want %d to %d: 1 GiB to 2 TiB)", m, uint64(MinMemoryBytes), uint64(MaxMemoryBytes))})
	}
	// sm_count and util_reached come with their provenance or not at all.
	hasSM, hasSMWhy := md.IsDefined("device", "sm_count"), md.IsDefined("provenance", "sm_count")
	if hasSM && (c.Device.SMCount == 0 || c.Device.SMCount > MaxSMCount) {
		errs = append(errs, &FileError{Path: path, Table: "device", Key: "sm_count",
			Detail: fmt.Sprintf("%d is not a device's SM count (want 1 to %d)", c.Device.SMCount, uint64(MaxSMCount))})
	} else if err := unpaired(path, "device", "an sm_count", "where it comes from", hasSM, hasSMWhy); err != nil {
		errs = append(errs, err)
	}
	hasReached, hasReachedWhy := md.IsDefined("memory", "util_reached"), md.IsDefined("provenance", "util_reached")
	if err := unpaired(path, "memory", "a util_reached", "which log reached it", hasReached, hasReachedWhy); err != nil {
		errs = append(errs, err)
	}
	if c.Memory.DriverFixedBytes > MaxDriverFixedBytes {
		errs = append(errs, &FileError{Path: path, Table: "memory", Key: "driver_fixed_bytes",
			Detail: fmt.Sprintf("%d bytes is beyond any driver's share (at most %d: 32 GiB)", c.Memory.DriverFixedBytes, uint64(MaxDriverFixedBytes))})
	}
	provenance := []struct{ key, v string }{
		{"memory_bytes", c.Provenance.MemoryBytes},
		{"compute_capability", c.Provenance.ComputeCapability},
		{"driver_fixed_bytes", c.Provenance.DriverFixedBytes},
		{"driver_budget_per_mille", c.Provenance.DriverBudgetPerMille},
		{"unified", c.Provenance.Unified},
		{"util_ceiling", c.Provenance.UtilCeiling},
		{"interconnect", c.Provenance.Interconnect},
	}
	if hasSMWhy { // sm_count is optional: its provenance is checked only where given
		provenance = append(provenance, struct{ key, v string }{"sm_count", c.Provenance.SMCount})
	}
	if hasReachedWhy { // as sm_count's
		provenance = append(provenance, struct{ key, v string }{"util_reached", c.Provenance.UtilReached})
	}
	for _, p := range provenance {
		if strings.TrimSpace(p.v) == "" {
			errs = append(errs, &FileError{Path: path, Table: "provenance", Key: p.key, Detail: "must say where the number comes from"})
		}
	}
	if len(errs) > 0 {
		return Class{}, errors.Join(errs...)
	}
	b := terms.CeilingBytes(c.Device.MemoryBytes)
	if need := SatAdd(b, terms.Bytes(b, 0)); need > c.Device.MemoryBytes {
		return Class{}, &FileError{Path: path, Table: "memory", Key: "util_ceiling", Detail: fmt.Sprintf(
			"%v leaves no room for the driver: budget %d + driver %d = %d bytes > memory_bytes %d",
			terms.UtilCeiling, b, terms.Bytes(b, 0), need, c.Device.MemoryBytes)}
	}
	return c, nil
}

// UtilBudget is the class's budget at util, rounded as r says (see
// [UtilBudget]).
func (c Class) UtilBudget(util float64, r Rounding) (uint64, error) {
	return UtilBudget(c.Device.MemoryBytes, util, r)
}

// CeilingBytes is the largest budget the class runs at (see
// [DriverTerms.CeilingBytes]).
func (c Class) CeilingBytes() uint64 { return c.Memory.CeilingBytes(c.Device.MemoryBytes) }

// MaxDriverFixedBytes bounds a class's driver_fixed_bytes: the largest base
// share measured (a unified pool's operating system and services, 19.5 GiB
// of a DGX Spark's 121.69 GiB at vLLM's startup snapshot on stock images,
// MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#47) is well below it.
const MaxDriverFixedBytes = 32 << 30

// decode checks doc's shape (see [checkShape]) and decodes it; errors name
// path.
func decode(path, doc string) (hardwareFile, toml.MetaData, error) {
	var f hardwareFile
	if len(doc) > MaxClassFileBytes {
		return hardwareFile{}, toml.MetaData{}, &FileError{Path: path, Detail: fmt.Sprintf("%d bytes, over the %d-byte limit for a class file", len(doc), MaxClassFileBytes)}
	}
	if err := checkShape(path, doc); err != nil {
		return hardwareFile{}, toml.MetaData{}, err
	}
	md, err := toml.Decode(doc, &f)
	if err == nil {
		return f, md, nil
	}
	var pe toml.ParseError
	if errors.As(err, &pe) {
		table, key := splitKey(pe.LastKey)
		return hardwareFile{}, md, &FileError{Path: path, Table: table, Key: key, Line: pe.Position.Line, Col: pe.Position.Col, Detail: untrusted.Text(pe.Message)}
	}
	// A type mismatch above the leaves (a table given as a value) is a plain
	// error without a position; its text names the key.
	return hardwareFile{}, md, &FileError{Path: path, Detail: untrusted.Text(strings.TrimPrefix(err.Error(), "toml: "))}
}

func splitKey(k string) (table, key string) {
	if t, rest, ok := strings.Cut(k, "."); ok {
		return t, rest
	}
	return "", k
}

// checkTable reports a missing table, each missing key and each unknown key
// (including a known key spelled in another case) of one table.
func checkTable(path string, md toml.MetaData, table string, required bool) error {
	if !md.IsDefined(table) {
		if !required {
			return nil
		}
		return &FileError{Path: path, Table: table, Detail: fmt.Sprintf("the class declares no [%s] table", table)}
	}
	want := schema[table]
	var errs []error
	reported := map[string]bool{}
	for _, k := range md.Keys() {
		if k[0] != table || len(k) < 2 || reported[k[1]] {
			continue
		}
		// A dotted key (x.y = 1) is reported by its first part, once.
		if len(k) > 2 || !slices.Contains(want, k[1]) && !slices.Contains(optional[table], k[1]) {
			reported[k[1]] = true
			detail := fmt.Sprintf("unknown key; [%s] holds exactly %s", table, strings.Join(want, ", "))
			if o := optional[table]; len(o) > 0 {
				detail += fmt.Sprintf(" (and optionally %s)", strings.Join(o, ", "))
			}
			errs = append(errs, &FileError{Path: path, Table: table, Key: k[1], Detail: detail})
		}
	}
	for _, k := range want {
		if !md.IsDefined(table, k) {
			errs = append(errs, &FileError{Path: path, Table: table, Key: k, Detail: "missing (every key is required; there is no default)"})
		}
	}
	return errors.Join(errs...)
}

// unpaired is the error of an optional key (named with its article, "an
// sm_count") that table gives without its [provenance] entry, which must
// say says, or the reverse; nil where both or neither give it.
func unpaired(path, table, named, says string, given, explained bool) error {
	_, key, _ := strings.Cut(named, " ")
	switch {
	case given && !explained:
		return &FileError{Path: path, Table: "provenance", Key: key, Detail: fmt.Sprintf("missing: [%s] gives %s, so its provenance must say %s", table, key, says)}
	case !given && explained:
		return &FileError{Path: path, Table: table, Key: key, Detail: fmt.Sprintf("missing: [provenance] explains %s that [%s] does not give", named, table)}
	}
	return nil
}

// memoryTerms checks m's values; reachedGiven says the table gives
// util_reached, which is then held to its range even at 0 (the value a
// class without it has).
func memoryTerms(path string, m memoryTable, reachedGiven bool) (DriverTerms, error) {
	t := DriverTerms{
		DriverFixedBytes:     uint64(m.DriverFixedBytes),
		DriverBudgetPerMille: uint64(m.DriverBudgetPerMille),
		Unified:              bool(m.Unified),
		UtilCeiling:          float64(m.UtilCeiling),
		UtilReached:          float64(m.UtilReached),
	}
	var errs []error
	if t.DriverBudgetPerMille > 1000 {
		errs = append(errs, &FileError{Path: path, Table: "memory", Key: "driver_budget_per_mille",
			Detail: fmt.Sprintf("must be at most 1000, got %d", t.DriverBudgetPerMille)})
	}
	if !(t.UtilCeiling > 0 && t.UtilCeiling <= 1) || math.IsNaN(t.UtilCeiling) {
		errs = append(errs, &FileError{Path: path, Table: "memory", Key: "util_ceiling",
			Detail: fmt.Sprintf("must be in (0, 1], got %v", t.UtilCeiling)})
	}
	// util_reached, where given, is a util a device started at above the
	// ceiling: at most 1, and not below the ceiling (a util the class
	// already runs at says nothing beside it). NaN fails both comparisons.
	if r := t.UtilReached; reachedGiven && !(r >= t.UtilCeiling && r <= 1) {
		errs = append(errs, &FileError{Path: path, Table: "memory", Key: "util_reached",
			Detail: fmt.Sprintf("must be in [util_ceiling, 1] = [%v, 1], got %v", t.UtilCeiling, r)})
	}
	// A lighter host is unified memory's: there vLLM's startup check reads
	// the host's available memory (MemorySnapshot.measure,
	// vllm/utils/mem_utils.py:147-155 at d18bb7b, when torch reports the
	// GPU integrated). On a discrete device it reads the device's free
	// memory (cudaMemGetInfo), which no host holds, and the capacity check
	// names util_reached on unified classes alone: a start above the
	// ceiling there is evidence for util_ceiling itself.
	if reachedGiven && !t.Unified {
		errs = append(errs, &FileError{Path: path, Table: "memory", Key: "util_reached",
			Detail: "only a unified-memory class (unified = true) gives one: it is a util a lighter host started at, and on a discrete device vLLM's startup check reads the device's free memory, not the host's; a start above util_ceiling there raises util_ceiling"})
	}
	if len(errs) > 0 {
		return DriverTerms{}, errors.Join(errs...)
	}
	return t, nil
}
