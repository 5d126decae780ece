package logs

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Limits bound what a parse reads and keeps; a zero field takes its default.
type Limits struct {
	// MaxLineBytes: longer lines are skipped and counted in
	// [Log.LongLines]. The longest startup line, vLLM's engine config with
	// its compilation config, is a few KiB.
	MaxLineBytes int
	// MaxInputBytes: more input is an [*InputTooLargeError]. A startup log
	// is well under a MiB; a whole serving log with request lines can be
	// large, and this keeps its memory bounded.
	MaxInputBytes int64
	// MaxFigures and MaxSettings: later ones are counted in
	// [Log.DroppedFigures] and [Log.DroppedSettings], not kept. A startup
	// log states tens of each; the caps leave room for thousands of
	// restarts in one file while bounding memory.
	MaxFigures, MaxSettings int
}

// The default limits.
const (
	DefaultMaxLineBytes  = 1 << 20
	DefaultMaxInputBytes = 256 << 20
	DefaultMaxFigures    = 100_000
	DefaultMaxSettings   = 100_000
)

func (lim Limits) withDefaults() Limits {
	if lim.MaxLineBytes <= 0 {
		lim.MaxLineBytes = DefaultMaxLineBytes
	}
	if lim.MaxInputBytes <= 0 {
		lim.MaxInputBytes = DefaultMaxInputBytes
	}
	if lim.MaxFigures <= 0 {
		lim.MaxFigures = DefaultMaxFigures
	}
	if lim.MaxSettings <= 0 {
		lim.MaxSettings = DefaultMaxSettings
	}
	return lim
}

// InputTooLargeError is the error of a parse whose input is over
// [Limits.MaxInputBytes].
type InputTooLargeError struct {
	Limit int64
}

// Error names the limit and the field that sets it.
func (e *InputTooLargeError) Error() string {
	return fmt.Sprintf("log input is over the %d-byte limit (Limits.MaxInputBytes)", e.Limit)
}

// Parse reads a log line by line with the default [Limits]; see
// [Limits.Parse].
func Parse(r io.Reader) (*Log, error) { return Limits{}.Parse(r) }

// ParseQuote reads a quote of log lines joined by " / " with the default
// [Limits]; see [Limits.ParseQuote].
func ParseQuote(s string) (*Log, error) { return Limits{}.ParseQuote(s) }

// Parse reads a log line by line and returns what its lines state. Unknown
// lines are skipped; the only errors are reading errors and an
// [*InputTooLargeError], which come with no Log.
func (lim Limits) Parse(r io.Reader) (*Log, error) {
	lim = lim.withDefaults()
	br := bufio.NewReader(&cappedReader{r: r, limit: lim.MaxInputBytes})
	b := newBuilder(lim)
	var line []byte
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		complete := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if !long {
			size := len(line) + len(chunk) // the line's bytes so far, without its newline
			if complete {
				size--
			}
			if size > lim.MaxLineBytes {
				long, line = true, line[:0]
			} else {
				line = append(line, chunk...)
			}
		}
		if err == io.EOF && (len(line) > 0 || long) {
			complete = true
		}
		if complete {
			if long {
				b.log.Lines++
				b.log.LongLines++
			} else {
				b.line(string(line))
			}
			line, long = line[:0], false
		}
		switch {
		case err == nil || errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			return b.finish(), nil
		default:
			var big *InputTooLargeError
			if errors.As(err, &big) {
				return nil, err
			}
			return nil, fmt.Errorf("reading log: %w", err)
		}
	}
}

// ParseQuote reads a quote of log lines joined by " / " (the corpus's
// quote column), each part as one line.
func (lim Limits) ParseQuote(s string) (*Log, error) {
	lim = lim.withDefaults()
	if int64(len(s)) > lim.MaxInputBytes {
		return nil, &InputTooLargeError{Limit: lim.MaxInputBytes}
	}
	b := newBuilder(lim)
	for part := range strings.SplitSeq(s, " / ") {
		if len(part) > lim.MaxLineBytes {
			b.log.Lines++
			b.log.LongLines++
			continue
		}
		b.line(part)
	}
	return b.finish(), nil
}

// cappedReader fails once more than limit bytes have been read.
type cappedReader struct {
	r        io.Reader
	n, limit int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.n > c.limit {
		return 0, &InputTooLargeError{Limit: c.limit}
	}
	if room := c.limit - c.n + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.limit {
		return n - int(c.n-c.limit), &InputTooLargeError{Limit: c.limit}
	}
	return n, err
}

// Evidence is one format that placed a log in an era, at the first line
// that showed it.
type Evidence struct {
	Era    Era
	Format Format
	Line   int
}

