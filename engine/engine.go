// Package engine is the seam between membudget's commands and the inference
// servers whose memory it sizes. An [Engine] owns everything of one server:
// its serve flags and their forms, the launch line a user pastes and the one
// membudget prints, its rules release by release, whether it starts a serve,
// and what a report says in its words. The commands (report, max-seqs,
// max-len, frontier, batch, plan, budget, explain) are written once over it.
//
// The seam has one required interface per stage of a command:
//
//   - [Engine]: the server, by name; it makes a fresh [Serve].
//   - [Serve]: one serve's settings as the user gave them, under the
//     engine's flags; it reads a pasted launch line and sizes itself for a
//     model on a device class.
//   - [Sizing]: one sized serve: the compiled plan the queries bisect, its
//     caps, whether the engine starts it, the itemised ledger, the launch
//     line, and its [Section] of a report.
//
// Capabilities an engine may lack are asked for by type assertion, as
// net/http asks a ResponseWriter for a Flusher: a [Sizing] may be an
// [Advisor]; an [Engine] may be a [Planner], a [Budgeter] or a [LogReader].
// A command names the engine that lacks the capability it needs.
//
// Which flag belongs to which engine, and "that is vLLM's flag; SGLang's
// nearest is --mem-fraction-static", come from what each engine declares
// ([Serve.Register], [Serve.Concepts]) through a [Set], for any pair of
// engines: nothing is kept pairwise.
//
// Every implementation is checked by the contract suite of
// membudget/engine/enginetest.
package engine

import (
	"flag"
	"io"

	"membudget/budget"
	"membudget/model/hub"
)

// Engine is one inference server whose memory membudget sizes.
//
// An Engine is a value without state: every method may be called from any
// goroutine, and NewServe returns a serve no other call shares.
type Engine interface {
	// Name returns the engine's name as --engine and the JSON's "engine"
	// give it: lower case, unique in a [Set] ("vllm").
	Name() string
	// Title returns the engine's name as prose writes it ("vLLM").
	Title() string
	// NewServe returns a fresh serve at the engine's defaults, for one
	// command to register, parse and size.
	NewServe() Serve
	// LaunchLine reports whether args begin the engine's launch line, as
	// a user pastes it after membudget's flags ("vllm serve",
	// "python -m sglang.launch_server"), once any leading NAME=value
	// assignments are taken off (see [SplitEnv]). A launch line begins
	// with a word: LaunchLine is false where args[0] begins with "-", which
	// [Set.Check] relies on to look for a line only at words.
	LaunchLine(args []string) bool
	// LineUsage returns the launch line's form for messages:
	// "vllm serve MODEL [flags]".
	LineUsage() string
}

// Serve is one serve's settings under an engine's flags, as the user gave
// them, before any default is applied. A Serve belongs to one command: it
// is not safe for concurrent use, and the [Sizing] it returns does not
// share its state.
//
// The command registers the flags every engine shares (--model, --class,
// --kernels, --json, --engine) and its own; Register adds the engine's.
// Parsing then sets them; a pasted launch line is split by ReadLine and
// parsed by the same flag set, so that a flag means the same given either
// way.
type Serve interface {
	// Register registers the engine's serve flags on fs, its release flag
	// among them. model is the value of the shared --model flag: an engine
	// whose server names it otherwise (SGLang's --model-path) registers
	// that name bound to it.
	Register(fs *flag.FlagSet, model *string)
	// Concepts returns what the engine's flags stand for, in the words
	// every engine shares, for the messages that refuse another engine's
	// flag (see [Set.Foreign]).
	Concepts() []Concept
	// ReadLine splits a pasted launch line (args begin it: see
	// [Engine.LaunchLine]; NAME=value assignments are already taken off)
	// into what the flag set parses and what it does not: the model the
	// line names, the flags that do not change memory. Its error names
	// the line's flag or word.
	ReadLine(args []string) (Line, error)
	// Env returns the environment variables the engine reads, which the
	// command looks up (in a pasted line, then in its environment) and
	// passes to SetEnv.
	Env() []string
	// SetEnv sets the environment variable name (one of Env) to value,
	// read from from ("the launch line", "the environment").
	SetEnv(name, value, from string)
	// Ignore records what a pasted line held that membudget does not read:
	// environment assignments the engine does not read (see Env) and the
	// flags that do not change memory, as given. The report lists them.
	Ignore(env, flags []string)
	// Parsed is called once every flag and the environment are read,
	// with the flags given by the names they were given under: it refuses
	// what only the whole set shows (a release membudget has no rules for,
	// one setting given under two names), before anything is loaded, and
	// returns what it reads in doubt (an environment value the engine
	// does not understand), for stderr.
	Parsed(given map[string]bool) (warnings []string, err error)
	// Size resolves the serve for model m on class c under the engine's
	// rules and sizes it. A setting the engine (or the device) refuses is
	// a *SettingError naming the engine's flag.
	Size(m *hub.Loaded, c budget.Class) (Sizing, error)
}

