package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"membudget/budget"
	"membudget/engine"
	"membudget/internal/untrusted"
)

// pageHTML is the web page `membudget serve` answers GET / with: one file,
// its script and styles inside, which reaches nothing but this server's
// API.
//
//go:embed page.html
var pageHTML []byte

// The bounds of an HTTP request's body. A sizing request is what batch
// takes as a line (maxBatchLine); explain's and check's carry a log or a
// manifest, up to 8 MiB (check.MaxFileBytes, the most check reads of a
// file) with room for its JSON escapes.
const (
	maxSizingBody = maxBatchLine
	maxTextBody   = 16 << 20
)

// defaultRequestTimeout bounds one request, its body read and its answer:
// a report answers in milliseconds and a plan over every class in about a
// second on 2 cores (BenchmarkPlan), so a minute is a request gone wrong,
// not a slow answer.
const defaultRequestTimeout = time.Minute

// serveHeaderTimeout bounds reading a request's header, so that a client
// that opens connections and sends nothing holds none for long.
const serveHeaderTimeout = 10 * time.Second

// maxServeModels bounds the model specs (and the class names) serve keeps
// loaded: room for the shipped corpus (83 models in corpus/models today)
// and a cache's worth beside it. A shipped id or a class matches in any
// case, so the names a client can send are not bounded by what is on
// disk; one beyond the bound is loaded for its request only.
const maxServeModels = 512

// exitHeader carries the answering command's exit status (0: it fits, 1:
// it does not), so that the body stays batch's answer byte for byte.
const exitHeader = "Membudget-Exit"

// httpError is the answer to a request that got none from its command:
// the HTTP status, the command's exit status where it ran, and its
// message (batch's, for the same request).
type httpError struct {
	Status  int    `json:"status"`
	Command string `json:"command,omitempty"`
	Exit    int    `json:"exit,omitempty"`
	Error   string `json:"error"`
}

// serveCommands are the commands serve answers at POST /api/<command>:
// batch's, and explain and check, which read a log or a manifest from the
// request.
func serveCommands() []string {
	return append(batchCommands(), "explain", "check")
}

// textField is the request field that carries the text explain and check
// read, in place of their file.
func textField(cmd string) string {
	switch cmd {
	case "explain":
		return "log"
	case "check":
		return "manifest"
	}
	return ""
}

// modelsDirFlag is serve's --models-dir, repeatable.
type modelsDirFlag struct{ dirs *[]string }

func (f modelsDirFlag) String() string {
	if f.dirs == nil {
		return ""
	}
	return strings.Join(*f.dirs, ",")
}

func (f modelsDirFlag) Set(s string) error {
	if s == "" {
		return errors.New("want a directory")
	}
	*f.dirs = append(*f.dirs, s)
	return nil
}

// serveHTTP is `membudget serve`: the HTTP API and the page, until the
// process is interrupted (or a.ctx, a test's, is done).
func (a *app) serveHTTP(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("serve", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "the `address` to listen on; the loopback by default, so that only this machine reaches it")
	timeout := fs.Duration("timeout", defaultRequestTimeout, "the longest one request may take, its body read and its answer (a `duration`)")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "requests sized at once; the others wait, within their --timeout")
	hubOn := fs.Bool("hub", false, "let requests name models on the Hugging Face Hub, fetched under the HF_* settings as the other commands fetch them; without it a Hub id is resolved from the local cache only, as HF_HUB_OFFLINE=1 does")
	var dirs []string
	fs.Var(modelsDirFlag{&dirs}, "models-dir", "a `directory` under which requests may name local paths (a model's config.json or directory, --kernels); repeatable; without it a request names shipped models, cached ones and shipped classes only")
	if status, ok := a.parseFlags(fs, args, false); !ok {
		return status
	}
	if *timeout <= 0 {
		return fail(stderr, "serve", exitBadArgs, fmt.Errorf("--timeout %v: want a duration above 0", *timeout))
	}
	if *jobs < 1 {
		return fail(stderr, "serve", exitBadArgs, fmt.Errorf("--jobs %d: want 1 or more", *jobs))
	}
	policy, err := newPathPolicy(dirs)
	if err != nil {
		return fail(stderr, "serve", exitBadArgs, err)
	}
	// As batch's (see batchGCPercent): the live heap is the loaded models,
	// and each answer's garbage dies with it. A user's GOGC is kept.
	if _, set := os.LookupEnv("GOGC"); !set {
		defer debug.SetGCPercent(debug.SetGCPercent(batchGCPercent))
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fail(stderr, "serve", exitBadArgs, fmt.Errorf("--addr: %w", err))
	}
	h := a.newHandler(serveOptions{timeout: *timeout, jobs: *jobs, hub: *hubOn, paths: policy, loopback: isLoopback(ln.Addr())})
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: serveHeaderTimeout,
		// The body and the answer are bounded per request (see
		// [handler.ServeHTTP]); this is the backstop.
		WriteTimeout: *timeout + serveHeaderTimeout,
		// A page's connection kept between its requests, not forever.
		IdleTimeout: 2 * time.Minute,
		// A request's header is a few hundred bytes; net/http's default
		// (1 MiB) is room for a client to waste.
		MaxHeaderBytes: 64 << 10,
	}
	if !isLoopback(ln.Addr()) {
		fmt.Fprintf(stderr, "membudget serve: warning: %s is not a loopback address: every machine that reaches it can use this API\n", ln.Addr())
	}
	fmt.Fprintf(stderr, "membudget serve: listening on http://%s/\n", ln.Addr())
	ctx, stop := signal.NotifyContext(a.context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fail(stderr, "serve", exitBadArgs, err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return fail(stderr, "serve", exitInternal, err)
	}
	return exitOK
}

