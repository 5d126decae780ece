package explain

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"membudget/model"
	"membudget/model/logs"
)

// Model is the model an explanation sizes.
type Model struct {
	// Name is the model's id or path, as the vllm serve line names it.
	Name      string      `json:"name"`
	Arch      *model.Arch `json:"-"`
	ModelType string      `json:"model_type"`
	Summary   string      `json:"summary"`
	// From is "logged" or "flag"; Line is the log line that names it.
	From string `json:"from"`
	Line int    `json:"line,omitempty"`
	// Description says where its config.json came from.
	Description string `json:"description,omitempty"`
}

// LoggedModel returns the model the log's settings name (vLLM's model=,
// SGLang's model_path=) and its line; ok is false when none does.
func LoggedModel(l *logs.Log) (id string, line int, ok bool) {
	for _, key := range []string{"model", "model_path"} {
		if st, found := l.Setting(key); found && st.Literal != logs.LiteralNone && strings.TrimSpace(st.Value) != "" {
			return st.Value, st.Line, true
		}
	}
	return "", 0, false
}

// Explanation is a log's figures beside membudget's prediction: the schema
// of `membudget explain --json`.
type Explanation struct {
	Log      LogInfo     `json:"log"`
	Model    Model       `json:"model"`
	Class    ClassInfo   `json:"class"`
	Rules    VersionInfo `json:"rules"`
	Settings []Setting   `json:"settings"`
	// Command is the vllm serve line sized.
	Command string `json:"command"`
	// Figures are the logged figures membudget predicts, in a fixed order.
	Figures []Row `json:"figures"`
	// Starts compares whether vLLM started, where the log shows it.
	Starts *StartsCheck `json:"starts,omitempty"`
	// Blocks is the exact check of the blocks the logged KV memory holds.
	Blocks *BlocksCheck `json:"blocks_check,omitempty"`
	// LargestGap is the figure that explains most of the difference.
	LargestGap *Gap `json:"largest_gap,omitempty"`
	// NotPredicted are the figures the log states that membudget does not
	// predict (free memory, CPU blocks, ...), one per kind.
	NotPredicted []LoggedFigure `json:"not_predicted,omitempty"`
	// Warnings are what makes the prediction incomplete; Notes how the
	// figures were read.
	Warnings []string `json:"warnings,omitempty"`
	Notes    []string `json:"notes,omitempty"`
	// Compared counts the figures Predicted, Over those over their
	// tolerance; Within says every comparison agrees (exit 0).
	Compared int  `json:"compared"`
	Over     int  `json:"over"`
	Within   bool `json:"within"`
}

// LogInfo is what the log says about itself.
type LogInfo struct {
	Name    string `json:"name"`
	Engine  string `json:"engine"`
	Version string `json:"version,omitempty"`
	Era     string `json:"era,omitempty"`
	Lines   int    `json:"lines"`
}

// ClassInfo is the class sized on, and how it was chosen.
type ClassInfo struct {
	Name        string `json:"name"`
	Device      string `json:"device"`
	MemoryBytes uint64 `json:"memory_bytes"`
	// How is "flag", "matched" or "synthesized".
	How  string `json:"how"`
	Base string `json:"base,omitempty"`
	// LoggedTotal is the device total as logged; LoggedTotalBytes in bytes.
	LoggedTotal      string   `json:"logged_total,omitempty"`
	LoggedTotalBytes *int64   `json:"logged_total_bytes,omitempty"`
	Matched          []string `json:"matched,omitempty"`
	Named            []string `json:"named,omitempty"`
	Note             string   `json:"note"`
}

