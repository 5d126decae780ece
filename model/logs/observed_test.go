package logs

import (
	"encoding/csv"
	"fmt"
	"math/big"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// observedPath is the table the test reads; MEMBUDGET_OBSERVED names another
// file of the same columns (a merged table before it is copied in).
func observedPath() string {
	if p := os.Getenv("MEMBUDGET_OBSERVED"); p != "" {
		return p
	}
	return "../../corpus/observed/vllm.csv"
}

// observedColumns are the table's figure columns and the kinds of figure that
// stand for each. The cudagraph column holds the capture where a log gives it
// and the estimate where it gives only that (its notes say which); the
// activation column the profile's peak, or where the log's one activation
// figure is the #49208 line's, that line's peak with the graph estimate.
var observedColumns = []struct {
	column string
	kinds  []Kind
	memory bool
}{
	{"weights_gib", []Kind{KindWeights}, true},
	{"non_torch_gib", []Kind{KindNonTorch}, true},
	{"activation_peak_gib", []Kind{KindActivationPeak, KindActivationWithGraphs}, true},
	{"kv_cache_gib", []Kind{KindKVCacheMemory}, true},
	{"kv_cache_tokens", []Kind{KindKVCacheTokens}, false},
	{"gpu_blocks", []Kind{KindGPUBlocks}, false},
	{"cpu_blocks", []Kind{KindCPUBlocks}, false},
	{"max_concurrency", []Kind{KindMaxConcurrency}, false},
	{"cudagraph_gib", []Kind{KindCUDAGraph, KindCUDAGraphEstimate}, true},
}

// allColumns stands for every column of a row in observedExceptions.
const allColumns = "*"

// observedExceptions are the cells whose value is not in the row's quote, by
// row id and column, with the reason; the test fails when one is no longer
// needed, so the list stays true. Ids above 74 are rows of the newer table
// that MEMBUDGET_OBSERVED can name.
var observedExceptions = map[string]map[string]string{
	"2":  {"weights_gib": "from the same issue's first log (row 1); this quote does not repeat the weights line"},
	"4":  {"kv_cache_gib": "K size + V size (8.23 + 8.23 GB): checked as the sum in TestObservedSGLangKVSum"},
	"11": {"non_torch_gib": "read from the issue in an earlier pass; the quote does not hold it (notes)", "activation_peak_gib": "likewise not in the quote (notes)", "kv_cache_gib": "likewise not in the quote (notes)"},
	"16": {allColumns: "not a log line: the pull request's prose ('KV cache 1,710,928 tokens (after PR)')"},
	"20": {allColumns: "not a log line: the issue's summary ('weights 0.93 GiB, torch peak 0.59 GiB, ...')"},
	"23": {"weights_gib": "the quote ends 'Model loading took 29.09' with no unit: the reader does not guess one"},
	"43": {"gpu_blocks": "engine-level blocks shared with the worker-A row (notes); not in this worker's quote", "cpu_blocks": "likewise engine-level, not in the quote", "max_concurrency": "likewise engine-level, not in the quote"},
	"55": {"gpu_blocks": "derived: 205,888 tokens / 16 (the quote's prose), no block line logged"},
	"61": {allColumns: "not a log line: a markdown table extracted from DEBUG logs"},
	"62": {allColumns: "not a log line: a markdown table extracted from DEBUG logs"},
	"64": {allColumns: "not a log line: a markdown table extracted from DEBUG logs"},
	"65": {allColumns: "not a log line: a markdown table extracted from DEBUG logs"},
	"67": {allColumns: "not a log line: a markdown table extracted from DEBUG logs"},
	"68": {allColumns: "not a log line: a markdown table and the author's arithmetic"},
	"74": {"weights_gib": "the author's transcription 'model load: 0.93 GiB', not vLLM's wording", "kv_cache_gib": "transcribed 'available KV cache memory' (lower case), not vLLM's wording", "max_concurrency": "transcribed 'tokens/request', not vLLM's wording"},

	"107": {"weights_gib": "vllm-metal plugin's 'model_memory=1.19GB': not vLLM's line, and its GB is not verified to be GiB", "kv_cache_gib": "vllm-metal's 'KV cache: 879.0 MB': not vLLM's line", "gpu_blocks": "vllm-metal's 'num_blocks=479': not vLLM's line"},
	"108": {"gpu_blocks": "from a companion log of the same setup (notes), not in the quote"},
	"111": {"activation_peak_gib": "derived: peak 13552.69 MB - torch 12870.74 MB (notes)"},
	"114": {"weights_gib": "the logged 64.44 GiB is consumed memory (weights + non-torch), read as KindConsumed"},
	"182": {allColumns: "not a log line: llm-d-planner's parsed JSON fields (notes)"},
	"183": {allColumns: "not a log line: llm-d-planner's parsed JSON fields (notes)"},
	"184": {allColumns: "not a log line: llm-d-planner's parsed JSON fields (notes)"},
	"185": {allColumns: "not a log line: llm-d-planner's parsed JSON fields (notes)"},
	"320": {"kv_cache_gib": "K size + V size (5.69 + 5.69 GB): checked as the sum in TestObservedSGLangKVSum"},
	"321": {allColumns: "not a log line: the notes' markdown table of the SGLang runs (notes)"},
	"361": {allColumns: "not a log line: the ADR's markdown table of what vLLM reported (notes)"},
	"362": {allColumns: "not a log line: the ADR's markdown table of what vLLM reported (notes)"},
	"381": {allColumns: "not a log line: the notes' account of vLLM's figures ('Model weights: 48.5 GiB', 'KV cache: 40.56 GiB → 557,022 tokens of capacity')"},
}

type observedRow map[string]string

func readObserved(t *testing.T) []observedRow {
	t.Helper()
	path := observedPath()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(recs) < 2 {
		t.Fatalf("%s: no rows", path)
	}
	var rows []observedRow
	for _, rec := range recs[1:] {
		r := observedRow{}
		for i, h := range recs[0] {
			r[h] = strings.TrimSpace(rec[i])
		}
		rows = append(rows, r)
	}
	return rows
}

var leadingDecimal = regexp.MustCompile(`^-?[0-9][0-9,]*(\.[0-9]+)?`)

// cell returns the number a cell starts with ("0.61 (estimated)" is 0.61),
// and false when it starts with none ("(included in 64.44)", "default").
func (r observedRow) cell(column string) (Decimal, bool) {
	return parseDecimal(leadingDecimal.FindString(r[column]))
}

// agrees reports whether a logged figure and a table cell are the same
// number within both roundings: |figure - cell| <= half a unit of the
// figure's rounding + half a unit of the cell's last digit, all exact. Memory
// cells are GiB.
func agrees(f Figure, cell Decimal, memory bool) bool {
	scale := big.NewRat(1, 1)
	if memory {
		per, ok := f.Unit.Bytes()
		if !ok {
			return false
		}
		scale = new(big.Rat).SetFrac(big.NewInt(per), big.NewInt(1<<30))
	}
	fig := new(big.Rat).Mul(ratOf(f.Value), scale)
	diff := new(big.Rat).Sub(fig, ratOf(cell))
	diff.Abs(diff)
	tol := new(big.Rat).Add(
		new(big.Rat).Mul(halfUnit(f.RoundedTo), scale),
		halfUnit(cell.Places))
	return diff.Cmp(tol) <= 0
}

func ratOf(d Decimal) *big.Rat { return new(big.Rat).SetFrac(big.NewInt(d.Units), pow10(d.Places)) }

// halfUnit is 0.5 * 10^-places.
func halfUnit(places uint8) *big.Rat {
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Mul(big.NewInt(2), pow10(places)))
}