// context is the context the app's work runs under: a test's or an HTTP
// request's, else the background.
func (a *app) context() context.Context {
	if a.ctx != nil {
		return a.ctx
	}
	return context.Background()
}

// loopbackHost reports whether a request's Host names the loopback:
// localhost, or a loopback address, with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isLoopback reports whether addr is a loopback address.
func isLoopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// serveOptions are serve's flags, as its handler uses them.
type serveOptions struct {
	timeout time.Duration
	jobs    int
	hub     bool
	paths   *pathPolicy
	// loopback is set when serve listens on the loopback: it then answers
	// only requests that name the loopback as their Host (see
	// [loopbackHost]).
	loopback bool
}

// handler answers serve's requests. Nothing of one request stays for the
// next but the models and classes loaded (read only once loaded).
type handler struct {
	app  *app // the requests' app, shared
	opts serveOptions
	// slots holds one token per request being sized: at most opts.jobs.
	slots chan struct{}
	// run answers a request: (*app).runRequest, or a test's stand-in for
	// a command that fails as no input should make it.
	run func(a *app, o *answerBuffer, cmd string, args []string, fields []requestField) (int, string, bool)
}

// newHandler returns serve's HTTP handler.
func (a *app) newHandler(opts serveOptions) http.Handler {
	shared := *a
	shared.serving = true
	shared.paths = opts.paths
	if opts.paths == nil {
		shared.paths = &pathPolicy{}
	}
	getenv := a.getenv
	if !opts.hub {
		// The cache only, whatever the environment says: a request alone
		// never has the server reach the network.
		shared.getenv = func(k string) string {
			if k == "HF_HUB_OFFLINE" {
				return "1"
			}
			return getenv(k)
		}
		// Every model a request may name is shipped or cached, so the
		// memo is bounded by what is on disk; with --hub any Hub id could
		// grow it, so each request then resolves its own.
		shared.loads = &loads{classes: map[classKey]budget.Class{}, limit: maxServeModels, kept: map[string]bool{}}
	}
	return &handler{app: &shared, opts: opts, slots: make(chan struct{}, max(opts.jobs, 1)), run: (*app).runRequest}
}

