package explain

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/model/logs"
)

// MissingError is an input the log does not give and no flag supplied: Flag
// names the flag that supplies it.
type MissingError struct {
	Flag   string
	Reason string
}

// Error returns why the input is missing and the flag to pass.
func (e *MissingError) Error() string { return fmt.Sprintf("%s: pass %s", e.Reason, e.Flag) }

// How a class was chosen.
const (
	// ClassFromFlag: --class named it.
	ClassFromFlag = "flag"
	// ClassMatched: a class's memory_bytes agrees with the logged total
	// within the log's rounding.
	ClassMatched = "matched"
	// ClassSynthesized: no class agrees; a class of the logged total was
	// made from the nearest one.
	ClassSynthesized = "synthesized"
)

// ClassChoice is the device class a log is sized on, and why.
type ClassChoice struct {
	Class budget.Class
	// How is [ClassFromFlag], [ClassMatched] or [ClassSynthesized].
	How string
	// Total is the logged device total (nil when the log states none).
	Total *logs.Figure
	// Matched are the classes whose memory_bytes agree with the logged
	// total within its rounding, nearest first; Class is the first.
	Matched []string
	// Named are the classes whose device name the log prints.
	Named []string
	// Vendor is the vendor the log's platform line names ("nvidia",
	// "amd"), empty when none.
	Vendor string
	// Base is the class a synthesized class copies everything but its
	// memory from.
	Base string
	// Note says in one or two sentences how the class was chosen.
	Note string
}

// platformLine is vLLM's "Automatically detected platform cuda." and
// "platform rocm." (vllm/platforms/__init__.py, resolve_current_platform_cls_qualname).
var platformLine = regexp.MustCompile(`detected platform (cuda|rocm)\b`)

// vendorOf returns the vendor the log's platform line names.
func vendorOf(text string) string {
	m := platformLine.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	if m[1] == "rocm" {
		return "amd"
	}
	return "nvidia"
}