// TestObservedQuotesParse reads every quote of the observed table through
// ParseQuote and checks each figure column against the figures the quote
// states: some figure of the column's kinds must agree with the cell within
// both roundings (every occurrence is kept, so a row whose log repeats a
// figure in two lines matches either), unless the cell is a listed exception.
func TestObservedQuotesParse(t *testing.T) {
	rows := readObserved(t)
	checked := 0
	for _, r := range rows {
		id := r["id"]
		log, err := ParseQuote(r["quote"])
		if err != nil {
			t.Errorf("row %s: %v", id, err)
			continue
		}
		exc := observedExceptions[id]
		if _, whole := exc[allColumns]; !whole && len(log.Figures) == 0 {
			t.Errorf("row %s: the quote states no figure: %q", id, r["quote"])
		}
		for _, c := range observedColumns {
			cell, ok := r.cell(c.column)
			reason, excepted := exc[c.column]
			if !excepted {
				reason, excepted = exc[allColumns]
			}
			if !ok {
				if _, listed := exc[c.column]; listed {
					t.Errorf("row %s %s: exception %q for a cell with no number", id, c.column, reason)
				}
				continue
			}
			var candidates []Figure
			for _, k := range c.kinds {
				candidates = append(candidates, log.All(k)...)
			}
			found := slices.ContainsFunc(candidates, func(f Figure) bool { return agrees(f, cell, c.memory) })
			switch {
			case found && excepted:
				t.Errorf("row %s %s: listed as an exception (%s) but the quote states %s", id, c.column, reason, cell)
			case !found && !excepted:
				t.Errorf("row %s %s: the table has %s; the quote's figures of %v are %s", id, c.column, cell, c.kinds, describe(candidates))
			case found:
				checked++
			}
		}
	}
	t.Logf("%s: %d rows, %d cells agree with their quote", observedPath(), len(rows), checked)
	if checked < 100 {
		t.Errorf("only %d cells checked: the table or the reader lost its figures", checked)
	}
}

