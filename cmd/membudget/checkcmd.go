package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/check"
	"membudget/engine"
)

// Statuses of one server in a check.
const (
	checkFits   = "fits"
	checkFails  = "fails"
	checkUnread = "unreadable"
)

const (
	checkCommand = "check"
	checkFormats = "text, json, github or junit"
)

// checkResult is one server found by check, sized: the JSON's element of
// "servers".
type checkResult struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Where  string `json:"where"`
	Status string `json:"status"`
	// Engine, Model, Class and the rest are absent when the server could
	// not be read.
	Engine    string           `json:"engine,omitempty"`
	Model     string           `json:"model,omitempty"`
	Class     string           `json:"class,omitempty"`
	ClassFrom string           `json:"class_from,omitempty"`
	Command   string           `json:"command,omitempty"`
	GPUs      uint64           `json:"gpus,omitempty"`
	Requested *check.Request   `json:"requested,omitempty"`
	Starts    *bool            `json:"starts,omitempty"`
	Fits      *bool            `json:"fits,omitempty"`
	Length    uint64           `json:"length,omitempty"`
	MaxSeqs   *uint64          `json:"max_seqs,omitempty"`
	KV        map[string]any   `json:"kv,omitempty"`
	Problems  []checkProblem   `json:"problems"`
	Advice    []suggestionJSON `json:"advice,omitempty"`
	// Searched is the space the advice searched, when nothing in it fits.
	Searched []string `json:"searched,omitempty"`
	// text is the engine's own figures of the KV cache, for the text
	// format.
	text []string
}

// checkProblem is one reason a server fails or cannot be read, at its line,
// with the flag to change when there is one.
type checkProblem struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

func (a *app) check(stdout, stderr io.Writer, args []string) int {
	fs := newFlags(checkCommand, stderr)
	format := fs.String("format", "text", "output `format`: "+checkFormats)
	class := fs.String("class", "", "device `class` of the servers whose file selects none (a compose file, a script; see 'membudget classes')")
	var k kernelsFlag
	k.register(fs)
	// Flags may follow the paths: parse, take a path, parse the rest.
	var paths []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				// The line every command's help opens its flags with.
				fmt.Fprintf(fs.Output(), "usage of %s:\n", fs.Name())
				fs.PrintDefaults()
				fmt.Fprintf(fs.Output(), "and the manifests: FILE, DIR or - (standard input), before or after the flags\n")
				return exitOK
			}
			fmt.Fprintf(fs.Output(), "Run 'membudget help %s' for its flags.\n", checkCommand)
			return exitBadArgs
		}
		if fs.NArg() == 0 {
			break
		}
		paths, args = append(paths, fs.Arg(0)), fs.Args()[1:]
	}
	if a.serving {
		if err := a.paths.checkFlags(fs); err != nil {
			return fail(stderr, checkCommand, exitBadArgs, err)
		}
	}
	if !slices.Contains([]string{"text", "json", "github", "junit"}, *format) {
		return fail(stderr, checkCommand, exitBadArgs, fmt.Errorf("--format %q: want %s", *format, checkFormats))
	}
	if len(paths) == 0 {
		return fail(stderr, checkCommand, exitBadArgs, errors.New("give the manifests to check: FILE, DIR or - (standard input)"))
	}
	if *class != "" {
		if _, err := a.class(k, *class); err != nil {
			return fail(stderr, checkCommand, exitBadArgs, fmt.Errorf("--class: %w", err))
		}
	}
	classes, err := k.catalog().LoadAll()
	if err != nil {
		return fail(stderr, checkCommand, exitBadArgs, fmt.Errorf("--kernels: %w", err))
	}
	opts := check.Options{IsLine: func(args []string) bool { return a.engines.LineOf(args) != nil }, Classes: classes,
		Skipped: func(path, why string) { writeWarnings(stderr, checkCommand, []string{"skipped " + path + ": " + why}) }}
	var servers []check.Server
	for _, p := range paths {
		found, err := check.ReadPath(p, a.stdin, opts)
		if err != nil {
			return fail(stderr, checkCommand, exitBadArgs, err)
		}
		servers = append(servers, found...)
	}
	if len(servers) == 0 {
		// Not an error (a directory of other manifests), but never a
		// silent pass: say that nothing was checked.
		writeWarnings(stderr, checkCommand, []string{fmt.Sprintf("no vLLM or SGLang launch line found in %s: nothing checked", strings.Join(paths, ", "))})
	}
	results := make([]checkResult, 0, len(servers))
	status := exitOK
	for _, srv := range servers {
		r := a.checkServer(srv, k, *class)
		switch {
		case r.Status == checkUnread:
			status = exitBadArgs
		case r.Status == checkFails && status == exitOK:
			status = exitNoFit
		}
		results = append(results, r)
	}
	switch *format {
	case "json":
		out := object{{Key: "servers", Value: results}, {Key: "summary", Value: summaryOf(results)}}
		if err := a.writeJSON(stdout, out); err != nil {
			return fail(stderr, checkCommand, exitBadArgs, err)
		}
	case "github":
		writeGitHub(stdout, results)
	case "junit":
		if err := writeJUnit(stdout, results); err != nil {
			return fail(stderr, checkCommand, exitBadArgs, err)
		}
	default:
		writeCheckText(stdout, results)
	}
	return status
}

