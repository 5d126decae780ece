package engine

import (
	"errors"
	"flag"

	"membudget/budget"
	"membudget/model/explain"
	"membudget/model/hub"
	"membudget/model/logs"
)

// Planner is the capability of an [Engine] that plans deployments: every
// way of spreading a model over the classes' GPUs that serves a need, each
// verified by the engine's evaluator and given with its launch line.
type Planner interface {
	// NewPlan registers the plan's engine flags on fs (its release, ...)
	// and returns the search they set.
	NewPlan(fs *flag.FlagSet) PlanSearch
}

// PlanSearch is one plan's search, its flags parsed.
type PlanSearch interface {
	// Search returns every deployment of m on the space's classes that
	// serves need within its bounds, ranked by [PlanSpace.Rank]. progress,
	// when not nil, is called after each class. A need the engine refuses
	// for the model on every device (a length beyond it) is an error
	// naming --length.
	Search(m *hub.Loaded, need Need, sp PlanSpace, progress func(done, total int)) (PlanResult, error)
}

// Need is what a deployment must serve: Concurrency sequences of Length
// tokens each, across all its replicas.
type Need struct{ Length, Concurrency uint64 }

// PlanResult is a plan's deployments and what it searched.
type PlanResult struct {
	// Describes names the rules that sized each deployment.
	Describes string
	// Searched says what the search covered, in one sentence.
	Searched string
	// Notes say how the printed launch lines size what they size (vLLM's
	// KV cache by the util, or pinned), a line each.
	Notes []string
	// Dropped say what the search refused on every layout without a
	// deployment to show it, and what lifts the refusal, a line each:
	// printed whether or not any deployment holds the need.
	Dropped []string
	// Ignored are the flags (or keys of a JSON flag) given that do not
	// change memory, as given with their values: the search keeps none of
	// them and the commands leave them out, so the plan lists them as a
	// report does rather than drop them unsaid.
	Ignored []string
	// BudgetColumn heads the table's column of the budget setting
	// ("UTIL").
	BudgetColumn string
	Deployments  []Deployment
}

// Deployment is one serve of a plan, with its verified bounds and the
// launch line that runs it.
type Deployment struct {
	Class budget.Class
	// GPUs is TP x PP x DP.
	GPUs, TP, PP, DP uint64
	// Weights is the weights' format (a quantization, or the dtype), KV
	// the KV cache's dtype, Budget the budget setting as the table prints
	// it.
	Weights, KV, Budget string
	// PerEngine is the sequences each replica holds; MostSeqs the
	// verified most sequences of the length per replica, LongestLen the
	// verified longest length at PerEngine sequences.
	PerEngine            uint64
	MostSeqs, LongestLen budget.Answer
	// Headroom is the smaller margin at the need: the budget's or the
	// driver's.
	Headroom uint64
	// BudgetBytes is the budget per GPU on the stage that binds, and
	// KVHeadroom what of it the need leaves unused: the KV cache beyond
	// the need's sequences, which the ranking's safety margin is taken
	// from (the driver's side is the class's util ceiling's to keep).
	BudgetBytes, KVHeadroom uint64
	// Online says the engine quantizes the weights as it loads them (a
	// --quantization the checkpoint does not hold): it changes the
	// model's numerics.
	Online bool
	// KVQuantized says the KV cache is stored in a narrower dtype than the
	// engine's auto (fp8 asked for): it changes the numerics less than
	// quantized weights, and still some.
	KVQuantized bool
	// Caveat is what may still stop the deployment serving where the
	// engine starts it, as a sentence ("" for none): the table has no
	// column for it, so the plan prints it once as a note naming the
	// printed deployments that carry it.
	Caveat  string
	Command string
	// JSON is the deployment as plan --json lists it; when it has a
	// SetRank(RankJSON) method, [PlanSpace.Rank] gives it the ranking's
	// figures.
	JSON any

	// Set by [PlanSpace.Rank]: the nodes the deployment takes, the margin
	// it should leave (bytes of its budget), whether it leaves less, and
	// its cost per hour (nil without a price for its class).
	Nodes, Margin uint64
	Tight         bool
	USDPerHour    *float64
}

// Budgeter is the capability of an [Engine] that says what budget it
// sizes on a class, before any model: the budget and the driver's share
// beside it.
type Budgeter interface {
	// NewBudget registers the budget's engine flags on fs and returns the
	// query they set.
	NewBudget(fs *flag.FlagSet) BudgetQuery
}

// BudgetQuery is one budget question, its flags parsed.
type BudgetQuery interface {
	// Budget returns the engine's budget on c; a setting it refuses is an
	// error naming the flag.
	Budget(c budget.Class) (BudgetResult, error)
}

// BudgetResult is a budget in JSON and text, and whether the driver's
// share fits beside it.
type BudgetResult struct {
	JSON any
	// Text is its lines, as the command prints them.
	Text []string
	Fits bool
}

// LogReader is the capability of an [Engine] that explains its own startup
// logs (those whose [logs.Log].Engine is its name): it sizes the serve the
// log's settings describe — each setting the log states, unless the
// serve's flag for it was given — and sets every figure the log states
// beside its prediction.
type LogReader interface {
	// Explain explains src's log for model m on the class chosen; s is a
	// serve of this engine, its flags parsed, whose given flags override
	// the log's settings. A serve the engine refuses is a
	// *explain.ServeError naming the flag (and the log line it came from).
	Explain(src *explain.Source, m explain.Model, c explain.ClassChoice, s Serve) (*explain.Explanation, error)
	// Ranks returns the tensor-parallel ranks the log ran at: s's flag
	// when it was given, else the log's setting, else 1.
	Ranks(l *logs.Log, s Serve) uint64
}

// ServeRefusal returns err, an engine's refusal of the serve a log
// describes, as the *explain.ServeError a [LogReader] returns: naming the
// flag of a *[SettingError], and, when from (by flag) says the log gave
// that setting, the log line it came from.
func ServeRefusal(err error, from map[string]explain.SettingFrom) *explain.ServeError {
	se := &explain.ServeError{Err: err}
	var sErr *SettingError
	if errors.As(err, &sErr) {
		se.Flag = sErr.Flag
		if f, ok := from[sErr.Flag]; ok && f.Source == explain.FromLogged {
			se.Logged = &f
		}
	}
	return se
}

// LoggedCount returns the log's setting key as a count above 0, else def:
// what a [LogReader]'s Ranks reads when its flag was not given.
func LoggedCount(l *logs.Log, key string, def uint64) uint64 {
	if st, ok := l.Setting(key); ok {
		if n, ok := st.Int(); ok && n > 0 {
			return uint64(n)
		}
	}
	return def
}

// Releaser is the capability of an [Engine] that names the release whose
// rules size a serve when no release flag is given (`membudget version`).
type Releaser interface {
	// DefaultRelease returns that release in one phrase ("vLLM main at
	// commit d18bb7b (2026-08-14)").
	DefaultRelease() string
}
