package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"membudget/model/hub"
)

// The bounds of --hub-deadline: a second is too short for any Hub, an hour
// longer than a sizing tool should wait.
const (
	minHubDeadline = time.Second
	maxHubDeadline = time.Hour
)

// deadlineFlag is --hub-deadline, a duration within the bounds above.
type deadlineFlag struct{ d *time.Duration }

func (f deadlineFlag) String() string {
	if f.d == nil {
		return ""
	}
	return f.d.String()
}

func (f deadlineFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < minHubDeadline || d > maxHubDeadline {
		return fmt.Errorf("want a duration from %v to %v, such as 2m", minHubDeadline, maxHubDeadline)
	}
	*f.d = d
	return nil
}

// registerHubDeadline registers --hub-deadline on fs: how long resolving
// --model from the Hub may take in all.
func (a *app) registerHubDeadline(fs *flag.FlagSet) {
	a.hubDeadline = hub.DefaultDeadline
	fs.Var(deadlineFlag{&a.hubDeadline}, "hub-deadline", "the longest a whole --model resolution from the Hugging Face Hub may take, every request and retry included (a `duration` such as 2m)")
}

// hubContext is the context a --model resolution runs under: bounded by
// --hub-deadline (hub.DefaultDeadline for a command without the flag), its
// cause naming the flag, and by the app's context (a serve request's).
func (a *app) hubContext() (context.Context, context.CancelFunc, time.Duration) {
	d := a.hubDeadline
	if d == 0 {
		d = hub.DefaultDeadline
	}
	ctx, cancel := context.WithTimeoutCause(a.context(), d, fmt.Errorf("no whole answer within --hub-deadline %v: %w", d, hub.ErrDeadline))
	return ctx, cancel, d
}
