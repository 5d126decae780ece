// Command membudget answers, before an LLM inference server is launched,
// whether a model fits on a device class at a --gpu-memory-utilization, the
// most sequences that fit at a length, and the longest length that fits at a
// number of sequences.
//
// Usage:
//
//	membudget classes [--json] [--kernels DIR]
//	membudget budget --class C [--engine vllm|sglang] [budget flags] [--json] [--kernels DIR]
//	membudget models [--json]
//	membudget report --model M --class C [--engine vllm|sglang] [serve flags] [--seqs N] [--length L] [--json]
//	membudget max-seqs --model M --class C [--engine vllm|sglang] [serve flags] [--length L] [--json]
//	membudget max-len --model M --class C [--engine vllm|sglang] [serve flags] [--seqs N] [--json]
//	membudget frontier --model M --class C [--engine vllm|sglang] [serve flags] [--format text|csv|json] [--svg FILE]
//	membudget plan --model M --length L --concurrency N [--engine vllm|sglang] [--classes a,b|all] [--max-gpus G] [--top K] [--json]
//	membudget batch [--input FILE] [--jobs N] [--out-dir DIR]
//	membudget serve [--addr 127.0.0.1:8080] [--timeout D] [--jobs N] [--hub] [--models-dir DIR]...
//	membudget explain [LOG|-] [--model M] [--class C] [--json] [--calibrate DIR]
//	membudget help COMMAND
//
// Exit status: 0 when it fits, a query was answered or a log's figures are
// within their tolerances; 1 when it does not fit or a figure is not; 2
// for bad input; 3 for an internal error (a query whose evaluator is not
// monotone: a bug to report).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"membudget/engine"
	"membudget/engines"
	"membudget/internal/untrusted"
)

// Exit statuses, as the README documents them.
const (
	exitOK      = 0
	exitNoFit   = 1
	exitBadArgs = 2
	// exitInternal is membudget's own fault, not the input's: an evaluator
	// a query found not monotone.
	exitInternal = 3
)

// app is one membudget invocation's world: the environment it reads, the
// standard input explain may read a log from, the engines it sizes, and
// where models and classes are loaded from. Every command is a method of
// it; nothing of it is package-level, so that tests make their own.
type app struct {
	getenv  func(string) string
	stdin   io.Reader
	engines *engine.Set
	// loads, when not nil, keeps the models and classes loaded for every
	// request of a batch; nil loads afresh for each command.
	loads *loads
	// compact writes JSON on one line, counting each value in written:
	// batch's answers.
	compact bool
	written *int
	// inBatch is set for a batch request: its fields (request) are checked
	// against the command's flags before they are parsed (see
	// [checkRequest]), and it may have a file written only under outDir,
	// batch's --out-dir ("" when batch was given none), never at a path of
	// its own.
	inBatch bool
	request []requestField
	outDir  string
	// hubDeadline is --hub-deadline, where the command has it.
	hubDeadline time.Duration
	// serving is set for a request of serve's: it writes no file, and
	// names local paths only as paths allows.
	serving bool
	paths   *pathPolicy
	// ctx, when not nil, bounds the app's work (an HTTP request's
	// deadline, which a --model resolution from the Hub keeps to).
	ctx context.Context
	// cmds is the commands, made once for the app rather than for each
	// of a batch's requests (nil: made when asked).
	cmds []command
}

// newApp returns the app of a process whose environment getenv reads.
func newApp(getenv func(string) string, stdin io.Reader) *app {
	return &app{getenv: getenv, stdin: stdin, engines: engines.Set(), cmds: commands()}
}

type command struct {
	name    string
	summary string
	run     func(a *app, stdout, stderr io.Writer, args []string) int
	// example is one command line that runs it on shipped data, which
	// `membudget help NAME` prints and TestHelpDescribesEveryCommand runs.
	example string
}

func commands() []command {
	return []command{
		{"classes", "list the device classes: memory, util ceiling, unified", (*app).classes,
			"membudget classes"},
		{"budget", "the budget and the driver's share of a class, under an engine's budget setting", (*app).budget,
			"membudget budget --class h100-sxm-80g --gpu-memory-utilization 0.9"},
		{"models", "the shipped models and those in the Hugging Face cache: model_type, and whether they can be sized", (*app).models,
			"membudget models"},
		{"report", "the footprint of a model on a class, term by term, and whether it fits", (*app).report,
			"membudget report --model meta-llama/Llama-3.1-8B-Instruct --class h100-sxm-80g --max-model-len 32768 --seqs 8"},
		{"max-seqs", "the most sequences that fit at a length, verified", (*app).maxSeqs,
			"membudget max-seqs --model meta-llama/Llama-3.1-8B-Instruct --class l4 --length 4096"},
		{"max-len", "the longest length that fits at a number of sequences, verified", (*app).maxLen,
			"membudget max-len --model Qwen/Qwen3-8B --class a100-40g --seqs 16"},
		{"frontier", "most sequences against length, as a table, CSV or SVG plot", (*app).frontier,
			"membudget frontier --model microsoft/phi-4 --class l40s --max-model-len 16384 --format csv"},
		{"plan", "the deployments that serve a length at a concurrency: classes, ranks, dtypes, each verified, with its launch line", (*app).plan,
			"membudget plan --model meta-llama/Llama-3.1-70B-Instruct --length 8192 --concurrency 32 --classes h100-sxm-80g,h200"},
		{"serve", "an HTTP API with batch's requests and answers, one endpoint per command, and a web page over it", (*app).serveHTTP,
			"membudget serve --addr 127.0.0.1:8080"},
		{"batch", "answer JSON-lines requests, one JSON answer a line, as the commands' --json", (*app).batch,
			`echo '{"command": "max-seqs", "model": "Qwen/Qwen3-8B", "class": "l4", "length": 4096}' | membudget batch`},
		{name: "check", summary: "find the inference servers in Kubernetes manifests, compose files and scripts, and check each fits: exit 1 when one does not", run: (*app).check,
			example: "helm template llm ./chart | membudget check --format github -"},
		{"explain", "a vLLM or SGLang startup log's figures beside membudget's, the largest gap named; --calibrate writes its device's class", (*app).explain,
			"membudget explain --model meta-llama/Llama-3.1-8B-Instruct --class h100-sxm-80g vllm.log"},
		{"version", "membudget's version and the engine releases whose rules it applies by default", (*app).version,
			"membudget version"},
	}
}

