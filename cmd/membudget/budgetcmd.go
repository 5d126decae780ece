package main

import (
	"errors"
	"fmt"
	"io"

	"membudget/engine"
)

func (a *app) budget(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("budget", stderr)
	eng, err := a.engines.EngineOf(args)
	if err != nil {
		return fail(stderr, "budget", exitBadArgs, err)
	}
	b, ok := eng.(engine.Budgeter)
	if !ok {
		return fail(stderr, "budget", exitBadArgs, fmt.Errorf("--engine %s: membudget has no budget for %s", eng.Name(), eng.Title()))
	}
	class := fs.String("class", "", "device `class` (see 'membudget classes'); case does not matter")
	fs.String("engine", a.engines.Default().Name(), engineUsage+a.engines.Names())
	asJSON := fs.Bool("json", false, "print JSON for scripts")
	var k kernelsFlag
	k.register(fs)
	if err := a.engines.Check(eng, args, func(name string) bool { return fs.Lookup(name) != nil }); err != nil {
		return fail(stderr, "budget", exitBadArgs, err)
	}
	q := b.NewBudget(fs)
	if status, ok := a.parseFlags(fs, args, false); !ok {
		return status
	}
	if *class == "" {
		return fail(stderr, "budget", exitBadArgs, errors.New("--class is required (see 'membudget classes')"))
	}
	c, err := k.catalog().Load(*class)
	if err != nil {
		return fail(stderr, "budget", exitBadArgs, fmt.Errorf("--class: %w", err))
	}
	res, err := q.Budget(c)
	if err != nil {
		return fail(stderr, "budget", exitBadArgs, err)
	}
	status := exitOK
	if !res.Fits {
		status = exitNoFit
	}
	if *asJSON {
		if err := a.writeJSON(stdout, res.JSON); err != nil {
			return fail(stderr, "budget", exitBadArgs, err)
		}
		return status
	}
	for _, l := range res.Text {
		fmt.Fprintln(stdout, l)
	}
	return status
}