// TestObservedSGLangKVSum checks the SGLang rows, whose kv_cache_gib is the
// sum of the logged K and V sizes (the table's notes): 8.23 GB + 8.23 GB =
// 16.46 within the two roundings (0.005 each) and the cell's (0.005).
func TestObservedSGLangKVSum(t *testing.T) {
	sums := 0
	for _, r := range readObserved(t) {
		if r["engine"] != "sglang" {
			continue
		}
		cell, ok := r.cell("kv_cache_gib")
		if !ok {
			continue
		}
		log, err := ParseQuote(r["quote"])
		if err != nil {
			t.Fatal(err)
		}
		k, okK := log.First(KindKCacheMemory)
		v, okV := log.First(KindVCacheMemory)
		if !okK || !okV {
			t.Errorf("row %s: no K and V sizes in %q", r["id"], r["quote"])
			continue
		}
		sum := new(big.Rat).Add(ratOf(k.Value), ratOf(v.Value))
		diff := new(big.Rat).Sub(sum, ratOf(cell))
		diff.Abs(diff)
		tol := new(big.Rat).Add(new(big.Rat).Add(halfUnit(k.RoundedTo), halfUnit(v.RoundedTo)), halfUnit(cell.Places))
		if diff.Cmp(tol) > 0 {
			t.Errorf("row %s: K %s + V %s GiB is not the table's %s", r["id"], k.Value, v.Value, cell)
		}
		sums++
	}
	if sums == 0 {
		t.Error("no SGLang row with K and V sizes")
	}
}

// observedSettings maps the table's setting columns to the settings' keys.
var observedSettings = []struct{ column, key string }{
	{"tp", "tensor_parallel_size"},
	{"pp", "pipeline_parallel_size"},
	{"gpu_mem_util", "gpu_memory_utilization"},
	{"max_model_len", "max_model_len"},
	{"max_num_seqs", "max_num_seqs"},
	{"max_num_batched_tokens", "max_num_batched_tokens"},
	{"block_size", "block_size"},
}

// TestObservedSettingsAgree checks that where a quote states a setting and
// the table has a number for it, they are the same number.
func TestObservedSettingsAgree(t *testing.T) {
	checked := 0
	for _, r := range readObserved(t) {
		log, err := ParseQuote(r["quote"])
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range observedSettings {
			cell, ok := r.cell(c.column)
			if !ok {
				continue
			}
			for _, s := range log.Settings {
				if s.Key != c.key {
					continue
				}
				got, ok := parseDecimal(s.Value)
				if !ok || ratOf(got).Cmp(ratOf(cell)) != 0 {
					t.Errorf("row %s %s: the table has %s, the quote's %s line states %q", r["id"], c.column, cell, s.Source, s.Value)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no setting checked: the reader lost the settings lines")
	}
}

func describe(fs []Figure) string {
	if len(fs) == 0 {
		return "none"
	}
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", f.Value, f.Unit, f.Format))
	}
	return strings.Join(parts, ", ")
}
