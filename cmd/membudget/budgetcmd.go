package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"membudget/budget"
)

// budgetJSON is `membudget budget --json`.
type budgetJSON struct {
	Class                string  `json:"class"`
	Device               string  `json:"device"`
	MemoryBytes          uint64  `json:"memory_bytes"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization"`
	UtilBudgetBytes      uint64  `json:"util_budget_bytes"`
	DriverFixedBytes     uint64  `json:"driver_fixed_bytes"`
	DriverPerMilleBytes  uint64  `json:"driver_per_mille_bytes"`
	DriverBytes          uint64  `json:"driver_bytes"`
	OutsideBudgetBytes   uint64  `json:"outside_budget_bytes"`
	DriverHeadroomBytes  uint64  `json:"driver_headroom_bytes"`
	Unified              bool    `json:"unified"`
}

// utilFlag is --gpu-memory-utilization; a missing flag is an error rather
// than a default.
type utilFlag struct {
	v   float64
	set bool
}

func (u *utilFlag) String() string {
	if !u.set {
		return ""
	}
	return fmt.Sprint(u.v)
}
func (u *utilFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want a number in (0, 1], got %q", s)
	}
	u.v, u.set = v, true
	return nil
}

func runBudget(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("budget", stderr)
	class := fs.String("class", "", "device class (see 'membudget classes')")
	var util utilFlag
	fs.Var(&util, "gpu-memory-utilization", "vLLM's --gpu-memory-utilization, in (0, 1]")
	asJSON := fs.Bool("json", false, "print JSON for scripts")
	var k kernelsFlag
	k.register(fs)
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	if *class == "" {
		return fail(stderr, "budget", exitBadArgs, errors.New("--class is required (see 'membudget classes')"))
	}
	if !util.set {
		return fail(stderr, "budget", exitBadArgs, errors.New("--gpu-memory-utilization is required"))
	}
	c, err := k.catalog().Load(*class)
	if err != nil {
		return fail(stderr, "budget", exitBadArgs, err)
	}
	b, err := c.UtilBudget(util.v)
	if err != nil {
		return fail(stderr, "budget", exitBadArgs, fmt.Errorf("--gpu-memory-utilization: class %s: %w", c.Name, err))
	}
	driver := c.Memory.Bytes(b, 0)
	outside := budget.SatSub(c.Device.MemoryBytes, b)
	out := budgetJSON{
		Class: c.Name, Device: c.Device.Name, MemoryBytes: c.Device.MemoryBytes,
		GPUMemoryUtilization: util.v, UtilBudgetBytes: b,
		DriverFixedBytes: c.Memory.DriverFixedBytes, DriverPerMilleBytes: driver - c.Memory.DriverFixedBytes,
		DriverBytes: driver, OutsideBudgetBytes: outside,
		DriverHeadroomBytes: budget.SatSub(outside, driver), Unified: c.Memory.Unified,
	}
	if *asJSON {
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, "budget", exitBadArgs, err)
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "class %s (%s), %s, gpu_memory_utilization %v\n", c.Name, c.Device.Name, gibString(c.Device.MemoryBytes), util.v)
	row := func(label string, v uint64) { fmt.Fprintf(stdout, "  %-38s %12s  %d B\n", label, gibString(v), v) }
	row("util budget (memory x util)", b)
	row("outside the budget", outside)
	row("driver fixed", out.DriverFixedBytes)
	row(fmt.Sprintf("driver per-mille (%d/1000 of budget)", c.Memory.DriverBudgetPerMille), out.DriverPerMilleBytes)
	row("driver share", driver)
	row("driver headroom (before slack, host)", out.DriverHeadroomBytes)
	if c.Memory.Unified {
		fmt.Fprintln(stdout, "  unified memory: host caches come out of the same pool, outside the util budget")
	}
	return exitOK
}