// VersionInfo is the engine version whose rules sized the log.
type VersionInfo struct {
	// Engine is "vllm" or "sglang".
	Engine    string `json:"engine"`
	Profile   string `json:"profile"`
	Describes string `json:"describes"`
	// Source is "flag", "logged" or "assumed".
	Source string `json:"source"`
	Logged string `json:"logged,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Row is one logged figure beside membudget's prediction. Memory figures
// fill the *_bytes fields, counts and ratios the others.
type Row struct {
	// Figure is the figure's stable id (weights, activation_peak, ...);
	// Label how the output names it.
	Figure string `json:"figure"`
	Label  string `json:"label"`
	// Unit is bytes, tokens, blocks or x (concurrency).
	Unit string `json:"unit"`
	// LoggedText is the figure as logged ("6.1 GiB"); Line and Process
	// where.
	LoggedText string `json:"logged_text"`
	Line       int    `json:"line"`
	Process    string `json:"process,omitempty"`

	LoggedBytes     *int64  `json:"logged_bytes,omitempty"`
	PredictedBytes  *uint64 `json:"predicted_bytes,omitempty"`
	DifferenceBytes *int64  `json:"difference_bytes,omitempty"`
	ToleranceBytes  *int64  `json:"tolerance_bytes,omitempty"`

	Logged     *float64 `json:"logged,omitempty"`
	Predicted  *float64 `json:"predicted,omitempty"`
	Difference *float64 `json:"difference,omitempty"`
	Tolerance  *float64 `json:"tolerance,omitempty"`

	// DifferencePercent is (Predicted - logged) / |logged| in per cent;
	// absent when the logged figure is 0 or not Predicted.
	DifferencePercent *float64 `json:"difference_percent,omitempty"`
	// ToleranceRule says how the tolerance was set.
	ToleranceRule string `json:"tolerance_rule"`
	// IsPredicted says membudget predicts the figure for this serve;
	// Within that the difference is within the tolerance.
	IsPredicted bool   `json:"is_predicted"`
	Within      bool   `json:"within"`
	Note        string `json:"note,omitempty"`
}

// StartsCheck compares whether vLLM started with whether membudget says it
// does: one request of max_model_len fits the KV cache.
type StartsCheck struct {
	Logged    bool   `json:"logged"`
	Predicted bool   `json:"predicted"`
	Line      int    `json:"line"`
	Evidence  string `json:"evidence"`
	Agree     bool   `json:"agree"`
	// Host, when set, says the log started where membudget refuses only
	// for what the class's host holds at the engine's snapshot, on a
	// unified-memory device where that is the host's (its operating system
	// and services), not the engine's: the log's host held less, and every
	// other check agrees, so Agree is true.
	Host string `json:"host,omitempty"`
}

// BlocksCheck is the page arithmetic on the logged available KV memory:
// floor((memory -+ rounding) / block bytes) must hold the logged blocks.
type BlocksCheck struct {
	AvailableText  string `json:"available_text"`
	AvailableLine  int    `json:"available_line"`
	AvailableBytes int64  `json:"available_bytes"`
	RoundingBytes  int64  `json:"rounding_bytes"`
	BlockBytes     uint64 `json:"block_bytes"`
	Low            uint64 `json:"low"`
	High           uint64 `json:"high"`
	LoggedBlocks   uint64 `json:"logged_blocks"`
	BlocksLine     int    `json:"blocks_line"`
	// From says how the logged blocks were read: the block count, or the
	// KV cache size in tokens over the block size.
	From  string `json:"from"`
	Exact bool   `json:"exact"`
	Note  string `json:"note,omitempty"`
}

// Gap names the figure that explains most of the difference between the log
// and membudget.
type Gap struct {
	Figure string `json:"figure"`
	Label  string `json:"label"`
	Within bool   `json:"within"`
	// Sentence is the gap in words: "the CUDA-graph estimate: logged 6.10
	// GiB, membudget 0.30 GiB (...)".
	Sentence string `json:"sentence"`
}

// LoggedFigure is a figure the log states that no row compares.
type LoggedFigure struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
	Line int    `json:"line"`
}

// Tolerance floors and shares: membudget's gates against
// corpus/observed/vllm.csv (see the package comment).
const (
	termFloorBytes = 1 << 30 / 10 // 0.1 GiB: each logged term
	weightsShare   = 0.005        // weights per rank
	kvShare        = 0.01         // available KV memory
	countShare     = 0.02         // KV tokens, blocks, concurrency
)

// ServeError is a serve the log describes that membudget refuses; Logged
// is set when the refused setting came from the log.
type ServeError struct {
	Err    error
	Logged *SettingFrom
	Flag   string
}

// Error returns the refusal, with the log line it came from.
func (e *ServeError) Error() string {
	if e.Logged != nil {
		return fmt.Sprintf("the log's %s=%s (line %d, %s): %v; pass --%s to size another value", e.Logged.Key, e.Logged.Value, e.Logged.Line, e.Logged.Detail, e.Err, e.Flag)
	}
	return e.Err.Error()
}

// Unwrap returns the engine's refusal.
func (e *ServeError) Unwrap() error { return e.Err }

// Tally counts the comparisons, names the largest gap and says whether
// every comparison agrees; an explanation with nothing compared is an
// error. graphsBeside names the engine version when it allocates CUDA
// graphs beside the budget, "" when it charges them.
func (ex *Explanation) Tally(graphsBeside string) error {
	for _, row := range ex.Figures {
		if row.IsPredicted {
			ex.Compared++
			if !row.Within {
				ex.Over++
			}
		}
	}
	if ex.Compared == 0 && ex.Blocks == nil && ex.Starts == nil {
		var names []string
		for _, r := range ex.Figures {
			names = append(names, r.Label)
		}
		if len(names) > 0 {
			return fmt.Errorf("%s: membudget predicts none of the figures the log states (%s) for this serve", ex.Log.Name, strings.Join(names, ", "))
		}
		return fmt.Errorf("%s: the log states none of the figures membudget predicts (weights, activation peak, non-torch, CUDA graphs, requested memory, available KV memory, GPU blocks, KV cache size, maximum concurrency, the max-model-len error's estimate)", ex.Log.Name)
	}
	ex.Within = ex.Over == 0 && (ex.Blocks == nil || ex.Blocks.Exact) && (ex.Starts == nil || ex.Starts.Agree)
	ex.LargestGap = largestGap(ex.Figures, graphsBeside)
	return nil
}

// NotPredicted lists, one per kind, the figures no Spec compares, leaving
// out the kinds that are inputs.
func NotPredicted(l *logs.Log, specs []Spec, inputs ...logs.Kind) []LoggedFigure {
	used := map[logs.Kind]bool{}
	for _, k := range inputs {
		used[k] = true
	}
	for _, s := range specs {
		used[s.Kind] = true
	}
	var out []LoggedFigure
	for _, f := range l.Figures {
		if !used[f.Kind] {
			used[f.Kind] = true
			out = append(out, LoggedFigure{Kind: string(f.Kind), Text: f.Text, Line: f.Line})
		}
	}
	return out
}

// ClassInfoOf is how an explanation states the class chosen.
func ClassInfoOf(ch ClassChoice) ClassInfo {
	c := ch.Class
	ci := ClassInfo{Name: c.Name, Device: c.Device.Name, MemoryBytes: c.Device.MemoryBytes, How: ch.How, Base: ch.Base, Matched: ch.Matched, Named: ch.Named, Note: ch.Note}
	if ch.Total != nil {
		ci.LoggedTotal = ch.Total.Text
		if b, ok := ch.Total.Bytes(); ok {
			ci.LoggedTotalBytes = &b
		}
	}
	return ci
}

// TolRule is a tolerance: the bytes (memory) or the count, and its rule in
// words.
type TolRule func(f logs.Figure) (bytes int64, count float64, rule string)

// TolTerm is a memory term's tolerance: max(0.1 GiB, the log's rounding).
func TolTerm(f logs.Figure) (int64, float64, string) {
	return max(termFloorBytes, f.Tolerance()), 0, "max(0.1 GiB, the log's rounding)"
}

// TolWeights is the weights' tolerance: max(0.5 %, the log's rounding).
func TolWeights(f logs.Figure) (int64, float64, string) {
	b, _ := f.Bytes()
	return max(int64(math.Ceil(weightsShare*math.Abs(float64(b)))), f.Tolerance()), 0, "max(0.5 %, the log's rounding)"
}

// TolSum is the tolerance of a logged sum that holds the weights:
// max(0.1 GiB + 0.5 %, the log's rounding).
func TolSum(f logs.Figure) (int64, float64, string) {
	b, _ := f.Bytes()
	return max(termFloorBytes+int64(math.Ceil(weightsShare*math.Abs(float64(b)))), f.Tolerance()), 0, "max(0.1 GiB + 0.5 %, the log's rounding): a sum that holds the weights"
}

// TolKV is the KV memory's tolerance: max(1 %, the log's rounding).
func TolKV(f logs.Figure) (int64, float64, string) {
	b, _ := f.Bytes()
	return max(int64(math.Ceil(kvShare*math.Abs(float64(b)))), f.Tolerance()), 0, "max(1 %, the log's rounding)"
}

// TolCount is a count's tolerance: max(2 %, the log's rounding).
func TolCount(f logs.Figure) (int64, float64, string) {
	return 0, max(countShare*math.Abs(f.Float64()), roundingOf(f)), "max(2 %, the log's rounding)"
}

// Predicted is membudget's value of a figure: bytes for memory, a count
// otherwise; ok is false when it is not Predicted (note says why).
type Predicted struct {
	Bytes uint64
	Count float64
	OK    bool
	// Note says why a figure is not predicted, or how it was.
	Note string
}

// Spec is one figure an engine's log states that membudget predicts: its
// stable id and label, the kind of logged figure it compares, its unit
// (bytes, tokens, blocks or x) and its tolerance.
type Spec struct {
	ID, Label string
	Kind      logs.Kind
	Unit      string
	Tol       TolRule
	// Skip leaves out figures of these formats (a kind a line restates
	// after the fact).
	Skip []logs.Format
}

// PredictBytes returns a predicted memory figure.
func PredictBytes(b uint64) Predicted { return Predicted{Bytes: b, OK: true} }

// PredictCount returns a predicted count or ratio.
func PredictCount(n float64) Predicted { return Predicted{Count: n, OK: true} }

// rank0 matches a process a tensor-parallel rank 0 logs under ("Worker_TP0",
// "VllmWorker TP0", "TP0", "DP0 TP0 EP0").
var rank0 = regexp.MustCompile(`(?:^|[^A-Za-z0-9])TP0(?:$|[^0-9])`)

// otherRank matches a process of another rank: a TP rank above 0, or V0's
// worker processes (the driver, rank 0, logs without a prefix).
var otherRank = regexp.MustCompile(`(?:^|[^A-Za-z0-9])TP[1-9][0-9]*|TP0[0-9]|VllmWorkerProcess`)

// pick returns the figure a row compares: the first, unless the figures
// differ, then rank 0's (said in the note).
func pick(figs []logs.Figure) (logs.Figure, string) {
	first := figs[0]
	differ := false
	for _, f := range figs[1:] {
		// Two lines that print one quantity to different places ("14.9888
		// GB" and "14.99GiB") agree within both roundings.
		if math.Abs(figureValue(f)-figureValue(first)) > roundingOf(f)+roundingOf(first) {
			differ = true
			break
		}
	}
	if !differ {
		return first, ""
	}
	chosen, why := first, "the first"
	for _, f := range figs {
		if rank0.MatchString(f.Process) {
			chosen, why = f, "rank 0's"
			break
		}
	}
	if why == "the first" {
		for _, f := range figs {
			if !otherRank.MatchString(f.Process) {
				chosen, why = f, "rank 0's (the line without a worker's prefix)"
				break
			}
		}
	}
	var all []string
	for i, f := range figs {
		if i == 5 {
			all = append(all, fmt.Sprintf("and %d more", len(figs)-5))
			break
		}
		who := f.Process
		if who == "" {
			who = "no prefix"
		}
		all = append(all, fmt.Sprintf("%s on line %d (%s)", f.Value, f.Line, who))
	}
	return chosen, fmt.Sprintf("the log states it %d times, differently: %s; %s taken", len(figs), strings.Join(all, ", "), why)
}

// Rows sets each figure of specs the log states beside its prediction in
// preds (by Spec.ID): the difference, the tolerance, whether it is within.
func Rows(l *logs.Log, specs []Spec, preds map[string]Predicted) []Row {
	var out []Row
	for _, s := range specs {
		var figs []logs.Figure
		for _, f := range l.All(s.Kind) {
			if !slices.Contains(s.Skip, f.Format) {
				figs = append(figs, f)
			}
		}
		if len(figs) == 0 {
			continue
		}
		// "Actual usage is ..." restates the terms after graph capture, some
		// measured again ("peak activation" then holds more): the profile's
		// own lines come first.
		if first := slices.DeleteFunc(slices.Clone(figs), func(f logs.Figure) bool { return f.Format == logs.FormatActualUsage }); len(first) > 0 {
			figs = first
		}
		f, note := pick(figs)
		pr := preds[s.ID]
		tb, tc, rule := s.Tol(f)
		row := Row{Figure: s.ID, Label: s.Label, Unit: s.Unit, LoggedText: strings.TrimSpace(f.Value.String() + " " + unitText(f.Unit)), Line: f.Line, Process: f.Process,
			ToleranceRule: rule, IsPredicted: pr.OK, Note: JoinNote(note, pr.Note)}
		if s.Unit == "bytes" {
			lb, _ := f.Bytes()
			row.LoggedBytes, row.ToleranceBytes = &lb, &tb
			if pr.OK {
				pb := pr.Bytes
				d := diffBytes(pb, lb)
				row.PredictedBytes, row.DifferenceBytes = &pb, &d
				row.Within = abs64(d) <= tb
				if lb != 0 {
					pct := round2(float64(d) / math.Abs(float64(lb)) * 100)
					row.DifferencePercent = &pct
				}
			}
		} else {
			lv := f.Float64()
			row.Logged, row.Tolerance = &lv, &tc
			if pr.OK {
				pv := pr.Count
				d := pv - lv
				row.Predicted, row.Difference = &pv, &d
				row.Within = math.Abs(d) <= tc+1e-9
				if lv != 0 {
					pct := round2(d / math.Abs(lv) * 100)
					row.DifferencePercent = &pct
				}
			}
		}
		out = append(out, row)
	}
	return out
}

// figureValue is a figure's value in bytes for memory, as logged
// otherwise: "7.51 GiB" and "7.5100 GB" are the same.
func figureValue(f logs.Figure) float64 {
	if b, ok := f.Bytes(); ok {
		return float64(b)
	}
	return f.Float64()
}

// roundingOf is half a unit of the place the figure was rounded to, in
// the unit of [figureValue].
func roundingOf(f logs.Figure) float64 {
	if _, ok := f.Bytes(); ok {
		return float64(f.Tolerance())
	}
	if f.RoundedTo == 0 {
		return 0
	}
	return 0.5 * math.Pow10(-int(f.RoundedTo))
}

// diffBytes is Predicted - logged, saturating at the int64 range.
func diffBytes(pred uint64, logged int64) int64 {
	if pred > math.MaxInt64 {
		pred = math.MaxInt64
	}
	d := int64(pred) - logged
	if logged < 0 && d < 0 { // overflowed past MaxInt64
		return math.MaxInt64
	}
	return d
}

func abs64(x int64) int64 {
	if x < 0 {
		if x == math.MinInt64 {
			return math.MaxInt64
		}
		return -x
	}
	return x
}

// unitText is a figure's unit as an explanation prints it: memory in the
// unit logged, counts bare.
func unitText(u logs.Unit) string {
	switch u {
	case logs.UnitGiB, logs.UnitMiB, logs.UnitBytes:
		return string(u)
	case logs.UnitGBGiB:
		return "GB"
	case logs.UnitMBMiB:
		return "MB"
	case logs.UnitTimes:
		return "x"
	}
	return ""
}

// gapGroups rank the figures for the largest gap: the terms the available
// KV memory is what is left of, by bytes; then the sums of terms; then the
// KV figures, by per cent.
var gapGroups = [][]string{
	{"weights", "activation_peak", "non_torch", "cuda_graph_estimate", "cuda_graph", "requested_memory"},
	{"consumed", "non_kv_total", "torch_peak"},
	{"available_kv_memory", "kv_cache_needed", "gpu_blocks", "kv_cache_tokens", "max_concurrency", "estimated_max_model_len", "k_cache_memory", "v_cache_memory", "kv_pool_memory"},
}

// largestGap names, among the Predicted figures, the one that explains most
// of the difference: the memory term with the largest difference in bytes
// (the available KV memory, and the pool an SGLang log states, are what the
// budget leaves after the terms); but when the KV figures are over their
// tolerance and no logged term accounts for their gap, the KV figure itself,
// said so.
func largestGap(rows []Row, graphsBeside string) *Gap {
	predictedIn := func(group []string) []*Row {
		var out []*Row
		for i := range rows {
			if rows[i].IsPredicted && slices.Contains(group, rows[i].Figure) {
				out = append(out, &rows[i])
			}
		}
		return out
	}
	byBytes := func(r *Row) float64 { return math.Abs(float64(*r.DifferenceBytes)) }
	byPercent := func(r *Row) float64 {
		if r.DifferencePercent == nil {
			return 0
		}
		return math.Abs(*r.DifferencePercent)
	}
	largest := func(rs []*Row, score func(*Row) float64) *Row {
		var best *Row
		for _, r := range rs {
			if best == nil || score(r) > score(best) {
				best = r
			}
		}
		return best
	}
	terms := predictedIn(gapGroups[0])
	term := largest(terms, byBytes)
	// A sum of terms (V0's torch peak, weights + activation) carries the
	// gap of a part the log does not show on its own: when its gap is over
	// its tolerance and larger than every logged term's together, the
	// logged terms cannot account for it, and the sum is what explains the
	// gap, not the device or the budget (issue 20).
	var partsBytes float64
	for _, r := range terms {
		partsBytes += byBytes(r)
	}
	if sum := largest(predictedIn(gapGroups[1]), byBytes); sum != nil && (term == nil || !sum.Within && byBytes(sum) > partsBytes) {
		term = sum
	}
	kvRows := predictedIn(gapGroups[2])
	var kvOver []*Row
	for _, r := range kvRows {
		if !r.Within {
			kvOver = append(kvOver, r)
		}
	}
	var avail *Row
	for _, r := range kvRows {
		if r.Figure == "available_kv_memory" {
			avail = r
		}
	}
	unexplained := func(kv *Row) *Gap {
		return &Gap{Figure: kv.Figure, Label: kv.Label, Within: false,
			Sentence: fmt.Sprintf("%s: %s; no logged term accounts for it (the largest, %s, differs by %s): the gap is in what the log does not show: the device total or the budget the engine requested (check --class and the util), or an unlogged term",
				kv.Label, rowDifference(kv), term.Label, gibSigned(*term.DifferenceBytes))}
	}
	switch {
	case term == nil:
		kv := largest(kvRows, byPercent)
		if kv == nil {
			return nil
		}
		return &Gap{Figure: kv.Figure, Label: kv.Label, Within: kv.Within, Sentence: kv.Label + ": " + rowDifference(kv)}
	case avail != nil && !avail.Within && abs64(*avail.DifferenceBytes) > 2*abs64(*term.DifferenceBytes):
		return unexplained(avail)
	case avail == nil && term.Within && len(kvOver) > 0:
		return unexplained(largest(kvOver, byPercent))
	}
	g := &Gap{Figure: term.Figure, Label: term.Label, Within: term.Within, Sentence: term.Label + ": " + rowDifference(term)}
	graph := term.Figure == "cuda_graph" || term.Figure == "cuda_graph_estimate"
	switch {
	case graph && graphsBeside != "" && avail != nil:
		g.Sentence += fmt.Sprintf("; %s allocates the graphs beside the budget, so they do not change the available KV memory, which is off by %s", graphsBeside, gibSigned(*avail.DifferenceBytes))
		var charged []*Row
		for _, r := range predictedIn(gapGroups[0]) {
			if r.Figure != "cuda_graph" && r.Figure != "cuda_graph_estimate" {
				charged = append(charged, r)
			}
		}
		if c := largest(charged, byBytes); c != nil {
			g.Sentence += fmt.Sprintf(" (of the terms charged to the budget, %s differs most: %s)", c.Label, gibSigned(*c.DifferenceBytes))
		}
	case graph && graphsBeside != "":
		g.Sentence += fmt.Sprintf("; %s allocates the graphs beside the budget, after the KV cache", graphsBeside)
	case avail != nil:
		g.Sentence += fmt.Sprintf("; the available KV memory is off by %s", gibSigned(*avail.DifferenceBytes))
	}
	return g
}

// rowDifference says a row's logged and Predicted values and the
// difference.
func rowDifference(r *Row) string {
	verdict := "within"
	if !r.Within {
		verdict = "over"
	}
	pct := ""
	if r.DifferencePercent != nil {
		pct = fmt.Sprintf(", %+.1f %%", *r.DifferencePercent)
	}
	if r.Unit == "bytes" {
		return fmt.Sprintf("logged %s, membudget %s (%s%s), %s its tolerance of %s",
			gibFromInt(*r.LoggedBytes), gib(*r.PredictedBytes), gibSigned(*r.DifferenceBytes), pct, verdict, gib(uint64(*r.ToleranceBytes)))
	}
	return fmt.Sprintf("logged %s, membudget %s (%s%s), %s its tolerance of %s",
		countString(*r.Logged, r.Unit), countString(*r.Predicted, r.Unit), signedCount(*r.Difference, r.Unit), pct, verdict, countString(*r.Tolerance, r.Unit))
}

func gibFromInt(b int64) string {
	if b < 0 {
		return "-" + gib(uint64(-b))
	}
	return gib(uint64(b))
}

// countString renders a count in its unit: "3.75x", "122912 tokens".
func countString(v float64, unit string) string {
	if unit == "x" {
		return fmt.Sprintf("%.2fx", v)
	}
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f %s", v, unit)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

func signedCount(v float64, unit string) string {
	if unit == "x" {
		return fmt.Sprintf("%+.2fx", v)
	}
	if v == math.Trunc(v) {
		return fmt.Sprintf("%+.0f %s", v, unit)
	}
	return fmt.Sprintf("%+.1f %s", v, unit)
}
