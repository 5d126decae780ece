package properties

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// corpusDir holds the seed corpora, one folder per fuzz target, in Go's
// "go test fuzz v1" format. Go itself replays only <package>/testdata/fuzz;
// these live in the top-level corpus/ with the other data, and every fuzz
// target adds them as seeds, so that plain `go test` replays each file.
const corpusDir = "../corpus/fuzz"

// readCorpusFile parses one "go test fuzz v1" file into values of the
// target's argument types.
func readCorpusFile(path string, types []reflect.Type) ([]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) == 0 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("%s: first line must be %q", path, "go test fuzz v1")
	}
	if len(lines)-1 != len(types) {
		return nil, fmt.Errorf("%s: %d values for %d arguments", path, len(lines)-1, len(types))
	}
	values := make([]any, len(types))
	for i, line := range lines[1:] {
		v, err := parseCorpusValue(line, types[i])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+2, err)
		}
		values[i] = v
	}
	return values, nil
}

func parseCorpusValue(line string, typ reflect.Type) (any, error) {
	name := typ.String()
	if typ.Kind() == reflect.Slice {
		name = "[]byte"
	}
	inner, ok := strings.CutPrefix(line, name+"(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return nil, fmt.Errorf("want %s(...), got %q", name, line)
	}
	inner = strings.TrimSuffix(inner, ")")
	switch typ.Kind() {
	case reflect.String:
		return strconv.Unquote(inner)
	case reflect.Slice:
		s, err := strconv.Unquote(inner)
		return []byte(s), err
	case reflect.Bool:
		return strconv.ParseBool(inner)
	case reflect.Uint64:
		return strconv.ParseUint(inner, 0, 64)
	case reflect.Float64:
		if bits, ok := strings.CutPrefix(inner, "math.Float64frombits("); ok {
			u, err := strconv.ParseUint(strings.TrimSuffix(bits, ")"), 0, 64)
			return mathFloat64frombits(u), err
		}
		return strconv.ParseFloat(inner, 64)
	}
	return nil, fmt.Errorf("unsupported type %s", typ)
}

// addCorpus adds every file of corpusDir/<target> as a seed of f; the test
// fails on a malformed file or an empty folder, so that a corpus cannot be
// silently skipped.
func addCorpus(f *testing.F, target string, fn any) {
	f.Helper()
	ft := reflect.TypeOf(fn)
	var types []reflect.Type
	for i := 1; i < ft.NumIn(); i++ { // argument 0 is *testing.T
		types = append(types, ft.In(i))
	}
	files, err := filepath.Glob(filepath.Join(corpusDir, target, "*"))
	if err != nil {
		f.Fatal(err)
	}
	if len(files) == 0 {
		f.Fatalf("%s/%s holds no corpus files", corpusDir, target)
	}
	for _, file := range files {
		values, err := readCorpusFile(file, types)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(values...)
	}
}
