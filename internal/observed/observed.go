// Package observed reads corpus/observed, the public vLLM startup logs that
// the tests of engine/vllm and cmd/membudget check membudget against: the
// rows of vllm.csv, the config that stands for each logged model id
// (models.csv) and the class that stands for each logged GPU (gpus.csv).
// One reading of those tables serves both tests; the command does not use
// it.
package observed

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// maxTable bounds a table read: the largest, vllm.csv, is a few hundred KiB.
const maxTable = 16 << 20

// Row is one row of vllm.csv: its cells by column name, trimmed.
type Row map[string]string

// leadingNumber is the number a setting cell starts with, thousands
// separators allowed ("131,072 (default)").
var leadingNumber = regexp.MustCompile(`^-?[0-9][0-9,]*(\.[0-9]+)?`)

// Num returns the number the cell of column key starts with ("0.93
// (mem-fraction-static)" is 0.93); ok is false for a cell that starts with
// none.
func (r Row) Num(key string) (float64, bool) {
	m := leadingNumber.FindString(r[key])
	if m == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
	return v, err == nil
}

// NumText returns the number the cell of column key starts with as text,
// without thousands separators ("" when it starts with none): a flag value.
func (r Row) NumText(key string) string {
	return strings.ReplaceAll(leadingNumber.FindString(r[key]), ",", "")
}

// Model is what stands for a logged model id.
type Model struct {
	// Config names a config.json of corpus/models (org__name), or a
	// stand-in a test defines.
	Config string
	// Quantization is the --quantization that reproduces the checkpoint
	// when the config lacks it ("" for none).
	Quantization string
	// WeightsModelled is false for a checkpoint whose weights membudget
	// does not model (GGUF, an AWQ or GPTQ checkpoint of a bf16 config):
	// only its KV arithmetic is checked.
	WeightsModelled bool
	// Note says why the config stands for the logged id.
	Note string
}

// GPU is a class that stands for logged GPU names: those that contain
// Substr. Class is "" for a GPU no class stands for, Note says why.
type GPU struct{ Substr, Class, Note string }

// Tables are corpus/observed's three tables.
type Tables struct {
	Rows   []Row
	Models map[string]Model
	// GPUs are in the order they are tried: the first match wins.
	GPUs []GPU
}

// Read reads the tables from dir, corpus/observed.
func Read(dir string) (*Tables, error) {
	rows, err := readCSV(filepath.Join(dir, "vllm.csv"), "id", "model_hf_id", "gpu_model", "quote")
	if err != nil {
		return nil, err
	}
	t := &Tables{Rows: rows, Models: map[string]Model{}}
	models, err := readCSV(filepath.Join(dir, "models.csv"), "logged_model", "config", "quantization", "weights_modelled", "note")
	if err != nil {
		return nil, err
	}
	for i, m := range models {
		id := m["logged_model"]
		if _, dup := t.Models[id]; dup {
			return nil, fmt.Errorf("%s: row %d: logged_model %q appears twice", filepath.Join(dir, "models.csv"), i+2, id)
		}
		var modelled bool
		switch m["weights_modelled"] {
		case "yes":
			modelled = true
		case "no":
		default:
			return nil, fmt.Errorf("%s: row %d: weights_modelled %q: want yes or no", filepath.Join(dir, "models.csv"), i+2, m["weights_modelled"])
		}
		if m["config"] == "" {
			return nil, fmt.Errorf("%s: row %d: config is empty", filepath.Join(dir, "models.csv"), i+2)
		}
		t.Models[id] = Model{Config: m["config"], Quantization: m["quantization"], WeightsModelled: modelled, Note: m["note"]}
	}
	gpus, err := readCSV(filepath.Join(dir, "gpus.csv"), "logged_gpu", "class", "note")
	if err != nil {
		return nil, err
	}
	for i, g := range gpus {
		if g["logged_gpu"] == "" {
			return nil, fmt.Errorf("%s: row %d: logged_gpu is empty", filepath.Join(dir, "gpus.csv"), i+2)
		}
		t.GPUs = append(t.GPUs, GPU{Substr: g["logged_gpu"], Class: g["class"], Note: g["note"]})
	}
	return t, nil
}

// GPUOf returns the entry that stands for a logged GPU name, the first
// whose Substr it contains; ok is false when none matches.
func (t *Tables) GPUOf(logged string) (GPU, bool) {
	for _, g := range t.GPUs {
		if strings.Contains(logged, g.Substr) {
			return g, true
		}
	}
	return GPU{}, false
}

// readCSV reads the CSV file at path into rows by column name, with every
// column of want present in its header.
func readCSV(path string, want ...string) ([]Row, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > maxTable {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, maxTable)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no header", path)
	}
	header := map[string]bool{}
	for _, h := range recs[0] {
		header[h] = true
	}
	for _, w := range want {
		if !header[w] {
			return nil, fmt.Errorf("%s: no column %q", path, w)
		}
	}
	rows := make([]Row, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		r := Row{}
		for i, h := range recs[0] {
			r[h] = strings.TrimSpace(rec[i])
		}
		rows = append(rows, r)
	}
	return rows, nil
}
