package main

import (
	"fmt"
	"io"

	"membudget/budget"
	"membudget/engine"
)

// writeFootprint prints a footprint line by line, in GiB and bytes, in the
// engine's words: what is charged to the budget and their sum, then what
// stands beside it, then the totals against the budget and the device, and
// the conditions.
func writeFootprint(w io.Writer, sec engine.Section, f budget.Footprint) {
	words := sec.Words()
	row := func(label string, v uint64) {
		fmt.Fprintf(w, "  %-*s %12s  %15d B\n", words.Width, label, engine.GiB(v), v)
	}
	lines := sec.Lines(f)
	for _, l := range lines {
		if !l.Beside {
			row(l.Label, l.Bytes)
		}
	}
	row(words.Ledger, f.Ledger)
	for _, l := range lines {
		if l.Beside {
			row(l.Label+" (beside)", l.Bytes)
		}
	}
	row("allocator slack", f.Slack)
	row("driver fixed", f.DriverFixed)
	row("driver per-mille", f.DriverPerMille)
	if f.Host > 0 {
		row("host caches (unified)", f.Host)
	}
	// The sequences' footprint, not the device's: an engine that
	// preallocates its whole KV pool holds more once started (its section
	// says how much).
	row("= total of these sequences", f.Total())
	row(words.Budget, f.Budget)
	row("device memory", f.Device)
	if sh := f.BudgetShortfall(); sh > 0 {
		fmt.Fprintf(w, words.BudgetOver, engine.GiB(sh))
	} else {
		fmt.Fprintf(w, words.BudgetHeadroom, engine.GiB(f.BudgetHeadroom()))
	}
	if sh := f.DriverShortfall(); sh > 0 {
		fmt.Fprintf(w, words.OutsideOver, engine.GiB(sh))
	} else {
		fmt.Fprintf(w, words.OutsideHeadroom, engine.GiB(f.DriverHeadroom()))
	}
	if f.Failed == budget.OverUtilCeiling {
		fmt.Fprintf(w, words.CeilingAbove, engine.GiB(f.Budget-f.Ceiling), engine.GiB(f.Ceiling))
	}
}

// tippingTerm names what grows most from a fitting footprint to the next,
// failing one: the term that tips it over. (Only the ledger grows with the
// sequences and tokens: the driver's share and the slack are fixed per
// serve.)
func tippingTerm(at, next budget.Footprint) string {
	best, name := uint64(0), ""
	for t := range budget.NumTerms {
		if d := budget.SatSub(next.Terms[t], at.Terms[t]); d > best {
			best, name = d, budget.Term(t).String()
		}
	}
	return name
}
