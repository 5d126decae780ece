package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// classJSON is one class in `membudget classes --json`.
type classJSON struct {
	Name                 string  `json:"name"`
	Device               string  `json:"device"`
	MemoryBytes          uint64  `json:"memory_bytes"`
	UtilCeiling          float64 `json:"util_ceiling"`
	Unified              bool    `json:"unified"`
	DriverFixedBytes     uint64  `json:"driver_fixed_bytes"`
	DriverBudgetPerMille uint64  `json:"driver_budget_per_mille"`
}

func runClasses(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("classes", stderr)
	asJSON := fs.Bool("json", false, "print JSON for scripts")
	var k kernelsFlag
	k.register(fs)
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	classes, err := k.catalog().LoadAll()
	if err != nil {
		return fail(stderr, "classes", exitBadArgs, err)
	}
	if *asJSON {
		out := make([]classJSON, 0, len(classes))
		for _, c := range classes {
			out = append(out, classJSON{c.Name, c.Device.Name, c.Device.MemoryBytes, c.Memory.UtilCeiling,
				c.Memory.Unified, c.Memory.DriverFixedBytes, c.Memory.DriverBudgetPerMille})
		}
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, "classes", exitBadArgs, err)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLASS\tDEVICE\tMEMORY\tUTIL CEILING\tUNIFIED")
	for _, c := range classes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%v\n", c.Name, c.Device.Name, gibString(c.Device.MemoryBytes), c.Memory.UtilCeiling, c.Memory.Unified)
	}
	if err := tw.Flush(); err != nil {
		return fail(stderr, "classes", exitBadArgs, err)
	}
	return exitOK
}
