package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"membudget/budget"
)

// classJSON is one class in `membudget classes --json`, and a report's or
// a calibration's class.
type classJSON struct {
	Name                 string  `json:"name"`
	Device               string  `json:"device"`
	Vendor               string  `json:"vendor"`
	ComputeCapability    string  `json:"compute_capability"`
	MemoryBytes          uint64  `json:"memory_bytes"`
	UtilCeiling          float64 `json:"util_ceiling"`
	Unified              bool    `json:"unified"`
	DriverFixedBytes     uint64  `json:"driver_fixed_bytes"`
	DriverBudgetPerMille uint64  `json:"driver_budget_per_mille"`
	Interconnect         string  `json:"interconnect"`
	// SMCount is the class's sm_count (the streaming multiprocessors, AMD:
	// compute units), absent where the class does not give it: an engine
	// then charges its per-SM rule's bound (budget.Device.SMCount).
	SMCount uint64 `json:"sm_count,omitempty"`
	// UtilReached is the class's util_reached (a util a device of the
	// class started at on a lighter host than the class's), absent where
	// the class does not give it.
	UtilReached float64 `json:"util_reached,omitempty"`
}

func (a *app) classes(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("classes", stderr)
	asJSON := fs.Bool("json", false, "print JSON for scripts")
	var k kernelsFlag
	k.register(fs)
	if status, ok := a.parseFlags(fs, args, false); !ok {
		return status
	}
	// Every class that parses is listed; every one that does not is
	// reported, and the exit status says so.
	classes, loadErr := k.catalog().LoadAll()
	status := exitOK
	if loadErr != nil {
		status = fail(stderr, "classes", exitBadArgs, loadErr)
	}
	if *asJSON {
		out := make([]classJSON, 0, len(classes))
		for _, c := range classes {
			out = append(out, classOf(c))
		}
		if err := a.writeJSON(stdout, out); err != nil {
			return fail(stderr, "classes", exitBadArgs, err)
		}
		return status
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLASS\tDEVICE\tSILICON\tMEMORY\tSMS\tUTIL CEILING\tUNIFIED\tINTERCONNECT")
	for _, c := range classes {
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s\t%s\t%.2f\t%v\t%s\n", c.Name, c.Device.Name, c.Device.Silicon.Vendor, c.Device.Silicon, gibString(c.Device.MemoryBytes), smCountString(c.Device.SMCount), c.Memory.UtilCeiling, c.Memory.Unified, c.Device.Interconnect)
	}
	if err := tw.Flush(); err != nil {
		return fail(stderr, "classes", exitBadArgs, err)
	}
	// The devices people ask for that ship no class on purpose, so that a
	// missing Gaudi or Strix Halo reads as a decision with its reason, not
	// an oversight (--class NAME refuses them the same way).
	if absent := k.catalog().Absences(); len(absent) > 0 {
		fmt.Fprintln(stdout, "\nnot classes (--class refuses these names):")
		for _, a := range absent {
			fmt.Fprintf(stdout, "  %s (%s): %s\n", a.Device, strings.Join(a.Names, ", "), a.Why)
		}
	}
	return status
}

// smCountString is the SMS column: the class's sm_count, "-" where the
// class does not give it (sm_count is optional).
func smCountString(n uint64) string {
	if n == 0 {
		return "-"
	}
	return strconv.FormatUint(n, 10)
}

// classOf returns c as `classes --json` lists it.
func classOf(c budget.Class) classJSON {
	return classJSON{Name: c.Name, Device: c.Device.Name, Vendor: string(c.Device.Silicon.Vendor), ComputeCapability: c.Device.Silicon.String(),
		MemoryBytes: c.Device.MemoryBytes, UtilCeiling: c.Memory.UtilCeiling, Unified: c.Memory.Unified,
		DriverFixedBytes: c.Memory.DriverFixedBytes, DriverBudgetPerMille: c.Memory.DriverBudgetPerMille, Interconnect: string(c.Device.Interconnect), SMCount: c.Device.SMCount,
		UtilReached: c.Memory.UtilReached}
}
