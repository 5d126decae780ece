package explain

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"membudget/model/logs"
)

// MaxLogBytes bounds the log [Read] takes: the log reader's own limit
// ([logs.DefaultMaxInputBytes]).
const MaxLogBytes = logs.DefaultMaxInputBytes

// Source is a startup log as read: its name, its text and what the log
// reader made of it.
type Source struct {
	// Name is how messages name the log: the path given, or "stdin".
	Name string
	// Text is the log as read, for the lines a figure cites and the device
	// names the log may print.
	Text string
	// Quote says the text was read as a quote of lines joined by " / "
	// (corpus/observed/vllm.csv's quote column).
	Quote bool
	Log   *logs.Log
}

// ReadError is a log that cannot be explained: unreadable, too large, empty,
// binary, or holding no line of vLLM or SGLang.
type ReadError struct {
	Name   string
	Reason string
	Err    error
}

// Error returns why the log cannot be read.
func (e *ReadError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Name, e.Reason, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Name, e.Reason)
}

// Unwrap returns the cause.
func (e *ReadError) Unwrap() error { return e.Err }

// Read reads a startup log from r, at most [MaxLogBytes], and parses it with
// [logs.Limits.Parse] (or [logs.Limits.ParseQuote] when quote is set). It
// returns a *ReadError for a reading error, an input over the limit, an
// empty or binary input, and a text in which no line is vLLM's or SGLang's.
func Read(r io.Reader, name string, quote bool) (*Source, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxLogBytes+1))
	if err != nil {
		return nil, &ReadError{Name: name, Reason: "cannot read the log", Err: err}
	}
	if int64(len(data)) > MaxLogBytes {
		return nil, &ReadError{Name: name, Reason: fmt.Sprintf("the log is over %d bytes; pass the startup part of it", int64(MaxLogBytes))}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &ReadError{Name: name, Reason: "the log is empty"}
	}
	// A text log holds no NUL and is mostly UTF-8; a core dump or an
	// archive is neither.
	if bytes.IndexByte(data, 0) >= 0 || !mostlyText(data) {
		return nil, &ReadError{Name: name, Reason: "not a text log (binary data)"}
	}
	text := string(data)
	var l *logs.Log
	if quote {
		l, err = logs.Limits{}.ParseQuote(strings.TrimRight(text, "\r\n"))
	} else {
		l, err = logs.Limits{}.Parse(strings.NewReader(text))
	}
	if err != nil {
		return nil, &ReadError{Name: name, Reason: "cannot parse the log", Err: err}
	}
	if len(l.Figures) == 0 && len(l.Settings) == 0 && len(l.Versions) == 0 {
		return nil, &ReadError{Name: name, Reason: "no line of a vLLM or SGLang startup log (no version, setting or memory figure); explain reads the lines from the engine's start to its first request"}
	}
	if l.Engine == logs.EngineUnknown && hasBothEngines(l) {
		return nil, &ReadError{Name: name, Reason: "lines of both vLLM and SGLang: explain one engine's log at a time"}
	}
	return &Source{Name: name, Text: text, Quote: quote, Log: l}, nil
}

// mostlyText says at least 95 % of the input's runes are valid UTF-8 and
// not control characters other than tab, CR, LF and ESC (ANSI colours).
func mostlyText(data []byte) bool {
	bad, n := 0, 0
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		data = data[size:]
		n++
		if r == utf8.RuneError && size == 1 || r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != 0x1b {
			bad++
		}
	}
	return bad*20 <= n
}

// hasBothEngines says the log's settings or formats come from both engines.
func hasBothEngines(l *logs.Log) bool {
	var v, s bool
	for _, f := range l.Figures {
		if strings.HasPrefix(string(f.Format), "sglang") {
			s = true
		} else {
			v = true
		}
	}
	for _, st := range l.Settings {
		if st.Source == logs.SourceServerArgs || st.Source == logs.SourceSGLangLimits {
			s = true
		} else {
			v = true
		}
	}
	return v && s
}

// lineOf returns line n (1-based) of the source as the reader numbered it,
// trimmed, or "" when there is no such line.
func (s *Source) lineOf(n int) string {
	if n < 1 {
		return ""
	}
	sep := "\n"
	if s.Quote {
		sep = " / "
	}
	i := 1
	for part := range strings.SplitSeq(s.Text, sep) {
		if i == n {
			return strings.TrimSpace(part)
		}
		i++
	}
	return ""
}