// ServeHTTP routes a request: the page at GET /, the health check, the
// lists the page's menus take, and the commands at POST /api/<command>.
// Every answer but the page's is JSON, errors included.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if h.opts.loopback && !loopbackHost(r.Host) {
		// A page of another site whose name resolves to 127.0.0.1 (DNS
		// rebinding) would read the answers as its own.
		writeError(w, httpError{Status: http.StatusMisdirectedRequest, Error: fmt.Sprintf("Host %s: serve on the loopback answers requests to localhost, 127.0.0.1 or [::1] only", untrusted.Quote(r.Host))})
		return
	}
	switch {
	case path == "/":
		if !h.method(w, r, http.MethodGet) {
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// The page reaches nothing but this server (see page.html).
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(pageHTML)
	case path == "/healthz":
		if !h.method(w, r, http.MethodGet) {
			return
		}
		writeAnswer(w, http.StatusOK, []byte("{\"status\":\"ok\"}\n"))
	case path == "/api/engines":
		if !h.method(w, r, http.MethodGet) {
			return
		}
		type engineJSON struct {
			Name  string `json:"name"`
			Title string `json:"title"`
		}
		var out []engineJSON
		for _, e := range h.app.engines.Engines() {
			out = append(out, engineJSON{e.Name(), e.Title()})
		}
		b, _ := json.Marshal(out)
		writeAnswer(w, http.StatusOK, append(b, '\n'))
	case (path == "/api/classes" || path == "/api/models") && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		// The page's menus; POST /api/classes takes batch's request.
		ctx, cancel := context.WithTimeout(r.Context(), h.opts.timeout)
		defer cancel()
		h.answer(w, r.WithContext(ctx), strings.TrimPrefix(path, "/api/"), []string{"--json"}, nil, nil)
	case strings.HasPrefix(path, "/api/") && slices.Contains(serveCommands(), strings.TrimPrefix(path, "/api/")):
		if !h.method(w, r, http.MethodPost) {
			return
		}
		// JSON only: a form or a text/plain body, which a page of another
		// site may send to the loopback without asking, is refused.
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			writeError(w, httpError{Status: http.StatusUnsupportedMediaType, Command: strings.TrimPrefix(path, "/api/"), Error: fmt.Sprintf("Content-Type %s: want application/json", untrusted.Quote(r.Header.Get("Content-Type")))})
			return
		}
		h.command(w, r, strings.TrimPrefix(path, "/api/"))
	default:
		writeError(w, httpError{Status: http.StatusNotFound, Error: fmt.Sprintf("%s: no such endpoint; the commands are POST /api/<command>, one of %s", untrusted.Quote(path), strings.Join(serveCommands(), ", "))})
	}
}

// method reports whether r uses method, answering 405 when it does not.
func (h *handler) method(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method || method == http.MethodGet && r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", method)
	writeError(w, httpError{Status: http.StatusMethodNotAllowed, Error: fmt.Sprintf("%s %s: want %s", untrusted.Text(r.Method), untrusted.Quote(r.URL.Path), method)})
	return false
}

// command answers POST /api/<cmd>: the body is batch's request for cmd,
// its "command" left out or cmd.
func (h *handler) command(w http.ResponseWriter, r *http.Request, cmd string) {
	deadline := time.Now().Add(h.opts.timeout)
	limit := int64(maxSizingBody)
	if textField(cmd) != "" {
		limit = maxTextBody
	}
	// A slow body is cut at the request's deadline: 408.
	_ = http.NewResponseController(w).SetReadDeadline(deadline)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &tooBig):
			writeError(w, httpError{Status: http.StatusRequestEntityTooLarge, Command: cmd, Error: fmt.Sprintf("the request's body is larger than %d bytes", limit)})
		case errors.As(err, &ne) && ne.Timeout():
			writeError(w, httpError{Status: http.StatusRequestTimeout, Command: cmd, Error: fmt.Sprintf("the request's body was not read whole within --timeout %v", h.opts.timeout)})
		default:
			writeError(w, httpError{Status: http.StatusBadRequest, Command: cmd, Error: fmt.Sprintf("the request's body: %v", err)})
		}
		return
	}
	args, fields, stdin, err := requestFor(cmd, body)
	if err != nil {
		writeError(w, httpError{Status: http.StatusBadRequest, Command: cmd, Exit: exitBadArgs, Error: err.Error()})
		return
	}
	ctx, cancel := context.WithDeadline(r.Context(), deadline)
	defer cancel()
	h.answer(w, r.WithContext(ctx), cmd, args, fields, stdin)
}

// requestFor reads an HTTP request's body as batch reads a request line
// for cmd ("command" may be left out), and for explain and check takes
// the log or manifest from its text field as their standard input.
func requestFor(cmd string, body []byte) (args []string, fields []requestField, stdin io.Reader, err error) {
	req, err := decodeRequest(body)
	if err != nil {
		return nil, nil, nil, err
	}
	if raw, ok := req["command"]; ok {
		if raw != cmd {
			return nil, nil, nil, fmt.Errorf(`"command": %s, but the endpoint is /api/%s; give the same or leave it out`, untrusted.Text(jsonText(raw)), cmd)
		}
		delete(req, "command")
	}
	if field := textField(cmd); field != "" {
		text, ok := req[field].(string)
		if !ok {
			return nil, nil, nil, fmt.Errorf("%q is required: the %s to read, as a string", field, map[string]string{"log": "engine's startup log", "manifest": "manifests, compose file or script"}[field])
		}
		if _, ok := req["args"]; ok {
			// A positional argument would be read as a file of the host's.
			return nil, nil, nil, fmt.Errorf(`"args": %s takes its flags as fields and its text as %q`, cmd, field)
		}
		delete(req, field)
		stdin = strings.NewReader(text)
	}
	if cmd == "check" {
		// check writes JSON with --format json; it has no --json.
		if v, ok := req["format"]; ok && v != "json" {
			return nil, nil, nil, fmt.Errorf(`"format": serve answers in JSON; give "json" or leave it out, got %s`, untrusted.Text(jsonText(v)))
		}
		req["format"] = "json"
	}
	args, fields, err = requestFlags(req)
	if err != nil {
		return nil, nil, nil, err
	}
	if cmd == "check" {
		args = args[1:] // the --json requestFlags adds
	}
	if err := refuseConfigFile(args); err != nil {
		return nil, nil, nil, err
	}
	if stdin != nil {
		args = append(args, "-")
	}
	return args, fields, stdin, nil
}