// checkSummary counts the servers by status.
type checkSummary struct {
	Servers    int `json:"servers"`
	Fit        int `json:"fit"`
	Fail       int `json:"fail"`
	Unreadable int `json:"unreadable"`
}

func summaryOf(rs []checkResult) checkSummary {
	s := checkSummary{Servers: len(rs)}
	for _, r := range rs {
		switch r.Status {
		case checkFits:
			s.Fit++
		case checkFails:
			s.Fail++
		default:
			s.Unreadable++
		}
	}
	return s
}

// checkServer sizes one server found, over the engine seam, as report
// sizes a pasted launch line: the engine whose line it is, its flags parsed
// by that engine's flag set, its environment, the class its file selects
// (else --class), at the engine's startup check (one sequence of the
// longest length the serve takes).
func (a *app) checkServer(srv check.Server, k kernelsFlag, class string) checkResult {
	r := checkResult{File: srv.File, Line: srv.Line, Where: srv.Where, Requested: srv.Requested, Problems: []checkProblem{}}
	unread := func(line int, format string, v ...any) checkResult {
		r.Status = checkUnread
		r.Problems = append(r.Problems, checkProblem{Line: line, Message: fmt.Sprintf(format, v...)})
		return r
	}
	failed := func(line int, format string, v ...any) {
		r.Status = checkFails
		r.Problems = append(r.Problems, checkProblem{Line: line, Message: fmt.Sprintf(format, v...)})
	}
	if srv.Err != "" {
		return unread(srv.Line, "%s", srv.Err)
	}
	eng := a.engines.LineOf(srv.Args)
	if eng == nil {
		return unread(srv.Line, "not a launch line membudget reads: %s", strings.Join(srv.Args, " "))
	}
	r.Engine = eng.Name()
	var msgs bytes.Buffer
	fs := newFlags(checkCommand, &msgs)
	sa := &serveArgs{eng: eng, serve: eng.NewServe(), kernels: k}
	fs.StringVar(&sa.model, "model", "", "")
	env, line := engine.SplitEnv(srv.Args)
	if a.serving {
		// A manifest sent to serve names no file of the host's either.
		if _, err := a.respell(eng, line); err != nil {
			return unread(srv.Line, "%v", err)
		}
	}
	if err := a.engines.Check(eng, line, func(name string) bool { return name == "model" }); err != nil {
		return unread(srv.Line, "%v", err)
	}
	sa.serve.Register(fs, &sa.model)
	set := map[string]bool{}
	if _, ok := a.readLine(fs, sa, env, line, set); !ok {
		return unread(srv.Line, "%s", strings.TrimSpace(strings.TrimPrefix(msgs.String(), fs.Name()+": ")))
	}
	for _, name := range srv.Unset {
		if slices.Contains(sa.serve.Env(), name) {
			return unread(srv.Line, "%s reads %s, which the file takes from elsewhere (valueFrom): membudget cannot read its value", eng.Title(), name)
		}
	}
	// The server's environment is the file's alone: unlike report, check
	// does not read membudget's own (the CI runner's is not the pod's).
	sa.given = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { sa.given[fl.Name] = true })
	if _, err := sa.serve.Parsed(sa.given); err != nil {
		return unread(srv.Line, "%v", err)
	}
	switch {
	case srv.GPU != nil:
		sa.class, r.ClassFrom = srv.GPU.Class, fmt.Sprintf("%s, line %d", srv.GPU.From, srv.GPU.Line)
	case class != "":
		sa.class, r.ClassFrom = class, "--class"
	default:
		return unread(srv.Line, "the file selects no GPU (nvidia.com/gpu.product, cloud.google.com/gke-accelerator, karpenter.k8s.aws/instance-gpu-name or a GPU instance type): give --class")
	}
	r.Class = sa.class
	_, c, sz, err := a.size(sa, func([]string) {})
	if err != nil {
		if se := (*engine.SettingError)(nil); errors.As(err, &se) {
			f := false
			r.Starts, r.Fits, r.Model = &f, &f, sa.model
			failed(srv.Line, "%s does not start: %v", eng.Title(), err)
			return r
		}
		return unread(srv.Line, "%v", err)
	}
	r.Model, r.Class, r.Command = sa.model, c.Name, sz.Command()
	plan, sec := sz.Plan(), sz.Section()
	t := sz.Len().Value
	fp := plan.Evaluate(1, t)
	starts, why := sz.Starts()
	fits := fp.Fits() && starts
	r.Starts, r.Fits, r.Length, r.GPUs = &starts, &fits, t, sec.GPUs()
	r.KV = map[string]any{}
	for _, f := range sec.Fields(fp) {
		if strings.HasPrefix(f.Key, "kv") {
			r.KV[f.Key] = f.Value
		}
	}
	// The engine's own figures of its KV cache, in its words.
	var after bytes.Buffer
	sec.WriteBefore(&after, fp)
	sec.WriteAfter(&after, fp)
	for _, l := range strings.Split(strings.TrimSpace(after.String()), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			r.text = append(r.text, l)
		}
	}
	r.Status = checkFits
	switch {
	case !starts:
		failed(srv.Line, "%s does not start: %s", eng.Title(), why)
	case !fp.Fits():
		failed(srv.Line, "does not fit one sequence of %d tokens on %s: %s", t, c.Name, sec.Shortfall(fp))
	default:
		if most, err := budget.MaxSequences(plan, t, seqsCapAt(sz, t).Value); err == nil {
			r.MaxSeqs = &most.Value
		}
	}
	if adv, ok := sz.(engine.Advisor); ok && !fits {
		if found, err := adv.Advise(engine.Target{Seqs: 1, Tokens: t}); err == nil {
			r.Advice = adviceOf(found).Suggestions
			if len(found.Suggestions) == 0 {
				r.Searched = found.Searched
			}
		}
	}
	a.checkGPUs(&r, srv, sa, sec.GPUs())
	return r
}