func main() {
	// Every byte out goes through one escape: what came from outside
	// (files, the Hub, logs, requests) and is printed cannot drive the
	// terminal; JSON stays valid and reads back the same.
	os.Exit(newApp(os.Getenv, os.Stdin).run(untrusted.Writer(os.Stdout), untrusted.Writer(os.Stderr), os.Args[1:]))
}

func (a *app) run(stdout, stderr io.Writer, args []string) int {
	if len(args) == 2 && args[0] == "help" {
		// membudget help <command>: what it does, an example, and its
		// flags, on stdout.
		for _, c := range commands() {
			if c.name == args[1] {
				fmt.Fprintf(stdout, "membudget %s: %s\n\nexample:\n  %s\n\n", c.name, c.summary, c.example)
				return c.run(a, stdout, stdout, []string{"-h"})
			}
		}
		fmt.Fprintf(stderr, "membudget help: unknown command %q; expected one of %s\n", args[1], commandNames())
		return exitBadArgs
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			usage(stderr)
			return exitBadArgs
		}
		usage(stdout)
		return exitOK
	}
	cmds := a.cmds
	if cmds == nil {
		cmds = commands()
	}
	for _, c := range cmds {
		if c.name == args[0] {
			return c.run(a, stdout, stderr, args[1:])
		}
	}
	fmt.Fprintf(stderr, "membudget: unknown command %q; expected one of %s\n", args[0], commandNames())
	return exitBadArgs
}

func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: membudget <command> [flags]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'membudget help <command>' for a command's flags.")
}

// newFlags returns a flag set that reports to stderr and does not exit. A
// bad flag gets one line pointing to the command's help rather than every
// flag; -h prints them all (see parseFlags).
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("membudget "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	// The flag package calls Usage before returning any parse error, -h's
	// included; parseFlags prints what each case needs.
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args and, unless rest is true, refuses positional
// arguments; ok is false with the exit status to return when the command
// should stop. A batch request's fields are checked against fs first.
func (a *app) parseFlags(fs *flag.FlagSet, args []string, rest bool) (status int, ok bool) {
	if err := checkRequest(fs, a.request); err != nil {
		fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
		return exitBadArgs, false
	}
	if err := parseNamingFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(fs.Output(), "usage of %s:\n", fs.Name())
			engine.PrintDefaults(fs)
			return exitOK, false
		}
		fmt.Fprintf(fs.Output(), "Run 'membudget help %s' for its flags.\n", strings.TrimPrefix(fs.Name(), "membudget "))
		return exitBadArgs, false
	}
	if fs.NArg() > 0 && !rest {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q; every input is a flag\n", fs.Name(), fs.Arg(0))
		return exitBadArgs, false
	}
	if a.serving {
		if err := a.paths.checkFlags(fs); err != nil {
			fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
			return exitBadArgs, false
		}
	}
	return 0, true
}

// parseNamingFlags parses args with fs, and words the flag package's
// "flag provided but not defined" as the command's: the flag is not one
// of the command's, with the nearest that is (of those -h lists).
func parseNamingFlags(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	err := fs.Parse(args)
	fs.SetOutput(out)
	msg := buf.String()
	if name, ok := strings.CutPrefix(strings.TrimSpace(msg), "flag provided but not defined: -"); ok && err != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) {
			if h, hidden := f.Value.(engine.Hidden); !hidden || !h.Hidden() {
				names = append(names, f.Name)
			}
		})
		msg = fs.Name() + ": " + engine.NotAFlag("--"+name, name, fs.Name(), names).Error() + "\n"
	}
	_, _ = io.WriteString(out, msg)
	return err
}

// fail prints err on stderr with the command's name and returns status.
func fail(stderr io.Writer, name string, status int, err error) int {
	fmt.Fprintf(stderr, "membudget %s: %v\n", name, err)
	return status
}