// refuseConfigFile refuses vLLM's --config FILE in a request's arguments,
// in every spelling vLLM's Respell reads (underscores for dashes, one dash
// or two, =value or not): its engine reads that file before any flag is
// parsed, and a request names no file of the host's.
func refuseConfigFile(args []string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		// FlagName leaves the dash of a leading underscore (-_config).
		key, _, _ := strings.Cut(engine.FlagName(a), ".")
		if strings.TrimLeft(key, "-") == "config" {
			return fmt.Errorf("%s: serve reads no file a request names; give the file's flags in the request", untrusted.Quote(a))
		}
	}
	return nil
}

// answer runs cmd with args under a job slot and r's context, and writes
// its answer: the command's JSON (200, its exit status in [exitHeader]),
// or an [httpError].
func (h *handler) answer(w http.ResponseWriter, r *http.Request, cmd string, args []string, fields []requestField, stdin io.Reader) {
	ctx := r.Context()
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		writeError(w, h.late(cmd))
		return
	}
	type result struct {
		o    *answerBuffer
		code int
		msg  string
		ok   bool
	}
	done := make(chan result, 1)
	go func() {
		// The slot is held until the command ends, even past the
		// deadline: a request that timed out still takes its share of
		// the CPUs, and the next waits for it rather than pile on.
		defer func() { <-h.slots }()
		res := result{o: new(answerBuffer)}
		defer func() {
			if p := recover(); p != nil {
				res.code, res.msg, res.ok = exitInternal, fmt.Sprintf("internal error: %v", p), false
			}
			done <- res
		}()
		ra := *h.app
		ra.ctx = ctx
		if stdin != nil {
			ra.stdin = stdin
		} else {
			ra.stdin = strings.NewReader("")
		}
		res.code, res.msg, res.ok = h.run(&ra, res.o, cmd, args, fields)
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		writeError(w, h.late(cmd))
		return
	}
	switch {
	case res.ok && (res.code == exitOK || res.code == exitNoFit || cmd == "check" && res.code == exitBadArgs):
		// check answers a server it cannot read (exit 2) in its JSON,
		// beside the others.
		w.Header().Set(exitHeader, strconv.Itoa(res.code))
		writeAnswer(w, http.StatusOK, res.o.Bytes())
	case res.code == exitBadArgs || !res.ok && res.code == exitOK:
		// Exit 0 without an answer is a request for the command's help
		// ("h": true, "-help" in "args"): its flags, as batch gives them.
		writeError(w, httpError{Status: http.StatusBadRequest, Command: cmd, Exit: res.code, Error: res.msg})
	default:
		// Exit 3 (an evaluator found not monotone), or a command that
		// printed no answer without saying the input was bad: ours.
		if res.msg == "" {
			res.msg = fmt.Sprintf("membudget %s exited %d without an answer", cmd, res.code)
		}
		writeError(w, httpError{Status: http.StatusInternalServerError, Command: cmd, Exit: res.code, Error: res.msg})
	}
}

// late is the answer to a request whose deadline passed before its
// answer: 504, naming --timeout (a Hub resolution is cut by it too).
func (h *handler) late(cmd string) httpError {
	return httpError{Status: http.StatusGatewayTimeout, Command: cmd, Error: fmt.Sprintf("no answer within --timeout %v", h.opts.timeout)}
}

// writeAnswer writes a JSON answer with its status, escaped as the
// command line's stdout is (see [untrusted.Writer]): what came from
// outside reaches a client as it reaches a terminal, the JSON unchanged
// once read, and an answer is byte for byte `membudget batch`'s.
func writeAnswer(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = untrusted.Writer(w).Write(body)
}

// writeError writes e as the answer, with its status.
func writeError(w http.ResponseWriter, e httpError) {
	b, _ := json.Marshal(e)
	writeAnswer(w, e.Status, append(b, '\n'))
}