type builder struct {
	lim Limits
	log Log
	// The format being matched: what it records is evidence of its engine.
	format  Format
	engine  Engine
	engines map[Engine]bool
	seenEv  map[Evidence]bool
	graph   map[GraphBudget]bool
	// The current line's figures, whose process is known once every format
	// has been tried and the first message's offset, firstMatch, is known.
	figs       []Figure
	firstMatch int
	// recorded counts what the formats stated, so a match that stated
	// nothing proves nothing.
	recorded int
	// lastSetting indexes the kept settings by key once the settings' cap
	// is reached.
	lastSetting map[string]int
}

func newBuilder(lim Limits) *builder {
	return &builder{lim: lim, engines: map[Engine]bool{}, seenEv: map[Evidence]bool{}, graph: map[GraphBudget]bool{}}
}

var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// notANumber is a figure Python printed as nan or inf, with the units the
// formats' figures take (GiB, GB, the concurrency's x).
var notANumber = regexp.MustCompile(`[:=(] ?-?(?i:nan|inf) ?(?:GiB|GB|Gib|x)\b`)

// line reads one line: every format is tried anywhere in it, each as many
// times as it occurs.
func (b *builder) line(s string) {
	b.log.Lines++
	s = strings.TrimRight(s, "\r\n")
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiEscape.ReplaceAllString(s, "")
	}
	b.figs, b.firstMatch = b.figs[:0], len(s)
	if m := notANumber.FindStringIndex(s); m != nil {
		// Python prints a float that is not a number as nan or inf
		// ("%.2f" % float("nan")), which no format's number matches: the
		// line would be skipped as unknown, and a figure lost unsaid.
		b.log.NotANumber++
		if b.log.NotANumberLine == 0 {
			b.log.NotANumberLine, b.log.NotANumberText = b.log.Lines, strings.Clone(s[max(m[0]-60, 0):m[1]])
		}
	}
	for i := range formats {
		f := &formats[i]
		if !strings.Contains(s, f.anchor) {
			continue
		}
		b.format, b.engine = f.format, f.engine
		n := -1
		if f.once {
			n = 1
		}
		for _, m := range f.re.FindAllStringSubmatchIndex(s, n) {
			b.firstMatch = min(b.firstMatch, m[0])
			before := b.recorded
			for g, spec := range f.figs {
				if spec.kind == "" || m[2*g] < 0 {
					continue
				}
				if spec.unitGroup > 0 {
					spec.unit = UnitGBGiB
					if s[m[2*spec.unitGroup]:m[2*spec.unitGroup+1]] == "GiB" {
						spec.unit = UnitGiB
					}
				}
				b.figure(spec.kind, s[m[2*g]:m[2*g+1]], spec, m[0], s[m[0]:m[1]])
			}
			if f.then != nil {
				f.then(b, s, m)
			}
			// A match proves its era only when it stated something: a
			// MemorySnapshot's "non_torch_memory=" is not V0's line.
			if f.era != EraUnknown && b.recorded > before {
				b.evidence(f.era, f.format)
			}
		}
	}
	if len(b.figs) == 0 {
		return
	}
	process := processOf(s[:min(b.firstMatch, maxPrefix)])
	for _, fg := range b.figs {
		fg.Process = process
		if len(b.log.Figures) >= b.lim.MaxFigures {
			b.log.DroppedFigures++
			continue
		}
		b.log.Figures = append(b.log.Figures, fg)
	}
}

// figure records a figure read from num (with thousands commas for counts);
// text is the matched message, at its offset in the line.
func (b *builder) figure(kind Kind, num string, spec fig, at int, text string) {
	d, ok := parseDecimal(num)
	if !ok || (d.Units < 0 && !signedKinds[kind]) {
		return
	}
	b.firstMatch = min(b.firstMatch, at)
	b.engines[b.engine] = true
	b.recorded++
	b.figs = append(b.figs, Figure{
		Kind:      kind,
		Value:     d,
		RoundedTo: max(d.Places, spec.minPlaces),
		Unit:      spec.unit,
		Format:    b.format,
		Line:      b.log.Lines,
		Text:      strings.Clone(text),
	})
}

func (b *builder) setting(key, loggedKey, value string, lit Literal, src SettingSource) {
	if key == "" {
		return // {'': 1}: no setting has an empty name
	}
	b.engines[b.engine] = true
	b.recorded++
	if len(b.log.Settings) >= b.lim.MaxSettings {
		// Past the cap a statement is not kept as its own, but a key
		// already kept takes its value, so that [Log.Setting], the last
		// statement, is never an earlier line's.
		b.log.DroppedSettings++
		if b.lastSetting == nil {
			b.lastSetting = make(map[string]int, len(b.log.Settings))
			for i, s := range b.log.Settings {
				b.lastSetting[s.Key] = i
			}
		}
		if i, ok := b.lastSetting[key]; ok {
			b.log.Settings[i] = Setting{Key: key, LoggedKey: loggedKey, Value: strings.Clone(value), Literal: lit, Source: src, Line: b.log.Lines}
		} else {
			b.log.DroppedNewSettings++
		}
		return
	}
	b.log.Settings = append(b.log.Settings, Setting{
		Key: key, LoggedKey: loggedKey, Value: strings.Clone(value), Literal: lit, Source: src, Line: b.log.Lines,
	})
}