// checkGPUs compares the GPUs the serve takes with those its pods request,
// and the GPUs one pod requests with those one node holds.
func (a *app) checkGPUs(r *checkResult, srv check.Server, sa *serveArgs, gpus uint64) {
	fail := func(line int, format string, v ...any) {
		r.Status = checkFails
		r.Problems = append(r.Problems, checkProblem{Line: line, Message: fmt.Sprintf(format, v...)})
	}
	req := srv.Requested
	if req == nil {
		return
	}
	if req.GPUs != gpus {
		// One flag per degree: an engine may declare an idea under
		// several spellings (--tp for --tensor-parallel-size).
		var flags, ideas []string
		for _, c := range sa.serve.Concepts() {
			switch c.Idea {
			case engine.IdeaTensorParallel, engine.IdeaPipeline, engine.IdeaDataParallel:
				if !slices.Contains(ideas, c.Idea) {
					flags, ideas = append(flags, "--"+c.Flag), append(ideas, c.Idea)
				}
			}
		}
		// Fewer GPUs than ranks: the engine fails to start its workers
		// (vLLM: "please ensure that world_size (2) is less than than max
		// local gpu count (1)", vllm-project/vllm issue 15217); more: the
		// rest sit idle, reserved by the scheduler.
		effect := "the engine cannot start its ranks"
		if req.GPUs > gpus {
			effect = fmt.Sprintf("%d of them idle", req.GPUs-gpus)
		}
		fail(req.Line, "requests %d GPU(s) (%s) but the serve takes %d (%s): %s; change the request or %s",
			req.GPUs, req.From, gpus, strings.Join(flags, " x "), effect, strings.Join(flags, ", "))
	}
	if srv.GPU != nil && srv.GPU.PerNode > 0 && req.PerPod > srv.GPU.PerNode {
		fail(req.Line, "a pod requests %d GPUs but a node of %s holds %d: the pod is never scheduled", req.PerPod, srv.GPU.From, srv.GPU.PerNode)
	}
}

// writeCheckText writes the results for a person: per server, its place,
// its verdict and figures, what to change.
func writeCheckText(w io.Writer, rs []checkResult) {
	for _, r := range rs {
		fmt.Fprintf(w, "%s:%d: %s: %s\n", r.File, r.Line, r.Where, strings.ToUpper(r.Status))
		if r.Engine != "" && r.Class != "" && r.Command != "" {
			fmt.Fprintf(w, "  %s on %s (%s), %d GPU(s)", r.Model, r.Class, r.ClassFrom, r.GPUs)
			if r.Requested != nil {
				fmt.Fprintf(w, "; requested %d (%s, line %d)", r.Requested.GPUs, r.Requested.From, r.Requested.Line)
			}
			fmt.Fprintf(w, "\n  serve %s\n", r.Command)
			for _, l := range r.text {
				fmt.Fprintf(w, "  %s\n", l)
			}
			if r.MaxSeqs != nil {
				fmt.Fprintf(w, "  concurrency: %d sequence(s) of %d tokens at once (verified)\n", *r.MaxSeqs, r.Length)
			}
		}
		for _, p := range r.Problems {
			fmt.Fprintf(w, "  line %d: %s\n", p.Line, p.Message)
		}
		for _, sg := range r.Advice {
			fmt.Fprintf(w, "  to fit: %s (%s%s)\n", suggestedChange(sg.Flags), sg.Why, moreGPUs(sg, r.GPUs))
		}
		if len(r.Searched) > 0 {
			fmt.Fprintf(w, "  nothing fits in the space searched: %s\n", strings.Join(r.Searched, "; "))
		}
	}
	s := summaryOf(rs)
	fmt.Fprintf(w, "%d server(s): %d fit, %d fail, %d unreadable\n", s.Servers, s.Fit, s.Fail, s.Unreadable)
}