// namedClasses returns the classes whose device name the text prints as a
// whole name ("NVIDIA H100 80GB HBM3"), in name order.
func namedClasses(text string, classes []budget.Class) []string {
	var out []string
	for _, c := range classes {
		n := c.Device.Name
		if len(n) < 4 { // "Orin" and longer; nothing shorter names a device
			continue
		}
		for i := 0; ; {
			j := strings.Index(text[i:], n)
			if j < 0 {
				break
			}
			j += i
			end := j + len(n)
			if (j == 0 || !isNameByte(text[j-1])) && (end == len(text) || !isNameByte(text[end])) {
				out = append(out, c.Name)
				break
			}
			i = j + 1
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func isNameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '_'
}

// ChooseClass picks the class the log's device total stands for among
// classes: those whose memory_bytes agree with the total within the log's
// rounding, preferring one whose device name the log prints, then the
// nearest total, then the name. When none agrees it synthesizes a class of
// the logged total from the nearest class of the log's vendor (the one the
// log names, if any). A log without a device total is a *MissingError
// naming --class.
func ChooseClass(src *Source, classes []budget.Class) (ClassChoice, error) {
	total, ok := src.Log.First(logs.KindDeviceTotal)
	if !ok {
		return ClassChoice{}, &MissingError{Flag: "--class", Reason: "the log does not state the device's total memory (total_gpu_memory, \"Free memory on device (F/T GiB)\")"}
	}
	bytes, ok := total.Bytes()
	if !ok || bytes <= 0 {
		return ClassChoice{}, &MissingError{Flag: "--class", Reason: fmt.Sprintf("the log's device total %q (line %d) is not a size", total.Text, total.Line)}
	}
	if len(classes) == 0 {
		return ClassChoice{}, &MissingError{Flag: "--class or --kernels", Reason: "no device class to match the log's total against"}
	}
	tol := total.Tolerance()
	ch := ClassChoice{Total: &total, Named: namedClasses(src.Text, classes), Vendor: vendorOf(src.Text)}
	dist := func(c budget.Class) uint64 { return absDiff(c.Device.MemoryBytes, uint64(bytes)) }
	order := func(a, b budget.Class) int {
		an, bn := slices.Contains(ch.Named, a.Name), slices.Contains(ch.Named, b.Name)
		switch {
		case an && !bn:
			return -1
		case bn && !an:
			return 1
		}
		if da, db := dist(a), dist(b); da != db {
			if da < db {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	}
	var matched []budget.Class
	for _, c := range classes {
		if dist(c) <= uint64(tol) {
			matched = append(matched, c)
		}
	}
	totalText := fmt.Sprintf("%s %s (line %d)", total.Value, unitWord(total.Unit), total.Line)
	if len(matched) > 0 {
		slices.SortFunc(matched, order)
		ch.Class, ch.How = matched[0], ClassMatched
		for _, c := range matched {
			ch.Matched = append(ch.Matched, c.Name)
		}
		ch.Note = fmt.Sprintf("the logged total %s agrees with %s's %s within the log's rounding (%s)", totalText, ch.Class.Name, gib(ch.Class.Device.MemoryBytes), plusMinus(tol))
		if len(matched) > 1 {
			why := "the nearest total, then the name"
			if slices.Contains(ch.Named, ch.Class.Name) {
				why = "the log prints its device name"
			}
			ch.Note += fmt.Sprintf("; so do %s: %s taken (%s; pass --class to choose)", strings.Join(ch.Matched[1:], ", "), ch.Class.Name, why)
		}
		return ch, nil
	}
	// No class agrees: the nearest class of the vendor (one the log names
	// first) lends everything but the memory.
	pool := classes
	if ch.Vendor != "" {
		var same []budget.Class
		for _, c := range classes {
			if string(c.Device.Silicon.Vendor) == ch.Vendor {
				same = append(same, c)
			}
		}
		if len(same) > 0 {
			pool = same
		}
	}
	pool = slices.Clone(pool)
	slices.SortFunc(pool, order)
	base := pool[0]
	c := base
	c.Device.MemoryBytes = uint64(bytes)
	c.Name = fmt.Sprintf("%s@%s%s", base.Name, total.Value, unitSymbol(total.Unit))
	ch.Class, ch.How, ch.Base = c, ClassSynthesized, base.Name
	why := fmt.Sprintf("the nearest in memory (%s)", gib(base.Device.MemoryBytes))
	if slices.Contains(ch.Named, base.Name) {
		why = "the log prints its device name"
	} else if ch.Vendor != "" {
		why = fmt.Sprintf("the nearest %s class in memory (%s)", ch.Vendor, gib(base.Device.MemoryBytes))
	}
	ch.Note = fmt.Sprintf("no class has the logged total %s within its rounding (%s): sized as a class of that total, everything else from %s, %s; pass --class to size another", totalText, plusMinus(tol), base.Name, why)
	return ch, nil
}

// FlagClass is the choice of a class --class named; the note says how the
// log's total, if any, compares with it.
func FlagClass(src *Source, c budget.Class) ClassChoice {
	ch := ClassChoice{Class: c, How: ClassFromFlag, Vendor: vendorOf(src.Text)}
	ch.Note = fmt.Sprintf("--class %s (%s)", c.Name, gib(c.Device.MemoryBytes))
	total, ok := src.Log.First(logs.KindDeviceTotal)
	if !ok {
		return ch
	}
	ch.Total = &total
	b, ok := total.Bytes()
	if !ok || b <= 0 {
		return ch
	}
	d := absDiff(c.Device.MemoryBytes, uint64(b))
	if d <= uint64(total.Tolerance()) {
		ch.Note += fmt.Sprintf("; the log's total %s %s (line %d) agrees within its rounding", total.Value, unitWord(total.Unit), total.Line)
	} else {
		ch.Note += fmt.Sprintf("; the log's total is %s %s (line %d), %s away: the requested memory and everything sized from it differ by that share", total.Value, unitWord(total.Unit), total.Line, gib(d))
	}
	return ch
}

func absDiff(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}

// gib renders bytes as GiB with two decimals, as vLLM logs them.
func gib(b uint64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }

// plusMinus renders a rounding in GiB with enough places to show it:
// "+-0.005 GiB".
func plusMinus(b int64) string {
	g := float64(b) / (1 << 30)
	if g < 0.1 {
		return fmt.Sprintf("+-%.3g GiB", g)
	}
	return fmt.Sprintf("+-%.2f GiB", g)
}

// gibSigned renders a signed byte count as GiB with two decimals and a sign.
func gibSigned(b int64) string { return fmt.Sprintf("%+.2f GiB", float64(b)/(1<<30)) }

// unitWord is a unit as a reader writes it: GiB for the "GB" that is GiB.
func unitWord(u logs.Unit) string {
	switch u {
	case logs.UnitGBGiB:
		return "GB (GiB)"
	case logs.UnitMBMiB:
		return "MB (MiB)"
	}
	return string(u)
}

// unitSymbol is the unit's symbol: GiB for "GB" that is GiB.
func unitSymbol(u logs.Unit) string {
	switch u {
	case logs.UnitGiB, logs.UnitGBGiB:
		return "GiB"
	case logs.UnitMiB, logs.UnitMBMiB:
		return "MiB"
	}
	return "B"
}

// round2 rounds to two decimals, as the logs print.
func round2(f float64) float64 { return math.Round(f*100) / 100 }