// Line is a launch line split by [Serve.ReadLine].
type Line struct {
	// Name is how messages name the line ("the vllm serve line").
	Name string
	// Model is the model the line names ("" when it names none); From says
	// where, for the message when --model names another ("vllm serve M",
	// "--model-path M in the launch line").
	Model, From string
	// Args are the line's flags, in the form the flag set parses: the
	// engine's spellings made its own (vLLM's underscores), --revision
	// still among them (the command takes it out, see [TakeRevision]).
	Args []string
	// Ignored are the line's flags that do not change memory, as given,
	// each with its value.
	Ignored []string
}

// Concept is what one of an engine's flags (or environment variables)
// stands for. Two engines' flags of the same Idea are each other's nearest.
type Concept struct {
	// Flag is the flag without its dashes ("gpu-memory-utilization"), or
	// an environment assignment ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1").
	Flag string
	// Idea names what it stands for in words every engine shares (see the
	// Idea constants).
	Idea string
	// Gloss says in a few words what this engine's flag measures, where
	// the name does not ("a share of the device's total").
	Gloss string
}

// The ideas engines' flags stand for.
const (
	IdeaModel          = "the model"
	IdeaRelease        = "the engine's release"
	IdeaBudget         = "the memory budget"
	IdeaKVCap          = "a cap on the KV cache"
	IdeaLongest        = "the longest request"
	IdeaAllowLonger    = "a length above the model's"
	IdeaSequences      = "the most sequences at once"
	IdeaBatchTokens    = "the tokens of a forward batch"
	IdeaPage           = "the tokens of a KV page"
	IdeaTensorParallel = "tensor-parallel ranks"
	IdeaPipeline       = "pipeline stages"
	IdeaDataParallel   = "data-parallel replicas"
	IdeaQuantization   = "the weights' quantization"
	IdeaNoGraphs       = "no CUDA graphs"
	IdeaKVDtype        = "the KV cache's dtype"
	IdeaDtype          = "the weights' dtype"
)

// Bound is one of a serve's caps, with the names the engine gives it.
type Bound struct {
	Value uint64
	// Flag is the flag that sets it, as typed ("--max-num-seqs"); Name is
	// how the engine's own messages and logs call it
	// ("max_running_requests"), which the commands print where the flag
	// is not what the user sets.
	Flag, Name string
}

// Label returns how a command names the bound: its name when the engine
// derives it, else its flag.
func (b Bound) Label() string {
	if b.Name != "" {
		return b.Name
	}
	return b.Flag
}

// Sizing is one serve sized for a model on a device class.
//
// A Sizing is immutable once Size returns it, and every method is safe for
// concurrent use (what it computes lazily it computes once).
type Sizing interface {
	// Plan returns the compiled footprint every query bisects. For every
	// stage i and (s, t), Plan().EvaluateStage(i, s, t)'s terms are the
	// sums by term of Ledger(i, s, t), and its footprint never shrinks as
	// s or t grows.
	Plan() *budget.Plan
	// Seqs returns the cap on sequences at once, Len the cap on a
	// sequence's tokens, Page the tokens of one KV page (the frontier's
	// first length). Plan's MaxSeqs and MaxLen are Seqs and Len.
	Seqs() Bound
	Len() Bound
	Page() Bound
	// Starts reports whether the engine starts the serve at all: its own
	// startup checks, beside the footprint. When not, why says so in the
	// engine's words, naming the flag that lifts the refusal where one
	// does. A serve the engine refuses fits nothing.
	Starts() (ok bool, why string)
	// Ledger returns the itemised reference footprint of s sequences of t
	// tokens on pipeline stage i: every allocation, by name and term.
	Ledger(i int, s, t uint64) []budget.Item
	// Command returns the launch line that runs this serve, every sizing
	// setting explicit: read back by the same engine's Serve, it sizes
	// the same serve.
	Command() string
	// Section returns what a report says of the serve beyond its
	// footprint, in the engine's words.
	Section() Section
}

// Advisor is the capability of a [Sizing] that searches what would make a
// target fit when it does not: each suggestion is a change of the serve's
// flags, checked by the same evaluator (it fits, and the engine starts it).
type Advisor interface {
	Advise(t Target) (Advice, error)
}

// LongestStarter is the capability of a [Sizing] the engine refuses to
// start because one request of its longest length (its [Sizing.Len]
// bound) does not fit: LongestStart returns the engine's own estimate of
// the longest length it would start, ok false when the refusal is another
// (or there is none). The queries size again at that length, or at the
// length asked when it is shorter, when the user left the length to the
// engine.
type LongestStarter interface {
	LongestStart() (length uint64, ok bool)
}