// moreGPUs says how many GPUs a suggestion takes when that is not what
// the serve takes: the pods' request must change with it.
func moreGPUs(sg suggestionJSON, gpus uint64) string {
	if sg.GPUs == gpus {
		return ""
	}
	return fmt.Sprintf(", %d GPUs: change the request with it", sg.GPUs)
}

// githubEscape escapes an annotation's message, and with props its
// properties, as GitHub Actions' workflow commands read them
// (docs.github.com/actions/reference/workflow-commands-for-github-actions;
// the runner's escapeData and escapeProperty: % \r \n, and : , in
// properties).
func githubEscape(s string, props bool) string {
	r := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	s = r.Replace(s)
	if props {
		s = strings.NewReplacer(":", "%3A", ",", "%2C").Replace(s)
	}
	return s
}

// writeGitHub writes one annotation per problem (an error), and a notice
// per server that fits, at its file and line.
func writeGitHub(w io.Writer, rs []checkResult) {
	for _, r := range rs {
		title := githubEscape("membudget check: "+r.Where, true)
		file := githubEscape(r.File, true)
		if r.Status == checkFits {
			msg := fmt.Sprintf("%s fits on %s (%d GPU(s))", r.Model, r.Class, r.GPUs)
			if r.MaxSeqs != nil {
				msg += fmt.Sprintf(": %d sequence(s) of %d tokens at once", *r.MaxSeqs, r.Length)
			}
			fmt.Fprintf(w, "::notice file=%s,line=%d,title=%s::%s\n", file, r.Line, title, githubEscape(msg, false))
			continue
		}
		for i, p := range r.Problems {
			msg := p.Message
			if i == 0 && len(r.Advice) > 0 {
				var flags []string
				for _, sg := range r.Advice {
					flags = append(flags, suggestedChange(sg.Flags))
				}
				msg += "; to fit: " + strings.Join(flags, " or ")
			}
			fmt.Fprintf(w, "::error file=%s,line=%d,title=%s::%s\n", file, p.Line, title, githubEscape(msg, false))
		}
	}
}

// The JUnit XML elements: a test suite, a case per server, a failure per
// server that fails, an error per server that cannot be read (the schema
// Jenkins and GitLab read: github.com/testmoapp/junitxml).
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Class   string        `xml:"classname,attr"`
	Name    string        `xml:"name,attr"`
	File    string        `xml:"file,attr"`
	Line    int           `xml:"line,attr"`
	Failure *junitMessage `xml:"failure,omitempty"`
	Error   *junitMessage `xml:"error,omitempty"`
	Out     string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func writeJUnit(w io.Writer, rs []checkResult) error {
	s := summaryOf(rs)
	suite := junitSuite{Name: "membudget check", Tests: s.Servers, Failures: s.Fail, Errors: s.Unreadable, Cases: []junitCase{}}
	for _, r := range rs {
		c := junitCase{Class: r.File, Name: fmt.Sprintf("%s (line %d)", r.Where, r.Line), File: r.File, Line: r.Line}
		var text []string
		for _, p := range r.Problems {
			text = append(text, fmt.Sprintf("%s:%d: %s", r.File, p.Line, p.Message))
		}
		for _, sg := range r.Advice {
			text = append(text, "to fit: "+suggestedChange(sg.Flags)+" ("+sg.Why+moreGPUs(sg, r.GPUs)+")")
		}
		switch r.Status {
		case checkFails:
			c.Failure = &junitMessage{Message: r.Problems[0].Message, Text: strings.Join(text, "\n")}
		case checkUnread:
			c.Error = &junitMessage{Message: r.Problems[0].Message, Text: strings.Join(text, "\n")}
		default:
			c.Out = fmt.Sprintf("%s on %s: %s", r.Model, r.Class, r.Command)
		}
		suite.Cases = append(suite.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{suite}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
