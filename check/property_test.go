package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/check"
	"membudget/internal/shell"
)

// TestScriptReadsWhatShellQuoteWrites: a launch line membudget prints
// (each word through internal/shell's Quote) is read back by check word
// for word, whatever the words hold: quotes, spaces, $, #, newlines.
func TestScriptReadsWhatShellQuoteWrites(t *testing.T) {
	o := options(t)
	rapid.Check(t, func(t *rapid.T) {
		words := rapid.SliceOfN(rapid.StringMatching(`[ -~\n\t]{0,12}|[a-z0-9./-]{1,12}`), 0, 8).Draw(t, "words")
		quoted := []string{"vllm", "serve"}
		for _, w := range words {
			quoted = append(quoted, shell.Quote(w))
		}
		script := "#!/bin/sh\nexec " + strings.Join(quoted, " ") + "\n"
		got, err := check.Read("run.sh", []byte(script), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Fatalf("%q: found %d servers, want 1", script, len(got))
		}
		want := append([]string{"vllm", "serve"}, words...)
		if diff := cmp.Diff(want, got[0].Args); diff != "" {
			t.Fatalf("%q (-want +got):\n%s", script, diff)
		}
		if got[0].Line != 2 || got[0].Err != "" {
			t.Fatalf("line %d, error %q; want line 2 and none", got[0].Line, got[0].Err)
		}
	})
}

// FuzzRead: no input panics or hangs the reader, as YAML or as a script,
// and every server it finds has a line in the file.
func FuzzRead(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, data := range hostile() {
		f.Add(data)
	}
	o := options(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"f.yaml", "f.sh"} {
			servers, err := check.Read(name, data, o)
			if err != nil {
				continue
			}
			lines := strings.Count(string(data), "\n") + 1
			for _, s := range servers {
				if s.Line < 1 || s.Line > lines {
					t.Errorf("%s: server at line %d of %d", name, s.Line, lines)
				}
			}
		}
	})
}