// Target is what a serve must hold: Seqs sequences of Tokens tokens each.
type Target struct{ Seqs, Tokens uint64 }

// Advice is what would make a target fit, and the space searched: no
// suggestion means nothing in that space fits, and only that.
type Advice struct {
	Suggestions []Suggestion
	// Searched names each lever tried, with its range.
	Searched []string
	// Notes say what the fixed part of the serve leaves when nothing
	// fits, and what a plan would search when no suggestion holds the
	// target in full.
	Notes []string
	// Plan is the `membudget plan` command that searches further (every
	// class, more GPUs) when no suggestion holds the target in full; ""
	// otherwise.
	Plan string
}

// Suggestion is one checked change of the serve's flags.
type Suggestion struct {
	// Flags is the change as the engine's flags ("--max-model-len 24624");
	// "" for the serve as given, at the bound At holds.
	Flags string
	// Why says in a few words what it holds.
	Why string
	// GPUs is the devices the changed serve takes.
	GPUs uint64
	// At is the footprint it was checked at, on the stage that binds.
	At budget.Footprint
	// Holds says it holds the target in full; else it is a bound (a
	// shorter length, fewer sequences) of what does.
	Holds bool
	// Numerics names what in it changes the model's numerics ("" for
	// nothing): the engine quantizing the weights as it loads them.
	Numerics string
}

// Section is what a report says of one sized serve beyond its footprint,
// in the engine's words: the rules it was sized by, the resolved serve, the
// weights, the engine's own figures, and how it names its budget.
type Section interface {
	// Rules returns the engine release the serve was sized by, in one
	// phrase, and a note on how the release was chosen ("" for none).
	Rules() (describes, note string)
	// Serve returns the resolved serve as the JSON's "serve" holds it.
	Serve() any
	// Settings returns the lines a report prints under the launch line:
	// each default and where it came from, the environment read, what was
	// ignored.
	Settings() []string
	// GPUs returns the devices the serve takes.
	GPUs() uint64
	// Weights returns where the weights per GPU of stage i come from.
	Weights(i int) Weights
	// Warnings returns what did not stop the sizing of stage i, for
	// stderr.
	Warnings(i int) []string
	// Fields returns the report's engine fields at fp, in order: the JSON
	// places them between "footprint" and "fits".
	Fields(fp budget.Footprint) []Field
	// WriteBefore writes the engine's figures a report prints before the
	// footprint at fp; WriteAfter those it prints after it.
	WriteBefore(w io.Writer, fp budget.Footprint)
	WriteAfter(w io.Writer, fp budget.Footprint)
	// QueryLines returns what a query prints under the launch line.
	QueryLines() []string
	// Lines returns the footprint fp line by line: what is charged to the
	// budget, then what stands beside it.
	Lines(fp budget.Footprint) []FootprintLine
	// Words returns how the engine names its budget and the conditions.
	Words() Words
	// Shortfall says by how much fp misses, on the condition that failed.
	Shortfall(fp budget.Footprint) string
	// Setting names the budget's setting as a verdict says it
	// ("--gpu-memory-utilization 0.92").
	Setting() string
}

// Field is one field of a JSON object, in the order it is written.
type Field struct {
	Key   string
	Value any
}

// FootprintLine is one line of a footprint: a term, or the items of one
// kind, and whether the engine allocates it beside its budget.
type FootprintLine struct {
	Label  string
	Bytes  uint64
	Beside bool
}

// Words is how an engine names its budget and the two conditions, in the
// last lines of a footprint.
type Words struct {
	// Width is the label column's width; Ledger the sum's label.
	Width  int
	Ledger string
	// Budget is the budget's row.
	Budget string
	// Each is a format of one GiB figure (the ceiling's, of two).
	BudgetOver, BudgetHeadroom, OutsideOver, OutsideHeadroom, CeilingAbove string
}

// Weights says where a stage's weights per GPU come from and, when a
// checkpoint was read, how they compare with those derived from
// config.json.
type Weights struct {
	// From is "checkpoint" or "config".
	From        string `json:"from"`
	Description string `json:"description"`
	// CheckpointBytes is absent when no checkpoint was read.
	CheckpointBytes   *uint64   `json:"checkpoint_bytes,omitempty"`
	DerivedBytes      uint64    `json:"derived_bytes"`
	DifferencePercent float64   `json:"difference_percent"`
	PipelineStage     int       `json:"pipeline_stage"`
	Skipped           []Skipped `json:"skipped,omitempty"`
	Unknown           []string  `json:"unknown,omitempty"`
	Warnings          []string  `json:"warnings,omitempty"`
	// Text is how a report prints them, a line each.
	Text []string `json:"-"`
}

// Skipped is tensors of a checkpoint the engine does not load, and why.
type Skipped struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}