func (b *builder) version(v string) {
	v = strings.TrimPrefix(v, "v")
	b.engines[b.engine] = true
	b.recorded++
	for _, seen := range b.log.Versions {
		if seen == v {
			return
		}
	}
	if len(b.log.Versions) < maxVersions {
		b.log.Versions = append(b.log.Versions, strings.Clone(v))
	}
	if era, f := eraOfVersion(v); era != EraUnknown {
		b.evidence(era, f)
	}
}

// maxVersions bounds the distinct versions kept: a file of many runs states
// a handful.
const maxVersions = 16

func (b *builder) evidence(era Era, f Format) {
	b.engines[b.engine] = true
	e := Evidence{Era: era, Format: f}
	if b.seenEv[e] {
		return
	}
	b.seenEv[e] = true
	e.Line = b.log.Lines
	b.log.EraEvidence = append(b.log.EraEvidence, e)
}

func (b *builder) graphBudget(g GraphBudget) {
	b.engines[b.engine] = true
	b.recorded++
	b.graph[g] = true
}

func (b *builder) finish() *Log {
	l := b.log
	if len(b.engines) == 1 {
		for e := range b.engines {
			l.Engine = e
		}
	}
	if len(l.Versions) > 0 {
		l.EngineVersion = l.Versions[0]
	}
	eras := map[Era]bool{}
	for _, e := range l.EraEvidence {
		eras[e.Era] = true
	}
	if l.Engine != EngineUnknown && len(eras) == 1 {
		for e := range eras {
			l.Era = e
		}
	}
	if len(b.graph) == 1 {
		for g := range b.graph {
			l.GraphBudget = g
		}
	}
	return &l
}

var versionNumber = regexp.MustCompile(`^([0-9]{1,4})\.([0-9]{1,4})(?:\.([0-9]{1,4}))?(.*)$`)

// eraOfVersion returns the era a vLLM version proves, if any: before 0.6.4
// there was no V1 engine, and from 0.11.0 there is no V0 (see
// [FormatVersionBefore064]). A pre-release of 0.11.0 proves nothing, and
// neither does setuptools-scm's fallback "0.1.devN+g<hash>" of a source
// build, which is no release at all.
func eraOfVersion(v string) (Era, Format) {
	m := versionNumber.FindStringSubmatch(v)
	if m == nil {
		return EraUnknown, ""
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	patch, _ := strconv.Atoi(m[3]) // "" is 0
	rest := m[4]
	pre := rest != "" && !strings.HasPrefix(rest, "+") && !strings.HasPrefix(rest, ".post")
	key := major*1_000_000 + minor*1_000 + patch
	switch {
	case key > 11_000 || (key == 11_000 && !pre):
		return EraV1, FormatVersionFrom011
	case key < 6_004 && !(major == 0 && minor < 2 && strings.Contains(rest, "dev")):
		return EraV0, FormatVersionBefore064
	}
	return EraUnknown, ""
}

// maxPrefix bounds the part of a line searched for the logging process.
const maxPrefix = 512

var (
	// vLLM's process prefixes: "(EngineCore_DP0 pid=123)", "(VllmWorker TP0
	// pid=456)", "(Worker_TP2_EP2 pid=7)", "(VllmWorkerProcess pid=8)",
	// "(RayWorkerWrapper pid=9, ip=10.0.0.1)".
	vllmProcess = regexp.MustCompile(`\(([A-Za-z][A-Za-z0-9_]*(?:[ _](?:TP|PP|DP|EP|rank=?)[0-9]+)*)(?: pid=[0-9]+)?(?:, ip=[0-9A-Fa-f.:]+)?\)`)
	// SGLang's: "[2025-11-04 05:27:13 DP0 TP0 EP0]", "[2026-03-11 13:53:21 TP0]".
	sglangProcess = regexp.MustCompile(`\[[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}((?: (?:DP|TP|PP|EP|CP)[0-9]+)+)\]`)
)

// processOf returns the last process label in a line's prefix (the text
// before its first message), or "".
func processOf(prefix string) string {
	best, end := "", -1
	for _, m := range vllmProcess.FindAllStringSubmatchIndex(prefix, -1) {
		if m[1] > end {
			best, end = prefix[m[2]:m[3]], m[1]
		}
	}
	for _, m := range sglangProcess.FindAllStringSubmatchIndex(prefix, -1) {
		if m[1] > end {
			best, end = strings.TrimSpace(prefix[m[2]:m[3]]), m[1]
		}
	}
	return strings.Clone(best)
}
