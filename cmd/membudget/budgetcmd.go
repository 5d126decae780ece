package main

import (
	"errors"
	"fmt"
	"io"

	"membudget/budget"
	"membudget/engine/vllm"
)

// budgetJSON is `membudget budget --json`.
type budgetJSON struct {
	Class                string  `json:"class"`
	Device               string  `json:"device"`
	MemoryBytes          uint64  `json:"memory_bytes"`
	VLLMVersion          string  `json:"vllm_version"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization"`
	UtilCeiling          float64 `json:"util_ceiling"`
	AboveCeiling         bool    `json:"above_ceiling"`
	UtilBudgetBytes      uint64  `json:"util_budget_bytes"`
	DriverFixedBytes     uint64  `json:"driver_fixed_bytes"`
	DriverPerMilleBytes  uint64  `json:"driver_per_mille_bytes"`
	DriverBytes          uint64  `json:"driver_bytes"`
	OutsideBudgetBytes   uint64  `json:"outside_budget_bytes"`
	DriverHeadroomBytes  uint64  `json:"driver_headroom_bytes"`
	Unified              bool    `json:"unified"`
}

func runBudget(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("budget", stderr)
	class := fs.String("class", "", "device `class` (see 'membudget classes'); case does not matter")
	version := fs.String("vllm-version", "main", "the vLLM whose default util and rounding apply: main or a release such as 0.19.0")
	var util float64
	fs.Var(&utilFlag{&util}, "gpu-memory-utilization", "vLLM's --gpu-memory-utilization, in (0, 1] (default: the vLLM version's, 0.92 on main)")
	asJSON := fs.Bool("json", false, "print JSON for scripts")
	var k kernelsFlag
	k.register(fs)
	if status, ok := parseFlags(fs, args, false); !ok {
		return status
	}
	if *class == "" {
		return fail(stderr, "budget", exitBadArgs, errors.New("--class is required (see 'membudget classes')"))
	}
	profile, err := vllm.ProfileFor(*version)
	if err != nil {
		return fail(stderr, "budget", exitBadArgs, err)
	}
	c, err := k.catalog().Load(*class)
	if err != nil {
		return fail(stderr, "budget", exitBadArgs, fmt.Errorf("--class: %w", err))
	}
	if util == 0 {
		util = profile.DefaultUtil
	}
	b, err := c.UtilBudget(util, profile.Rounding)
	if err != nil {
		return fail(stderr, "budget", exitBadArgs, fmt.Errorf("--gpu-memory-utilization: %w", err))
	}
	driver := c.Memory.Bytes(b, 0)
	outside := budget.SatSub(c.Device.MemoryBytes, b)
	out := budgetJSON{
		Class: c.Name, Device: c.Device.Name, MemoryBytes: c.Device.MemoryBytes, VLLMVersion: profile.Name,
		GPUMemoryUtilization: util, UtilCeiling: c.Memory.UtilCeiling, AboveCeiling: b > c.CeilingBytes(),
		UtilBudgetBytes: b, DriverFixedBytes: c.Memory.DriverFixedBytes, DriverPerMilleBytes: driver - c.Memory.DriverFixedBytes,
		DriverBytes: driver, OutsideBudgetBytes: outside,
		DriverHeadroomBytes: budget.SatSub(outside, driver), Unified: c.Memory.Unified,
	}
	status := exitOK
	if out.AboveCeiling || driver > outside {
		status = exitNoFit
	}
	if *asJSON {
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, "budget", exitBadArgs, err)
		}
		return status
	}
	fmt.Fprintf(stdout, "class %s (%s), %s, gpu_memory_utilization %v (%s)\n", c.Name, c.Device.Name, gibString(c.Device.MemoryBytes), util, profile.Describes)
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
	if out.AboveCeiling {
		fmt.Fprintf(stdout, "  does not fit: util %v is above the class's util_ceiling %v; the driver's share is not known to fit beside the budget\n", util, c.Memory.UtilCeiling)
	} else if driver > outside {
		fmt.Fprintf(stdout, "  does not fit: the driver's share is %s over what the budget leaves of device memory\n", gibString(driver-outside))
	}
	return status
}
